"""The bell's socket through a real daphne: a user's new Hinweis arrives live with the unread
count; another user's never does; an anonymous socket is closed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from akten.models import Alert
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


async def _frames(url: str, headers: dict[str, str], *, after_connect: Any, seconds: float) -> list[dict]:
    frames: list[dict] = []
    async with connect(url, additional_headers=headers) as ws:
        frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        await asyncio.to_thread(after_connect)
        deadline = asyncio.get_running_loop().time() + seconds
        while (left := deadline - asyncio.get_running_loop().time()) > 0:
            try:
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), left)))
            except TimeoutError:
                break
            if frames[-1]["type"] == "unread" and len(frames) > 1:
                break
    return frames


def test_a_new_hinweis_arrives_live_and_only_for_its_recipient(kanzlei: Kanzlei, asgi_server: str) -> None:
    url = f"ws://{asgi_server}/ws/benachrichtigungen/"
    anwalt, praktikant = kanzlei.users["anwalt"], kanzlei.users["praktikant"]
    Alert.objects.create(empfaenger=anwalt, message="Schon da.")

    def new_alerts() -> None:
        Alert.objects.create(empfaenger=praktikant, message="Nur für den Praktikanten.")
        Alert.objects.create(empfaenger=anwalt, akte=kanzlei.akten["A"], message="Frist heute!",
                             severity="critical", art="heute")

    frames = asyncio.run(_frames(url, {"Authorization": f"Bearer {kanzlei.tokens['anwalt']}"},
                                 after_connect=new_alerts, seconds=12))
    assert frames[0] == {"type": "unread", "count": 1}
    alerts = [f["alert"] for f in frames if f["type"] == "alert"]
    assert [a["message"] for a in alerts] == ["Frist heute!"]
    assert alerts[0]["severity"] == "critical" and alerts[0]["akte_id"] == str(kanzlei.akten["A"].pk)
    assert frames[-1] == {"type": "unread", "count": 2}


def test_an_anonymous_socket_is_closed(asgi_server: str) -> None:
    async def code() -> int | None:
        async with connect(f"ws://{asgi_server}/ws/benachrichtigungen/") as ws:
            try:
                await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as exc:
                return exc.rcvd.code if exc.rcvd else None
        return None

    assert asyncio.run(code()) == 4403
