"""Domain rules and scoping of the selectors that every later feature (and Helena's tools) reads through."""

from __future__ import annotations

from datetime import date, timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.utils import timezone

from akten import selectors
from akten.accounts.users import user_for_token
from akten.models import Akte, Alert, Dokument, Frist, Notiz, Zeiterfassung
from akten.services import revoke_access
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def test_create_api_token_command_prints_one_working_token(kanzlei: Kanzlei) -> None:
    out = StringIO()
    call_command("create_api_token", "praktikant", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert user_for_token(raw=lines[0]) == kanzlei.users["praktikant"]


def test_create_api_token_for_unknown_user_fails_clearly(kanzlei: Kanzlei) -> None:
    with pytest.raises(CommandError, match="gibt es nicht"):
        call_command("create_api_token", "niemand")


@pytest.mark.parametrize("aktenzeichen", ["", "/26", "a" * 40, "12/26; DROP", "<b>1</b>"])
def test_aktenzeichen_is_validated(kanzlei: Kanzlei, aktenzeichen: str) -> None:
    akte = Akte(aktenzeichen=aktenzeichen, kurzrubrum="X ./. Y")
    with pytest.raises(ValidationError):
        akte.full_clean()


def test_aktenzeichen_is_unique(kanzlei: Kanzlei) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Akte.objects.create(aktenzeichen="1/26", kurzrubrum="Doppelt")


def test_vorfrist_after_frist_is_refused(kanzlei: Kanzlei) -> None:
    frist = Frist(akte=kanzlei.akten["A"], bezeichnung="Berufung", datum=date(2026, 3, 2),
                  vorfrist=date(2026, 3, 5))
    with pytest.raises(ValidationError, match="Vorfrist"):
        frist.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        frist.save()


def test_only_a_frist_can_be_a_notfrist(kanzlei: Kanzlei) -> None:
    termin = Frist(akte=kanzlei.akten["A"], typ="termin", bezeichnung="Güteverhandlung",
                   datum=date(2026, 3, 2), ist_notfrist=True)
    with pytest.raises(ValidationError, match="Notfrist"):
        termin.full_clean()


def test_erledigt_am_follows_erledigt(kanzlei: Kanzlei) -> None:
    frist = Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Stellungnahme", datum=date(2026, 3, 2))
    assert frist.erledigt_am is None
    frist.erledigt = True
    frist.save()
    assert frist.erledigt_am is not None
    frist.erledigt = False
    frist.save()
    assert frist.erledigt_am is None


def test_frist_falls_back_to_bundesland_of_the_akte(kanzlei: Kanzlei) -> None:
    frist = Frist.objects.create(akte=kanzlei.akten["B"], bezeichnung="X", datum=date(2026, 3, 2))
    assert frist.effektives_bundesland == "BY"


def test_zeiterfassung_duration_is_checked_by_the_database(kanzlei: Kanzlei) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Zeiterfassung.objects.create(akte=kanzlei.akten["A"], user=kanzlei.users["anwalt"],
                                     dauer_minuten=0, taetigkeit="nichts")


def test_revoking_access_hides_the_akte(kanzlei: Kanzlei) -> None:
    user, akte = kanzlei.users["sekretariat"], kanzlei.akten["B"]
    assert selectors.get_akte(user=user, akte_id=akte.pk) == akte
    revoke_access(akte=akte, user=user)
    with pytest.raises(selectors.NotFound):
        selectors.get_akte(user=user, akte_id=akte.pk)


def test_dokumente_are_scoped(kanzlei: Kanzlei) -> None:
    doc = Dokument.objects.create(akte=kanzlei.akten["C"], titel="Testament", inhalt="Geheim")
    anwalt, praktikant = kanzlei.users["anwalt"], kanzlei.users["praktikant"]
    assert list(selectors.dokumente_for(user=anwalt, akte_id=kanzlei.akten["C"].pk, query="geheim")) == [doc]
    assert selectors.get_dokument(user=anwalt, dokument_id=str(doc.pk)) == doc
    with pytest.raises(selectors.NotFound):
        selectors.dokumente_for(user=praktikant, akte_id=kanzlei.akten["C"].pk)
    with pytest.raises(selectors.NotFound):
        selectors.get_dokument(user=praktikant, dokument_id=doc.pk)
    with pytest.raises(selectors.NotFound):
        selectors.get_dokument(user=anwalt, dokument_id="abc")


def test_zeiterfassung_range_and_scope(kanzlei: Kanzlei) -> None:
    akte, anwalt = kanzlei.akten["A"], kanzlei.users["anwalt"]
    for day in (1, 10, 20):
        Zeiterfassung.objects.create(akte=akte, user=anwalt, datum=date(2026, 3, day), dauer_minuten=30,
                                     taetigkeit=f"Tag {day}")
    rows = selectors.zeiterfassung_for(
        user=anwalt, akte_id=akte.pk, von=date(2026, 3, 5), bis=date(2026, 3, 15)
    )
    assert [r.taetigkeit for r in rows] == ["Tag 10"]
    with pytest.raises(selectors.NotFound):
        selectors.zeiterfassung_for(user=kanzlei.users["praktikant"], akte_id=akte.pk)


def test_notizen_scope(kanzlei: Kanzlei) -> None:
    anwalt, praktikant = kanzlei.users["anwalt"], kanzlei.users["praktikant"]
    eigene = Notiz.objects.create(inhalt="Eigene Notiz", verfasst_von=praktikant)
    fremde = Notiz.objects.create(inhalt="Notiz des Anwalts", verfasst_von=anwalt)
    akte_b = Notiz.objects.create(akte=kanzlei.akten["B"], inhalt="Zu Akte B", verfasst_von=anwalt)
    akte_c = Notiz.objects.create(akte=kanzlei.akten["C"], inhalt="Zu Akte C", verfasst_von=anwalt)
    assert set(selectors.notizen_for(user=praktikant)) == {eigene, akte_b}
    assert set(selectors.notizen_for(user=anwalt)) == {fremde, akte_b, akte_c}
    with pytest.raises(selectors.NotFound):
        selectors.notizen_for(user=praktikant, akte_id=kanzlei.akten["C"].pk)


def test_alerts_scope(kanzlei: Kanzlei) -> None:
    anwalt, praktikant, admin = kanzlei.users["anwalt"], kanzlei.users["praktikant"], kanzlei.users["admin"]
    an_praktikant = Alert.objects.create(message="Bitte Akte B lesen", empfaenger=praktikant)
    akte_b = Alert.objects.create(message="Frist in B", akte=kanzlei.akten["B"], severity="warning")
    akte_c = Alert.objects.create(message="Frist in C", akte=kanzlei.akten["C"], severity="critical")
    system = Alert.objects.create(message="Systemhinweis")
    assert set(selectors.alerts_for(user=praktikant)) == {an_praktikant, akte_b}
    assert set(selectors.alerts_for(user=anwalt)) == {akte_b, akte_c}
    assert set(selectors.alerts_for(user=admin)) == {akte_b, akte_c, system}


def test_fristen_past_includes_overdue_open_ones(kanzlei: Kanzlei) -> None:
    overdue = Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="versäumt",
                                   datum=timezone.localdate() - timedelta(days=1))
    anwalt = kanzlei.users["anwalt"]
    assert overdue in selectors.fristen_for(user=anwalt, status="active")
    assert overdue in selectors.fristen_for(user=anwalt, status="past")
