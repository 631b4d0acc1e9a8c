"""The services behind every entry by hand (akten/erfassung): one rule per record for the pages, the
API, the import and Helena's approved drafts — roles, scoping, German refusals, and the history."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from akten import aktenzeichen as schema
from akten.erfassung import akten as akten_dienst
from akten.erfassung import fristen as fristen_dienst
from akten.erfassung.notizen import notiz_anlegen
from akten.erfassung.rechte import SCHREIBRECHTE
from akten.erfassung.speichern import EingabeFehler
from akten.erfassung.zeiten import zeit_erfassen
from akten.kollision import pruefe
from akten.models import Akte, AktenZugriff, Alert, Beteiligter, Frist, Kanzleieinstellung
from akten.selectors import alerts_for
from config.errors import Forbidden, NotFound
from drafts.roles import write_roles
from drafts.services import approve_draft, create_draft
from tests.conftest import Kanzlei


def test_the_rule_for_records_by_hand_is_the_rule_for_helenas_drafts() -> None:
    """An approved draft and a form must not be two rules (issue 32)."""
    assert SCHREIBRECHTE["frist"] == write_roles("create_draft_frist")
    assert SCHREIBRECHTE["notiz"] == write_roles("create_notiz")
    assert SCHREIBRECHTE["zeiterfassung"] == write_roles("create_draft_zeiterfassung")
    assert SCHREIBRECHTE["akte_status"] == write_roles("update_akte_rag")


@pytest.mark.parametrize(("muster", "vorhanden", "erwartet"), [
    ("{nr}/{jj}", ["1/26", "7/26", "12/25", "99/24"], "8/26"),
    ("{nr}/{jj}", ["12/25"], "1/26"),
    ("{jjjj}-{nr:04}", ["2026-0041", "2025-0100"], "2026-0042"),
    ("{nr}/{jj} {kuerzel}", ["3/26 KW", "9/26 TS"], "4/26 KW"),
])
def test_the_next_aktenzeichen_follows_the_firms_scheme(muster: str, vorhanden: list[str],
                                                       erwartet: str) -> None:
    assert schema.naechstes(muster, jahr=2026, vorhandene=vorhanden, kuerzel="KW") == erwartet


@pytest.mark.parametrize("muster", ["{jj}", "{nr}/{nr}", "{nr}/{jahr}", "{nr}#{jj}"])
def test_a_scheme_that_cannot_form_aktenzeichen_is_refused_in_german(muster: str) -> None:
    with pytest.raises(schema.MusterFehler) as exc:
        schema.pruefe_muster(muster)
    assert any(wort in str(exc.value) for wort in ("Platzhalter", "Nummer", "erlaubt"))


def test_the_sekretariat_opens_an_akte_with_the_next_number_and_sees_it(kanzlei: Kanzlei) -> None:
    sekretariat = kanzlei.users["sekretariat"]
    jahr = timezone.localdate().year % 100
    Akte.objects.create(aktenzeichen=f"41/{jahr}", kurzrubrum="Vorher ./. Da")
    akte = akten_dienst.akte_anlegen(user=sekretariat, daten={
        "kurzrubrum": "Hoffmann ./. Bauer Logistik GmbH", "rechtsgebiet": "arbeitsrecht",
        "gegenstandswert": Decimal("12500.00"), "anwalt": kanzlei.users["anwalt"]})
    assert akte.aktenzeichen == f"42/{jahr}"
    assert AktenZugriff.objects.filter(akte=akte, user=sekretariat).exists()
    assert AktenZugriff.objects.filter(akte=akte, user=kanzlei.users["anwalt"]).exists()
    eintrag = akte.history.latest()
    assert eintrag.history_type == "+" and eintrag.history_user == sekretariat


def test_a_praktikant_opens_no_akte_and_the_sekretariat_closes_none(kanzlei: Kanzlei) -> None:
    with pytest.raises(Forbidden, match="Praktikant"):
        akten_dienst.akte_anlegen(user=kanzlei.users["praktikant"], daten={"kurzrubrum": "X ./. Y"})
    akte = kanzlei.akten["B"]
    with pytest.raises(Forbidden, match="abschließen"):
        akten_dienst.akte_aendern(user=kanzlei.users["sekretariat"], akte_id=akte.pk,
                                  aenderungen={"status": "abgeschlossen"})
    akte.refresh_from_db()
    assert akte.status == Akte.Status.OFFEN
    with pytest.raises(NotFound):  # Akte A is not the Sekretariat's
        akten_dienst.akte_aendern(user=kanzlei.users["sekretariat"], akte_id=kanzlei.akten["A"].pk,
                                  aenderungen={"wegen": "x"})


def test_a_change_leaves_who_when_old_and_new_and_a_taken_number_is_refused(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    akte = akten_dienst.akte_aendern(user=anwalt, akte_id=kanzlei.akten["A"].pk,
                                     aenderungen={"gegenstandswert": "15000", "status": "abgeschlossen"})
    assert akte.status == Akte.Status.GESCHLOSSEN and akte.get_status_display() == "abgeschlossen"
    neu, alt = akte.history.all()[:2]
    delta = {c.field: (c.old, c.new) for c in neu.diff_against(alt).changes}
    assert delta["gegenstandswert"] == (Decimal("12000.00"), Decimal("15000"))
    assert delta["status"] == ("offen", "geschlossen")
    assert neu.history_user == anwalt
    with pytest.raises(EingabeFehler, match="schon vergeben"):
        akten_dienst.akte_aendern(user=anwalt, akte_id=akte.pk, aenderungen={"aktenzeichen": "2/26"})
    with pytest.raises(EingabeFehler, match="Anwältin oder ein Anwalt"):
        akten_dienst.akte_aendern(user=anwalt, akte_id=akte.pk,
                                  aenderungen={"anwalt": kanzlei.users["sekretariat"]})


def _offene_frist(kanzlei: Kanzlei, *, notfrist: bool) -> Frist:
    return Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Berufungsfrist",
                                ist_notfrist=notfrist, datum=timezone.localdate() + timedelta(days=10))


def test_erledigt_needs_a_vermerk_and_is_kept_in_the_history(kanzlei: Kanzlei) -> None:
    frist, anwalt = _offene_frist(kanzlei, notfrist=False), kanzlei.users["anwalt"]
    with pytest.raises(EingabeFehler, match="vermerke"):
        fristen_dienst.frist_erledigen(user=anwalt, akte_id=frist.akte_id, frist_id=frist.pk, vermerk="  ")
    frist.refresh_from_db()
    assert not frist.erledigt
    fristen_dienst.frist_erledigen(user=anwalt, akte_id=frist.akte_id, frist_id=frist.pk,
                                   vermerk="Berufung per beA eingelegt am 12.03.2026")
    frist.refresh_from_db()
    assert frist.erledigt and frist.erledigt_von == anwalt
    with pytest.raises(EingabeFehler, match="warum"):
        fristen_dienst.frist_wieder_oeffnen(user=anwalt, akte_id=frist.akte_id, frist_id=frist.pk, grund="")
    fristen_dienst.frist_wieder_oeffnen(user=anwalt, akte_id=frist.akte_id, frist_id=frist.pk,
                                        grund="beA-Versand fehlgeschlagen")
    gruende = list(frist.history.values_list("history_change_reason", flat=True))
    assert gruende[:2] == ["wieder offen: beA-Versand fehlgeschlagen", "erledigt"]
    assert frist.history.filter(erledigt_vermerk__startswith="Berufung per beA").exists()


def test_a_notfrist_counts_as_erledigt_only_after_a_second_person(kanzlei: Kanzlei) -> None:
    frist = _offene_frist(kanzlei, notfrist=True)
    anwalt, sachbearbeiter = kanzlei.users["anwalt"], kanzlei.users["sachbearbeiter"]
    fristen_dienst.frist_erledigen(user=sachbearbeiter, akte_id=frist.akte_id, frist_id=frist.pk,
                                   vermerk="Berufung eingelegt")
    frist.refresh_from_db()
    assert not frist.erledigt and frist.wartet_auf_bestaetigung
    with pytest.raises(Forbidden, match="zweite Person"):
        fristen_dienst.frist_bestaetigen(user=sachbearbeiter, akte_id=frist.akte_id, frist_id=frist.pk)
    with pytest.raises(Forbidden):
        fristen_dienst.frist_bestaetigen(user=kanzlei.users["praktikant"], akte_id=kanzlei.akten["B"].pk,
                                         frist_id=Frist.objects.filter(akte=kanzlei.akten["B"]).first().pk)
    fristen_dienst.frist_bestaetigen(user=anwalt, akte_id=frist.akte_id, frist_id=frist.pk)
    frist.refresh_from_db()
    assert frist.erledigt and frist.bestaetigt_von == anwalt and frist.erledigt_von == sachbearbeiter


def test_without_the_four_eyes_setting_a_notfrist_is_erledigt_at_once(kanzlei: Kanzlei) -> None:
    einstellung = Kanzleieinstellung.aktuell()
    einstellung.vier_augen_notfrist = False
    einstellung.save()
    frist = _offene_frist(kanzlei, notfrist=True)
    fristen_dienst.frist_erledigen(user=kanzlei.users["anwalt"], akte_id=frist.akte_id, frist_id=frist.pk,
                                   vermerk="eingelegt")
    frist.refresh_from_db()
    assert frist.erledigt


def test_notiz_and_zeit_by_role_and_scope(kanzlei: Kanzlei) -> None:
    akte_b = kanzlei.akten["B"]
    notiz = notiz_anlegen(user=kanzlei.users["sekretariat"], akte_id=akte_b.pk, inhalt="Mandant rief an")
    assert notiz.verfasst_von == kanzlei.users["sekretariat"] and notiz.history.count() == 1
    with pytest.raises(Forbidden):
        notiz_anlegen(user=kanzlei.users["praktikant"], akte_id=akte_b.pk, inhalt="x")
    with pytest.raises(Forbidden):
        zeit_erfassen(user=kanzlei.users["sekretariat"], akte_id=akte_b.pk,
                      daten={"dauer_minuten": 30, "taetigkeit": "Telefonat"})
    with pytest.raises(EingabeFehler, match="Dauer"):
        zeit_erfassen(user=kanzlei.users["sachbearbeiter"], akte_id=akte_b.pk,
                      daten={"dauer_minuten": 0, "taetigkeit": "Telefonat"})
    with pytest.raises(NotFound):
        zeit_erfassen(user=kanzlei.users["sachbearbeiter"], akte_id=kanzlei.akten["C"].pk,
                      daten={"dauer_minuten": 30, "taetigkeit": "Telefonat"})


def test_an_approved_draft_is_written_by_the_same_service_and_in_the_history(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    datum = (timezone.localdate() + timedelta(days=14)).isoformat()
    draft = create_draft(user=anwalt, kind="frist", akte_id=kanzlei.akten["A"].pk,
                         fields={"bezeichnung": "Stellungnahme", "datum": datum})
    approved = approve_draft(user=anwalt, draft=draft.pk)
    frist = Frist.objects.get(pk=approved.record_id)
    eintrag = frist.history.get()
    assert eintrag.history_user == anwalt
    assert eintrag.history_change_reason == "Entwurf von Helena freigegeben"


def test_a_frist_goes_only_to_someone_who_may_open_the_akte(kanzlei: Kanzlei) -> None:
    """A Frist for a person who cannot see the Akte would be a Frist nobody keeps."""
    datum = timezone.localdate() + timedelta(days=10)
    with pytest.raises(EingabeFehler, match="darf diese Akte nicht sehen"):
        fristen_dienst.frist_anlegen(user=kanzlei.users["anwalt"], akte_id=kanzlei.akten["A"].pk, daten={
            "bezeichnung": "Stellungnahme", "datum": datum, "verantwortlich": kanzlei.users["praktikant"]})
    assert not Frist.objects.filter(bezeichnung="Stellungnahme").exists()
    frist = fristen_dienst.frist_anlegen(user=kanzlei.users["anwalt"], akte_id=kanzlei.akten["B"].pk, daten={
        "bezeichnung": "Stellungnahme", "datum": datum, "verantwortlich": kanzlei.users["praktikant"]})
    assert frist.verantwortlich == kanzlei.users["praktikant"]


def test_an_edit_opens_an_akte_to_nobody_and_gives_back_no_access_a_lawyer_took(kanzlei: Kanzlei) -> None:
    """Only ANWALT and ADMIN decide who sees an Akte (found by a review: the Sachbearbeitung field
    opened the Akte to anyone, and any edit re-granted access a lawyer had taken away)."""
    sekretariat, anwalt = kanzlei.users["sekretariat"], kanzlei.users["anwalt"]
    akte_b, praktikant = kanzlei.akten["B"], kanzlei.users["praktikant"]
    sachbearbeiter = kanzlei.users["sachbearbeiter"]
    AktenZugriff.objects.filter(akte=akte_b, user=praktikant).delete()
    with pytest.raises(EingabeFehler, match="darf diese Akte nicht sehen"):
        akten_dienst.akte_aendern(user=sekretariat, akte_id=akte_b.pk,
                                  aenderungen={"sachbearbeiter": praktikant})
    assert not AktenZugriff.objects.filter(akte=akte_b, user=praktikant).exists()
    with pytest.raises(Forbidden):  # the responsible lawyer is the lawyers' decision
        akten_dienst.akte_aendern(user=sekretariat, akte_id=akte_b.pk, aenderungen={"anwalt": anwalt})
    akten_dienst.akte_aendern(user=anwalt, akte_id=akte_b.pk, aenderungen={"sachbearbeiter": sachbearbeiter})
    akten_dienst.zugriff_entziehen(user=anwalt, akte_id=akte_b.pk, person=sachbearbeiter)
    akten_dienst.akte_aendern(user=sekretariat, akte_id=akte_b.pk, aenderungen={"wegen": "Räumung und Miete"})
    assert not AktenZugriff.objects.filter(akte=akte_b, user=sachbearbeiter).exists()


def test_the_four_eyes_cannot_be_edited_away(kanzlei: Kanzlei) -> None:
    """Found by a review: untick Notfrist, mark erledigt alone, tick it again."""
    frist, sachbearbeiter = _offene_frist(kanzlei, notfrist=True), kanzlei.users["sachbearbeiter"]
    ids = {"akte_id": frist.akte_id, "frist_id": frist.pk}
    with pytest.raises(Forbidden):
        fristen_dienst.frist_aendern(user=sachbearbeiter, aenderungen={"ist_notfrist": False}, grund="x",
                                     **ids)
    with pytest.raises(EingabeFehler, match="warum"):
        fristen_dienst.frist_aendern(user=kanzlei.users["anwalt"], aenderungen={"ist_notfrist": False}, **ids)
    with pytest.raises(EingabeFehler, match="nur mit Grund"):
        fristen_dienst.frist_aendern(user=sachbearbeiter, **ids,
                                     aenderungen={"datum": frist.datum + timedelta(days=7)})
    fristen_dienst.frist_erledigen(user=sachbearbeiter, vermerk="eingelegt", **ids)
    with pytest.raises(fristen_dienst.BereitsErledigt, match="zuerst wieder"):
        fristen_dienst.frist_aendern(user=sachbearbeiter, aenderungen={"bezeichnung": "anders"}, **ids)
    frist.refresh_from_db()
    assert frist.ist_notfrist and frist.wartet_auf_bestaetigung and frist.bezeichnung == "Berufungsfrist"


def test_access_taken_away_leaves_no_frist_unkept_and_no_hinweis_behind(kanzlei: Kanzlei) -> None:
    """Found by a review: the person kept the Hinweise of an Akte they may no longer see, and their
    Fristen there were kept by nobody."""
    anwalt, sachbearbeiter = kanzlei.users["anwalt"], kanzlei.users["sachbearbeiter"]
    akte = kanzlei.akten["B"]
    frist = Frist.objects.create(akte=akte, bezeichnung="Klageerwiderung", verantwortlich=sachbearbeiter,
                                 datum=timezone.localdate() + timedelta(days=3))
    Alert.objects.create(akte=akte, frist=frist, empfaenger=sachbearbeiter,
                         message="Bald fällig: Klageerwiderung")
    assert alerts_for(user=sachbearbeiter).filter(frist=frist).exists()
    with pytest.raises(EingabeFehler, match="Übertrage sie zuerst"):
        akten_dienst.zugriff_entziehen(user=anwalt, akte_id=akte.pk, person=sachbearbeiter)
    fristen_dienst.frist_aendern(user=anwalt, akte_id=akte.pk, frist_id=frist.pk,
                                 aenderungen={"verantwortlich": anwalt}, grund="übertragen")
    akten_dienst.zugriff_entziehen(user=anwalt, akte_id=akte.pk, person=sachbearbeiter)
    assert not alerts_for(user=sachbearbeiter).filter(frist=frist).exists()


def test_an_insurer_on_either_side_is_a_possible_conflict(kanzlei: Kanzlei) -> None:
    """Found by a review: only Mandant and Gegner were compared; an insurer sued directly (§ 115 VVG)
    or a client's Rechtsschutz is a classic § 43a Abs. 4 BRAO case."""
    Beteiligter.objects.create(akte=kanzlei.akten["A"], rolle="versicherung", name="Allianz Versicherungs-AG")
    Beteiligter.objects.create(akte=kanzlei.akten["A"], rolle="gericht", name="Amtsgericht Köln")
    treffer = pruefe(namen=["Allianz Versicherungs AG"], user=kanzlei.users["anwalt"], neue_rolle="gegner")
    assert [(t.rolle, t.konflikt) for t in treffer] == [("versicherung", True)]
    assert not pruefe(namen=["Amtsgericht Köln"], user=kanzlei.users["anwalt"], neue_rolle="gegner")


def test_a_date_beyond_the_holiday_tables_is_a_warning_not_an_error() -> None:
    """Found by a review: a typo like 2106 lost the whole form to an error page."""
    warnungen = fristen_dienst.frist_warnungen(datum=date(2106, 3, 2), typ="frist", bundesland="NW",
                                               berechnung=None)
    assert warnungen == ["Für Dienstag, 02.03.2106 kennt Helena die Feiertage nicht; bitte das Jahr prüfen."]


def test_the_admin_cannot_tick_a_notfrist_off_alone(kanzlei: Kanzlei, admin_client) -> None:
    """Found by a review: the admin's Frist form bypassed the Vermerk and the second person."""
    frist = _offene_frist(kanzlei, notfrist=True)
    url = f"/admin/akten/frist/{frist.pk}/change/"
    antwort = admin_client.post(url, {
        "akte": frist.akte_id, "typ": "frist", "bezeichnung": frist.bezeichnung,
        "datum": frist.datum.isoformat(), "ist_notfrist": "on", "erledigt": "on",
        "erledigt_vermerk": "von Hand", "bundesland": "", "notiz": ""})
    assert antwort.status_code == 302
    frist.refresh_from_db()
    assert not frist.erledigt and frist.erledigt_vermerk == ""
    assert 'name="erledigt"' not in admin_client.get(url).content.decode()


@pytest.mark.parametrize(("name", "kuerzel"), [("Dr. Katrin Weber", "KW"), ("Łukasz Çelik", "LC"),
                                                ("Özlem Ünal", "OU"), ("王小明", "")])
def test_the_kuerzel_holds_only_letters_an_aktenzeichen_may_hold(name: str, kuerzel: str) -> None:
    assert schema.kuerzel_von(name) == kuerzel
    Akte(aktenzeichen=schema.bilde("{nr}/{jj} {kuerzel}", nr=1, jahr=2026, kuerzel=kuerzel),
         kurzrubrum="X").full_clean(validate_unique=False, validate_constraints=False)
