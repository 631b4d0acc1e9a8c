"""Sessions that end (akten/accounts/sitzungen.py) from the outside: idle and absolute limits from
the firm's settings, the login page says why, the activity stamp is written at most once a minute,
„Überall abmelden“ ends the user's other sessions (and only theirs), cookies are HttpOnly/SameSite
and, with HELENA_HTTPS, Secure with HSTS."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.test import Client

from akten.accounts.sitzungen import AKTIV, BEGINN
from akten.models import Kanzleieinstellung
from tests.conftest import BASE_DIR, Kanzlei

pytestmark = pytest.mark.django_db


def angemeldet(username: str) -> Client:
    client = Client()
    response = client.post("/konto/anmelden/", {"username": username, "password": f"pw-{username}"})
    assert response.status_code == 302
    return client


def stempel(client: Client, *, angemeldet_vor: float, aktiv_vor: float) -> None:
    """Move the session's stamps into the past, as time would."""
    store = SessionStore(session_key=client.cookies[settings.SESSION_COOKIE_NAME].value)
    jetzt = time.time()
    store[BEGINN] = int(jetzt - angemeldet_vor)
    store[AKTIV] = int(jetzt - aktiv_vor)
    store.save()


def test_login_sets_a_cookie_for_the_firms_lifetime_httponly_and_samesite(kanzlei: Kanzlei) -> None:
    client = Client()
    response = client.post("/konto/anmelden/", {"username": "anwalt", "password": "pw-anwalt"})
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and not cookie["secure"]
    assert 24 * 3600 - 60 <= int(cookie["max-age"]) <= 24 * 3600  # not Django's two weeks


def test_an_idle_session_ends_and_the_login_page_says_why(kanzlei: Kanzlei) -> None:
    client = angemeldet("anwalt")
    stempel(client, angemeldet_vor=9 * 3600, aktiv_vor=8 * 3600 - 30)
    assert client.get("/konto/").status_code == 200  # 7:59:30 idle: still alive

    stempel(client, angemeldet_vor=9 * 3600, aktiv_vor=8 * 3600 + 1)
    response = client.get("/konto/")
    assert response.status_code == 302 and response["Location"].startswith("/konto/anmelden/")
    page = client.get(response["Location"]).content.decode()
    assert "Du warst eine Weile nicht aktiv und wurdest deshalb abgemeldet." in page
    assert "nicht aktiv" not in client.get("/konto/anmelden/").content.decode()  # said once
    assert client.get("/api/v1/me").status_code == 401  # the API with that cookie, too


def test_a_session_ends_after_the_absolute_lifetime_even_while_used(kanzlei: Kanzlei) -> None:
    client = angemeldet("sekretariat")
    stempel(client, angemeldet_vor=24 * 3600 + 1, aktiv_vor=10)
    response = client.get("/akten/")
    assert response.status_code == 302
    assert "nach der in der Kanzlei eingestellten Höchstdauer abgelaufen" in \
        client.get("/konto/anmelden/").content.decode()


def test_the_firms_settings_decide_the_limits(kanzlei: Kanzlei) -> None:
    client = angemeldet("anwalt")
    einstellung = Kanzleieinstellung.aktuell()
    einstellung.sitzung_leerlauf_minuten = 30
    einstellung.save()
    stempel(client, angemeldet_vor=3600, aktiv_vor=29 * 60)
    assert client.get("/konto/").status_code == 200
    assert "30 Minuten lang nichts tust" in client.get("/konto/").content.decode()
    stempel(client, angemeldet_vor=3600, aktiv_vor=31 * 60)
    assert client.get("/konto/").status_code == 302


def test_the_activity_stamp_is_written_at_most_once_a_minute(kanzlei: Kanzlei) -> None:
    client = angemeldet("anwalt")
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    stempel(client, angemeldet_vor=100, aktiv_vor=30)
    vorher = Session.objects.get(pk=key).session_data
    for _ in range(3):
        assert client.get("/api/v1/me").status_code == 200
    assert Session.objects.get(pk=key).session_data == vorher  # no write within the minute

    stempel(client, angemeldet_vor=100, aktiv_vor=61)
    assert client.get("/api/v1/me").status_code == 200
    assert time.time() - SessionStore(session_key=key).load()[AKTIV] < 5


def test_ueberall_abmelden_ends_every_session_of_mine_and_no_one_elses(kanzlei: Kanzlei) -> None:
    hier, dort = angemeldet("anwalt"), angemeldet("anwalt")
    kollegin = angemeldet("sekretariat")
    assert "Überall abmelden" in hier.get("/konto/").content.decode()

    response = hier.post("/konto/ueberall-abmelden/")
    assert response.status_code == 302 and response["Location"] == "/konto/anmelden/"
    assert "Du bist jetzt überall abgemeldet" in hier.get("/konto/anmelden/").content.decode()
    assert hier.get("/konto/").status_code == 302
    assert dort.get("/konto/").status_code == 302  # the other browser: ended too
    assert dort.get("/api/v1/me").status_code == 401
    assert kollegin.get("/konto/").status_code == 200  # not hers
    assert angemeldet("anwalt").get("/konto/").status_code == 200  # a new login works


def test_ueberall_abmelden_needs_a_login_and_a_post(kanzlei: Kanzlei) -> None:
    anwalt = angemeldet("anwalt")
    fremd = Client()
    response = fremd.post("/konto/ueberall-abmelden/")
    assert response.status_code == 302 and response["Location"].startswith("/konto/anmelden/")
    assert anwalt.get("/konto/ueberall-abmelden/").status_code == 405
    strikt = Client(enforce_csrf_checks=True)
    strikt.cookies = anwalt.cookies
    assert strikt.post("/konto/ueberall-abmelden/").status_code == 403  # a foreign page cannot
    assert anwalt.get("/konto/").status_code == 200


def test_with_helena_https_cookies_are_secure_and_hsts_is_on() -> None:
    code = ("import django; django.setup(); from django.conf import settings as s; "
            "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, "
            "s.SESSION_COOKIE_HTTPONLY)")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "HELENA_HTTPS": "true"}
    an = subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, env=env, capture_output=True, text=True)
    assert an.stdout.split() == ["True", "True", "31536000", "True"], an.stderr[-2000:]
    env["HELENA_HTTPS"] = "false"
    aus = subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, env=env, capture_output=True, text=True)
    assert aus.stdout.split() == ["False", "False", "0", "True"], aus.stderr[-2000:]


def test_the_verwaltung_sets_the_limits_in_the_kanzleieinstellungen(kanzlei: Kanzlei,
                                                                     admin_client: Client) -> None:
    einstellung = Kanzleieinstellung.aktuell()
    url = f"/admin/akten/kanzleieinstellung/{einstellung.pk}/change/"
    seite = admin_client.get(url).content.decode()
    assert "Abmeldung nach Untätigkeit (Minuten)" in seite
    assert "Höchstdauer einer Anmeldung (Stunden)" in seite
    daten = {"aktenzeichen_muster": einstellung.aktenzeichen_muster, "vier_augen_notfrist": "on",
             "mail_inhalt": einstellung.mail_inhalt, "sitzung_leerlauf_minuten": "2",
             "zugriffe_aufbewahren_monate": str(einstellung.zugriffe_aufbewahren_monate),
             "sitzung_hoechstdauer_stunden": "12"}
    zu_kurz = admin_client.post(url, daten).content.decode()
    assert "Dieser Wert muss größer oder gleich 5 sein." in zu_kurz
    assert admin_client.post(url, {**daten, "sitzung_leerlauf_minuten": "60"}).status_code == 302
    einstellung.refresh_from_db()
    assert (einstellung.sitzung_leerlauf_minuten, einstellung.sitzung_hoechstdauer_stunden) == (60, 12)
    # a new login's cookie ends with the new lifetime
    cookie = Client().post("/konto/anmelden/", {"username": "anwalt", "password": "pw-anwalt"}).cookies
    assert 12 * 3600 - 60 <= int(cookie[settings.SESSION_COOKIE_NAME]["max-age"]) <= 12 * 3600
    # nobody else may change them
    sekretariat = Client()
    sekretariat.force_login(kanzlei.users["sekretariat"])
    sekretariat.post(url, {**daten, "sitzung_leerlauf_minuten": "600"})
    einstellung.refresh_from_db()
    assert einstellung.sitzung_leerlauf_minuten == 60


def test_a_logged_in_user_sent_back_to_the_login_page_lands_on_the_start_page(kanzlei: Kanzlei) -> None:
    client = angemeldet("anwalt")
    for weiter in ("/konto/anmelden/", "/konto/anmelden/?next=/konto/anmelden/"):
        response = client.get("/konto/anmelden/", {"next": weiter})
        assert response.status_code == 302 and response["Location"] == "/"  # no „Redirection loop“ 500
    assert client.get("/konto/anmelden/", {"next": "/akten/"})["Location"] == "/akten/"
