"""`manage.py seed_demo`: idempotent demo Kanzlei with scoped access (PROTOCOL.md)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.utils import timezone

from akten.demo import AKTEN, seed_demo_kanzlei
from akten.models import (
    Akte,
    AktenZugriff,
    Alert,
    Beteiligter,
    Dokument,
    Frist,
    Notiz,
    Role,
    User,
    Zeiterfassung,
)
from akten.selectors import akten_for

pytestmark = pytest.mark.django_db

PW = "x-test-pw"
ROLES = {
    "admin": Role.ADMIN,
    "anwalt": Role.ANWALT,
    "sachbearbeiter": Role.SACHBEARBEITER,
    "sekretariat": Role.SEKRETARIAT,
    "praktikant": Role.PRAKTIKANT,
}
NON_ADMIN = [name for name in ROLES if name != "admin"]
MODELS = (User, Akte, AktenZugriff, Beteiligter, Frist, Dokument, Zeiterfassung, Notiz, Alert)


@pytest.fixture(autouse=True)
def fast_hasher(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def seed(password: str = PW) -> str:
    out = StringIO()
    call_command("seed_demo", password=password, stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def visible(username: str) -> set[str]:
    return set(akten_for(user=User.objects.get(username=username)).values_list("aktenzeichen", flat=True))


def test_running_twice_gives_identical_counts() -> None:
    seed()
    first = counts()
    output = seed()
    assert counts() == first
    assert first["Akte"] >= 6
    assert all(n > 0 for n in first.values()), first
    assert "nichts neu angelegt" in output
    assert "Akten" in output and "praktikant" in output


def test_rerun_on_a_later_day_keeps_existing_rows() -> None:
    heute = timezone.localdate()
    seed_demo_kanzlei(password=PW, heute=heute)
    first = counts()
    fristen = dict(Frist.objects.values_list("pk", "datum"))
    summary = seed_demo_kanzlei(password=PW, heute=heute + timedelta(days=40))
    assert counts() == first
    assert dict(Frist.objects.values_list("pk", "datum")) == fristen
    assert summary.neu_angelegt == 0


def test_users_have_their_roles_and_can_log_in() -> None:
    seed()
    for username, role in ROLES.items():
        user = authenticate(username=username, password=PW)
        assert user is not None, username
        assert user.role == role
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.is_staff


def test_password_option_on_a_second_run_changes_the_password() -> None:
    seed("erstes-pw")
    seed("zweites-pw")
    for username in ROLES:
        assert authenticate(username=username, password="zweites-pw") is not None
        assert authenticate(username=username, password="erstes-pw") is None


def test_every_non_admin_sees_some_but_not_all_akten() -> None:
    seed()
    total = Akte.objects.count()
    assert len(visible("admin")) == total
    for username in NON_ADMIN:
        assert 0 < len(visible(username)) < total, username
    assert 1 <= len(visible("praktikant")) <= 2
    assert len(visible("sekretariat")) >= 3


def test_at_least_one_akte_is_visible_to_anwalt_only() -> None:
    seed()
    others = set().union(*(visible(u) for u in NON_ADMIN if u != "anwalt"))
    assert visible("anwalt") - others


def test_access_matches_the_documented_matrix() -> None:
    seed()
    for username in NON_ADMIN:
        assert visible(username) == {a.aktenzeichen for a in AKTEN if username in a.zugriff}


def test_there_are_upcoming_overdue_and_done_fristen() -> None:
    seed()
    heute = timezone.localdate()
    offen = Frist.objects.filter(erledigt=False)
    assert offen.filter(datum__gte=heute).count() >= 3
    assert offen.filter(datum__lt=heute).exists()
    assert Frist.objects.filter(erledigt=True, datum__lt=heute).exists()
    assert offen.filter(ist_notfrist=True, datum__gte=heute).exists()
    assert all(f.vorfrist <= f.datum for f in Frist.objects.exclude(vorfrist=None))


def test_akten_cover_the_main_rechtsgebiete_with_content() -> None:
    seed()
    gebiete = set(Akte.objects.values_list("rechtsgebiet", flat=True))
    assert {"arbeitsrecht", "mietrecht", "verkehrsrecht", "kaufrecht", "erbrecht", "familienrecht"} <= gebiete
    for akte in Akte.objects.all():
        assert akte.beteiligte.filter(rolle=Beteiligter.Rolle.MANDANT).exists(), akte
        assert akte.dokumente.exists() and akte.fristen.exists() and akte.zeiterfassungen.exists(), akte
    # Document templates are fully rendered (no "{name}" left over).
    assert not Dokument.objects.filter(inhalt__regex=r"\{[a-z_]+\}").exists()
