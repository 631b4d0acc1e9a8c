"""`/ws/benachrichtigungen/`: a user's new Hinweise, live on every page (the bell).

Hinweise are written elsewhere — the Fristen scan in the Celery worker, a finished task — so the
socket reads the user's Hinweise from the database every POLL_SECONDS rather than waiting for a
message that another process would have to remember to send: a few seconds are soon enough for
a Frist, and nothing can be missed. On connect it sends the unread count; then each new Hinweis
as {"type": "alert", …} (the fields of GET /api/v1/alerts) followed by the new count.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.serializers.json import DjangoJSONEncoder

from akten.schemas import alert_out
from akten.selectors import alerts_for

POLL_SECONDS = 5.0
CLOSE_FORBIDDEN = 4403


def _state(user: Any, after: int) -> tuple[list[dict[str, Any]], int, int]:
    """New Hinweise after id `after` (oldest first), the unread count, the highest id seen."""
    mine = alerts_for(user=user)
    new = [alert_out(a) for a in mine.filter(pk__gt=after).order_by("pk")[:50]]
    newest = max([after, *(int(a["id"]) for a in new)])
    return new, mine.filter(gelesen=False).count(), newest


def _newest(user: Any) -> int:
    return alerts_for(user=user).order_by("-pk").values_list("pk", flat=True).first() or 0


class AlertsConsumer(AsyncWebsocketConsumer):
    poll: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.after = await database_sync_to_async(_newest)(self.user)
        _, unread, _ = await database_sync_to_async(_state)(self.user, self.after)
        await self._send({"type": "unread", "count": unread})
        self.poll = asyncio.ensure_future(self._poll())

    async def disconnect(self, code: int) -> None:
        poll, self.poll = self.poll, None
        if poll is not None:
            poll.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await poll

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Nothing to say to this socket; frames are ignored."""

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            new, unread, self.after = await database_sync_to_async(_state)(self.user, self.after)
            for alert in new:
                await self._send({"type": "alert", "alert": alert})
            if new:
                await self._send({"type": "unread", "count": unread})

    async def _send(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(frame, cls=DjangoJSONEncoder, ensure_ascii=False))
