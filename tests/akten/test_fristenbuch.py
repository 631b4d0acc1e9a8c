"""Fristen kept by hand and the Fristenbuch, from the outside: the form with the Fristenrechner (no
JavaScript: "Berechnen" renders the result), warnings on a date that differs or is no Werktag,
Erledigt with a Vermerk and the Vier-Augen-Prinzip on the pages and the API, the Fristenbuch
(/fristen/) with its filters, the daily Fristenkontrolle (print, PDF) and GET /api/v1/fristen —
each with users who must be refused (role: 403, an Akte they may not see: 404, never its data)."""

from __future__ import annotations

import io
import re
from datetime import date, timedelta

import pypdfium2 as pdfium
import pytest
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from akten.erfassung.rechte import VERWEIGERT
from akten.fristen import BUNDESLAENDER, berechne, format_datum
from akten.models import Frist, Kanzleieinstellung
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def page_client(kanzlei: Kanzlei, username: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(kanzlei.users[username])
    client.get("/fristen/")  # the csrftoken cookie
    return client


def post(client: Client, url: str, data: dict | None = None, **kwargs):
    """A form sent as the browser sends it, with the session's CSRF token."""
    token = client.cookies["csrftoken"].value
    return client.post(url, {**(data or {}), "csrfmiddlewaretoken": token}, **kwargs)


def zustellung_mit_verschiebung(preset: str = "berufung", land: str = "NW") -> tuple[date, object]:
    """A Zustellung ahead whose computed end falls on a day that is no Werktag (so it is shifted)."""
    tag = timezone.localdate() + timedelta(days=20)
    while True:
        ergebnis = berechne(start=tag, preset=preset, bundesland=land, vorfrist_tage=7)
        if ergebnis.verschoben:
            return tag, ergebnis
        tag += timedelta(days=1)


def werktag_ab(tag: date) -> date:
    while tag.weekday() >= 5:
        tag += timedelta(days=1)
    return tag


def sonntag_ab(tag: date) -> date:
    return tag + timedelta(days=(6 - tag.weekday()) % 7)


# --------------------------------------------------------------------------- the form


def test_berechnen_without_javascript_fills_the_form_and_explains_each_shift(kanzlei: Kanzlei) -> None:
    akte, client = kanzlei.akten["A"], page_client(kanzlei, "sachbearbeiter")
    url = f"/akten/{akte.pk}/fristen/neu/"
    page = client.get(url).content.decode()
    assert "Fristenrechner" in page and "Berufungsfrist (1 Monat, § 517 ZPO, Notfrist)" in page
    start, ergebnis = zustellung_mit_verschiebung()
    response = post(client, url, {"aktion": "berechnen", "ereignis": start.isoformat(), "vorlage": "berufung",
                                  "vorfrist_tage": "7", "typ": "frist", "bezeichnung": ""})
    html = response.content.decode()
    assert response.status_code == 200
    assert f'name="datum" value="{ergebnis.ende.isoformat()}"' in html
    assert f'name="vorfrist" value="{ergebnis.vorfrist.datum.isoformat()}"' in html
    assert 'value="Berufungsfrist"' in html and re.search(r'name="ist_notfrist"[^>]*checked', html)
    assert f"Fristende <strong>{format_datum(ergebnis.ende)}</strong>" in html
    assert "§ 193 BGB, § 222 Abs. 2 ZPO" in html
    for v in ergebnis.verschoben:
        assert f"{format_datum(v.datum)} übersprungen: {v.grund}" in html
    assert Frist.objects.filter(akte=akte).count() == 2  # nothing saved


def test_a_frist_is_saved_with_its_berechnung_and_shows_it(kanzlei: Kanzlei) -> None:
    akte, client = kanzlei.akten["A"], page_client(kanzlei, "anwalt")
    start, ergebnis = zustellung_mit_verschiebung()
    response = post(client, f"/akten/{akte.pk}/fristen/neu/", {
        "ereignis": start.isoformat(), "vorlage": "berufung", "vorfrist_tage": "7", "typ": "frist",
        "bezeichnung": "Berufung gegen Urteil LG", "datum": ergebnis.ende.isoformat(),
        "vorfrist": ergebnis.vorfrist.datum.isoformat(), "ist_notfrist": "on",
        "verantwortlich": kanzlei.users["sachbearbeiter"].pk})
    frist = Frist.objects.get(bezeichnung="Berufung gegen Urteil LG")
    assert response.status_code == 302 and response["Location"] == f"/akten/{akte.pk}/fristen/{frist.pk}/"
    assert frist.ist_notfrist and frist.datum == ergebnis.ende
    assert frist.verantwortlich.username == "sachbearbeiter"
    assert frist.berechnung["start"] == start.isoformat() and frist.berechnung["preset"] == "berufung"
    assert frist.berechnung["ende"] == ergebnis.ende.isoformat() and frist.berechnung["verschoben"]
    html = client.get(response["Location"]).content.decode()
    assert "Begründung der Berechnung" in html and "übersprungen" in html
    assert "angelegt" in html.lower()  # the Verlauf
    # the Bundesland by its name, not its code ("Feiertage in NW")
    assert "(Feiertage in Nordrhein-Westfalen)" in html and "Feiertage in NW" not in html
    land = BUNDESLAENDER[akte.bundesland] if akte.bundesland else "bundesweit"
    assert f"<dd>{land} (Bundesland der Akte)</dd>" in html


def test_a_date_other_than_computed_or_on_a_sunday_needs_a_confirmation(kanzlei: Kanzlei) -> None:
    akte, client = kanzlei.akten["A"], page_client(kanzlei, "anwalt")
    start, ergebnis = zustellung_mit_verschiebung()
    sonntag = sonntag_ab(ergebnis.unverschobenes_ende)
    daten = {"ereignis": start.isoformat(), "vorlage": "berufung", "vorfrist_tage": "", "typ": "frist",
             "bezeichnung": "Berufung", "datum": sonntag.isoformat()}
    html = post(client, f"/akten/{akte.pk}/fristen/neu/", daten).content.decode()
    assert "weicht von der Fristberechnung ab" in html
    assert f"berechnet ist {format_datum(ergebnis.ende)}" in html
    assert "ist kein Werktag" in html and 'name="trotz_warnung"' in html
    assert not Frist.objects.filter(bezeichnung="Berufung").exists()
    response = post(client, f"/akten/{akte.pk}/fristen/neu/", {**daten, "trotz_warnung": "1"})
    assert response.status_code == 302
    frist = Frist.objects.get(bezeichnung="Berufung")
    assert frist.datum == sonntag
    assert "weicht von der Fristberechnung ab" in client.get(response["Location"]).content.decode()


def test_the_live_check_gives_the_same_warnings(kanzlei: Kanzlei) -> None:
    akte, client = kanzlei.akten["A"], page_client(kanzlei, "sachbearbeiter")
    sonntag = sonntag_ab(timezone.localdate() + timedelta(days=10))
    url = f"/akten/{akte.pk}/fristen/pruefen/"
    body = post(client, url, {"typ": "frist", "datum": sonntag.isoformat(), "bezeichnung": "x"}).json()
    assert any("ist kein Werktag (Sonntag)" in w for w in body["warnungen"])
    assert post(client, url, {"typ": "termin", "datum": sonntag.isoformat()}).json() == {"warnungen": []}
    assert post(client, f"/akten/{kanzlei.akten['D'].pk}/fristen/pruefen/",
                {"datum": sonntag.isoformat()}).status_code == 404


def test_termin_with_time_and_wrong_input_is_refused_in_german(kanzlei: Kanzlei) -> None:
    akte, client = kanzlei.akten["B"], page_client(kanzlei, "anwalt")
    url = f"/akten/{akte.pk}/fristen/neu/"
    assert 'value="termin" selected' in client.get(url + "?typ=termin").content.decode()
    tag = werktag_ab(timezone.localdate() + timedelta(days=14))
    termin = {"typ": "termin", "bezeichnung": "Mündliche Verhandlung", "datum": tag.isoformat(),
              "uhrzeit": "10:30"}
    html = post(client, url, {**termin, "ist_notfrist": "on"}).content.decode()
    assert "Nur eine Frist kann eine Notfrist sein." in html
    html = post(client, url, {**termin, "ereignis": tag.isoformat()}).content.decode()
    assert "Wähle eine Fristart oder gib eine Dauer an." in html
    html = post(client, url, {**termin, "ereignis": tag.isoformat(), "vorlage": "berufung",
                              "dauer_anzahl": "2"}).content.decode()
    assert "entweder eine Fristart oder eine eigene Dauer" in html
    html = post(client, url, {**termin, "datum": "2026-02-31"}).content.decode()
    assert "gültiges Datum" in html
    assert not Frist.objects.filter(bezeichnung="Mündliche Verhandlung").exists()
    assert post(client, url, termin).status_code == 302
    frist = Frist.objects.get(bezeichnung="Mündliche Verhandlung")
    assert frist.typ == "termin" and frist.uhrzeit.strftime("%H:%M") == "10:30" and frist.berechnung is None


def test_editing_keeps_the_berechnung_unless_the_rechner_changes(kanzlei: Kanzlei) -> None:
    akte, client = kanzlei.akten["A"], page_client(kanzlei, "anwalt")
    start, ergebnis = zustellung_mit_verschiebung("einspruch_versaeumnisurteil")
    post(client, f"/akten/{akte.pk}/fristen/neu/", {
        "ereignis": start.isoformat(), "vorlage": "einspruch_versaeumnisurteil", "vorfrist_tage": "3",
        "typ": "frist", "bezeichnung": "Einspruch", "datum": ergebnis.ende.isoformat(), "ist_notfrist": "on"})
    frist = Frist.objects.get(bezeichnung="Einspruch")
    url = f"/akten/{akte.pk}/fristen/{frist.pk}/bearbeiten/"
    html = client.get(url).content.decode()
    assert f'name="ereignis" value="{start.isoformat()}"' in html
    assert 'value="einspruch_versaeumnisurteil" selected' in html
    response = post(client, url, {"ereignis": start.isoformat(), "vorlage": "einspruch_versaeumnisurteil",
                                  "vorfrist_tage": "3", "typ": "frist", "bezeichnung": "Einspruch VU",
                                  "datum": ergebnis.ende.isoformat(), "ist_notfrist": "on"})
    assert response.status_code == 302
    frist.refresh_from_db()
    assert frist.bezeichnung == "Einspruch VU" and frist.berechnung["preset"] == "einspruch_versaeumnisurteil"
    post(client, url, {"typ": "frist", "bezeichnung": "Einspruch VU", "datum": ergebnis.ende.isoformat(),
                       "ist_notfrist": "on", "trotz_warnung": "1"})
    frist.refresh_from_db()
    assert frist.berechnung is None  # the Rechner emptied: the date is now one typed by hand


# --------------------------------------------------------------------------- Vier-Augen-Prinzip on the pages


def test_a_notfrist_waits_for_a_second_person_on_the_pages(kanzlei: Kanzlei) -> None:
    assert Kanzleieinstellung.aktuell().vier_augen_notfrist
    frist = Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Berufungsfrist", ist_notfrist=True,
                                 datum=timezone.localdate() + timedelta(days=3))
    base = f"/akten/{frist.akte_id}/fristen/{frist.pk}"
    erste, zweite = page_client(kanzlei, "sachbearbeiter"), page_client(kanzlei, "anwalt")
    response = post(erste, f"{base}/erledigt/", {"vermerk": "Berufung per beA eingelegt",
                                                 "next": "/fristen/"}, follow=True)
    html = response.content.decode()
    assert response.redirect_chain[-1][0].startswith("/fristen/")
    assert "wartet auf die Bestätigung durch eine zweite Person" in html
    frist.refresh_from_db()
    assert frist.wartet_auf_bestaetigung and not frist.erledigt
    seite = erste.get("/fristen/").content.decode()
    assert "wartet auf Bestätigung durch eine zweite Person" in seite and f"{base}/bestaetigen/" not in seite
    response = post(erste, f"{base}/bestaetigen/")
    assert response.status_code == 403 and "zweite Person" in response.content.decode()
    assert f"{base}/bestaetigen/" in zweite.get("/fristen/").content.decode()
    assert f"{base}/bestaetigen/" in zweite.get(f"{base}/").content.decode()
    post(zweite, f"{base}/bestaetigen/")
    frist.refresh_from_db()
    assert frist.erledigt and frist.bestaetigt_von == kanzlei.users["anwalt"]
    assert frist.erledigt_von == kanzlei.users["sachbearbeiter"]
    verlauf = zweite.get(f"{base}/").content.decode()
    assert "Erledigung bestätigt (Vier-Augen-Prinzip)" in verlauf
    assert "Erledigt, wartet auf Bestätigung (Vier-Augen-Prinzip)" in verlauf
    nochmal = post(zweite, f"{base}/bestaetigen/", follow=True)
    assert response_message(nochmal) == "Diese Frist ist bereits erledigt."


def response_message(response) -> str:
    found = re.search(r'class="message message--error">([^<]*)<', response.content.decode())
    return found.group(1) if found else ""


# --------------------------------------------------------------------------- the Fristenbuch


def bezeichnungen(html: str) -> list[str]:
    return re.findall(r'class="frist__bezeichnung" href="[^"]*">([^<]*)</a>', html)


@pytest.mark.parametrize(("username", "sichtbar"), [
    ("admin", {"A", "B", "C", "D"}), ("anwalt", {"A", "B", "C"}), ("sachbearbeiter", {"A", "B"}),
    ("sekretariat", {"B"}), ("praktikant", {"B"})])
def test_the_fristenbuch_shows_only_visible_akten(kanzlei: Kanzlei, username: str,
                                                  sichtbar: set[str]) -> None:
    client = page_client(kanzlei, username)
    html = client.get("/fristen/").content.decode()
    assert set(bezeichnungen(html)) == {f"Frist {key} offen" for key in sichtbar}
    api = kanzlei.client(username).get("/api/v1/fristen").json()
    assert {f["bezeichnung"] for f in api} == {f"Frist {key} offen" for key in sichtbar}
    darf = username in ("admin", "anwalt", "sachbearbeiter")
    assert ("/erledigt/" in html) is darf
    assert 'href="/fristen/"' in html and 'aria-current="page">Fristen<' in html  # the header's link


def test_overdue_first_in_red_then_by_day_or_week(kanzlei: Kanzlei) -> None:
    heute = timezone.localdate()
    akte = kanzlei.akten["A"]
    Frist.objects.create(akte=akte, bezeichnung="Stellungnahme überfällig", datum=heute - timedelta(days=2))
    Frist.objects.create(akte=akte, bezeichnung="Heute fällig", datum=heute, ist_notfrist=True)
    Frist.objects.create(akte=akte, bezeichnung="Termin beim LG", typ="termin",
                         datum=heute + timedelta(days=1))
    client = page_client(kanzlei, "anwalt")
    html = client.get("/fristen/").content.decode()
    assert bezeichnungen(html)[:3] == ["Stellungnahme überfällig", "Heute fällig", "Termin beim LG"]
    assert html.index("buch-gruppe--ueberfaellig") < html.index("Heute fällig")
    assert f"Heute · {format_datum(heute)}" in html and "badge--notfrist" in html
    woche = client.get("/fristen/?ansicht=woche").content.decode()
    kw = heute.isocalendar()[1]
    assert f"KW {kw}/" in woche and "(diese Woche)" in woche
    assert bezeichnungen(woche)[0] == "Stellungnahme überfällig"


def test_fristenbuch_filters(kanzlei: Kanzlei) -> None:
    heute = timezone.localdate()
    anwalt, sachbearbeiter = kanzlei.users["anwalt"], kanzlei.users["sachbearbeiter"]
    akte = kanzlei.akten["A"]
    Frist.objects.create(akte=akte, bezeichnung="Meine Frist", datum=heute + timedelta(days=30),
                         verantwortlich=anwalt)
    Frist.objects.create(akte=akte, bezeichnung="Ihre WV", typ="wiedervorlage",
                         datum=heute + timedelta(days=40), verantwortlich=sachbearbeiter)
    client = page_client(kanzlei, "anwalt")

    def zeilen(**abfrage) -> list[str]:
        return bezeichnungen(client.get("/fristen/", abfrage).content.decode())

    assert zeilen(verantwortlich="ich") == ["Meine Frist"]
    assert zeilen(verantwortlich="sachbearbeiter") == ["Ihre WV"]
    assert zeilen(typ="wiedervorlage") == ["Ihre WV"]
    assert zeilen(von=(heute + timedelta(days=35)).isoformat()) == ["Ihre WV"]
    assert zeilen(bis=(heute + timedelta(days=31)).isoformat()) == ["Frist A offen", "Frist B offen",
                                                                    "Frist C offen", "Meine Frist"]
    assert zeilen(erledigt="erledigt") == ["Frist A erledigt", "Frist B erledigt", "Frist C erledigt"]
    assert len(zeilen(erledigt="alle")) == 8
    html = client.get("/fristen/", {"von": "gestern", "typ": "termin"}).content.decode()
    assert "Gib ein gültiges Datum ein." in html and bezeichnungen(html) == []  # the typ still applies
    html = client.get("/fristen/", {"von": "2030-02-01", "bis": "2030-01-01"}).content.decode()
    assert "„bis“ liegt vor „von“." in html


def test_the_daily_fristenkontrolle_to_print_and_as_pdf(kanzlei: Kanzlei) -> None:
    heute = timezone.localdate()
    a, b = kanzlei.akten["A"], kanzlei.akten["B"]
    Frist.objects.create(akte=a, bezeichnung="Überfällige Replik", datum=heute - timedelta(days=1))
    Frist.objects.create(akte=b, bezeichnung="Berufung Schulz", datum=heute, ist_notfrist=True)
    Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Weit weg", datum=heute + timedelta(days=60),
                         vorfrist=heute)
    Frist.objects.create(akte=kanzlei.akten["C"], bezeichnung="Vertrauliche Frist", datum=heute)
    client = page_client(kanzlei, "sachbearbeiter")
    html = client.get("/fristen/kontrolle/").content.decode()
    for text in ("Fristenkontrolle", "Überfällige Replik", "Berufung Schulz", "NOTFRIST", "Weit weg",
                 "Vorfrist erreicht", "Geprüft von:", "am:"):
        assert text in html
    assert "Vertrauliche Frist" not in html
    assert html.index("Überfällige Replik") < html.index("Berufung Schulz") < html.index("Frist A offen")
    response = client.get("/fristen/kontrolle.pdf?tage=3")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)
    assert "Fristenkontrolle" in text and "Berufung Schulz" in text and "Geprüft von" in text
    assert "Vertrauliche Frist" not in text and "Frist A offen" not in text  # 5 days ahead: not in 3
    # the table stays within the page's margin (12 mm): its last column was cut off at the paper's edge
    seite = pdfium.PdfDocument(response.content)[0]
    fundstelle = seite.get_textpage().search("erledigt", match_case=True).get_next()
    assert fundstelle is not None
    rechts = seite.get_textpage().get_charbox(fundstelle[0] + fundstelle[1] - 1)[2]
    assert rechts <= seite.get_width() - 12 * 72 / 25.4, (rechts, seite.get_width())
    assert "Keine Einträge" not in client.get("/fristen/kontrolle/?tage=abc").content.decode()
    assert "Gib eine ganze Zahl ein." in client.get("/fristen/kontrolle/?tage=abc").content.decode()


# --------------------------------------------------------------------------- the API


def api(kanzlei: Kanzlei, username: str, **abfrage):
    return kanzlei.client(username).get("/api/v1/fristen", abfrage)


def test_api_fristen_filters_and_order(kanzlei: Kanzlei) -> None:
    heute = timezone.localdate()
    anwalt = kanzlei.users["anwalt"]
    akte = kanzlei.akten["A"]
    Frist.objects.create(akte=akte, bezeichnung="Später", datum=heute + timedelta(days=20),
                         verantwortlich=anwalt)
    Frist.objects.create(akte=akte, bezeichnung="Termin", typ="termin", datum=heute + timedelta(days=2))
    Frist.objects.create(akte=kanzlei.akten["D"], bezeichnung="Fremd", datum=heute + timedelta(days=2),
                         verantwortlich=anwalt)
    rows = api(kanzlei, "anwalt").json()
    assert [r["datum"] for r in rows] == sorted(r["datum"] for r in rows)
    assert "Fremd" not in {r["bezeichnung"] for r in rows}
    for wert in ("me", "ich", "anwalt", str(anwalt.pk)):
        assert [r["bezeichnung"] for r in api(kanzlei, "anwalt", verantwortlich=wert).json()] == ["Später"]
    assert [r["bezeichnung"] for r in api(kanzlei, "anwalt", typ="termin").json()] == ["Termin"]
    assert {r["bezeichnung"] for r in api(kanzlei, "anwalt", erledigt="true").json()} == {
        "Frist A erledigt", "Frist B erledigt", "Frist C erledigt"}
    bis = (heute + timedelta(days=5)).isoformat()
    assert [r["bezeichnung"] for r in api(kanzlei, "anwalt", von=bis, bis=bis).json()] == [
        "Frist A offen", "Frist B offen", "Frist C offen"]
    admin_rows = api(kanzlei, "admin", akte_id=kanzlei.akten["D"].pk, verantwortlich="anwalt").json()
    assert [r["bezeichnung"] for r in admin_rows] == ["Fremd"]
    assert api(kanzlei, "anwalt", akte_id=kanzlei.akten["D"].pk).status_code == 404
    zeile = api(kanzlei, "anwalt", typ="termin").json()[0]
    assert {"erledigt_vermerk", "wartet_auf_bestaetigung", "berechnung", "bestaetigt_von"} <= set(zeile)


@pytest.mark.parametrize(("abfrage", "wort"), [
    ({"von": "gestern"}, "von"), ({"bis": "2026-02-30"}, "bis"), ({"typ": "akte"}, "typ"),
    ({"erledigt": "vielleicht"}, "erledigt"), ({"verantwortlich": "niemand"}, "Unbekannte Person"),
    ({"von": "2026-05-02", "bis": "2026-05-01"}, "liegt nach"), ({"status": "morgen"}, "status"),
    # a review found a 500: "²".isdigit() is true, int("²") fails
    ({"verantwortlich": "²"}, "Unbekannte Person"), ({"verantwortlich": "9" * 40}, "Unbekannte Person")])
def test_api_fristen_bad_filters_are_422_in_german(kanzlei: Kanzlei, abfrage: dict, wort: str) -> None:
    response = api(kanzlei, "anwalt", **abfrage)
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_input" and wort in body["detail"]


def aktion(kanzlei: Kanzlei, username: str, frist: Frist, was: str, **daten):
    return kanzlei.client(username).post(f"/api/v1/akten/{frist.akte_id}/fristen/{frist.pk}/{was}", daten,
                                         content_type="application/json")


def test_api_erledigt_bestaetigen_wieder_oeffnen(kanzlei: Kanzlei) -> None:
    frist = Frist.objects.create(akte=kanzlei.akten["B"], bezeichnung="Berufungsfrist", ist_notfrist=True,
                                 datum=timezone.localdate() + timedelta(days=4))
    for username in ("praktikant", "sekretariat"):
        response = aktion(kanzlei, username, frist, "erledigt", vermerk="eingelegt")
        assert response.status_code == 403 and response.json()["detail"] == VERWEIGERT["frist"]
    foreign = Frist.objects.get(akte=kanzlei.akten["C"], erledigt=False)
    assert aktion(kanzlei, "sachbearbeiter", foreign, "erledigt", vermerk="x").status_code == 404
    response = aktion(kanzlei, "sachbearbeiter", frist, "erledigt", vermerk="  ")
    assert response.status_code == 422 and "vermerk" in response.json()["detail"]
    assert aktion(kanzlei, "sachbearbeiter", frist, "erledigt").status_code == 422
    frist.refresh_from_db()
    assert not frist.erledigt and not frist.wartet_auf_bestaetigung and frist.erledigt_vermerk == ""

    body = aktion(kanzlei, "sachbearbeiter", frist, "erledigt", vermerk="Berufung per beA eingelegt").json()
    assert body["wartet_auf_bestaetigung"] and not body["erledigt"]
    assert body["erledigung_beantragt_von"]["username"] == "sachbearbeiter"
    assert aktion(kanzlei, "sachbearbeiter", frist, "erledigt", vermerk="noch mal").status_code == 409
    response = aktion(kanzlei, "sachbearbeiter", frist, "bestaetigen")
    assert response.status_code == 403 and "zweite Person" in response.json()["detail"]
    assert aktion(kanzlei, "praktikant", frist, "bestaetigen").status_code == 403
    body = aktion(kanzlei, "anwalt", frist, "bestaetigen").json()
    assert body["erledigt"] and body["bestaetigt_von"]["username"] == "anwalt"
    assert body["erledigt_vermerk"] == "Berufung per beA eingelegt"
    assert aktion(kanzlei, "anwalt", frist, "bestaetigen").status_code == 409

    assert aktion(kanzlei, "anwalt", frist, "wieder-oeffnen", grund="").status_code == 422
    assert aktion(kanzlei, "sekretariat", frist, "wieder-oeffnen", grund="x").status_code == 403
    body = aktion(kanzlei, "anwalt", frist, "wieder-oeffnen", grund="beA-Versand fehlgeschlagen").json()
    assert not body["erledigt"] and not body["wartet_auf_bestaetigung"] and body["erledigt_vermerk"] == ""
    response = aktion(kanzlei, "anwalt", frist, "wieder-oeffnen", grund="nochmal")
    assert response.status_code == 409 and response.json()["detail"] == "Diese Frist ist nicht erledigt."
    assert frist.history.first().history_change_reason == "wieder offen: beA-Versand fehlgeschlagen"


def test_api_a_plain_frist_is_erledigt_at_once(kanzlei: Kanzlei) -> None:
    frist = Frist.objects.get(akte=kanzlei.akten["A"], erledigt=False)
    body = aktion(kanzlei, "anwalt", frist, "erledigt", vermerk="Stellungnahme versandt").json()
    assert body["erledigt"] and body["erledigt_von"]["username"] == "anwalt"
    assert aktion(kanzlei, "anwalt", frist, "bestaetigen").status_code == 409


def test_the_session_may_use_the_calculator_with_its_csrf_token(kanzlei: Kanzlei) -> None:
    client = page_client(kanzlei, "sachbearbeiter")
    payload = {"start": "2026-09-03", "preset": "berufung", "bundesland": "NW", "vorfrist_tage": 7}
    response = client.post("/api/v1/fristen/berechnen", payload, content_type="application/json",
                           headers={"X-CSRFToken": client.cookies["csrftoken"].value})
    assert response.status_code == 200 and response.json()["ende"] == "2026-10-05"


def test_openapi_declares_the_frist_actions(kanzlei: Kanzlei) -> None:
    paths = Client().get("/api/v1/openapi.json").json()["paths"]
    for was in ("erledigt", "bestaetigen", "wieder-oeffnen"):
        antworten = paths[f"/api/v1/akten/{{akte_id}}/fristen/{{frist_id}}/{was}"]["post"]["responses"]
        assert {"200", "403", "404", "409", "422"} <= set(antworten)
    parameter = {p["name"] for p in paths["/api/v1/fristen"]["get"]["parameters"]}
    assert {"status", "akte_id", "von", "bis", "verantwortlich", "typ", "erledigt"} <= parameter
