"""A websocket lives no longer than the login it was opened with (akten/accounts/sitzungen.py).

Every socket of a user joins the user's Channels group (closed by „Überall abmelden“); a socket
opened with a session also joins that session's group (closed by its logout) and checks every
HELENA_WS_SITZUNG_PRUEFEN_SEKUNDEN that its session still stands — an idle or absolute end happens
without any request that could tell the socket. A socket opened with a bearer token lives with the
token (checked when it connects) and closes only with „Überall abmelden“.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from akten.accounts.sitzungen import gruppe_benutzer, gruppe_sitzung, sitzung_gueltig

log = logging.getLogger(__name__)

CLOSE_SITZUNG_BEENDET = 4401  # the login this socket was opened with has ended
CLOSE_TOKEN_GEBREMST = 4429  # too many wrong API tokens from this address (akten/accounts/tokenbremse.py)


class SitzungsBindung:
    """Mixin for the consumers (AsyncWebsocketConsumer): bind after the user was admitted, release
    in every ending; `sitzung_beendet` is the group message's handler."""

    scope: dict[str, Any]
    channel_layer: Any
    channel_name: str
    sitzung_gruppen: tuple[str, ...] = ()
    sitzung_wache: asyncio.Task[None] | None = None

    async def sitzung_binden(self) -> None:
        user = self.scope["user"]
        gruppen = [gruppe_benutzer(user.pk)]
        session = self.scope.get("session")
        key = getattr(session, "session_key", None)
        if key and not self.scope.get("per_token"):
            gruppen.append(gruppe_sitzung(key))
            self.sitzung_wache = asyncio.create_task(self._wache(key, user.pk))
        self.sitzung_gruppen = tuple(gruppen)
        for gruppe in gruppen:
            await self.channel_layer.group_add(gruppe, self.channel_name)

    async def sitzung_loesen(self) -> None:
        wache, self.sitzung_wache = self.sitzung_wache, None
        if wache is not None and wache is not asyncio.current_task():
            wache.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await wache
        gruppen, self.sitzung_gruppen = self.sitzung_gruppen, ()
        for gruppe in gruppen:
            with contextlib.suppress(Exception):
                await self.channel_layer.group_discard(gruppe, self.channel_name)

    async def sitzung_beendet(self, event: dict[str, Any]) -> None:
        await self.close(code=CLOSE_SITZUNG_BEENDET)  # type: ignore[attr-defined]

    async def _wache(self, session_key: str, user_id: int) -> None:
        pause = float(getattr(settings, "HELENA_WS_SITZUNG_PRUEFEN_SEKUNDEN", 60.0))
        while True:
            await asyncio.sleep(pause)
            try:
                gueltig = await database_sync_to_async(sitzung_gueltig)(session_key=session_key,
                                                                        user_id=user_id)
            except Exception:  # a database hiccup is not a logout; the next round asks again
                log.debug("session check of a websocket failed", exc_info=True)
                continue
            if not gueltig:
                await self.close(code=CLOSE_SITZUNG_BEENDET)  # type: ignore[attr-defined]
                return


def token_gebremst(scope: dict[str, Any]) -> bool:
    """Whether the socket came with one wrong token too many from its address (close with 4429)."""
    return bool(scope.get("token_gebremst"))
