"""A websocket lives no longer than the login it was opened with (akten/accounts/sitzungen.py).

Every socket of a user joins the user's Channels group (closed by „Überall abmelden“); a socket
opened with a session also joins that session's group (closed by its logout) and checks every
HELENA_WS_SITZUNG_PRUEFEN_SEKUNDEN that its session still stands — an idle or absolute end happens
without any request that could tell the socket; the first check runs at once (a session that ended
before the socket opened is refused at connect already: akten/accounts/auth.py, close 4401). The check
also asks whether the session still owes the second factor (the admin's reset, a new duty). A socket
opened with a bearer token joins the token's group (closed by its revocation) and checks the same way
that the token still stands and its user is active; a deactivated user's sockets close at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from akten.accounts.sitzungen import (
    gruppe_benutzer,
    gruppe_sitzung,
    gruppe_token,
    sitzung_gueltig,
    token_gueltig,
)
from akten.accounts.zweitfaktor import regeln as zweitfaktor

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
        token_id = self.scope.get("api_token_id")
        if self.scope.get("per_token") and token_id is not None:
            gruppen.append(gruppe_token(token_id))
            self.sitzung_wache = asyncio.create_task(self._wache(
                lambda: token_gueltig(token_id=token_id, user_id=user.pk)))
        elif key and not self.scope.get("per_token"):
            gruppen.append(gruppe_sitzung(key))
            self.sitzung_wache = asyncio.create_task(self._wache(
                lambda: sitzung_gueltig(session_key=key, user_id=user.pk, auch=_zweiter_faktor_gegeben)))
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

    async def _wache(self, gueltig_pruefen: Callable[[], bool]) -> None:
        """Check at once, then every HELENA_WS_SITZUNG_PRUEFEN_SEKUNDEN."""
        pause = float(getattr(settings, "HELENA_WS_SITZUNG_PRUEFEN_SEKUNDEN", 60.0))
        while True:
            try:
                gueltig = await database_sync_to_async(gueltig_pruefen)()
            except Exception:  # a database hiccup is not a logout; the next round asks again
                log.debug("session check of a websocket failed", exc_info=True)
                gueltig = True
            if not gueltig:
                await self.close(code=CLOSE_SITZUNG_BEENDET)  # type: ignore[attr-defined]
                return
            await asyncio.sleep(pause)


def _zweiter_faktor_gegeben(user: Any, session: Mapping[str, Any]) -> bool:
    """The session owes no second factor (any more): reset by the admin or newly required, it does."""
    verifiziert = zweitfaktor.session_verifiziert(user, session)
    return zweitfaktor.offen(user, verifiziert=verifiziert) is None


def token_gebremst(scope: dict[str, Any]) -> bool:
    """Whether the socket came with one wrong token too many from its address (close with 4429)."""
    return bool(scope.get("token_gebremst"))


def vorab_abweisen(scope: dict[str, Any]) -> int | None:
    """The close code for a socket refused before anything else: too many wrong tokens (4429), or a
    session that had already ended when the socket opened (4401: the page shows „abgemeldet“)."""
    if token_gebremst(scope):
        return CLOSE_TOKEN_GEBREMST
    if scope.get("sitzung_abgelaufen"):
        return CLOSE_SITZUNG_BEENDET
    return None
