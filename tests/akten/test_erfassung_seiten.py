"""Records by hand on the lawyer pages (issue 32, H1), tested from the outside: every POST goes through
Django's test client with CSRF enforced and the token taken from the page, as a browser sends it.

Each page has a user who must be refused (the Praktikant may not create, the Sekretariat may change
neither the status nor who sees the Akte, a user without access gets 404), bad input gives German
messages and changes nothing, the Kollisionsprüfung asks before saving and records the decision, and
the Aktivität tab tells who changed what, old → new.
"""

from __future__ import annotations

import re
import socket
from datetime import date
from decimal import Decimal
from html import unescape

import pytest
from django.test import Client

from akten.erfassung.akten import akte_aendern, akte_anlegen, naechstes_aktenzeichen
from akten.models import (
    Akte,
    AktenZugriff,
    Alert,
    Beteiligter,
    Frist,
    Kollisionspruefung,
    Notiz,
    User,
    Zeiterfassung,
)
from akten.seiten.verlauf import verlauf_der_akte, verlauf_des_eintrags
from config.errors import NotFound
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def _seite(kanzlei: Kanzlei, who: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(kanzlei.users[who])
    return client


def _token(client: Client, url: str = "/akten/") -> str:
    """The CSRF token as the page hands it out (a refused page: the list's logout form has one too)."""
    response = client.get(url)
    if response.status_code != 200:
        response = client.get("/akten/")
    match = TOKEN.search(response.content.decode())
    assert match, url
    return match.group(1)


def _post(client: Client, url: str, daten: dict, *, formular: str | None = None):
    return client.post(url, {**daten, "csrfmiddlewaretoken": _token(client, formular or url)})


def _text(response) -> str:
    """The page as read: without tags, entities resolved, whitespace collapsed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def _neue_akte(**mehr: str) -> dict[str, str]:
    return {"aktenzeichen": "", "kurzrubrum": "Hoffmann ./. Lindner GmbH", "wegen": "Mietminderung",
            "rechtsgebiet": "mietrecht", "gegenstandswert": "12.500,00", "auftragsdatum": "01.02.2026",
            "bundesland": "NW", "anwalt": "", "sachbearbeiter": "",
            "tags": "Eilsache, Rechtsschutz, Eilsache",
            "mandant-name": "Renate Hoffmann", "mandant-anrede": "frau",
            "mandant-anschrift": "Ringstraße 4\n50667 Köln", "mandant-telefon": "0221 123456",
            "mandant-email": "r.hoffmann@example.org", "gegner-name": "Lindner Hausverwaltung GmbH",
            "gegner-anrede": "firma", "gegner-anschrift": "", **mehr}


# --- Akte anlegen -------------------------------------------------------------------------------


def test_an_akte_comes_in_with_its_mandant_and_gegner(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    client = _seite(kanzlei, "anwalt")
    assert 'href="/akten/neu/"' in client.get("/akten/").content.decode()
    form = client.get("/akten/neu/").content.decode()
    vorschlag = naechstes_aktenzeichen(anwalt=anwalt)
    assert f'value="{vorschlag}"' in form and "Lege eine neue Akte an" in form

    response = _post(client, "/akten/neu/", _neue_akte(aktenzeichen=vorschlag, anwalt=str(anwalt.pk),
                                                        status="offen"))
    assert response.status_code == 302, _text(response)
    akte = Akte.objects.get(aktenzeichen=vorschlag)
    assert response["Location"] == f"/akten/{akte.pk}/"
    assert akte.gegenstandswert == Decimal("12500.00") and str(akte.auftragsdatum) == "2026-02-01"
    assert akte.tags == ["Eilsache", "Rechtsschutz"] and akte.anwalt == anwalt
    mandant = akte.beteiligte.get(rolle="mandant")
    assert (mandant.name, mandant.anrede) == ("Renate Hoffmann", "frau")
    assert mandant.email == "r.hoffmann@example.org"
    assert akte.beteiligte.get(rolle="gegner").name == "Lindner Hausverwaltung GmbH"
    pruefungen = Kollisionspruefung.objects.filter(akte=akte)
    assert sorted(p.entscheidung for p in pruefungen) == ["keine_treffer", "keine_treffer"]
    assert AktenZugriff.objects.filter(akte=akte, user=anwalt).exists()

    seite = client.get(response["Location"])
    text = _text(seite)
    assert f"Die Akte {vorschlag} ist angelegt." in text
    assert "Mandant/in Renate Hoffmann" in text and "Gegner/in Lindner Hausverwaltung GmbH" in text
    for tab in ("uebersicht", "beteiligte", "fristen", "dokumente", "notizen", "zeiten", "aktivitaet",
                "helena"):
        assert f'href="?tab={tab}"' in seite.content.decode()


def test_an_empty_aktenzeichen_takes_the_next_one(kanzlei: Kanzlei) -> None:
    client = _seite(kanzlei, "sekretariat")
    erwartet = naechstes_aktenzeichen()
    daten = _neue_akte()
    del daten["gegner-name"]
    response = _post(client, "/akten/neu/", daten)
    assert response.status_code == 302
    akte = Akte.objects.get(aktenzeichen=erwartet)
    assert akte.status == "offen" and list(akte.beteiligte.values_list("rolle", flat=True)) == ["mandant"]


def test_the_praktikant_may_not_create_an_akte(kanzlei: Kanzlei) -> None:
    client = _seite(kanzlei, "praktikant")
    assert 'href="/akten/neu/"' not in client.get("/akten/").content.decode()
    assert client.get("/akten/neu/").status_code == 403
    response = _post(client, "/akten/neu/", _neue_akte())
    assert response.status_code == 403 and "außer Praktikantinnen" in _text(response)
    assert Akte.objects.count() == 4 and not Beteiligter.objects.exists()


def test_the_sekretariat_may_not_set_a_status(kanzlei: Kanzlei) -> None:
    client = _seite(kanzlei, "sekretariat")
    assert 'name="status"' not in client.get("/akten/neu/").content.decode()
    response = _post(client, "/akten/neu/", _neue_akte(aktenzeichen="77/26", status="geschlossen"))
    assert response.status_code == 302
    assert Akte.objects.get(aktenzeichen="77/26").status == "offen"  # the field is not theirs: ignored


def test_bad_input_gives_german_messages_and_creates_nothing(kanzlei: Kanzlei) -> None:
    client = _seite(kanzlei, "anwalt")
    response = _post(client, "/akten/neu/", _neue_akte(kurzrubrum="", gegenstandswert="abc",
                                                        **{"mandant-email": "kein-at", "mandant-name": ""}))
    assert response.status_code == 422
    text = _text(response)
    for meldung in ("Bitte gib ein Kurzrubrum an.", "Bitte einen Betrag wie 12.500,00 angeben.",
                    "Bitte gib den Namen an.", "Bitte eine gültige E-Mail-Adresse angeben."):
        assert meldung in text
    assert 'value="abc"' in response.content.decode()  # what was typed stays
    assert Akte.objects.count() == 4 and not Beteiligter.objects.exists()

    response = _post(client, "/akten/neu/", _neue_akte(aktenzeichen="1/26"))  # taken by Akte A
    assert response.status_code == 422
    assert f"Schon vergeben. Frei ist zum Beispiel {naechstes_aktenzeichen()}." in _text(response)
    response = _post(client, "/akten/neu/", _neue_akte(aktenzeichen="12<b>",
                                                        gegenstandswert="1.000.000.000.000"))
    assert response.status_code == 422 and "Bitte einen Betrag wie 12.500,00 angeben." in _text(response)
    assert Akte.objects.count() == 4 and not Beteiligter.objects.exists()
    assert not Kollisionspruefung.objects.exists()


# --- Kollisionsprüfung --------------------------------------------------------------------------


def _mandant_in_akte_c(kanzlei: Kanzlei) -> Beteiligter:
    """Hans Müller is Mandant in Akte 3/26, which only the Anwalt (and the Administration) may see."""
    return Beteiligter.objects.create(akte=kanzlei.akten["C"], rolle="mandant", name="Hans Müller")


def test_a_gegner_who_is_mandant_elsewhere_is_asked_about_before_anything_is_saved(kanzlei: Kanzlei) -> None:
    _mandant_in_akte_c(kanzlei)
    client = _seite(kanzlei, "sachbearbeiter")
    daten = _neue_akte(aktenzeichen="50/26", **{"gegner-name": "Hans Mueller", "gegner-anrede": "herr"})
    response = _post(client, "/akten/neu/", daten)
    assert response.status_code == 409
    html, text = response.content.decode(), _text(response)
    assert "Kollisionsprüfung: ein möglicher Treffer" in text
    assert ("Mögliche Interessenkollision: „Hans Mueller“ ist oder war Mandant/in in einer Akte, die du "
            "nicht sehen darfst") in text
    # not the Aktenzeichen, not its Rubrum, not even how the name is written there
    assert "3/26" not in html and "Vertraulich" not in html and "Hans Müller" not in html
    assert "Ich habe die möglichen Kollisionen geprüft und lege die Akte trotzdem an" in text
    assert not Akte.objects.filter(aktenzeichen="50/26").exists()
    assert Beteiligter.objects.count() == 1 and not Kollisionspruefung.objects.exists()

    namen = re.search(r'name="kollision_namen" value="([^"]*)"', html).group(1)
    bestaetigt = {**daten, "kollision_bestaetigt": "on", "kollision_namen": unescape(namen)}
    ohne_grund = _post(client, "/akten/neu/", bestaetigt, formular="/akten/neu/")
    assert ohne_grund.status_code == 409
    assert "Bitte begründe, warum du trotz möglicher Kollision fortfährst." in _text(ohne_grund)
    # the confirmation holds for the names whose hits were shown: another name is asked about anew
    anderer_name = _post(client, "/akten/neu/", {**bestaetigt, "gegner-name": "Müller, Hans",
                                                   "kollision_begruendung": "geprüft"})
    assert anderer_name.status_code == 409 and "„Müller, Hans“ ist oder war" in _text(anderer_name)
    assert not Akte.objects.filter(aktenzeichen="50/26").exists()

    # "Trotzdem anlegen" without the tick says why nothing happened (it showed the same page again)
    ohne_haken = _post(client, "/akten/neu/", {**daten, "kollision_namen": unescape(namen),
                                               "kollision_begruendung": "geprüft"})
    assert ohne_haken.status_code == 409
    assert "Setz den Haken, wenn du trotz möglicher Kollision fortfahren willst – sonst brich ab." \
        in _text(ohne_haken)
    assert "geprüft" in ohne_haken.content.decode()  # the reason typed is kept
    assert not Akte.objects.filter(aktenzeichen="50/26").exists()

    grund = "Namensgleichheit: anderer Hans Müller, Geburtsdatum weicht ab (Rücksprache mit RA Berger)."
    response = _post(client, "/akten/neu/", {**bestaetigt, "kollision_begruendung": grund})
    assert response.status_code == 302, _text(response)
    akte = Akte.objects.get(aktenzeichen="50/26")
    pruefung = Kollisionspruefung.objects.get(akte=akte, entscheidung="fortgesetzt")
    assert pruefung.begruendung == grund and pruefung.namen == ["Hans Mueller"]
    # the reason belongs to the Gegner's hits, not to the Mandant's check without any
    ohne_treffer = Kollisionspruefung.objects.get(akte=akte, entscheidung="keine_treffer")
    assert ohne_treffer.namen == ["Renate Hoffmann"] and ohne_treffer.begruendung == ""
    assert pruefung.user == kanzlei.users["sachbearbeiter"] and pruefung.treffer  # the firm's record: all
    assert akte.beteiligte.get(rolle="gegner").name == "Hans Mueller"
    aktivitaet = _text(client.get(f"/akten/{akte.pk}/?tab=aktivitaet"))
    assert "Kollisionsprüfung Hans Mueller trotz Treffer fortgesetzt" in aktivitaet and grund in aktivitaet


def test_a_beteiligter_added_later_is_checked_the_same_way(kanzlei: Kanzlei) -> None:
    _mandant_in_akte_c(kanzlei)
    akte = kanzlei.akten["B"]
    client = _seite(kanzlei, "sekretariat")
    url = f"/akten/{akte.pk}/beteiligte/neu/"
    daten = {"rolle": "gegner", "name": "Müller, Hans", "anrede": "herr", "anschrift": "", "telefon": "",
             "email": "", "aktenzeichen_extern": "", "notiz": ""}
    response = _post(client, url, daten)
    assert response.status_code == 409 and "3/26" not in response.content.decode()
    assert "in einer Akte, die du nicht sehen darfst" in _text(response)
    assert not akte.beteiligte.exists()
    namen = unescape(re.search(r'name="kollision_namen" value="([^"]*)"', response.content.decode()).group(1))
    response = _post(client, url, {**daten, "kollision_bestaetigt": "on", "kollision_namen": namen,
                                   "kollision_begruendung": "Andere Person (Rücksprache gehalten)."})
    assert response.status_code == 302
    neu = akte.beteiligte.get()
    assert response["Location"] == f"/akten/{akte.pk}/?tab=beteiligte#beteiligter-{neu.pk}"
    assert Kollisionspruefung.objects.get(akte=akte).entscheidung == "fortgesetzt"


# --- Akte bearbeiten, Aktivität -----------------------------------------------------------------


def test_changes_show_on_the_aktivitaet_tab_who_and_old_to_new(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    User.objects.filter(pk=anwalt.pk).update(first_name="Thomas", last_name="Berger")
    akte = kanzlei.akten["A"]
    client = _seite(kanzlei, "anwalt")
    url = f"/akten/{akte.pk}/bearbeiten/"
    form = client.get(url).content.decode()
    assert 'value="12.000,00"' in form and 'name="status"' in form
    daten = {"aktenzeichen": "1/26", "kurzrubrum": akte.kurzrubrum, "wegen": "Lohnzahlung",
             "rechtsgebiet": "arbeitsrecht", "gegenstandswert": "15.250,50", "auftragsdatum": "",
             "bundesland": "NW", "anwalt": str(anwalt.pk), "sachbearbeiter": "", "status": "geschlossen",
             "tags": "", "grund": "Klage erweitert"}
    response = _post(client, url, daten)
    assert response.status_code == 302
    akte.refresh_from_db()
    assert (akte.wegen, akte.gegenstandswert) == ("Lohnzahlung", Decimal("15250.50"))
    assert akte.status == "geschlossen"

    seite = client.get(f"/akten/{akte.pk}/?tab=aktivitaet")
    html, text = seite.content.decode(), _text(seite)
    assert "Thomas Berger" in text and "Grund: Klage erweitert" in text
    assert "Wegen: vorher Kündigungsschutz → jetzt Lohnzahlung" in text
    assert "Gegenstandswert (EUR): vorher 12.000,00 → jetzt 15.250,50" in text
    assert "Status: vorher offen → jetzt abgeschlossen" in text
    assert 'class="akte-bereich akte-bereich--aus" id="uebersicht"' in html  # one tab shown
    assert 'data-tab="aktivitaet" aria-current="page"' in html


def test_the_sekretariat_edits_stammdaten_but_not_the_status(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["B"]
    client = _seite(kanzlei, "sekretariat")
    url = f"/akten/{akte.pk}/bearbeiten/"
    assert 'name="status"' not in client.get(url).content.decode()
    daten = {"aktenzeichen": "2/26", "kurzrubrum": "Schulz ./. Wohnbau AG", "wegen": "Räumung und Miete",
             "rechtsgebiet": "mietrecht", "gegenstandswert": "", "auftragsdatum": "", "bundesland": "BY",
             "anwalt": "", "sachbearbeiter": "", "tags": "", "status": "archiviert"}
    assert _post(client, url, daten).status_code == 302
    akte.refresh_from_db()
    assert akte.wegen == "Räumung und Miete" and akte.status == "offen"

    bad = _post(client, url, {**daten, "kurzrubrum": "", "gegenstandswert": "zwölf", "aktenzeichen": "1/26"})
    assert bad.status_code == 422
    assert "Bitte gib ein Kurzrubrum an." in _text(bad) and "Bitte einen Betrag" in _text(bad)
    taken = _post(client, url, {**daten, "aktenzeichen": "1/26"})
    assert taken.status_code == 422 and "Das Aktenzeichen 1/26 ist schon vergeben." in _text(taken)
    akte.refresh_from_db()
    assert akte.aktenzeichen == "2/26" and akte.kurzrubrum == "Schulz ./. Wohnbau AG"

    assert _seite(kanzlei, "praktikant").get(url).status_code == 403
    fremd = kanzlei.akten["A"]  # not the Sekretariat's
    assert client.get(f"/akten/{fremd.pk}/bearbeiten/").status_code == 404
    refused = _post(client, f"/akten/{fremd.pk}/bearbeiten/", {**daten, "aktenzeichen": "1/26"})
    assert refused.status_code == 404
    fremd.refresh_from_db()
    assert fremd.wegen == "Kündigungsschutz"


# --- Zugriff ------------------------------------------------------------------------------------


def test_the_anwalt_decides_who_sees_the_akte(kanzlei: Kanzlei) -> None:
    akte, sekretariat = kanzlei.akten["A"], kanzlei.users["sekretariat"]
    client = _seite(kanzlei, "anwalt")
    seite = client.get(f"/akten/{akte.pk}/").content.decode()
    assert "Zugriff geben" in seite and f'value="{sekretariat.pk}"' in seite
    assert _seite(kanzlei, "sekretariat").get(f"/akten/{akte.pk}/").status_code == 404

    response = _post(client, f"/akten/{akte.pk}/zugriff/", {"person": str(sekretariat.pk)},
                     formular=f"/akten/{akte.pk}/")
    assert response.status_code == 302
    assert _seite(kanzlei, "sekretariat").get(f"/akten/{akte.pk}/").status_code == 200
    bad = _post(client, f"/akten/{akte.pk}/zugriff/", {"person": "abc"}, formular=f"/akten/{akte.pk}/")
    assert bad.status_code == 422 and "Diese Person kann keinen Zugriff bekommen." in _text(bad)

    eigener = _post(client, f"/akten/{akte.pk}/zugriff/{kanzlei.users['anwalt'].pk}/entziehen/", {},
                    formular=f"/akten/{akte.pk}/")
    assert "behält den Zugriff" in _text(client.get(eigener["Location"]))
    assert AktenZugriff.objects.filter(akte=akte, user=kanzlei.users["anwalt"]).exists()

    response = _post(client, f"/akten/{akte.pk}/zugriff/{sekretariat.pk}/entziehen/", {},
                     formular=f"/akten/{akte.pk}/")
    assert response.status_code == 302
    assert _seite(kanzlei, "sekretariat").get(f"/akten/{akte.pk}/").status_code == 404
    verlauf = _text(client.get(f"/akten/{akte.pk}/?tab=aktivitaet"))
    assert "Zugriff sekretariat gelöscht" in verlauf and "Zugriff sekretariat angelegt" in verlauf


def test_the_sekretariat_sees_the_list_but_may_not_change_it(kanzlei: Kanzlei) -> None:
    akte, praktikant = kanzlei.akten["B"], kanzlei.users["praktikant"]
    client = _seite(kanzlei, "sekretariat")
    seite = client.get(f"/akten/{akte.pk}/").content.decode()
    assert "Wer die Akte sieht" in seite and "Zugriff geben" not in seite and "entziehen" not in seite
    neu = User.objects.create_user(username="neu", password="pw-neu", role="SACHBEARBEITER")
    response = _post(client, f"/akten/{akte.pk}/zugriff/", {"person": str(neu.pk)})
    assert response.status_code == 403 and "bestimmen Anwältinnen und Anwälte" in _text(response)
    response = _post(client, f"/akten/{akte.pk}/zugriff/{praktikant.pk}/entziehen/", {})
    assert response.status_code == 403
    assert AktenZugriff.objects.filter(akte=akte, user=praktikant).exists()
    assert not AktenZugriff.objects.filter(akte=akte, user=neu).exists()
    fremd = kanzlei.akten["D"]
    assert _post(_seite(kanzlei, "anwalt"), f"/akten/{fremd.pk}/zugriff/",
                 {"person": str(praktikant.pk)}).status_code == 404


# --- Beteiligte ---------------------------------------------------------------------------------


def test_beteiligte_are_added_changed_and_removed(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["B"]
    client = _seite(kanzlei, "sekretariat")
    daten = {"rolle": "gegnervertreter", "name": "RAe Klug & Partner", "anrede": "firma",
             "anschrift": "Am Markt 1\n80331 München", "telefon": "089 1234", "email": "kanzlei@klug.example",
             "aktenzeichen_extern": "K-77/26", "notiz": ""}
    response = _post(client, f"/akten/{akte.pk}/beteiligte/neu/", daten)
    assert response.status_code == 302
    b = akte.beteiligte.get()
    seite = client.get(response["Location"])
    text = _text(seite)
    assert "Gegnervertreter/in RAe Klug & Partner (Az. K-77/26)" in text
    assert "Am Markt 1" in text and "kanzlei@klug.example" in text

    url = f"/akten/{akte.pk}/beteiligte/{b.pk}/bearbeiten/"
    bad = _post(client, url, {**daten, "email": "nicht gültig", "name": ""})
    assert bad.status_code == 422 and "Bitte gib den Namen an." in _text(bad)
    assert _post(client, url, {**daten, "telefon": "089 9999"}).status_code == 302
    b.refresh_from_db()
    assert b.telefon == "089 9999"
    assert "Telefon: vorher 089 1234 → jetzt 089 9999" in _text(client.get(url))  # the party's Verlauf

    assert _post(_seite(kanzlei, "praktikant"), url, {**daten, "name": "X"}).status_code == 403
    assert _seite(kanzlei, "praktikant").get(f"/akten/{akte.pk}/beteiligte/neu/").status_code == 403
    fremd = kanzlei.akten["A"]
    assert client.get(f"/akten/{fremd.pk}/beteiligte/neu/").status_code == 404
    assert client.get(f"/akten/{fremd.pk}/beteiligte/{b.pk}/bearbeiten/").status_code == 404

    response = _post(client, f"/akten/{akte.pk}/beteiligte/{b.pk}/entfernen/", {}, formular=url)
    assert response.status_code == 302 and not akte.beteiligte.exists()
    verlauf = _text(client.get(f"/akten/{akte.pk}/?tab=aktivitaet"))
    assert "Beteiligte/r RAe Klug & Partner (Gegnervertreter/in) gelöscht" in verlauf


# --- Notizen und Zeiten -------------------------------------------------------------------------


def test_a_notiz_is_written_and_bad_input_is_refused(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["B"]
    client = _seite(kanzlei, "sekretariat")
    seite = client.get(f"/akten/{akte.pk}/?tab=notizen").content.decode()
    assert "Notiz schreiben" in seite and "@Helena" in seite
    leer = _post(client, f"/akten/{akte.pk}/notizen/neu/", {"titel": "Nur Titel", "inhalt": "  "})
    assert leer.status_code == 422 and "Bitte schreib etwas in die Notiz." in _text(leer)
    assert not Notiz.objects.exists()
    response = _post(client, f"/akten/{akte.pk}/notizen/neu/",
                     {"titel": "Anruf", "inhalt": "Mandant ruft an."})
    notiz = Notiz.objects.get()
    assert response["Location"] == f"/akten/{akte.pk}/?tab=notizen#notiz-{notiz.pk}"
    assert notiz.verfasst_von == kanzlei.users["sekretariat"] and notiz.akte == akte
    assert "Die Notiz ist gespeichert." in _text(client.get(response["Location"]))

    assert _post(_seite(kanzlei, "praktikant"), f"/akten/{akte.pk}/notizen/neu/",
                 {"inhalt": "x"}).status_code == 403
    assert _post(client, f"/akten/{kanzlei.akten['A'].pk}/notizen/neu/", {"inhalt": "x"}).status_code == 404
    assert Notiz.objects.count() == 1


def test_time_is_entered_as_minutes_or_hours(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    client = _seite(kanzlei, "sachbearbeiter")
    url = f"/akten/{akte.pk}/zeiten/neu/"
    daten = {"datum": "03.02.2026", "dauer": "1:30", "taetigkeit": "Schriftsatz entworfen",
             "abrechenbar": "on"}
    response = _post(client, url, daten)
    zeit = Zeiterfassung.objects.get()
    assert response["Location"] == f"/akten/{akte.pk}/?tab=zeiten#zeiterfassung-{zeit.pk}"
    assert (zeit.dauer_minuten, str(zeit.datum), zeit.abrechenbar) == (90, "2026-02-03", True)
    assert zeit.user == kanzlei.users["sachbearbeiter"]
    _post(client, url, {**daten, "dauer": "45", "abrechenbar": ""})
    erfasst = sorted(Zeiterfassung.objects.values_list("dauer_minuten", "abrechenbar"))
    assert erfasst == [(45, False), (90, True)]

    for dauer, meldung in (("abc", "Bitte die Dauer in Minuten („90“) oder als „1:30“ angeben."),
                           ("25:00", "Die Dauer muss zwischen 1 Minute und 24 Stunden liegen."),
                           ("0", "Die Dauer muss zwischen 1 Minute und 24 Stunden liegen.")):
        bad = _post(client, url, {**daten, "dauer": dauer})
        assert bad.status_code == 422 and meldung in _text(bad), dauer
    bad = _post(client, url, {**daten, "datum": "31.02.2026", "taetigkeit": ""})
    assert "Bitte ein Datum wie 01.02.2026 angeben." in _text(bad)
    assert "Bitte beschreibe die Tätigkeit." in _text(bad)
    assert Zeiterfassung.objects.count() == 2

    assert _post(_seite(kanzlei, "sekretariat"), f"/akten/{kanzlei.akten['B'].pk}/zeiten/neu/",
                 daten).status_code == 403
    assert _post(client, f"/akten/{kanzlei.akten['C'].pk}/zeiten/neu/", daten).status_code == 404
    assert Zeiterfassung.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_notiz_for_helena_says_what_became_of_the_task(kanzlei: Kanzlei) -> None:
    """No model is reachable: the Notiz is kept, the task is refused with a Hinweis, and the page says so."""
    from helena.llm.router import clear_health_cache
    from helena.models import HelenaTask, ModelTier

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        tot = f"http://127.0.0.1:{s.getsockname()[1]}"
    for tier in (1, 2):
        ModelTier.objects.create(tier=tier, provider="ollama", model_name="klein", base_url=tot)
    clear_health_cache()
    akte = kanzlei.akten["A"]
    client = _seite(kanzlei, "anwalt")
    response = _post(client, f"/akten/{akte.pk}/notizen/neu/", {"inhalt": "@Helena prüfe die Fristen"})
    assert response.status_code == 302
    notiz = Notiz.objects.get()
    assert notiz.inhalt == "@Helena prüfe die Fristen"
    text = _text(client.get(response["Location"]))
    assert "Die Notiz ist gespeichert. Dein Auftrag an Helena aus der Notiz konnte nicht starten" in text
    assert "Kein Sprachmodell ist erreichbar" in text
    assert Alert.objects.filter(empfaenger=kanzlei.users["anwalt"], art="aufgabe").count() == 1
    assert not HelenaTask.objects.exists()


# --- the page itself ----------------------------------------------------------------------------


def test_the_workspace_shows_each_tab_and_keeps_its_anchors(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["B"]
    Beteiligter.objects.create(akte=akte, rolle="mandant", name="Erika Schulz", telefon="089 1")
    client = _seite(kanzlei, "praktikant")
    html = client.get(f"/akten/{akte.pk}/").content.decode()
    for anker in ('id="dokumente"', 'id="h-dokumente"', 'id="fristen"', 'id="beteiligte"', 'id="notizen"',
                  'id="zeiten"', 'id="aktivitaet"', 'id="helena"', 'id="uebersicht"', 'id="zugriff"'):
        assert anker in html
    assert "akte-bereich--aus" not in html  # without ?tab= the whole Akte
    assert 'class="akte-tabs__alles" aria-current="page"' in html
    # the Praktikant reads: no "neu" anywhere
    for knopf in ("Beteiligte/n hinzufügen", "Notiz schreiben", "Zeit erfassen", "Zugriff geben",
                  ">Bearbeiten<"):
        assert knopf not in html
    beteiligte = client.get(f"/akten/{akte.pk}/?tab=beteiligte").content.decode()
    assert beteiligte.count("akte-bereich--aus") == 7 and "Erika Schulz" in beteiligte
    assert client.get(f"/akten/{akte.pk}/?tab=unsinn").status_code == 200
    assert _seite(kanzlei, "praktikant").get(f"/akten/{kanzlei.akten['A'].pk}/?tab=zeiten").status_code == 404


# --- the Verlauf as a selector (akten/seiten/verlauf.py) -------------------------------------


def test_the_verlauf_reads_as_a_person_reads_it_and_only_for_who_sees_the_akte(kanzlei: Kanzlei) -> None:
    anwalt, sachbearbeiter = kanzlei.users["anwalt"], kanzlei.users["sachbearbeiter"]
    User.objects.filter(pk=sachbearbeiter.pk).update(first_name="Sabine", last_name="Koch")
    akte = akte_anlegen(user=anwalt, daten={"aktenzeichen": "60/26", "kurzrubrum": "Neu ./. Alt",
                                            "anwalt": anwalt})  # off the pages: no request
    akte_aendern(user=anwalt, akte_id=akte.pk, grund="Mandat erweitert", aenderungen={
        "gegenstandswert": Decimal("1234.5"), "rechtsgebiet": "urheberrecht",
        "sachbearbeiter": User.objects.get(pk=sachbearbeiter.pk), "tags": ["Eilsache", "PKH"]})
    zeilen = verlauf_der_akte(user=anwalt, akte_id=akte.pk)
    assert [z.art for z in zeilen[:2]] == ["zugriff", "akte"]  # newest first: the Sachbearbeitung now sees it
    geaendert = zeilen[1]
    assert (geaendert.art, geaendert.aktion, geaendert.wer, geaendert.grund) == (
        "akte", "geändert", "anwalt", "Mandat erweitert")
    assert {(a.feld, a.alt, a.neu) for a in geaendert.aenderungen} == {
        ("Gegenstandswert (EUR)", "—", "1.234,50"), ("Rechtsgebiet", "Sonstiges", "Urheber- und Medienrecht"),
        ("Sachbearbeitung", "—", "Sabine Koch"), ("Schlagworte", "—", "Eilsache, PKH")}
    zugriffe = [z for z in zeilen if z.art == "zugriff"]
    assert {z.bezeichnung for z in zugriffe} == {"anwalt", "Sabine Koch"}
    assert all(z.wer == "anwalt" for z in zugriffe)  # who let them see it, also without a request

    with pytest.raises(NotFound):
        verlauf_der_akte(user=kanzlei.users["sekretariat"], akte_id=akte.pk)
    with pytest.raises(NotFound):
        verlauf_des_eintrags(user=kanzlei.users["sekretariat"], eintrag=akte)
    eigener_verlauf = verlauf_des_eintrags(user=sachbearbeiter, eintrag=akte)
    assert [z.aktion for z in eigener_verlauf] == ["geändert", "angelegt"]
    eigene = Notiz.objects.create(inhalt="Nur für mich", verfasst_von=anwalt)  # a Notiz without an Akte
    assert verlauf_des_eintrags(user=anwalt, eintrag=eigene)[0].aktion == "angelegt"
    with pytest.raises(NotFound):
        verlauf_des_eintrags(user=sachbearbeiter, eintrag=eigene)


def test_beteiligte_come_in_the_order_of_their_roles_mandant_first(kanzlei: Kanzlei) -> None:
    """Not alphabetically by the role's key (gegner < gericht < mandant put the Mandant/in last)."""
    akte = kanzlei.akten["B"]
    for rolle, name in (("gericht", "Landgericht Köln"), ("gegner", "Sabine Krüger"),
                        ("mandant", "Thomas Weber"), ("gegnervertreter", "RAin Dr. Sommer")):
        Beteiligter.objects.create(akte=akte, rolle=rolle, name=name)
    text = _text(_seite(kanzlei, "anwalt").get(f"/akten/{akte.pk}/?tab=beteiligte"))
    abschnitt = text[text.index("Beteiligte/n hinzufügen"):]
    stellen = [abschnitt.index(name) for name in ("Thomas Weber", "Sabine Krüger", "RAin Dr. Sommer",
                                                  "Landgericht Köln")]
    assert stellen == sorted(stellen), abschnitt[:400]


def test_the_verlauf_names_a_frist_once_and_a_termin_as_termin(kanzlei: Kanzlei) -> None:
    """„Frist „Berufungsfrist“ zum …“, not „Frist Frist „Berufungsfrist“ …“; a Termin is no Frist."""
    akte = kanzlei.akten["A"]
    Frist.objects.create(akte=akte, bezeichnung="Berufungsfrist", datum=date(2027, 3, 30))
    Frist.objects.create(akte=akte, bezeichnung="Mündliche Verhandlung", datum=date(2027, 4, 7),
                         typ="termin")
    zeilen = [z for z in verlauf_der_akte(user=kanzlei.users["anwalt"], akte_id=akte.pk) if z.art == "frist"]
    assert {(z.art_name, z.bezeichnung) for z in zeilen} >= {
        ("Frist", "„Berufungsfrist“ zum 30.03.2027"), ("Termin", "„Mündliche Verhandlung“ zum 07.04.2027")}
    text = _text(_seite(kanzlei, "anwalt").get(f"/akten/{akte.pk}/?tab=aktivitaet"))
    assert "Frist „Berufungsfrist“ zum 30.03.2027 angelegt" in text and "Frist Frist" not in text
    assert "Termin „Mündliche Verhandlung“ zum 07.04.2027 angelegt" in text



def test_closing_an_akte_with_open_fristen_says_so(kanzlei: Kanzlei) -> None:
    """A closed Akte's Frist still runs: the lawyer who closes it is told, nothing is hidden."""
    client = _seite(kanzlei, "anwalt")
    akte = kanzlei.akten["A"]
    url = f"/akten/{akte.pk}/bearbeiten/"
    seite = client.get(url).content.decode()
    werte = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', seite))
    antwort = _post(client, url, {**werte, "kurzrubrum": akte.kurzrubrum, "rechtsgebiet": akte.rechtsgebiet,
                                  "bundesland": akte.bundesland, "anwalt": str(akte.anwalt_id),
                                  "status": "geschlossen", "grund": "Mandat beendet"})
    assert antwort.status_code == 302
    text = _text(client.get(antwort["Location"]))
    assert "hat aber noch einen offenen Eintrag im Fristenbuch" in text
    assert Akte.objects.get(pk=akte.pk).status == "geschlossen"


def test_an_action_opened_directly_answers_a_german_page(kanzlei: Kanzlei) -> None:
    """After a session timeout the login leads back to the action's address: no bare HTTP ERROR 405."""
    client = _seite(kanzlei, "anwalt")
    antwort = client.get(f"/akten/{kanzlei.akten['A'].pk}/zugriff/")
    assert antwort.status_code == 405 and "POST" in antwort["Allow"]
    assert "Das geht nur über den Knopf" in _text(antwort)
    api = kanzlei.client("anwalt").get(f"/api/v1/akten/{kanzlei.akten['A'].pk}/fristen/1/erledigt")
    assert api.status_code == 405 and "Knopf" not in api.content.decode()


def test_stopping_at_the_kollisionspruefung_is_recorded_too(kanzlei: Kanzlei) -> None:
    """The user decides and the decision is recorded — also „nicht speichern“ (the refused save rolls
    back, so the stop is recorded by its own POST, with the hits)."""
    _mandant_in_akte_c(kanzlei)
    client = _seite(kanzlei, "sachbearbeiter")
    daten = _neue_akte(aktenzeichen="51/26", **{"gegner-name": "Hans Mueller", "gegner-anrede": "herr"})
    antwort = _post(client, "/akten/neu/", daten)
    assert antwort.status_code == 409 and "Nicht speichern" in _text(antwort)
    namen = unescape(re.search(r'name="kollision_namen" value="([^"]*)"', antwort.content.decode()).group(1))
    stop = _post(client, "/akten/kollision/abbrechen/", {**daten, "kollision_namen": namen},
                 formular="/akten/neu/")
    assert stop.status_code == 302 and stop["Location"] == "/akten/"
    pruefung = Kollisionspruefung.objects.get()
    assert pruefung.entscheidung == "abgebrochen" and pruefung.namen == ["Hans Mueller"]
    assert pruefung.user == kanzlei.users["sachbearbeiter"] and pruefung.treffer
    assert not Akte.objects.filter(aktenzeichen="51/26").exists()
    verweigert = _post(_seite(kanzlei, "praktikant"), "/akten/kollision/abbrechen/",
                       {"kollision_namen": namen})
    assert verweigert.status_code == 403 and Kollisionspruefung.objects.count() == 1
