"""Websockets end with the login they were opened with (helena/realtime/sitzung.py), over a real
daphne: „Überall abmelden“ closes every socket of the user (chat and bell) and nobody else's, a
logout closes its own session's sockets, an idle session's socket closes by its own check, and
too many wrong tokens from one address are refused with 4429."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from akten.accounts.sitzungen import AKTIV, BEGINN
from helena.models import Conversation
from tests.conftest import Kanzlei, daphne

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def server(django_db_setup) -> Iterator[str]:
    """daphne whose sockets check their session every second (60 by default)."""
    with daphne({"DEBUG": "1", "HELENA_WS_SITZUNG_PRUEFEN_SEKUNDEN": "1"}) as address:
        yield address


def login(username: str) -> tuple[Client, str]:
    client = Client()
    response = client.post("/konto/anmelden/", {"username": username, "password": f"pw-{username}"})
    assert response.status_code == 302
    return client, f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def _open(url: str, cookie: str) -> ClientConnection:
    ws = await connect(url, additional_headers={"Cookie": cookie}, origin="http://127.0.0.1")
    return ws


async def _closed_with(ws: ClientConnection, seconds: float = 8.0) -> int | None:
    """The close code the server sends within `seconds` (frames before it are read and dropped)."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                await ws.recv()
    except ConnectionClosed as exc:
        return exc.rcvd.code if exc.rcvd else None
    except TimeoutError:
        return None


def test_ueberall_abmelden_closes_all_my_sockets_and_only_mine(kanzlei: Kanzlei, server: str) -> None:
    hier, hier_cookie = login("anwalt")
    _, dort_cookie = login("anwalt")
    _, kollegin_cookie = login("sekretariat")
    gespraech = Conversation.objects.create(user=kanzlei.users["anwalt"])

    async def scenario() -> tuple[int | None, int | None, int | None, int | None]:
        glocke = await _open(f"ws://{server}/ws/benachrichtigungen/", hier_cookie)
        chat = await _open(f"ws://{server}/ws/helena/conversations/{gespraech.pk}/", dort_cookie)
        fremd = await _open(f"ws://{server}/ws/benachrichtigungen/", kollegin_cookie)
        assert '"unread"' in str(await glocke.recv()) and '"unread"' in str(await fremd.recv())
        await asyncio.to_thread(lambda: hier.post("/konto/ueberall-abmelden/"))
        codes = await asyncio.gather(_closed_with(glocke), _closed_with(chat), _closed_with(fremd, 2.5))
        await fremd.close()
        # a socket opened afterwards with the old cookie is refused
        alt = await _open(f"ws://{server}/ws/benachrichtigungen/", dort_cookie)
        return (*codes, await _closed_with(alt))

    glocke, chat, fremd, alt = asyncio.run(scenario())
    assert glocke == 4401 and chat == 4401
    assert fremd is None  # the colleague's socket stayed open
    assert alt == 4403


def test_a_logout_closes_that_sessions_socket_not_the_other_sessions(kanzlei: Kanzlei, server: str) -> None:
    erster, erster_cookie = login("anwalt")
    _, zweiter_cookie = login("anwalt")

    async def scenario() -> tuple[int | None, int | None]:
        eins = await _open(f"ws://{server}/ws/benachrichtigungen/", erster_cookie)
        zwei = await _open(f"ws://{server}/ws/benachrichtigungen/", zweiter_cookie)
        await eins.recv(), await zwei.recv()
        await asyncio.to_thread(lambda: erster.post("/konto/abmelden/"))
        codes = await asyncio.gather(_closed_with(eins), _closed_with(zwei, 2.5))
        await zwei.close()
        return codes

    assert asyncio.run(scenario()) == [4401, None]


def _idle(session_key: str) -> None:
    """The session's last activity 8 hours ago, as if time had passed."""
    store = SessionStore(session_key=session_key)
    store[BEGINN] = store[AKTIV] = int(time.time() - 8 * 3600 - 5)
    store.save()


def test_the_socket_of_an_idle_session_closes_by_itself(kanzlei: Kanzlei, server: str) -> None:
    client, cookie = login("anwalt")

    async def scenario() -> int | None:
        ws = await _open(f"ws://{server}/ws/benachrichtigungen/", cookie)
        await ws.recv()
        await asyncio.to_thread(_idle, client.cookies[settings.SESSION_COOKIE_NAME].value)
        return await _closed_with(ws)

    assert asyncio.run(scenario()) == 4401


def test_too_many_wrong_tokens_refuse_the_socket_with_4429(kanzlei: Kanzlei, server: str) -> None:
    async def code(token: str, seconds: float = 8.0) -> int | None:
        async with connect(f"ws://{server}/ws/benachrichtigungen/",
                           additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            return await _closed_with(ws, seconds)

    async def scenario() -> list[int | None]:
        return [await code(f"hel_falsch{n}") for n in range(21)] + [await code(kanzlei.tokens["anwalt"], 1.5)]

    codes = asyncio.run(scenario())
    assert codes[:20] == [4403] * 20 and codes[20] == 4429
    assert codes[21] is None  # the right token: the socket stays open (no close within the wait)


def test_a_session_that_had_ended_is_refused_at_connect_with_4401(kanzlei: Kanzlei, server: str) -> None:
    client, cookie = login("anwalt")
    _idle(client.cookies[settings.SESSION_COOKIE_NAME].value)

    async def scenario() -> tuple[list[str], int | None]:
        ws = await _open(f"ws://{server}/ws/benachrichtigungen/", cookie)
        frames: list[str] = []
        try:
            async with asyncio.timeout(3):
                while True:
                    frames.append(str(await ws.recv()))
        except ConnectionClosed as exc:
            return frames, exc.rcvd.code if exc.rcvd else None
        except TimeoutError:
            return frames, None

    frames, code = asyncio.run(scenario())
    assert code == 4401 and frames == []  # not a single count for an expired login


def test_a_token_socket_closes_when_the_token_is_revoked_or_the_user_deactivated(
        kanzlei: Kanzlei, server: str) -> None:
    from akten.accounts.konto.services import issue_token

    anwalt = kanzlei.users["anwalt"]
    neu = issue_token(user=anwalt, name="Skript")
    client, _ = login("anwalt")

    def deaktivieren() -> None:
        sekretariat = kanzlei.users["sekretariat"]
        sekretariat.is_active = False
        sekretariat.save(update_fields=["is_active"])

    def mit(token: str) -> Any:
        return connect(f"ws://{server}/ws/benachrichtigungen/",
                       additional_headers={"Authorization": f"Bearer {token}"})

    async def scenario() -> tuple[int | None, int | None, int | None]:
        eigen, anderer = await mit(neu.raw), await mit(kanzlei.tokens["anwalt"])
        kollegin = await mit(kanzlei.tokens["sekretariat"])
        await eigen.recv(), await anderer.recv(), await kollegin.recv()
        await asyncio.to_thread(lambda: client.post(f"/konto/tokens/{neu.token.pk}/widerrufen/"))
        widerrufen, bleibt = await asyncio.gather(_closed_with(eigen, 3), _closed_with(anderer, 2.5))
        await anderer.close()
        await asyncio.to_thread(deaktivieren)
        return widerrufen, bleibt, await _closed_with(kollegin, 3)

    assert asyncio.run(scenario()) == (4401, None, 4401)


def test_a_session_socket_closes_once_the_user_owes_a_second_factor(kanzlei: Kanzlei, server: str) -> None:
    """The exemption lifted (or the admin's reset): the socket's own check sees the session owes it."""
    from akten.models import User

    _, cookie = login("anwalt")

    async def scenario() -> int | None:
        ws = await _open(f"ws://{server}/ws/benachrichtigungen/", cookie)
        await ws.recv()
        ohne = User.objects.filter(username="anwalt")
        await asyncio.to_thread(lambda: ohne.update(ohne_zweiten_faktor=False))
        return await _closed_with(ws, 4)

    assert asyncio.run(scenario()) == 4401
