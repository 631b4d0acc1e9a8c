"""The Kalender-Abo after its review, from the outside: an address made with an API token ends with
that token; the address handed out is the firm's https address (HELENA_BASE_URL, or the proxy's header
when the operator names it) and /konto/ warns of an http:// one; a renamed Akte or the firm's
Kurzrubrum switch revises the events (SEQUENCE, DTSTAMP); an unchanged feed is 304 to its ETag and
every visible change is a new ETag; no reminder for a Vorfrist in the past; the key never reaches a
log (Django's nor daphne's, over a real socket); a deactivated person's address stays dead when they
come back; a Termin in the hour the clocks skip ends after it starts."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from datetime import UTC, date, datetime, time, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from akten.fristen import format_datum
from akten.models import Akte, ApiToken, Frist, Kanzleieinstellung, User
from tests.akten.test_kalender import (
    API,
    abrufen,
    eingeloggt,
    events,
    frist,
    neue_adresse,
    sommerzeit_beginn,
)
from tests.conftest import BASE_DIR, Kanzlei, daphne

pytestmark = pytest.mark.django_db


def mit_token(raw: str) -> Client:
    return Client(headers={"Authorization": f"Bearer {raw}"})


def neuer_token(client: Client, **body: str) -> dict:
    response = client.post("/api/v1/me/tokens", {"name": "Kalender-Skript", **body},
                           content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def seite_adresse(seite: str) -> str:
    return seite.split('id="kalender-adresse-wert" class="konto-neuer-token__wert" value="')[1].split('"')[0]


# --- 1. an address made with a token lives as long as the token ----------------------------------


def test_an_address_made_with_a_token_ends_with_the_token(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    frist(kanzlei, "A", "Klage", verantwortlich=anwalt)
    # a token made with the firm's token (as a script would), and the calendar made with that one
    kurz = neuer_token(kanzlei.client("anwalt"), gueltig_bis=timezone.localdate().isoformat())
    url = mit_token(kurz["token"]).post(API, content_type="application/json").json()["url"]
    assert Client().get(url).status_code == 200
    seite = eingeloggt(anwalt).get("/konto/").content.decode()
    assert "Angelegt mit dem API-Token „Kalender-Skript“: die Adresse gilt nur, solange" in seite
    # revoking the token it came from revokes the short-lived token, and so the feed
    eltern = ApiToken.objects.get(user=anwalt, erzeugt_von=None)
    assert kanzlei.client("anwalt").delete(f"/api/v1/me/tokens/{eltern.pk}").status_code == 200
    assert Client().get(url).status_code == 404
    assert kanzlei.client("sachbearbeiter").get(API).json()["aktiv"] is False  # nobody else's either
    assert "Du hast noch kein Kalender-Abo." in eingeloggt(anwalt).get("/konto/").content.decode()

    # a token that expires takes its address along
    sb = kanzlei.client("sachbearbeiter")
    kurz = neuer_token(sb, gueltig_bis=timezone.localdate().isoformat())
    url = mit_token(kurz["token"]).post(API, content_type="application/json").json()["url"]
    assert Client().get(url).status_code == 200
    ApiToken.objects.filter(pk=kurz["id"]).update(gueltig_bis=timezone.now() - timedelta(seconds=1))
    assert Client().get(url).status_code == 404
    assert sb.get(API).json()["aktiv"] is False

    # made on /konto/ (a session) it depends on no token: revoking them all leaves it working
    client = eingeloggt(kanzlei.users["sachbearbeiter"])
    client.post("/konto/kalender/")
    url = seite_adresse(client.get("/konto/").content.decode())
    ApiToken.objects.filter(user__username="sachbearbeiter").update(widerrufen=True)
    assert Client().get(url).status_code == 200


# --- 2. the address handed out ---------------------------------------------------------------------


def test_the_address_is_the_firms_base_url(kanzlei: Kanzlei, settings) -> None:
    settings.HELENA_BASE_URL = "https://helena.kanzlei.example/"
    f = frist(kanzlei, "A", "Klage", verantwortlich=kanzlei.users["anwalt"])
    data = kanzlei.client("anwalt").post(API, content_type="application/json").json()
    assert data["url"].startswith("https://helena.kanzlei.example/kalender/kal_")
    assert data["webcal"] == "webcal://" + data["url"].removeprefix("https://")
    # daphne sees another host (behind the proxy): the events still name the firm's address
    body = abrufen(data["url"].removeprefix("https://helena.kanzlei.example"))
    event = events(body)[f"frist-{f.pk}@helena.kanzlei.example"]
    assert str(event["URL"]) == f"https://helena.kanzlei.example/akten/{f.akte_id}/fristen/{f.pk}/"
    client = eingeloggt(kanzlei.users["anwalt"])
    client.post("/konto/kalender/")
    seite = client.get("/konto/").content.decode()
    assert seite_adresse(seite).startswith("https://helena.kanzlei.example/kalender/kal_")
    assert 'href="webcal://helena.kanzlei.example/kalender/kal_' in seite
    assert "beginnt hier mit <code>http://</code>" not in seite


def test_a_forwarded_proto_counts_only_when_the_operator_names_the_header(kanzlei: Kanzlei, settings) -> None:
    proxy = {"X-Forwarded-Proto": "https"}
    client = eingeloggt(kanzlei.users["anwalt"])
    client.post("/konto/kalender/", headers=proxy)
    seite = client.get("/konto/", headers=proxy).content.decode()
    assert seite_adresse(seite).startswith("http://testserver/kalender/")  # anyone can send the header
    assert "Die\n    Kalender-Adresse beginnt hier mit <code>http://</code>" in seite
    assert "unverschlüsselt" in seite
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    proxy["Host"] = "testserver"  # as a proxy sends it
    data = kanzlei.client("anwalt").post(API, content_type="application/json", headers=proxy).json()
    assert data["url"].startswith("https://testserver/kalender/kal_")
    assert "unverschlüsselt" not in client.get("/konto/", headers=proxy).content.decode()
    # on this machine itself http:// travels nowhere: no warning
    assert "unverschlüsselt" not in client.get("/konto/", HTTP_HOST="127.0.0.1").content.decode()


# --- 3. what revises an event ----------------------------------------------------------------------


def _alles_vor_einer_stunde(f: Frist) -> None:
    """Backdate every change, so that a change now shows in a DTSTAMP of whole seconds."""
    vorher = timezone.now() - timedelta(hours=1)
    Frist.objects.filter(pk=f.pk).update(angelegt_am=vorher)
    Frist.history.filter(id=f.pk).update(history_date=vorher)
    Akte.history.filter(id=f.akte_id).update(history_date=vorher)
    Kanzleieinstellung.aktuell()
    Kanzleieinstellung.objects.update(geaendert_am=vorher)


def test_a_renamed_akte_and_the_kurzrubrum_switch_revise_the_events(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    f = frist(kanzlei, "A", "Klage", verantwortlich=anwalt)
    url = neue_adresse(kanzlei, "anwalt")
    uid = f"frist-{f.pk}@testserver"
    _alles_vor_einer_stunde(f)
    vorher = events(abrufen(url))[uid]

    akte = Akte.objects.get(pk=f.akte_id)
    akte.aktenzeichen = "1a/26"
    akte.save()
    nachher = events(abrufen(url))[uid]
    assert str(nachher["SUMMARY"]) == "Frist: Klage (Az. 1a/26)"
    assert int(nachher["SEQUENCE"]) == int(vorher["SEQUENCE"]) + 1
    assert nachher.decoded("LAST-MODIFIED") > vorher.decoded("LAST-MODIFIED")
    assert nachher.decoded("DTSTAMP") == nachher.decoded("LAST-MODIFIED")

    _alles_vor_einer_stunde(f)
    vorher = events(abrufen(url))[uid]
    einstellung = Kanzleieinstellung.aktuell()
    einstellung.kalender_mit_kurzrubrum = True
    einstellung.save()
    nachher = events(abrufen(url))[uid]
    assert str(nachher["SUMMARY"]) == "Frist: Klage (Az. 1a/26, Meier ./. Stahlbau GmbH)"
    assert nachher.decoded("DTSTAMP") > vorher.decoded("DTSTAMP")
    assert int(nachher["SEQUENCE"]) >= int(vorher["SEQUENCE"])  # never down


# --- 4. ETag and 304 -------------------------------------------------------------------------------


def test_an_unchanged_feed_is_304_and_every_visible_change_a_new_etag(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    f = frist(kanzlei, "A", "Klage", verantwortlich=anwalt)
    url = neue_adresse(kanzlei, "anwalt")
    erste = Client().get(url)
    etag = erste["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")  # strong: the same bytes
    for methode in ("get", "head"):
        antwort = getattr(Client(), methode)(url, headers={"If-None-Match": etag})
        assert antwort.status_code == 304 and antwort["ETag"] == etag and antwort.content == b""
        assert antwort["Cache-Control"] == "private, no-cache"
    wieder = Client().get(url)
    assert wieder.content == erste.content and wieder["ETag"] == etag

    def geaendert() -> str:
        antwort = Client().get(url, headers={"If-None-Match": etag})
        assert antwort.status_code == 200, "a visible change kept the old ETag"
        assert Client().get(url, headers={"If-None-Match": antwort["ETag"]}).status_code == 304
        return antwort["ETag"]

    Frist.objects.filter(pk=f.pk).update(bezeichnung="Klage, neu")  # even without a history row
    etag = geaendert()
    anwalt.first_name, anwalt.last_name = "Anna", "Anwältin"  # „Verantwortlich: …“ in the text
    anwalt.save()
    etag = geaendert()
    Frist.objects.bulk_create([Frist(akte=kanzlei.akten["B"], bezeichnung="dazu", verantwortlich=anwalt,
                                     datum=timezone.localdate())])
    etag = geaendert()
    einstellung = Kanzleieinstellung.aktuell()
    einstellung.kalender_mit_kurzrubrum = True
    einstellung.save()
    etag = geaendert()
    Frist.objects.filter(pk=f.pk).delete()
    etag = geaendert()
    kanzlei.client("anwalt").delete(API)
    assert Client().get(url, headers={"If-None-Match": etag}).status_code == 404


# --- 5. reminders ----------------------------------------------------------------------------------


def test_no_reminder_for_a_vorfrist_in_the_past(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    heute = timezone.localdate()
    alt = Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Uralt", datum=date(2019, 5, 10),
                               vorfrist=date(2019, 5, 3), verantwortlich=anwalt)
    heutige = frist(kanzlei, "A", "Vorfrist heute", tage=7, vorfrist=heute, verantwortlich=anwalt)
    kommende = frist(kanzlei, "A", "Vorfrist bald", tage=20, vorfrist=heute + timedelta(days=10),
                     verantwortlich=anwalt)
    found = events(abrufen(neue_adresse(kanzlei, "anwalt")))
    assert not found[f"frist-{alt.pk}@testserver"].walk("VALARM")  # no popup per overdue Frist
    assert found[f"frist-{heutige.pk}@testserver"].walk("VALARM")
    assert found[f"frist-{kommende.pk}@testserver"].walk("VALARM")
    # the Vorfrist's own entry stays, as in a paper Fristenkalender; its date as in its text
    vorfrist = found[f"frist-{alt.pk}-vorfrist@testserver"]
    assert str(vorfrist["SUMMARY"]).endswith(f"– Ende {format_datum(date(2019, 5, 10))}")
    assert f"Fristende: {format_datum(date(2019, 5, 10))}" in str(vorfrist["DESCRIPTION"])


# --- 6. the key stays out of the logs (a real daphne) ----------------------------------------------


def holen(url: str, methode: str = "GET") -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=methode), timeout=10) as antwort:
            return antwort.status, antwort.headers.get("Cache-Control", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Cache-Control", "")


@pytest.mark.django_db(transaction=True)
def test_the_key_never_reaches_a_log_and_the_proxy_header_is_read_from_the_environment(
        kanzlei: Kanzlei) -> None:
    with daphne({"DEBUG": "1", "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto"}) as adresse:
        port = adresse.rsplit(":", 1)[1]
        anfrage = urllib.request.Request(f"http://{adresse}{API}", method="POST", headers={
            "Authorization": f"Bearer {kanzlei.tokens['anwalt']}", "X-Forwarded-Proto": "https"})
        with urllib.request.urlopen(anfrage, timeout=10) as antwort:
            url = json.loads(antwort.read())["url"]
        assert url.startswith(f"https://{adresse}/kalender/kal_")  # the proxy said https
        pfad = url.split(adresse, 1)[1]
        schluessel = pfad.removeprefix("/kalender/").removesuffix(".ics")
        assert holen(f"http://{adresse}{pfad}") == (200, "private, no-cache")
        status, cache = holen(f"http://{adresse}/kalender/{schluessel}x.ics")
        assert status == 404 and "no-store" in cache
        status, cache = holen(f"http://{adresse}{pfad}", "POST")
        assert status == 405 and "no-store" in cache
    log = (BASE_DIR / "tests" / "artifacts" / f"daphne-{port}.log").read_text()
    assert "Not Found: /kalender/kal_" in log and "Method Not Allowed (POST): /kalender/kal_" in log
    assert f'"GET /kalender/{schluessel[:12]}…' in log  # daphne's access log, cut as well
    assert schluessel not in log and schluessel[12:24] not in log


# --- 7. deactivated, reactivated -------------------------------------------------------------------


def test_a_reactivated_person_needs_a_new_address(kanzlei: Kanzlei) -> None:
    url = neue_adresse(kanzlei, "anwalt")
    anwalt = User.objects.get(username="anwalt")
    anwalt.is_active = False
    anwalt.save()
    assert Client().get(url).status_code == 404
    anwalt.is_active = True
    anwalt.save()
    assert Client().get(url).status_code == 404  # an old phone must not get it back
    assert kanzlei.client("anwalt").get(API).json()["aktiv"] is False
    assert Client().get(neue_adresse(kanzlei, "anwalt")).status_code == 200


# --- minor ------------------------------------------------------------------------------------------


def test_an_entry_in_the_hour_the_clocks_skip_ends_after_it_starts(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    tag = sommerzeit_beginn(timezone.localdate().year + 1)
    termin = Frist.objects.create(akte=kanzlei.akten["A"], typ="termin", bezeichnung="Ortstermin", datum=tag,
                                  uhrzeit=time(2, 30), verantwortlich=anwalt)
    wv = Frist.objects.create(akte=kanzlei.akten["A"], typ="wiedervorlage", bezeichnung="Nachfassen",
                              datum=tag, uhrzeit=time(2, 30), verantwortlich=anwalt)
    found = events(abrufen(neue_adresse(kanzlei, "anwalt")))
    for eintrag, dauer in ((termin, 60), (wv, 30)):
        event = found[f"frist-{eintrag.pk}@testserver"]
        beginn, ende = (event.decoded(name).astimezone(UTC) for name in ("DTSTART", "DTEND"))
        assert beginn == datetime.combine(tag, time(1, 30), tzinfo=UTC)  # 03:30 summer time
        assert ende - beginn == timedelta(minutes=dauer)


def test_the_copy_hint_names_the_mac_key(kanzlei: Kanzlei) -> None:
    client = eingeloggt(kanzlei.users["anwalt"])
    client.post("/konto/kalender/")
    assert "kopiere sie mit Strg+C (Mac: ⌘C)." in client.get("/konto/").content.decode()
