"""DSGVO requests from the outside: the Auskunft (Art. 15) as JSON and PDF, scoped to the Akten the
requester may see; Löschung vormerken and aufheben (ANWALT, ADMIN only); the deletion by the real beat
task once § 50 Abs. 1 BRAO's retention has ended — files, vectors and history gone, the Löschprotokoll
without the person's data — and never while the Akte is open."""

from __future__ import annotations

import io
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from akten.datenschutz.loeschung import frueheste_loeschung
from akten.erfassung.akten import akte_aendern
from akten.models import (
    Akte,
    Beteiligter,
    Dokument,
    Frist,
    Kollisionspruefung,
    Lesezugriff,
    Loeschprotokoll,
    Loeschvormerkung,
    Notiz,
    Zeiterfassung,
)
from akten.tasks import loeschungen_ausfuehren_task
from helena.knowledge.models import AktenPassage
from tests.conftest import Kanzlei

NAME = "Hans Müller"


def _login(kanzlei: Kanzlei, who: str) -> Client:
    client = Client()
    client.force_login(kanzlei.users[who])
    return client


def _url(name: str, b: Beteiligter) -> str:
    return reverse(f"akten:{name}", args=[b.akte_id, b.pk])


def _mandate_seit_januar(kanzlei: Kanzlei) -> None:
    """The Akten were opened today, their Mandate began on 1 January (a request since then is possible)."""
    Akte.objects.filter(pk__in=[a.pk for a in kanzlei.akten.values()]).update(auftragsdatum=date(2026, 1, 1))


@pytest.fixture
def person(kanzlei: Kanzlei) -> dict:
    """Hans Müller: Mandant in A (anwalt sees it), Zeuge in D (only the admin sees it), named in a Notiz
    of B; a namesake with another e-mail address in C is someone else."""
    a, b, c, d = (kanzlei.akten[k] for k in "ABCD")
    _mandate_seit_januar(kanzlei)
    mandant = Beteiligter.objects.create(akte=a, rolle="mandant", name=NAME, email="hans@example.de",
                                         anschrift="Eichenweg 7\n50667 Köln", telefon="0221 123")
    zeuge = Beteiligter.objects.create(akte=d, rolle="zeuge", name="Müller, Hans", email="HANS@example.de")
    namensvetter = Beteiligter.objects.create(akte=c, rolle="gegner", name="Hans Mueller",
                                              email="anderer@example.de")
    gegner = Beteiligter.objects.create(akte=a, rolle="gegner", name="Stahlbau GmbH")
    frist = Frist.objects.create(akte=a, bezeichnung=f"Rückruf {NAME}", datum=timezone.localdate())
    notiz = Notiz.objects.create(akte=b, inhalt="Telefonat mit Müller, Hans über die Räumung.")
    zeit = Zeiterfassung.objects.create(akte=a, user=kanzlei.users["anwalt"], dauer_minuten=30,
                                        taetigkeit=f"Besprechung mit {NAME}")
    dok_a = Dokument.objects.create(akte=a, titel="Kündigung", inhalt="Sehr geehrter Herr " + NAME + ",\n"
                                    + "wir kündigen. " * 40)
    dok_d = Dokument.objects.create(akte=d, titel="Zeugenaussage", inhalt=f"{NAME} sagt aus.")
    geheim = Notiz.objects.create(akte=c, inhalt=f"{NAME} (der andere) schuldet Geld.")
    pruefung = Kollisionspruefung.objects.create(
        akte=a, user=kanzlei.users["anwalt"], anlass="hand", namen=[NAME, "Stahlbau GmbH"],
        entscheidung="keine_treffer")
    return {"mandant": mandant, "zeuge": zeuge, "namensvetter": namensvetter, "gegner": gegner,
            "frist": frist, "notiz": notiz, "zeit": zeit, "dok_a": dok_a, "dok_d": dok_d, "geheim": geheim,
            "pruefung": pruefung}


@pytest.mark.django_db
def test_auskunft_json_holds_the_visible_akten_only(kanzlei: Kanzlei, person: dict) -> None:
    antwort = _login(kanzlei, "anwalt").get(_url("auskunft_json", person["mandant"]))
    assert antwort.status_code == 200
    assert antwort["Content-Type"].startswith("application/json")
    assert "attachment" in antwort["Content-Disposition"]
    daten = json.loads(antwort.content)
    assert daten["person"]["name"] == NAME
    assert [b["id"] for b in daten["beteiligungen"]] == [str(person["mandant"].pk)]  # not D's, not C's
    assert daten["beteiligungen"][0]["anschrift"] == "Eichenweg 7\n50667 Köln"
    assert [a["aktenzeichen"] for a in daten["akten"]] == ["1/26"]
    assert [f["id"] for f in daten["fristen"]] == [str(person["frist"].pk)]
    assert [n["id"] for n in daten["notizen"]] == [str(person["notiz"].pk)]  # B's; C's namesake's not
    assert "nicht_aufgenommen" not in daten and "3/26" not in json.dumps(daten)  # on the Prüfblatt
    assert [z["id"] for z in daten["zeiten"]] == [str(person["zeit"].pk)]
    assert [d["id"] for d in daten["dokumente"]] == [str(person["dok_a"].pk)]  # D's is invisible
    assert NAME in daten["dokumente"][0]["auszuege"][0]
    assert [k["gepruefte_namen"] for k in daten["kollisionspruefungen"]] == [[NAME]]  # not the Gegner
    assert "umfang" not in daten and "vor_dem_versand" not in daten
    assert [i["buchstabe"] for i in daten["informationen"]] == list("abcdefgh")
    assert "Zeugenaussage" not in antwort.content.decode()
    gelesen = set(Lesezugriff.objects.filter(user=kanzlei.users["anwalt"])
                  .values_list("weg", "aktenzeichen", "bereich", "dokument_id"))
    assert gelesen == {("export", "1/26", "beteiligte", None), ("export", "1/26", "fristen", None),
                       ("export", "2/26", "notizen", None), ("export", "1/26", "zeiten", None),
                       ("export", "1/26", "dokument", person["dok_a"].pk)}  # the read log keeps it


@pytest.mark.django_db
def test_the_admin_gets_every_akte(kanzlei: Kanzlei, person: dict) -> None:
    daten = _login(kanzlei, "admin").get(_url("auskunft_json", person["mandant"])).json()
    assert {b["id"] for b in daten["beteiligungen"]} == {str(person["mandant"].pk), str(person["zeuge"].pk)}
    assert {d["titel"] for d in daten["dokumente"]} == {"Kündigung", "Zeugenaussage"}
    assert str(person["namensvetter"].pk) not in {b["id"] for b in daten["beteiligungen"]}
    assert str(person["geheim"].pk) not in {n["id"] for n in daten["notizen"]}
    blatt = kanzlei.client("admin").get(f"/api/v1/beteiligte/{person['mandant'].pk}/auskunft"
                                        "?format=pruefblatt").json()
    assert blatt["vollstaendig"] is True and blatt["umfang"].startswith("Vollständig")


@pytest.mark.django_db
def test_namesakes_with_different_addresses_are_left_out(kanzlei: Kanzlei) -> None:
    """Asked about a row without e-mail: two rows of the same name with two different addresses are two
    people, neither surely this one; a single one (an address entered elsewhere) is taken."""
    a, b, c = (kanzlei.akten[k] for k in "ABC")
    ohne = Beteiligter.objects.create(akte=a, rolle="mandant", name="Eva Wagner")
    Beteiligter.objects.create(akte=b, rolle="zeuge", name="Eva Wagner", email="eva@eins.de")
    Beteiligter.objects.create(akte=c, rolle="gegner", name="Wagner, Eva", email="eva@zwei.de")
    daten = _login(kanzlei, "admin").get(_url("auskunft_json", ohne)).json()
    assert [x["aktenzeichen"] for x in daten["beteiligungen"]] == ["1/26"]
    assert daten["person"]["emails"] == []
    blatt = kanzlei.client("admin").get(f"/api/v1/beteiligte/{ohne.pk}/auskunft?format=pruefblatt").json()
    assert sorted(x["aktenzeichen"] for x in blatt["nicht_aufgenommen"]) == ["2/26", "3/26"]
    Beteiligter.objects.filter(akte=c).delete()
    daten = _login(kanzlei, "admin").get(_url("auskunft_json", ohne)).json()
    assert [x["aktenzeichen"] for x in daten["beteiligungen"]] == ["1/26"]  # the same name is no evidence
    Beteiligter.objects.filter(pk=ohne.pk).update(email="EVA@eins.de")
    daten = _login(kanzlei, "admin").get(_url("auskunft_json", ohne)).json()
    assert [x["aktenzeichen"] for x in daten["beteiligungen"]] == ["1/26", "2/26"]
    assert daten["person"]["emails"] == ["EVA@eins.de", "eva@eins.de"]


@pytest.mark.django_db
def test_auskunft_pdf_is_a_pdf_naming_the_person(kanzlei: Kanzlei, person: dict) -> None:
    antwort = _login(kanzlei, "anwalt").get(_url("auskunft_pdf", person["mandant"]))
    assert antwort.status_code == 200 and antwort["Content-Type"] == "application/pdf"
    text = " ".join(seite.extract_text() for seite in PdfReader(io.BytesIO(antwort.content)).pages)
    assert "Auskunft nach Art. 15 DSGVO" in text
    assert NAME in text and "1/26" in text
    assert "Zeugenaussage" not in text
    for intern in ("Vor dem Versand", "einsehen darf", "schwärzen", "3/26", "anwalt"):
        assert intern not in text, intern  # the firm's notes are on the Prüfblatt, not in the letter


@pytest.mark.django_db
def test_the_pruefblatt_holds_the_firm_s_notes_and_says_incomplete(kanzlei: Kanzlei, person: dict) -> None:
    """The lawyer's Auskunft covers only his Akten: the internal sheet says so, what to black out and the
    namesake's Akte; the page is refused to other roles."""
    from helena.models import Conversation, Message

    gespraech = Conversation.objects.create(user=kanzlei.users["admin"], title="Recherche")
    Message.objects.create(conversation=gespraech, role="user", text=f"Hat {NAME} schon gezahlt?")
    seite = _login(kanzlei, "anwalt").get(_url("auskunft_pruefblatt", person["mandant"]))
    assert seite.status_code == 200
    text = seite.content.decode()
    assert "Intern – nicht zum Versand" in text and "Unvollständig" in text and "schwärzen" in text
    assert "3/26" in text  # the namesake's Akte, for a check by hand
    assert "Helena-Unterhaltungen: 1" in text
    blatt = kanzlei.client("anwalt").get(f"/api/v1/beteiligte/{person['mandant'].pk}/auskunft"
                                         "?format=pruefblatt").json()
    assert blatt["nicht_zum_versand"] is True and blatt["vollstaendig"] is False
    assert blatt["helena_zur_pruefung"] == {"Helena-Unterhaltungen": 1}  # counted, not in the Auskunft
    assert [n["beteiligter_id"] for n in blatt["nicht_aufgenommen"]] == [str(person["namensvetter"].pk)]
    assert _login(kanzlei, "sachbearbeiter").get(_url("auskunft_pruefblatt", person["mandant"])
                                                 ).status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["sachbearbeiter", "sekretariat"])
def test_other_roles_are_refused_everywhere(kanzlei: Kanzlei, person: dict, who: str) -> None:
    client = _login(kanzlei, who)
    b = Beteiligter.objects.create(akte=kanzlei.akten["B"], rolle="mandant", name=NAME)
    for name in ("auskunft_json", "auskunft_pdf", "auskunft_pruefblatt", "loeschung"):
        assert client.get(_url(name, b)).status_code == 403, name
    assert client.post(_url("loeschung", b), {"antrag_am": "2026-01-02"}).status_code == 403
    Loeschvormerkung.objects.create(beteiligter=b, antrag_am=date(2026, 1, 2))
    assert client.post(_url("loeschung_aufheben", b)).status_code == 403
    assert Loeschvormerkung.objects.filter(beteiligter=b).exists()
    seite = client.get(reverse("akten:detail", args=[b.akte_id]) + "?tab=beteiligte").content.decode()
    assert "Auskunft (PDF)" not in seite and "Löschung vormerken" not in seite
    assert "Löschung vorgemerkt" in seite  # the mark shows to everyone who sees the Akte


@pytest.mark.django_db
def test_a_foreign_akte_is_not_found_and_anonymous_must_log_in(kanzlei: Kanzlei, person: dict) -> None:
    assert _login(kanzlei, "anwalt").get(_url("auskunft_json", person["zeuge"])).status_code == 404
    falsch = reverse("akten:auskunft_json", args=[kanzlei.akten["A"].pk, person["zeuge"].pk])
    assert _login(kanzlei, "anwalt").get(falsch).status_code == 404  # a Beteiligter of another Akte
    antwort = Client().get(_url("auskunft_pdf", person["mandant"]))
    assert antwort.status_code == 302 and "/konto/anmelden/" in antwort["Location"]


@pytest.mark.django_db
def test_vormerken_marks_the_person_and_shows_the_mark(kanzlei: Kanzlei, person: dict) -> None:
    client = _login(kanzlei, "anwalt")
    seite = client.get(reverse("akten:detail", args=[kanzlei.akten["A"].pk]) + "?tab=beteiligte")
    assert "Auskunft (PDF)" in seite.content.decode() and "Löschung vormerken" in seite.content.decode()
    formular = client.get(_url("loeschung", person["mandant"])).content.decode()
    assert "frühestens 6 Jahre nach Ende des Mandats" in formular
    antwort = client.post(_url("loeschung", person["mandant"]),
                          {"antrag_am": "02.11.2026", "begruendung": "E-Mail vom 2.11."})
    assert antwort.status_code == 302
    vormerkung = Loeschvormerkung.objects.get()
    assert vormerkung.beteiligter == person["mandant"]  # D's row is not the anwalt's to mark
    assert vormerkung.antrag_am == date(2026, 11, 2) and vormerkung.vorgemerkt_von == kanzlei.users["anwalt"]
    seite = client.get(antwort["Location"]).content.decode()
    assert "Löschung vorgemerkt" in seite and "Vormerkung aufheben" in seite
    assert "frühestens 6 Jahre nach Ende des Mandats" in seite

    loeschungen_ausfuehren_task.apply()  # the Akte is open: nothing goes
    assert Beteiligter.objects.filter(pk=person["mandant"].pk).exists()
    assert not Loeschprotokoll.objects.exists()

    assert client.post(_url("loeschung_aufheben", person["mandant"])).status_code == 302
    assert not Loeschvormerkung.objects.exists()
    assert client.post(_url("loeschung_aufheben", person["mandant"])).status_code == 404


@pytest.mark.django_db
def test_the_admin_marks_other_akten_only_as_ticked(kanzlei: Kanzlei, person: dict) -> None:
    client = _login(kanzlei, "admin")
    formular = client.get(_url("loeschung", person["mandant"])).content.decode()
    assert f'value="{person["zeuge"].pk}"' in formular and "checked" not in formular  # offered, not ticked
    assert f'value="{person["namensvetter"].pk}"' not in formular  # the namesake is not offered
    client.post(_url("loeschung", person["mandant"]), {"antrag_am": "2026-11-02"})
    assert list(Loeschvormerkung.objects.values_list("beteiligter", flat=True)) == [person["mandant"].pk]
    Loeschvormerkung.objects.all().delete()
    client.post(_url("loeschung", person["mandant"]), {"antrag_am": "2026-11-02",
                                                       "weitere": [person["zeuge"].pk]})
    assert dict(Loeschvormerkung.objects.values_list("beteiligter", "direkt")) == {
        person["mandant"].pk: True, person["zeuge"].pk: False}


@pytest.mark.django_db
def test_a_bare_namesake_is_never_taken_for_the_mandant(kanzlei: Kanzlei, settings,
                                                       django_capture_on_commit_callbacks) -> None:
    """A Gegner „Hans Müller“ without any detail and a Mandant „Müller, Hans“ with address in another Akte:
    the Auskunft holds the Gegner alone, the Mandant is not offered, cannot be ticked, and his Akte
    survives the Gegner's deletion."""
    settings.HELENA_AKTEN_INDEX = "off"
    _mandate_seit_januar(kanzlei)
    gegner = Beteiligter.objects.create(akte=kanzlei.akten["A"], rolle="gegner", name=NAME)
    mandant = Beteiligter.objects.create(akte=kanzlei.akten["B"], rolle="mandant", name="Müller, Hans",
                                         anschrift="Lindenallee 3\n80331 München", email="hm@example.de")
    Notiz.objects.create(akte=kanzlei.akten["B"], inhalt="Müller, Hans ruft wegen der Räumung an.")
    client = _login(kanzlei, "admin")
    daten = client.get(_url("auskunft_json", gegner)).json()
    assert [b["id"] for b in daten["beteiligungen"]] == [str(gegner.pk)]
    assert "Lindenallee" not in json.dumps(daten) and daten["notizen"] == []
    formular = client.get(_url("loeschung", gegner)).content.decode()
    assert f'value="{mandant.pk}"' not in formular and "nicht sicher dieselbe Person" in formular
    antwort = client.post(_url("loeschung", gegner), {"antrag_am": "2026-11-02", "weitere": [mandant.pk]})
    assert antwort.status_code == 422 and not Loeschvormerkung.objects.exists()
    antwort = kanzlei.client("admin").post(f"/api/v1/beteiligte/{gegner.pk}/loeschung",
                                           {"antrag_am": "2026-11-02", "weitere_beteiligte": [mandant.pk]},
                                           content_type="application/json")
    assert antwort.status_code == 422 and not Loeschvormerkung.objects.exists()
    assert client.post(_url("loeschung", gegner), {"antrag_am": "2026-11-02"}).status_code == 302
    for key in "AB":
        _schliessen_vor_jahren(kanzlei.akten[key], 8)
    with django_capture_on_commit_callbacks(execute=True):
        loeschungen_ausfuehren_task.apply()
    assert not Beteiligter.objects.filter(pk=gegner.pk).exists()
    assert Beteiligter.objects.filter(pk=mandant.pk).exists()
    assert Akte.objects.filter(pk=kanzlei.akten["B"].pk).exists()


@pytest.mark.django_db
def test_a_person_is_not_the_company_of_the_same_name(kanzlei: Kanzlei) -> None:
    person_ = Beteiligter.objects.create(akte=kanzlei.akten["A"], rolle="mandant", name="Müller",
                                         email="info@mueller.de")
    firma = Beteiligter.objects.create(akte=kanzlei.akten["B"], rolle="gegner", name="Müller GmbH",
                                       email="info@mueller.de")
    daten = _login(kanzlei, "admin").get(_url("auskunft_json", person_)).json()
    assert [b["id"] for b in daten["beteiligungen"]] == [str(person_.pk)]
    assert str(firma.pk) not in json.dumps(daten["beteiligungen"])


@pytest.mark.django_db
def test_a_row_ticked_from_another_akte_goes_alone(kanzlei: Kanzlei, person: dict,
                                                   django_capture_on_commit_callbacks) -> None:
    """The admin, on the Zeuge's request in D, ticks the same person's Mandant row in A: after the
    retention only that row goes, A stays with its Fristen (only the Mandant's own request deletes A)."""
    client = _login(kanzlei, "admin")
    antwort = client.post(_url("loeschung", person["zeuge"]),
                          {"antrag_am": "2026-11-02", "weitere": [person["mandant"].pk]})
    assert antwort.status_code == 302
    for key in "AD":
        _schliessen_vor_jahren(kanzlei.akten[key], 8)
    with django_capture_on_commit_callbacks(execute=True):
        loeschungen_ausfuehren_task.apply()
    assert not Beteiligter.objects.filter(pk__in=[person["mandant"].pk, person["zeuge"].pk]).exists()
    assert Akte.objects.filter(pk=kanzlei.akten["A"].pk).exists()
    assert Frist.objects.filter(pk=person["frist"].pk).exists()
    assert sorted(Loeschprotokoll.objects.values_list("art", flat=True)) == ["beteiligter", "beteiligter"]


@pytest.mark.django_db
def test_only_the_akte_s_own_lawyer_or_the_admin_marks_and_withdraws(kanzlei: Kanzlei, person: dict) -> None:
    """The anwalt has a grant on B but B is nobody's Mandat of his: he may not mark or withdraw there."""
    b_mandant = Beteiligter.objects.create(akte=kanzlei.akten["B"], rolle="mandant", name="Eva Schulz")
    anwalt = _login(kanzlei, "anwalt")
    antwort = anwalt.post(_url("loeschung", b_mandant), {"antrag_am": "2026-11-02"})
    assert antwort.status_code == 403 and not Loeschvormerkung.objects.exists()
    api = kanzlei.client("anwalt").post(f"/api/v1/beteiligte/{b_mandant.pk}/loeschung",
                                        {"antrag_am": "2026-11-02"}, content_type="application/json")
    assert api.status_code == 403 and "Anwalt der Akte" in api.json()["detail"]
    Loeschvormerkung.objects.create(beteiligter=b_mandant, antrag_am=date(2026, 11, 2))
    assert anwalt.post(_url("loeschung_aufheben", b_mandant)).status_code == 403
    assert kanzlei.client("anwalt").delete(f"/api/v1/beteiligte/{b_mandant.pk}/loeschung").status_code == 403
    assert Loeschvormerkung.objects.filter(beteiligter=b_mandant).exists()
    seite = anwalt.get(reverse("akten:detail", args=[kanzlei.akten["B"].pk]) + "?tab=beteiligte")
    assert "Löschung vormerken für" not in seite.content.decode()  # no button he may not use
    assert "Vormerkung aufheben für" not in seite.content.decode()
    admin = _login(kanzlei, "admin")
    antwort = admin.post(_url("loeschung_aufheben", b_mandant), {"grund": "Antrag zurückgenommen"})
    assert antwort.status_code == 302 and not Loeschvormerkung.objects.exists()
    antwort = admin.post(_url("loeschung", b_mandant), {"antrag_am": timezone.localdate().isoformat(),
                                                        "begruendung": "Brief von Eva Schulz"})
    assert antwort.status_code == 302
    seite = admin.get(reverse("akten:detail", args=[kanzlei.akten["B"].pk]) + "?tab=beteiligte")
    seite = seite.content.decode()
    assert "Löschvormerkung – Verlauf" in seite  # the withdrawal leaves a trace, shown on the Beteiligte/r
    assert "Vormerkung aufgehoben: Antrag zurückgenommen" in seite and "Löschung beantragt" in seite
    assert "Brief von" not in json.dumps(list(Loeschvormerkung.history.values_list(flat=False)), default=str)


@pytest.mark.django_db
@pytest.mark.parametrize("antrag", ["", "morgen", "31.02.2026", "2999-01-01", "0001-01-01", "24.05.2018",
                                    "2025-12-31"])
def test_a_bad_date_is_refused_and_nothing_marked(kanzlei: Kanzlei, person: dict, antrag: str) -> None:
    antwort = _login(kanzlei, "anwalt").post(_url("loeschung", person["mandant"]), {"antrag_am": antrag})
    assert antwort.status_code == 422
    assert 'class="field-error"' in antwort.content.decode()  # the German reason beside the field
    assert not Loeschvormerkung.objects.exists()


def _berlin(*args: int) -> datetime:
    return timezone.make_aware(datetime(*args), timezone.get_default_timezone())


@pytest.mark.parametrize(("beendet", "ab"), [
    (_berlin(2026, 3, 15, 10, 0), date(2033, 1, 1)),   # six years from the end of 2026
    (_berlin(2026, 12, 31, 23, 30), date(2033, 1, 1)),
    (datetime(2026, 12, 31, 23, 30, tzinfo=UTC), date(2034, 1, 1)),  # 1 January 2027 in Köln
])
def test_the_retention_counts_from_the_end_of_the_calendar_year(beendet: datetime, ab: date) -> None:
    akte = Akte(status=Akte.Status.GESCHLOSSEN, abgeschlossen_am=beendet)
    assert frueheste_loeschung(akte) == ab
    akte.status = Akte.Status.OFFEN
    assert frueheste_loeschung(akte) is None


@pytest.mark.django_db
def test_closing_sets_the_end_of_the_mandat_and_reopening_clears_it(kanzlei: Kanzlei) -> None:
    anwalt, akte = kanzlei.users["anwalt"], kanzlei.akten["A"]
    assert akte.abgeschlossen_am is None
    akte = akte_aendern(user=anwalt, akte_id=akte.pk, aenderungen={"status": "abgeschlossen"})
    beendet = akte.abgeschlossen_am
    assert beendet is not None and timezone.now() - beendet < timedelta(minutes=1)
    akte = akte_aendern(user=anwalt, akte_id=akte.pk, aenderungen={"status": "abgelegt"})
    assert akte.abgeschlossen_am == beendet  # filing away does not move the end
    akte = akte_aendern(user=anwalt, akte_id=akte.pk, aenderungen={"status": "offen"})
    assert Akte.objects.get(pk=akte.pk).abgeschlossen_am is None


@pytest.mark.django_db
def test_the_migration_takes_the_end_from_the_history(kanzlei: Kanzlei) -> None:
    from importlib import import_module

    from django.apps import apps

    migration = import_module("akten.migrations.0019_datenschutz")
    akte = kanzlei.akten["B"]
    for status in ("geschlossen", "offen", "geschlossen", "archiviert"):
        akte.status = status
        akte.save()
    zweites_mal = akte.history.filter(status="geschlossen").order_by("history_date").last().history_date
    Akte.objects.filter(pk=akte.pk).update(abgeschlossen_am=None)
    migration.abgeschlossen_am_aus_verlauf(apps, None)
    assert Akte.objects.get(pk=akte.pk).abgeschlossen_am == zweites_mal
    assert Akte.objects.get(pk=kanzlei.akten["A"].pk).abgeschlossen_am is None  # open


def _schliessen_vor_jahren(akte: Akte, jahre: int) -> None:
    akte.status = Akte.Status.GESCHLOSSEN
    akte.save()
    Akte.objects.filter(pk=akte.pk).update(abgeschlossen_am=timezone.now() - timedelta(days=365 * jahre))


@pytest.mark.django_db
def test_the_beat_deletes_the_mandants_akte_once_the_retention_ended(
        kanzlei: Kanzlei, person: dict, settings, django_capture_on_commit_callbacks,
        admin_client: Client) -> None:
    settings.HELENA_AKTEN_INDEX = "inline"
    akte = kanzlei.akten["A"]
    with django_capture_on_commit_callbacks(execute=True):
        person["dok_a"].datei.save("kuendigung.pdf", ContentFile(b"%PDF-1.4 Hans Mueller"), save=True)
    datei = Path(person["dok_a"].datei.path)
    assert datei.exists()
    assert AktenPassage.objects.filter(akte=akte).exists()
    Loeschvormerkung.objects.create(beteiligter=person["mandant"], antrag_am=date(2026, 11, 2),
                                    vorgemerkt_von=kanzlei.users["anwalt"])
    assert _login(kanzlei, "anwalt").get(reverse("akten:dokument_datei", args=[person["dok_a"].pk])
                                         ).status_code == 200  # a read the read log keeps
    gelesen = Lesezugriff.objects.get(dokument=person["dok_a"])
    assert gelesen.dokument_titel == "Kündigung"
    _schliessen_vor_jahren(akte, 6)  # closed six years ago: its calendar year + 6 is not over yet
    with django_capture_on_commit_callbacks(execute=True):
        loeschungen_ausfuehren_task.apply()
    assert Akte.objects.filter(pk=akte.pk).exists() and datei.exists()

    _schliessen_vor_jahren(akte, 8)
    with django_capture_on_commit_callbacks(execute=True):
        loeschungen_ausfuehren_task.apply()
    assert not Akte.objects.filter(pk=akte.pk).exists()
    assert not datei.exists()
    assert not AktenPassage.objects.filter(akte_id=akte.pk).exists()
    assert not Dokument.objects.filter(pk=person["dok_a"].pk).exists()
    assert not Beteiligter.history.filter(akte_id=akte.pk).exists()
    assert not Akte.history.filter(id=akte.pk).exists()
    assert not Frist.history.filter(akte_id=akte.pk).exists()
    assert not Kollisionspruefung.objects.filter(pk=person["pruefung"].pk).exists()
    assert Beteiligter.objects.filter(pk=person["zeuge"].pk).exists()  # D is another Mandat
    gelesen.refresh_from_db()
    assert gelesen.akte_id is None and gelesen.dokument_titel == "[gelöscht]"
    protokoll = Loeschprotokoll.objects.get()
    assert protokoll.art == "akte" and protokoll.aktenzeichen == "1/26"
    assert protokoll.geloescht["Dokumente"] == [person["dok_a"].pk] and protokoll.geloescht["Dateien"] == 1
    assert protokoll.antrag_am == date(2026, 11, 2) and "§ 50 Abs. 1" in protokoll.rechtsgrundlage
    gespeichert = json.dumps([protokoll.geloescht, protokoll.rechtsgrundlage, protokoll.aktenzeichen])
    assert "Müller" not in gespeichert and "Eichenweg" not in gespeichert
    seite = admin_client.get(reverse("admin:akten_loeschprotokoll_change", args=[protokoll.pk]))
    assert seite.status_code == 200 and "Löschprotokoll" in seite.content.decode()


@pytest.mark.django_db
def test_a_gegner_goes_alone_and_the_akte_stays(kanzlei: Kanzlei, person: dict, settings,
                                                django_capture_on_commit_callbacks) -> None:
    settings.HELENA_AKTEN_INDEX = "inline"
    akte, gegner = kanzlei.akten["A"], person["gegner"]
    with django_capture_on_commit_callbacks(execute=True):
        gegner.anschrift = "Hafenstraße 1"
        gegner.save()
    assert "Gegner/in: Stahlbau GmbH" in AktenPassage.objects.get(akte=akte, quelle="akte").text
    fremde = Kollisionspruefung.objects.create(
        akte=kanzlei.akten["B"], anlass="hand", namen=["Stahlbau AG"], entscheidung="fortgesetzt",
        treffer=[{"name": "Stahlbau AG", "gefunden_als": "Stahlbau GmbH", "akte_id": akte.pk,
                  "aktenzeichen": "1/26", "hinweis": "Stahlbau GmbH ist Gegner in 1/26."}])
    abfrage = Kollisionspruefung.objects.create(  # an Abfrage without an Akte
        akte=None, anlass="abfrage", namen=["Stahlbau", "Eva Roth"], entscheidung="offen",
        treffer=[{"name": "Stahlbau", "gefunden_als": "Stahlbau GmbH", "rolle": "gegner", "akte_id": akte.pk,
                  "aktenzeichen": "1/26", "hinweis": "„Stahlbau GmbH“ ist oder war Gegner/in in 1/26."}])
    anderer = Kollisionspruefung.objects.create(  # the same name that found another Stahlbau: not theirs
        akte=None, anlass="abfrage", namen=["Stahlbau GmbH"], entscheidung="offen",
        treffer=[{"name": "Stahlbau GmbH", "gefunden_als": "Stahlbau GmbH", "rolle": "gegner",
                  "akte_id": kanzlei.akten["C"].pk, "aktenzeichen": "3/26", "hinweis": "…"}])
    Loeschvormerkung.objects.create(beteiligter=gegner, antrag_am=date(2026, 1, 5))
    _schliessen_vor_jahren(akte, 8)
    with django_capture_on_commit_callbacks(execute=True):
        loeschungen_ausfuehren_task.apply()
    assert not Beteiligter.objects.filter(pk=gegner.pk).exists()
    assert not Beteiligter.history.filter(id=gegner.pk).exists()
    assert Akte.objects.filter(pk=akte.pk).exists() and Beteiligter.objects.filter(pk=person["mandant"].pk)
    # its vector is embedded again without it (the Kurzrubrum is the Mandant's Handakte and stays)
    assert "Gegner/in: Stahlbau" not in AktenPassage.objects.get(akte=akte, quelle="akte").text
    treffer = Kollisionspruefung.objects.get(pk=fremde.pk).treffer
    assert treffer[0]["gefunden_als"] == "[gelöscht]" and "Stahlbau GmbH" not in json.dumps(treffer)
    assert Kollisionspruefung.objects.get(pk=person["pruefung"].pk).namen == [NAME, "[gelöscht]"]
    abfrage.refresh_from_db()
    assert abfrage.namen == ["[gelöscht]", "Eva Roth"]
    assert abfrage.treffer[0]["rolle"] == "" and abfrage.treffer[0]["aktenzeichen"] == "[gelöscht]"
    assert "Stahlbau" not in json.dumps([abfrage.namen, abfrage.treffer])
    assert Kollisionspruefung.objects.get(pk=anderer.pk).namen == ["Stahlbau GmbH"]
    assert Loeschprotokoll.objects.get().art == "beteiligter"


@pytest.mark.django_db
def test_an_open_akte_is_never_deleted(kanzlei: Kanzlei, person: dict) -> None:
    akte = kanzlei.akten["A"]
    Loeschvormerkung.objects.create(beteiligter=person["mandant"], antrag_am=date(2020, 1, 5))
    _schliessen_vor_jahren(akte, 10)
    akte.status = Akte.Status.OFFEN  # opened again: the Mandat goes on
    akte.save()
    loeschungen_ausfuehren_task.apply()
    assert Akte.objects.filter(pk=akte.pk).exists() and Loeschvormerkung.objects.exists()
    assert not Loeschprotokoll.objects.exists()


# --- the JSON API --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_api_auskunft_as_json_and_pdf(kanzlei: Kanzlei, person: dict) -> None:
    client = kanzlei.client("anwalt")
    url = f"/api/v1/beteiligte/{person['mandant'].pk}/auskunft"
    daten = client.get(url).json()
    assert [b["id"] for b in daten["beteiligungen"]] == [str(person["mandant"].pk)]
    assert "Zeugenaussage" not in json.dumps(daten)
    pdf = client.get(url + "?format=pdf")
    assert pdf["Content-Type"] == "application/pdf"
    assert NAME in PdfReader(io.BytesIO(pdf.content)).pages[0].extract_text()
    assert client.get(url + "?format=docx").status_code == 422


@pytest.mark.django_db
def test_api_refuses_other_roles_and_foreign_akten(kanzlei: Kanzlei, person: dict) -> None:
    url = f"/api/v1/beteiligte/{person['mandant'].pk}"
    for who in ("sachbearbeiter", "praktikant"):
        client = kanzlei.client(who)
        antwort = client.get(url + "/auskunft")
        assert antwort.status_code in (403, 404), who
        assert antwort.json()["detail"]
        assert client.post(url + "/loeschung", {"antrag_am": "2026-01-02"},
                           content_type="application/json").status_code in (403, 404)
    sachbearbeiter = kanzlei.client("sachbearbeiter").get(url + "/auskunft").json()
    assert "Anwältinnen und Anwälte" in sachbearbeiter["detail"]  # A is his: the role refuses
    zeuge = f"/api/v1/beteiligte/{person['zeuge'].pk}/auskunft"
    assert kanzlei.client("anwalt").get(zeuge).status_code == 404  # D is not the anwalt's
    assert kanzlei.client(None).get(url + "/auskunft").status_code == 401
    assert not Loeschvormerkung.objects.exists()


@pytest.mark.django_db
def test_api_vormerken_and_zuruecknehmen(kanzlei: Kanzlei, person: dict) -> None:
    client = kanzlei.client("anwalt")
    url = f"/api/v1/beteiligte/{person['mandant'].pk}/loeschung"
    zukunft = (timezone.localdate() + timedelta(days=2)).isoformat()
    antwort = client.post(url, {"antrag_am": zukunft}, content_type="application/json")
    assert antwort.status_code == 422 and "Zukunft" in antwort.json()["detail"]
    for frueh in ("0001-01-01", "2025-12-31"):  # before the DSGVO, before the Mandat
        antwort = client.post(url, {"antrag_am": frueh}, content_type="application/json")
        assert antwort.status_code == 422 and "nicht vor dem" in antwort.json()["detail"]
    antwort = client.post(url, {"antrag_am": "2026-11-02", "begruendung": "Brief"},
                          content_type="application/json")
    assert antwort.status_code == 201
    assert antwort.json() == [{"beteiligter_id": str(person["mandant"].pk),
                               "akte_id": str(kanzlei.akten["A"].pk), "aktenzeichen": "1/26",
                               "antrag_am": "2026-11-02", "loeschung_ab": None}]
    assert client.delete(url).status_code == 204
    assert client.delete(url).status_code == 404
    assert not Loeschvormerkung.objects.exists()


# --- what a deletion leaves for a person to check; who sees the Verwaltung's lists -------------------


@pytest.mark.django_db
def test_helena_records_naming_the_person_are_listed_for_the_admin(
        kanzlei: Kanzlei, person: dict, admin_client: Client, django_capture_on_commit_callbacks) -> None:
    """A global conversation and a tool call naming the Mandant survive his Akte's deletion (other Mandate's
    work): the Löschprotokoll lists their ids „zur Prüfung“ and its admin page links them."""
    from helena.models import AgentRun, Conversation, Message, ToolCallLog

    anwalt = kanzlei.users["anwalt"]
    global_ = Conversation.objects.create(user=anwalt, title="Recherche")
    Message.objects.create(conversation=global_, role="user", text="Was schuldet Müller, Hans noch?")
    andere = Conversation.objects.create(user=anwalt, akte=kanzlei.akten["B"], context_type="akte")
    AgentRun.objects.create(conversation=andere, user=anwalt, mode="inline",
                            transcript=[{"role": "user", "content": f"Schreib an {NAME}"}])
    ohne = Conversation.objects.create(user=anwalt, title="Anderes")
    Message.objects.create(conversation=ohne, role="user", text="Frist für Stahlbau?")
    aufruf = ToolCallLog.objects.create(tool="search_alle_akten", params={"query": "hans müller"},
                                        user=anwalt)
    Loeschvormerkung.objects.create(beteiligter=person["mandant"], antrag_am=date(2026, 11, 2))
    _schliessen_vor_jahren(kanzlei.akten["A"], 8)
    with django_capture_on_commit_callbacks(execute=True):
        loeschungen_ausfuehren_task.apply()
    protokoll = Loeschprotokoll.objects.get()
    assert protokoll.geloescht["zur Prüfung"] == {
        "Helena-Unterhaltungen": sorted([str(global_.pk), str(andere.pk)], key=int),
        "Werkzeugaufrufe": [str(aufruf.pk)]}
    assert Conversation.objects.filter(pk=global_.pk).exists()  # decided by a person, not deleted wholesale
    seite = admin_client.get(reverse("admin:akten_loeschprotokoll_change", args=[protokoll.pk]))
    seite = seite.content.decode()
    assert reverse("admin:helena_conversation_change", args=[global_.pk]) in seite
    assert reverse("admin:helena_toolcalllog_change", args=[aufruf.pk]) in seite


@pytest.mark.django_db
def test_the_verwaltung_s_lists_are_for_the_administration_only(kanzlei: Kanzlei, person: dict) -> None:
    from django.contrib.auth.models import Permission

    Loeschvormerkung.objects.create(beteiligter=person["mandant"], antrag_am=date(2026, 11, 2))
    protokoll = Loeschprotokoll.objects.create(
        art="beteiligter", akte_id=1, aktenzeichen="9/19", beteiligter_id=2, rolle="gegner",
        antrag_am=date(2026, 1, 2), aufbewahrung_bis=date(2025, 12, 31), mandat_beendet_am=date(2019, 3, 1),
        rechtsgrundlage="…", geloescht={}, vorgemerkt_am=timezone.now())
    for who in ("sachbearbeiter", "admin"):
        user = kanzlei.users[who]
        user.is_staff = True
        user.save()
        user.user_permissions.add(*Permission.objects.filter(codename__in=["view_loeschprotokoll",
                                                                            "view_loeschvormerkung"]))
    sachbearbeiter, admin = _login(kanzlei, "sachbearbeiter"), _login(kanzlei, "admin")
    for url in (reverse("admin:akten_loeschprotokoll_changelist"),
                reverse("admin:akten_loeschprotokoll_change", args=[protokoll.pk]),
                reverse("admin:akten_loeschvormerkung_changelist")):
        assert sachbearbeiter.get(url).status_code == 403, url
        assert admin.get(url).status_code == 200, url
    assert "Löschprotokoll" not in sachbearbeiter.get(reverse("admin:index")).content.decode()


# --- „Mandat beendet am“: what § 50 BRAO counts from ------------------------------------------------


@pytest.mark.django_db
def test_the_end_of_the_mandat_is_set_on_the_page_with_history(kanzlei: Kanzlei) -> None:
    """An Akte that ended in 2015 but was closed here today: the lawyer enters the day, the deletion date
    follows it (2022, not 2033), the Verlauf keeps the change; nonsense and other roles are refused."""
    akte = kanzlei.akten["A"]
    Akte.objects.filter(pk=akte.pk).update(auftragsdatum=date(2014, 2, 1))
    url = reverse("akten:bearbeiten", args=[akte.pk])
    anwalt = _login(kanzlei, "anwalt")
    felder = {"aktenzeichen": "1/26", "kurzrubrum": akte.kurzrubrum, "wegen": akte.wegen,
              "rechtsgebiet": akte.rechtsgebiet, "bundesland": akte.bundesland, "anwalt": akte.anwalt_id,
              "status": "geschlossen", "auftragsdatum": "2014-02-01"}
    assert anwalt.post(url, felder).status_code == 302
    assert Akte.objects.get(pk=akte.pk).mandat_beendet_am == timezone.localdate()  # default: closing day
    for falsch in ("2999-01-01", "2013-12-31"):
        antwort = anwalt.post(url, {**felder, "mandat_beendet_am": falsch})
        assert antwort.status_code == 422 and 'class="field-error"' in antwort.content.decode()
    assert anwalt.post(url, {**felder, "mandat_beendet_am": "15.03.2015"}).status_code == 302
    akte = Akte.objects.get(pk=akte.pk)
    assert akte.mandat_beendet_am == date(2015, 3, 15) and frueheste_loeschung(akte) == date(2022, 1, 1)
    assert akte.history.filter(abgeschlossen_am__date=date(2015, 3, 15)).exists()  # with history
    assert "Mandat beendet am" not in _login(kanzlei, "sachbearbeiter").get(url).content.decode()


@pytest.mark.django_db
def test_the_end_of_the_mandat_over_the_api(kanzlei: Kanzlei) -> None:
    from tests.akten.test_api_schreiben import patch

    akte = kanzlei.akten["A"]
    url = f"/api/v1/akten/{akte.pk}"
    offen = patch(kanzlei.client("anwalt"), url, {"mandat_beendet_am": "2015-03-15"})
    assert offen.status_code == 422 and "abgeschlossene" in offen.json()["detail"]
    antwort = patch(kanzlei.client("anwalt"), url,
                    {"status": "geschlossen", "mandat_beendet_am": "2015-03-15"})
    assert antwort.status_code == 200 and antwort.json()["mandat_beendet_am"] == "2015-03-15"
    zukunft = (timezone.localdate() + timedelta(days=3)).isoformat()
    assert patch(kanzlei.client("anwalt"), url, {"mandat_beendet_am": zukunft}).status_code == 422
    refused = patch(kanzlei.client("sachbearbeiter"), url, {"mandat_beendet_am": "2016-01-01"})
    assert refused.status_code == 403
    assert Akte.objects.get(pk=akte.pk).mandat_beendet_am == date(2015, 3, 15)


@pytest.mark.django_db
def test_an_imported_akte_keeps_its_old_end(kanzlei: Kanzlei) -> None:
    from akten.importe import pruefen

    zeile = pruefen.pruefe_zeile(2, {"aktenzeichen": "77/15", "mandant": "Eva Roth", "angelegt": "01.02.2015",
                                     "beendet": "15.03.2015"}, anwalt_von=lambda _: None)
    assert zeile.stammdaten["mandat_beendet_am"] == date(2015, 3, 15)
    from akten.erfassung.akten import akte_anlegen

    akte = akte_anlegen(user=kanzlei.users["admin"], daten=zeile.stammdaten)
    assert akte.status == "geschlossen" and frueheste_loeschung(akte) == date(2022, 1, 1)
    with pytest.raises(Exception, match="vor der Anlage"):
        pruefen.pruefe_zeile(3, {"aktenzeichen": "78/15", "mandant": "Eva Roth", "angelegt": "01.02.2015",
                                 "beendet": "15.03.2014"}, anwalt_von=lambda _: None)
