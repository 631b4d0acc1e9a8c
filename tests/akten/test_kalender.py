"""The Kalender-Abo: POST/GET/DELETE /api/v1/me/kalender and the feed under its secret address
(/kalender/<key>.ics, no login). What a calendar program reads is checked by parsing it — with
icalendar and, independently, with vobject's validation — and line by line against RFC 5545 (CRLF,
75 octets, escaping, UTF-8); who sees what from the outside: every role, another person's key, a lost
Akte, a deactivated person, a replaced or revoked address."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import icalendar
import pytest
import vobject
from django.test import Client
from django.utils import timezone

from akten.erfassung.fristen import frist_aendern, frist_erledigen
from akten.kalenderabo import services
from akten.models import Frist, KalenderAbo, Kanzleieinstellung, User
from akten.services import revoke_access
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

API = "/api/v1/me/kalender"
BERLIN = ZoneInfo("Europe/Berlin")


def neue_adresse(kanzlei: Kanzlei, username: str, **body: str) -> str:
    response = kanzlei.client(username).post(API, body or None, content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()["url"]


def abrufen(url: str) -> bytes:
    """The feed as a calendar program fetches it: no session, no token, only the address."""
    response = Client().get(url)
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return response.content


def events(body: bytes) -> dict[str, icalendar.Event]:
    cal = icalendar.Calendar.from_ical(body)
    return {str(event["UID"]): event for event in cal.walk("VEVENT")}


def titel(body: bytes) -> list[str]:
    return sorted(str(event["SUMMARY"]) for event in events(body).values())


def frist(kanzlei: Kanzlei, akte: str, bezeichnung: str, *, tage: int = 10, **felder: object) -> Frist:
    return Frist.objects.create(akte=kanzlei.akten[akte], bezeichnung=bezeichnung,
                                datum=timezone.localdate() + timedelta(days=tage), **felder)


# --- the API -------------------------------------------------------------------------------------


def test_post_gives_a_secret_address_that_works_without_login(kanzlei: Kanzlei) -> None:
    frist(kanzlei, "A", "Klageerwiderung", verantwortlich=kanzlei.users["anwalt"])
    response = kanzlei.client("anwalt").generic("POST", API)  # no body at all, as `curl -X POST`
    assert response.status_code == 201
    data = response.json()
    assert data["url"].startswith("http://testserver/kalender/kal_") and data["url"].endswith(".ics")
    assert data["webcal"] == "webcal://" + data["url"].removeprefix("http://")
    assert data["umfang"] == "meine"
    feed = Client().get(data["url"])
    assert feed.status_code == 200
    assert "Frist: Klageerwiderung (Az. 1/26)" in titel(feed.content)
    # nobody in between may keep it, and the program asks again every time (its ETag makes that cheap)
    assert feed["Cache-Control"] == "private, no-cache" and feed["ETag"].startswith('"')
    # only a hash is stored: the key is nowhere in the database
    abo = KalenderAbo.objects.get(user=kanzlei.users["anwalt"])
    key = data["url"].rsplit("/", 1)[1].removesuffix(".ics")
    assert key not in (abo.key_hash, abo.prefix) and key.startswith(abo.prefix)
    status = kanzlei.client("anwalt").get(API).json()
    assert status["aktiv"] is True and status["prefix"] == abo.prefix and status["zuletzt_abgerufen"]
    assert "url" not in status


def test_a_new_address_ends_the_old_one_and_delete_ends_the_new(kanzlei: Kanzlei) -> None:
    alt = neue_adresse(kanzlei, "sachbearbeiter")
    neu = neue_adresse(kanzlei, "sachbearbeiter")
    assert alt != neu
    assert Client().get(alt).status_code == 404
    assert Client().get(neu).status_code == 200
    assert kanzlei.client("sachbearbeiter").delete(API).status_code == 204
    assert Client().get(neu).status_code == 404
    assert kanzlei.client("sachbearbeiter").get(API).json()["aktiv"] is False
    # idempotent: nothing to revoke is no error
    assert kanzlei.client("sachbearbeiter").delete(API).status_code == 204


def test_without_login_there_is_no_address(kanzlei: Kanzlei) -> None:
    assert Client().post(API, content_type="application/json").status_code == 401
    assert Client().delete(API).status_code == 401
    assert Client().get(API).status_code == 401
    # a session needs its CSRF token, as every write of the API
    client = Client(enforce_csrf_checks=True)
    client.force_login(kanzlei.users["anwalt"])
    assert client.post(API, content_type="application/json").status_code == 403
    assert not KalenderAbo.objects.exists()


def test_an_unknown_umfang_is_refused(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("anwalt").post(API, {"umfang": "kanzlei"}, content_type="application/json")
    assert response.status_code == 422 and response.json()["code"] == "invalid_input"
    assert not KalenderAbo.objects.exists()


@pytest.mark.parametrize("username", ["admin", "anwalt", "sachbearbeiter", "sekretariat", "praktikant"])
def test_every_role_has_a_feed_of_only_the_akten_it_may_see(kanzlei: Kanzlei, username: str) -> None:
    """With „alle“ the feed holds exactly the open Fristen of the Akten the person sees (the conftest's
    grants); Akte D, which only the admin sees, never reaches another role."""
    url = neue_adresse(kanzlei, username, umfang="alle")
    sichtbar = {"admin": "ABCD", "anwalt": "ABC", "sachbearbeiter": "AB", "sekretariat": "B",
                "praktikant": "B"}[username]
    offen = sorted(f"Frist: Frist {key} offen (Az. {kanzlei.akten[key].aktenzeichen})" for key in sichtbar)
    erledigt = sorted(f"✓ erledigt – Frist: Frist {key} erledigt (Az. {kanzlei.akten[key].aktenzeichen})"
                      for key in sichtbar)
    assert titel(abrufen(url)) == sorted(offen + erledigt)


def test_another_persons_key_never_shows_my_entries(kanzlei: Kanzlei) -> None:
    frist(kanzlei, "C", "Nachlassverzeichnis", verantwortlich=kanzlei.users["anwalt"])
    mein = neue_adresse(kanzlei, "anwalt")
    fremd = neue_adresse(kanzlei, "sachbearbeiter", umfang="alle")
    assert any("Nachlassverzeichnis" in t for t in titel(abrufen(mein)))
    assert not any("Nachlassverzeichnis" in t for t in titel(abrufen(fremd)))
    # a key is no API token and an API token no key
    key = mein.rsplit("/", 1)[1].removesuffix(".ics")
    assert Client(headers={"Authorization": f"Bearer {key}"}).get("/api/v1/akten").status_code == 401
    assert Client().get(f"/kalender/{kanzlei.tokens['anwalt']}.ics").status_code == 404
    assert Client().get("/kalender/kal_erraten.ics").status_code == 404


def test_who_loses_an_akte_loses_its_entries_at_the_next_refresh(kanzlei: Kanzlei) -> None:
    sb = kanzlei.users["sachbearbeiter"]
    frist(kanzlei, "A", "Stellungnahme", verantwortlich=sb)
    url = neue_adresse(kanzlei, "sachbearbeiter")
    assert "Frist: Stellungnahme (Az. 1/26)" in titel(abrufen(url))
    revoke_access(akte=kanzlei.akten["A"], user=sb)
    assert not any("1/26" in t for t in titel(abrufen(url)))


def test_a_deactivated_persons_feed_stops(kanzlei: Kanzlei) -> None:
    url = neue_adresse(kanzlei, "anwalt")
    User.objects.filter(username="anwalt").update(is_active=False)
    assert Client().get(url).status_code == 404


def test_meine_is_what_i_answer_for_and_admin_gets_not_the_whole_firm(kanzlei: Kanzlei) -> None:
    anwalt, sb = kanzlei.users["anwalt"], kanzlei.users["sachbearbeiter"]
    frist(kanzlei, "A", "als Anwalt der Akte", verantwortlich=sb)  # Akte A's Anwalt is anwalt
    frist(kanzlei, "B", "selbst verantwortlich", verantwortlich=anwalt)
    frist(kanzlei, "C", "fremd", verantwortlich=sb)  # anwalt sees C, but answers not for this one
    meine = titel(abrufen(neue_adresse(kanzlei, "anwalt")))
    assert [t.split(" (")[0] for t in meine if "offen" not in t and "erledigt" not in t] == [
        "Frist: als Anwalt der Akte", "Frist: selbst verantwortlich"]
    admin = titel(abrufen(neue_adresse(kanzlei, "admin")))
    assert admin == []  # the admin answers for nothing here: no firm-wide calendar by default
    alle = titel(abrufen(neue_adresse(kanzlei, "admin", umfang="alle")))
    assert len(alle) == 11 and any("4/26" in t for t in alle)


# --- what the calendar program reads --------------------------------------------------------------


def sommerzeit_beginn(jahr: int) -> date:
    """The last Sunday of March: the clocks jump from 02:00 to 03:00 in Europe/Berlin."""
    ende = date(jahr, 3, 31)
    return ende - timedelta(days=(ende.weekday() + 1) % 7)


def test_timed_all_day_notfrist_and_vorfrist(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    # next year's summer time begins between the Vorfrist and the end: the reminder must stay at 9:00
    datum = sommerzeit_beginn(timezone.localdate().year + 1) + timedelta(days=2)
    vorfrist = datum - timedelta(days=7)
    termin = Frist.objects.create(akte=kanzlei.akten["A"], typ="termin", bezeichnung="Güteverhandlung",
                                  datum=datum, uhrzeit=time(14, 30), vorfrist=vorfrist,
                                  verantwortlich=anwalt)
    notfrist = Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Berufungsfrist", datum=datum,
                                    vorfrist=vorfrist, ist_notfrist=True, verantwortlich=anwalt)
    body = abrufen(neue_adresse(kanzlei, "anwalt"))
    cal = icalendar.Calendar.from_ical(body)
    assert [str(tz["TZID"]) for tz in cal.walk("VTIMEZONE")] == ["Europe/Berlin"]
    found = events(body)

    t = found[f"frist-{termin.pk}@testserver"]
    assert f"DTSTART;TZID=Europe/Berlin:{datum:%Y%m%d}T143000".encode() in body
    assert t.decoded("DTSTART") == datetime.combine(datum, time(14, 30), tzinfo=BERLIN)
    assert t.decoded("DTEND") - t.decoded("DTSTART") == timedelta(hours=1)
    assert str(t["SUMMARY"]) == "Termin: Güteverhandlung (Az. 1/26)" and str(t["TRANSP"]) == "OPAQUE"
    [alarm] = t.walk("VALARM")
    ausloeser = alarm.decoded("TRIGGER")
    # 9:00 on the Vorfrist's day: 7 days and 5½ hours before 14:30, days counted as calendar days
    assert ausloeser == -timedelta(days=7, hours=5, minutes=30)
    assert "TRIGGER:-P7DT5H30M" in body.decode()

    n = found[f"frist-{notfrist.pk}@testserver"]
    assert n.decoded("DTSTART") == datum and n.decoded("DTEND") == datum + timedelta(days=1)
    assert f"DTSTART;VALUE=DATE:{datum:%Y%m%d}".encode() in body
    assert str(n["SUMMARY"]) == "NOTFRIST: Berufungsfrist (Az. 1/26)"
    assert int(n["PRIORITY"]) == 1 and "Notfrist" in n.categories
    [alarm] = n.walk("VALARM")
    assert alarm.decoded("TRIGGER") == -timedelta(days=7) + timedelta(hours=9)

    v = found[f"frist-{notfrist.pk}-vorfrist@testserver"]
    assert v.decoded("DTSTART") == vorfrist
    assert str(v["SUMMARY"]).startswith("Vorfrist zu NOTFRIST: Berufungsfrist (Az. 1/26)")
    assert str(v["RELATED-TO"]) == f"frist-{notfrist.pk}@testserver"


def test_a_change_keeps_the_uid_and_raises_the_sequence(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    url = neue_adresse(kanzlei, "anwalt")
    from akten.erfassung.fristen import frist_anlegen
    f = frist_anlegen(user=anwalt, akte_id=kanzlei.akten["A"].pk,
                      daten={"bezeichnung": "Replik", "datum": date(2026, 12, 10), "verantwortlich": anwalt})
    uid = f"frist-{f.pk}@testserver"
    vorher = events(abrufen(url))[uid]
    assert int(vorher["SEQUENCE"]) == 0
    assert abrufen(url) == abrufen(url)  # nothing changed: the same bytes (DTSTAMP is the record's)
    frist_aendern(user=anwalt, akte_id=f.akte_id, frist_id=f.pk, aenderungen={"datum": date(2026, 12, 17)})
    nachher = events(abrufen(url))[uid]
    assert nachher.decoded("DTSTART") == date(2026, 12, 17)
    assert int(nachher["SEQUENCE"]) == 1
    assert nachher.decoded("LAST-MODIFIED") >= vorher.decoded("LAST-MODIFIED")
    assert nachher.decoded("DTSTAMP") == nachher.decoded("LAST-MODIFIED")
    frist_erledigen(user=anwalt, akte_id=f.akte_id, frist_id=f.pk, vermerk="Replik per beA eingereicht")
    erledigt = events(abrufen(url))[uid]
    assert int(erledigt["SEQUENCE"]) == 2
    assert str(erledigt["SUMMARY"]) == "✓ erledigt – Frist: Replik (Az. 1/26)"
    assert not erledigt.walk("VALARM") and str(erledigt["STATUS"]) == "CONFIRMED"
    assert "beA" not in abrufen(url).decode()  # the Vermerk stays in Helena
    # a deleted Frist is simply no longer in the feed
    Frist.objects.filter(pk=f.pk).delete()
    assert uid not in events(abrufen(url))


def test_erledigt_entries_stay_thirty_days(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    frist(kanzlei, "A", "neulich erledigt", tage=-29, erledigt=True, verantwortlich=anwalt)
    frist(kanzlei, "A", "lange erledigt", tage=-31, erledigt=True, verantwortlich=anwalt)
    frist(kanzlei, "A", "lange überfällig", tage=-400, verantwortlich=anwalt)
    namen = titel(abrufen(neue_adresse(kanzlei, "anwalt")))
    assert any("neulich erledigt" in t for t in namen)
    assert not any("lange erledigt" in t for t in namen)
    assert "Frist: lange überfällig (Az. 1/26)" in namen


def test_the_kurzrubrum_only_when_the_firm_allows_it(kanzlei: Kanzlei) -> None:
    frist(kanzlei, "A", "Klage", verantwortlich=kanzlei.users["anwalt"])
    url = neue_adresse(kanzlei, "anwalt")
    body = abrufen(url).decode()
    assert "Meier" not in body and "Stahlbau" not in body  # § 203 StGB: no client names by default
    einstellung = Kanzleieinstellung.aktuell()
    einstellung.kalender_mit_kurzrubrum = True
    einstellung.save()
    assert "Frist: Klage (Az. 1/26, Meier ./. Stahlbau GmbH)" in titel(abrufen(url))


def test_the_feed_is_rfc_5545(kanzlei: Kanzlei) -> None:
    """Lines end in CRLF and are folded at 75 octets (never inside a UTF-8 character), commas and
    semicolons of a German title are escaped, umlauts are UTF-8; vobject, a second parser, reads and
    validates the same bytes (required properties and their number per component)."""
    anwalt = kanzlei.users["anwalt"]
    lang = ("Schriftsatz: Klageerwiderung, Replik; Duplik – Äußerung zur Beweisaufnahme über die "
            "Mängel der Küche, Größe „Süd“ \\ Anlage K1")
    f = frist(kanzlei, "A", lang, verantwortlich=anwalt, vorfrist=timezone.localdate())
    body = abrufen(neue_adresse(kanzlei, "anwalt"))
    assert body.endswith(b"\r\n") and b"\n" not in body.replace(b"\r\n", b"")
    zeilen = body.split(b"\r\n")[:-1]
    assert max(len(zeile) for zeile in zeilen) <= 75
    for zeile in zeilen:
        zeile.decode("utf-8")  # a fold never splits a character
    entfaltet = body.replace(b"\r\n ", b"").decode()
    assert ("SUMMARY:Frist: Schriftsatz: Klageerwiderung\\, Replik\\; Duplik – Äußerung zur Beweisaufnahme "
            "über die Mängel der Küche\\, Größe „Süd“ \\\\ Anlage K1 (Az. 1/26)") in entfaltet
    cal = icalendar.Calendar.from_ical(body)
    assert str(cal["VERSION"]) == "2.0" and str(cal["PRODID"]).startswith("-//Helena//")
    for event in cal.walk("VEVENT"):
        for name in ("UID", "DTSTAMP", "DTSTART", "SUMMARY"):
            assert name in event, name
    assert str(events(body)[f"frist-{f.pk}@testserver"]["SUMMARY"]).startswith("Frist: " + lang)
    parsed = vobject.readOne(body.decode("utf-8"))
    assert parsed.validate(raiseException=True)
    assert {e.uid.value for e in parsed.vevent_list} == set(events(body))
    assert any(e.summary.value.startswith("Frist: " + lang) for e in parsed.vevent_list)


def test_an_empty_feed_is_still_a_valid_calendar(kanzlei: Kanzlei) -> None:
    body = abrufen(neue_adresse(kanzlei, "admin"))
    assert events(body) == {}
    assert vobject.readOne(body.decode()).validate(raiseException=True)
    assert icalendar.Calendar.from_ical(body).walk("VTIMEZONE")


def test_the_feed_costs_the_same_queries_for_many_entries(kanzlei: Kanzlei,
                                                          django_assert_max_num_queries) -> None:
    anwalt = kanzlei.users["anwalt"]
    url = neue_adresse(kanzlei, "anwalt", umfang="alle")
    Frist.objects.bulk_create(
        Frist(akte=kanzlei.akten["ABC"[i % 3]], bezeichnung=f"Frist {i}", verantwortlich=anwalt,
              datum=date(2026, 12, 1) + timedelta(days=i), vorfrist=date(2026, 11, 20),
              uhrzeit=time(10) if i % 2 else None)
        for i in range(60))
    for f in Frist.objects.filter(bezeichnung__startswith="Frist ")[:20]:
        f.save()  # some with history rows
    # the key, the last fetch, the firm's setting, the fingerprint, the entries (with their history)
    with django_assert_max_num_queries(5):
        response = Client().get(url)
    assert len(events(response.content)) > 60
    # unchanged: the program's If-None-Match is answered without the entries (the fetch is noted)
    with django_assert_max_num_queries(3):
        nicht_geaendert = Client().get(url, headers={"If-None-Match": response["ETag"]})
    assert nicht_geaendert.status_code == 304 and nicht_geaendert.content == b""


# --- the services --------------------------------------------------------------------------------


def test_a_new_address_keeps_the_choice_of_what_it_shows(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    services.adresse_erneuern(user=anwalt, umfang="alle")
    services.abo_widerrufen(user=anwalt)
    neu = services.adresse_erneuern(user=anwalt)
    assert neu.abo.umfang == "alle" and neu.abo.aktiv


# --- the page /konto/ ----------------------------------------------------------------------------


def eingeloggt(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_account_page_makes_shows_once_and_revokes_an_address(kanzlei: Kanzlei) -> None:
    praktikant = kanzlei.users["praktikant"]
    client = eingeloggt(praktikant)
    seite = client.get("/konto/").content.decode()
    assert "Du hast noch kein Kalender-Abo." in seite and "So abonnierst du die Adresse" in seite
    assert "Namen von Mandanten und Gegnern stehen nicht darin" in seite

    antwort = client.post("/konto/kalender/", {"umfang": "alle"})
    assert antwort.status_code == 302 and antwort["Location"].endswith("#neue-kalender-adresse")
    seite = client.get("/konto/").content.decode()
    url = seite.split('id="kalender-adresse-wert" class="konto-neuer-token__wert" value="')[1].split('"')[0]
    assert url.startswith("http://testserver/kalender/kal_")
    assert 'href="webcal://testserver/kalender/kal_' in seite
    assert "Dein Kalender-Abo ist eingerichtet" in seite and "noch nie – trag die Adresse" in seite
    # the Praktikant reads Akte B: its Fristen are in his calendar, nothing of the others
    assert titel(abrufen(url)) == ["Frist: Frist B offen (Az. 2/26)",
                                   "✓ erledigt – Frist: Frist B erledigt (Az. 2/26)"]
    # shown once: a reload no longer has it, and the page is never cached
    wieder = client.get("/konto/")
    assert url not in wieder.content.decode() and "no-store" in wieder["Cache-Control"]
    assert "zuletzt abgerufen" in wieder.content.decode()
    assert "noch nie – trag die Adresse" not in wieder.content.decode()

    # what it shows changes without a new address
    client.post("/konto/kalender/umfang/", {"umfang": "meine"})
    assert KalenderAbo.objects.get(user=praktikant).umfang == "meine"
    assert titel(abrufen(url)) == []

    antwort = client.post("/konto/kalender/beenden/")
    assert antwort.status_code == 302
    assert Client().get(url).status_code == 404
    assert "Du hast noch kein Kalender-Abo." in client.get("/konto/").content.decode()


def test_the_account_page_needs_a_login_and_a_post(kanzlei: Kanzlei) -> None:
    assert Client().post("/konto/kalender/").status_code == 302  # to the login page
    assert not KalenderAbo.objects.exists()
    assert eingeloggt(kanzlei.users["anwalt"]).get("/konto/kalender/").status_code == 405
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(kanzlei.users["anwalt"])
    assert csrf.post("/konto/kalender/").status_code == 403
    assert not KalenderAbo.objects.exists()


def test_the_page_says_when_the_firm_shows_the_kurzrubrum(kanzlei: Kanzlei) -> None:
    einstellung = Kanzleieinstellung.aktuell()
    einstellung.kalender_mit_kurzrubrum = True
    einstellung.save()
    seite = eingeloggt(kanzlei.users["anwalt"]).get("/konto/").content.decode()
    assert "Die Kanzlei hat erlaubt, auch das Kurzrubrum" in seite
