"""The database goes away under a real daphne (issue 38): pages, the admin and the API answer 503 with
a German message and Retry-After, a websocket is closed with 4503 — never a traceback — and all of it
works again by itself once the database is back, without restarting daphne.

daphne reaches PostgreSQL through tests/pgproxy.py, which a test cuts (every open connection closed,
new ones refused) and restores; the other tests terminate daphne's connections on the server
(pg_terminate_backend), as a failover or an admin would.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie
from urllib.parse import urlencode

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from django.test import Client
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from config.db_unavailable import CLOSE_DATENBANK_WEG
from tests.conftest import BASE_DIR, Kanzlei, daphne, database_url, zweiter_faktor_gegeben
from tests.pgproxy import PgProxy, pg_proxy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

APP_NAME = "helena-test-datenbank-weg"
# a request waits at most 2 s for a connection while the database is away (30 s by default)
SERVER_ENV = {"DEBUG": "1", "DB_POOL_TIMEOUT": "2", "DB_POOL_RECONNECT_TIMEOUT": "3"}
MELDUNG = "Die Datenbank ist gerade nicht erreichbar"


@pytest.fixture(scope="module")
def proxy(django_db_setup) -> Iterator[PgProxy]:
    with pg_proxy(database_url()) as running:
        yield running


@pytest.fixture(scope="module")
def server(proxy: PgProxy) -> Iterator[str]:
    """daphne (with its connection pool) whose database is behind the proxy, as deployed: DEBUG off."""
    deployed = {"DEBUG": "0", "SECRET_KEY": settings.SECRET_KEY, "ALLOWED_HOSTS": "127.0.0.1"}  # our sessions
    with daphne({**SERVER_ENV, **deployed, "DATABASE_URL": proxy.url_for(database_url())}) as address:
        yield address


@pytest.fixture(scope="module")
def named_server(django_db_setup) -> Iterator[str]:
    """daphne straight on the database, its pool's connections named so that a test can terminate them.
    (Without the pool, DB_POOL_MAX_SIZE=0, each request opens its own connection: under ASGI every
    request runs in a thread of its own, so not even DB_CONN_MAX_AGE keeps one for the next.)"""
    url = database_url() + f"?application_name={APP_NAME}"
    with daphne({"DEBUG": "1", "DATABASE_URL": url}) as address:  # the pool's own timeouts
        yield address


def _log(address: str) -> str:
    port = address.rsplit(":", 1)[1]
    return (BASE_DIR / "tests" / "artifacts" / f"daphne-{port}.log").read_text(errors="replace")


def _get(address: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection(address, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        conn.close()


def _anmelden(address: str, username: str) -> tuple[int, str]:
    """The login page, then its form sent (with the CSRF cookie it set): the answer to the form."""
    conn = http.client.HTTPConnection(address, timeout=30)
    try:
        conn.request("GET", "/konto/anmelden/")
        page = conn.getresponse()
        page.read()
        assert page.status == 200  # the form itself needs no database
        cookie = SimpleCookie(page.getheader("Set-Cookie"))[settings.CSRF_COOKIE_NAME].value
        form = urlencode({"username": username, "password": f"pw-{username}", "csrfmiddlewaretoken": cookie})
        conn.request("POST", "/konto/anmelden/", body=form, headers={
            "Cookie": f"{settings.CSRF_COOKIE_NAME}={cookie}",
            "Content-Type": "application/x-www-form-urlencoded"})
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def _cookie(client: Client) -> dict[str, str]:
    return {"Cookie": f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"}


def _angemeldet(kanzlei: Kanzlei) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Cookie of the Anwalt's session, of the admin's (second factor given) and the Anwalt's token."""
    anwalt = Client()
    anwalt.force_login(kanzlei.users["anwalt"])
    admin = kanzlei.users["admin"]
    admin.is_staff = admin.is_superuser = True
    admin.save()
    return (_cookie(anwalt), _cookie(zweiter_faktor_gegeben(admin)),
            {"Authorization": f"Bearer {kanzlei.tokens['anwalt']}"})


async def _socket(address: str, headers: dict[str, str]) -> dict | int:
    """The bell's first frame, or the code the socket was closed with."""
    try:
        async with connect(f"ws://{address}/ws/benachrichtigungen/", additional_headers=headers,
                           open_timeout=30) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), 30))
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else -1


def _until(check, *, seconds: float) -> float:
    """Seconds until `check()` is true (asked every 0.2 s); fails after `seconds`."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, "not recovered in time"
        time.sleep(0.2)
    return time.monotonic() - start


def test_while_the_database_is_away_everything_answers_503_and_recovers_alone(
        kanzlei: Kanzlei, proxy: PgProxy, server: str) -> None:
    page, admin, token = _angemeldet(kanzlei)
    assert _get(server, "/", page)[0] == 200
    assert _get(server, "/admin/", admin)[0] == 200
    assert _get(server, "/api/v1/me", token)[0] == 200
    assert asyncio.run(_socket(server, token))["type"] == "unread"
    log_before = _log(server)

    proxy.cut()
    try:
        status, headers, body = _get(server, "/", page)  # the session is read by a middleware
        assert (status, headers["retry-after"]) == (503, "5")
        assert headers["content-type"].startswith("text/html") and MELDUNG in body
        assert "lade die Seite in ein paar Sekunden neu" in body and "Traceback" not in body

        status, headers, body = _get(server, "/admin/", admin)
        assert (status, headers["retry-after"]) == (503, "5") and MELDUNG in body

        status, headers, body = _get(server, "/api/v1/me", token)  # the token is read in the view
        assert (status, headers["retry-after"]) == (503, "5")
        assert json.loads(body) == {"code": "database_unavailable", "detail": json.loads(body)["detail"]}
        assert MELDUNG in json.loads(body)["detail"]

        status, body = _anmelden(server, "anwalt")  # the login page opens; logging in waits
        assert status == 503 and MELDUNG in body

        assert asyncio.run(_socket(server, token)) == CLOSE_DATENBANK_WEG
        assert asyncio.run(_socket(server, {**page, "Origin": f"http://{server}"})) == CLOSE_DATENBANK_WEG
    finally:
        proxy.restore()

    waited = _until(lambda: _get(server, "/", page)[0] == 200, seconds=15)
    assert _get(server, "/admin/", admin)[0] == 200
    assert _get(server, "/api/v1/me", token)[0] == 200
    assert asyncio.run(_socket(server, token))["type"] == "unread"
    anwalt = kanzlei.users["anwalt"]  # daphne checks passwords with the real hasher, not the tests' MD5
    anwalt.password = PBKDF2PasswordHasher().encode("pw-anwalt", PBKDF2PasswordHasher().salt())
    anwalt.save(update_fields=["password"])
    assert _anmelden(server, "anwalt")[0] == 302
    assert waited < 10

    during = _log(server)[len(log_before):]
    assert "Traceback" not in during and "Internal Server Error" not in during
    assert "Service Unavailable" not in during and "error connecting" not in during
    assert during.count("Datenbank nicht erreichbar") == 1, during  # one line for the whole outage
    assert during.count("Datenbank wieder erreichbar") == 1, during


def test_a_second_outage_is_reported_again_and_recovers_again(kanzlei: Kanzlei, proxy: PgProxy,
                                                               server: str) -> None:
    _, _, token = _angemeldet(kanzlei)
    assert _get(server, "/api/v1/me", token)[0] == 200
    log_before = _log(server)
    with proxy.down(seconds=1):
        assert _get(server, "/api/v1/me", token)[0] == 503
        assert _get(server, "/api/v1/akten", token)[0] == 503
    _until(lambda: _get(server, "/api/v1/me", token)[0] == 200, seconds=15)
    assert _get(server, "/api/v1/akten", token)[0] == 200
    during = _log(server)[len(log_before):]
    assert during.count("Datenbank nicht erreichbar") == 1 and "Traceback" not in during


def test_open_sockets_outlast_the_outage(kanzlei: Kanzlei, proxy: PgProxy, server: str) -> None:
    """The bell stays open and brings the Hinweis written after the outage; the chat answers a message
    sent while the database is away with a German `database_unavailable` error, and stays open."""
    from akten.models import Alert
    from helena.models import Conversation

    _, _, token = _angemeldet(kanzlei)
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    log_before = _log(server)

    async def run() -> tuple[dict, dict]:
        async with connect(f"ws://{server}/ws/benachrichtigungen/", additional_headers=token) as bell, \
                connect(f"ws://{server}/ws/helena/conversations/{conversation.pk}/",
                        additional_headers=token) as chat:
            assert json.loads(await asyncio.wait_for(bell.recv(), 30))["type"] == "unread"
            proxy.cut()
            try:
                await chat.send(json.dumps({"type": "user_message", "text": "Hallo", "client_id": "c1"}))
                refused = json.loads(await asyncio.wait_for(chat.recv(), 30))
                await asyncio.sleep(6)  # the bell's reading every 5 s meets the outage at least once
            finally:
                proxy.restore()
            await asyncio.to_thread(Alert.objects.create, empfaenger=kanzlei.users["anwalt"],
                                    message="Nach dem Ausfall.")
            while (frame := json.loads(await asyncio.wait_for(bell.recv(), 30)))["type"] != "alert":
                pass
            return refused, frame

    refused, alert = asyncio.run(run())
    assert refused["type"] == "error" and refused["code"] == "database_unavailable"
    assert refused["client_id"] == "c1" and MELDUNG in refused["message"]
    assert alert["alert"]["message"] == "Nach dem Ausfall."
    during = _log(server)[len(log_before):]
    assert "Traceback" not in during and during.count("Datenbank nicht erreichbar") == 1, during


def test_with_debug_the_503_comes_as_fast(kanzlei: Kanzlei, proxy: PgProxy) -> None:
    """DEBUG's error page is not rendered for an outage: it asked the database again for every mention
    of the lazy user (12 s instead of 2 here, minutes with the default DB_POOL_TIMEOUT)."""
    page, _, _ = _angemeldet(kanzlei)
    with daphne({**SERVER_ENV, "DATABASE_URL": proxy.url_for(database_url())}) as address:
        assert _get(address, "/", page)[0] == 200
        with proxy.down():
            start = time.monotonic()
            status, _, body = _get(address, "/", page)
            waited = time.monotonic() - start
        assert status == 503 and MELDUNG in body and "Traceback" not in body
        assert waited < 5  # one wait of DB_POOL_TIMEOUT (2 s), not one per look at the user
        _until(lambda: _get(address, "/", page)[0] == 200, seconds=15)
        assert "Traceback" not in _log(address)


def _terminate_server_connections() -> int:
    """pg_terminate_backend of daphne's connections (by their application_name), not of this test's."""
    params = connection.get_connection_params()
    admin = {key: value for key, value in params.items() if key in ("host", "port", "user", "password")}
    with psycopg.connect(dbname=params["dbname"], autocommit=True, **admin) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
            "AND application_name = %s AND pid <> pg_backend_pid()", [params["dbname"], APP_NAME]).fetchall()
    return len(rows)


def test_terminated_connections_cost_no_request(kanzlei: Kanzlei, named_server: str) -> None:
    """A busy pool's idle connections all terminated: the next request finds a working one at once
    (config/postgres/; the pool's own check needed 30 s and answered 503, request after request)."""
    page, _, token = _angemeldet(kanzlei)
    log_before = _log(named_server)
    with ThreadPoolExecutor(16) as parallel:  # a burst: the pool holds many idle connections after it
        assert set(parallel.map(lambda _: _get(named_server, "/", page)[0], range(64))) == {200}
    assert _terminate_server_connections() >= 8

    start = time.monotonic()
    assert _get(named_server, "/api/v1/me", token)[0] == 200
    assert time.monotonic() - start < 5
    statuses = [_get(named_server, path, headers)[0]
                for _ in range(3) for path, headers in (("/", page), ("/api/v1/me", token))]
    assert statuses == [200] * 6
    assert asyncio.run(_socket(named_server, token))["type"] == "unread"

    _terminate_server_connections()
    assert asyncio.run(_socket(named_server, token)) in ({"type": "unread", "count": 0}, CLOSE_DATENBANK_WEG)
    assert asyncio.run(_socket(named_server, token))["type"] == "unread"
    assert "Traceback" not in _log(named_server)[len(log_before):]


def test_pg_proxy_cuts_and_restores(django_db_setup) -> None:
    """The fixture itself: a connection through it dies on cut(), a new one is refused until restore()."""
    with pg_proxy(database_url()) as proxy:
        url = proxy.url_for(database_url())
        assert f"127.0.0.1:{proxy.port}/" in url
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
            proxy.cut()
            with pytest.raises(psycopg.OperationalError):
                conn.execute("SELECT 1")
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(url, connect_timeout=2)
        proxy.restore()
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert proxy.connections_total == 2

