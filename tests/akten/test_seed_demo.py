"""`manage.py seed_demo`: idempotent demo Kanzlei with scoped access (PROTOCOL.md)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.utils import timezone

from akten.demo import AKTEN, seed_demo_kanzlei
from akten.dokumente.ausgabe import render
from akten.models import (
    Akte,
    AktenZugriff,
    Alert,
    Beteiligter,
    Briefkopf,
    Dokument,
    Frist,
    Notiz,
    Role,
    User,
    Zeiterfassung,
)
from akten.selectors import akten_for
from tests.akten.test_dokument_ausgabe import pdf_text

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


def test_the_demo_kanzlei_has_the_letterhead_its_texts_use() -> None:
    """The Briefkopf carries the name and address the demo's own letters print (issue 31)."""
    seed()
    briefkopf = Briefkopf.current()
    assert briefkopf.pk and briefkopf.kanzlei == "Brandt & Hartmann Rechtsanwälte"
    assert (briefkopf.anschrift, briefkopf.ort) == ("Lindenallee 12\n50968 Köln", "Köln")
    assert briefkopf.telefon and briefkopf.email.endswith("@kanzlei-demo.de")
    klage = Dokument.objects.get(titel="Entwurf: Kündigungsschutzklage")
    assert "Brandt & Hartmann Rechtsanwälte, Lindenallee 12, 50968 Köln" in klage.inhalt

    # the Aktenvermerk of 101/26 as PDF: the Kanzlei on top, no court it would be addressed to
    vermerk = Dokument.objects.get(titel="Aktenvermerk: Erstberatung zur Kündigung")
    text = " ".join(pdf_text(render(dokument=vermerk, format="pdf").inhalt).split())
    kopf = text.split("In Sachen")[0]
    assert "Brandt & Hartmann Rechtsanwälte" in kopf and "Lindenallee 12" in kopf and "Tel. 0221" in kopf
    assert "Arbeitsgericht" not in kopf and "Unser Zeichen: 101/26" in kopf
    assert "Maximilian Hartmann" in text and "Rechtsanwältin / Rechtsanwalt" not in text

    # a letterhead the firm changed is kept on the next run, and there stays one
    Briefkopf.objects.update(kanzlei="Brandt Hartmann Partnerschaft")
    seed()
    assert list(Briefkopf.objects.values_list("kanzlei", flat=True)) == ["Brandt Hartmann Partnerschaft"]


def test_the_demo_beteiligten_have_their_anrede() -> None:
    seed()

    def anrede(name: str) -> str:
        return Beteiligter.objects.filter(name=name).values_list("anrede", flat=True).first()

    assert anrede("Renate Hoffmann") == Beteiligter.Anrede.FRAU
    assert anrede("Thomas Müller") == Beteiligter.Anrede.HERR
    assert anrede("Bauer Logistik GmbH") == Beteiligter.Anrede.FIRMA
    assert anrede("Arbeitsgericht Köln") == ""
    assert not Beteiligter.objects.filter(anrede="").exclude(rolle=Beteiligter.Rolle.GERICHT).exists()
    # a demo seeded before there was an Anrede gets it; one the firm chose stays
    Beteiligter.objects.filter(name="Renate Hoffmann").update(anrede="")
    Beteiligter.objects.filter(name="Kevin Lorenz").update(anrede=Beteiligter.Anrede.DIVERS)
    seed()
    assert anrede("Renate Hoffmann") == Beteiligter.Anrede.FRAU
    assert anrede("Kevin Lorenz") == Beteiligter.Anrede.DIVERS
