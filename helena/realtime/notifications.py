"""`/ws/benachrichtigungen/`: a user's new Hinweise and the drafts waiting for them, live on every
page (the bell and the Entwürfe badge in the navigation).

Hinweise and drafts are written elsewhere — the Fristen scan in the Celery worker, a finished task,
a run in another process, a colleague's approval — so the socket reads them from the database every
POLL_SECONDS rather than waiting for a message that another process would have to remember to send:
a few seconds are soon enough, and nothing can be missed. On connect it sends the unread count and
the number of drafts the user may decide; then each new Hinweis as {"type": "alert", …} (the fields
of GET /api/v1/alerts) followed by the new count, and the drafts' number whenever it changed. A
page that just approved, rejected or received a draft sends {"type": "refresh"}: the next reading
comes at once instead of within POLL_SECONDS.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from channels.db import database_sync_to_async
from django.core.serializers.json import DjangoJSONEncoder
from django.db import InterfaceError, OperationalError

from akten.schemas import alert_out
from akten.selectors import alerts_for
from config.db_unavailable import ausfall, ist_ausfall
from drafts.selectors import decidable_drafts_for
from helena.realtime.consumer import Consumer
from helena.realtime.sitzung import vorab_abweisen

POLL_SECONDS = 5.0
MIN_SECONDS = 0.3  # between two readings, however often a page asks for one
CLOSE_FORBIDDEN = 4403
MAX_FRAME = 200  # characters of a frame worth reading; {"type": "refresh"} is all there is to say


def _state(user: Any, after: int) -> tuple[list[dict[str, Any]], int, int, int]:
    """New Hinweise after id `after` (oldest first), the unread count, the highest id seen, and the
    number of drafts waiting for the user (the navigation's Entwürfe badge, drafts' context processor)."""
    mine = alerts_for(user=user)
    new = [alert_out(a) for a in mine.filter(pk__gt=after).order_by("pk")[:50]]
    newest = max([after, *(int(a["id"]) for a in new)])
    return new, mine.filter(gelesen=False).count(), newest, decidable_drafts_for(user=user).count()


def _newest(user: Any) -> int:
    return alerts_for(user=user).order_by("-pk").values_list("pk", flat=True).first() or 0


class AlertsConsumer(Consumer):
    poll: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.wake = asyncio.Event()
        await self.accept()
        if (abweisen := vorab_abweisen(self.scope)) is not None:
            await self.close(code=abweisen)
            return
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        # read first: a database away here closes the socket (4503) before it joined any group
        self.after = await database_sync_to_async(_newest)(self.user)
        _, unread, _, self.drafts = await database_sync_to_async(_state)(self.user, self.after)
        await self.sitzung_binden()  # closed when the login it came with ends (helena/realtime/sitzung.py)
        await self._send({"type": "unread", "count": unread})
        await self._send({"type": "drafts_pending", "count": self.drafts})
        self.poll = asyncio.ensure_future(self._poll())

    async def disconnect(self, code: int) -> None:
        await self.sitzung_loesen()
        poll, self.poll = self.poll, None
        if poll is not None:
            poll.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await poll

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """{"type": "refresh"} reads at once; every other frame is ignored."""
        if not text_data or len(text_data) > MAX_FRAME:
            return
        try:
            frame = json.loads(text_data)
        except ValueError:
            return
        if isinstance(frame, dict) and frame.get("type") == "refresh":
            self.wake.set()

    async def _poll(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), POLL_SECONDS)
            await asyncio.sleep(MIN_SECONDS)
            self.wake.clear()
            try:
                new, unread, self.after, drafts = await database_sync_to_async(_state)(self.user, self.after)
            except (OperationalError, InterfaceError) as exc:
                if not ist_ausfall(exc):
                    raise
                ausfall.gemeldet(exc, wo="Glocke")  # the socket stays; the next round reads again
                continue
            for alert in new:
                await self._send({"type": "alert", "alert": alert})
            if new:
                await self._send({"type": "unread", "count": unread})
            if drafts != self.drafts:
                self.drafts = drafts
                await self._send({"type": "drafts_pending", "count": drafts})

    async def _send(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(frame, cls=DjangoJSONEncoder, ensure_ascii=False))
