"""The bell's socket through a real daphne: a user's new Hinweis arrives live with the unread
count; another user's never does; the number of drafts waiting for the user follows new and decided
drafts, at once when the page asks; an anonymous socket is closed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from akten.models import Alert
from drafts.models import Draft
from drafts.services import approve_draft, create_draft
from helena.realtime.notifications import POLL_SECONDS
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
    assert {"type": "drafts_pending", "count": 0} in frames


def test_the_drafts_count_follows_and_a_refresh_reads_at_once(kanzlei: Kanzlei, asgi_server: str) -> None:
    url = f"ws://{asgi_server}/ws/benachrichtigungen/"
    anwalt = kanzlei.users["anwalt"]

    def propose(titel: str) -> Draft:
        return create_draft(user=anwalt, kind=Draft.Kind.NOTIZ, akte_id=kanzlei.akten["A"].pk,
                            fields={"titel": titel, "inhalt": "…"})

    async def run() -> list[dict]:
        frames: list[dict] = []
        headers = {"Authorization": f"Bearer {kanzlei.tokens['anwalt']}"}
        async with connect(url, additional_headers=headers) as ws:

            async def next_drafts(timeout: float) -> dict:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), timeout))
                    if frame["type"] == "drafts_pending":
                        frames.append(frame)
                        return frame

            await next_drafts(10)
            first = await asyncio.to_thread(propose, "Rückruf Meier")
            await ws.send(json.dumps({"type": "refresh"}))  # sooner than the socket's own reading
            await next_drafts(POLL_SECONDS - 1)
            await ws.send("kein JSON")  # ignored, the socket stays
            await asyncio.to_thread(propose, "Vergleich prüfen")
            await next_drafts(POLL_SECONDS * 2 + 2)  # no refresh: the next reading brings it
            await asyncio.to_thread(approve_draft, user=kanzlei.users["admin"], draft=first)
            await next_drafts(POLL_SECONDS * 2 + 2)
        return frames

    assert [f["count"] for f in asyncio.run(run())] == [0, 1, 2, 1]


def test_the_drafts_count_holds_only_drafts_one_may_see_and_decide(kanzlei: Kanzlei,
                                                                   asgi_server: str) -> None:
    """Drafts in Akte A: the Sekretariat (sees B only) counts none, the Sachbearbeitung (sees A) both."""
    for titel in ("Rückruf Meier", "Vergleich prüfen"):
        create_draft(user=kanzlei.users["anwalt"], kind=Draft.Kind.NOTIZ, akte_id=kanzlei.akten["A"].pk,
                     fields={"titel": titel, "inhalt": "…"})

    async def first_count(username: str) -> int:
        headers = {"Authorization": f"Bearer {kanzlei.tokens[username]}"}
        async with connect(f"ws://{asgi_server}/ws/benachrichtigungen/", additional_headers=headers) as ws:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame["type"] == "drafts_pending":
                    return frame["count"]

    assert asyncio.run(first_count("sekretariat")) == 0
    assert asyncio.run(first_count("sachbearbeiter")) == 2


def test_an_anonymous_socket_is_closed(asgi_server: str) -> None:
    async def code() -> int | None:
        async with connect(f"ws://{asgi_server}/ws/benachrichtigungen/") as ws:
            try:
                await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as exc:
                return exc.rcvd.code if exc.rcvd else None
        return None

    assert asyncio.run(code()) == 4403
