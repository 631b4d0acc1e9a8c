"""The chat websocket (docs/protocol.md "Websocket"): thin, every decision is in services/selectors.

One socket per conversation. Once accepted it joins the process's fanout (helena/realtime/fanout.py),
which hands it every persisted event of its conversation that helena.runs.events.broadcast publishes,
as finished frames, and relays them. Per run it remembers the last seq it sent: a live event that
would leave a gap is preceded by the missing ones from the database, and one
already sent is dropped, so a reload or a second tab sees each run's events exactly once and in
order. Clients may ask for what they missed with {"type": "sync", "after": {run_id: seq}}.

Live events travel over Redis pub/sub, which delivers at most once: a message lost on the way (a
reconnect to Redis, say) would leave the client waiting for a run's `done` forever. So a socket
that has heard nothing for HELENA_WS_RESYNC_SECONDS while it knows of an unfinished run, and in
any case now and then, reads what it lacks from the database itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from typing import Any

from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from config.db_unavailable import API_MELDUNG, FRAME_SEND, ausfall, ist_ausfall
from config.errors import DomainError, NotFound
from config.textcheck import BadInput, parse_json
from helena.conversations import selectors, services
from helena.conversations.services import MAX_MESSAGE_CHARS, RunRefused
from helena.infra.errorlog import arecord_error
from helena.infra.timestamps import event_ts
from helena.realtime import fanout, socket_limits
from helena.realtime.consumer import Consumer
from helena.realtime.frame_writer import FrameWriter
from helena.realtime.sitzung import vorab_abweisen
from helena.runs.events.broadcast import Frame, frame_of

logger = logging.getLogger(__name__)

MAX_FRAME_CHARS = MAX_MESSAGE_CHARS + 2_000  # the text plus a little JSON around it
MAX_FRAMES_PER_SECOND = 10
MAX_CLIENT_ID_CHARS = 100  # a refusal echoes the frame's client_id, cut to this length
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429  # the user has HELENA_WS_MAX_PER_USER sockets open already
RESYNC_IDLE_FACTOR = 6  # without an unfinished run, read the database every 6 × the interval


class ConversationConsumer(Consumer):
    """`/ws/helena/conversations/<conversation_id>/`."""

    resync: asyncio.Task[None] | None = None
    draining: asyncio.Task[None] | None = None
    closed = False
    read_all = False  # the next resync round reads everything since connect (the fanout lost Redis)
    conversation: Any = None
    registered = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """However the socket ends (a close, a dropped connection, an exception in a handler), its
        subscription, resync task and place in the user's socket count are released."""
        try:
            await super().__call__(scope, receive, send)
        except Exception as exc:
            if ist_ausfall(exc):  # the database is away: closed with 4503 (config/db_unavailable.py)
                raise
            logger.exception("websocket consumer failed")
            await arecord_error(kind="websocket", code=type(exc).__name__, message=str(exc)[:500],
                                user_id=getattr(scope.get("user"), "pk", None))
            raise
        finally:
            await self._release()

    async def _release(self) -> None:
        self.closed = True  # no live frame starts anything from now on
        conversation, self.conversation = self.conversation, None
        if conversation is not None:
            with contextlib.suppress(Exception):
                await fanout.leave(conversation_id=conversation.pk, socket=self)
        for task in (self.resync, self.draining):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self.resync = self.draining = None
        if self.registered:
            self.registered = False
            await socket_limits.unregister(user_id=self.user.pk, channel=self.channel_name)
        await self.sitzung_loesen()

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.conversation = None
        self.sent: dict[str, int] = {}  # run_id → last seq sent to this client
        self.finished: set[str] = set()  # runs whose `done` this client got
        self.relaying = asyncio.Lock()  # one relay at a time: live, catch-up and resync interleave
        self.frame_send = self.scope.get(FRAME_SEND, self.base_send)  # run events: past the middlewares
        self.writer = FrameWriter(self.frame_send)  # and, under daphne, straight onto the connection
        self.backlog: list[Frame] = []  # live frames waiting for a relay in progress
        self.draining: asyncio.Task[None] | None = None
        self.heard = time.monotonic()  # last live event or database read
        self.connected_at = timezone.now()
        self.resync: asyncio.Task[None] | None = None
        self.frames: deque[float] = deque(maxlen=MAX_FRAMES_PER_SECOND)
        conversation_id = self.scope["url_route"]["kwargs"]["conversation_id"]
        if (abweisen := vorab_abweisen(self.scope)) is not None:
            await self.accept()
            await self.close(code=abweisen)
            return
        found = await database_sync_to_async(selectors.conversation_access)(
            user=self.user, conversation_id=conversation_id)
        if isinstance(found, str):
            # Accept first: a close before the handshake completes is a bare HTTP 403 without
            # the close code docs/protocol.md promises.
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND if found == "not_found" else CLOSE_FORBIDDEN)
            return
        if not await socket_limits.register(user_id=self.user.pk, channel=self.channel_name):
            await self.accept()
            await self._error("too_many_sockets", "Zu viele offene Verbindungen: höchstens "
                              f"{socket_limits.limit()} je Benutzer. Bitte schließe andere Tabs mit Helena.")
            await self.close(code=CLOSE_TOO_MANY)
            return
        self.registered = True
        self.conversation = found
        await self.sitzung_binden()  # closed when the login it came with ends (helena/realtime/sitzung.py)
        await self.accept()
        # Live frames only once accepted (they go straight to daphne); one published meanwhile
        # leaves a gap that the next live frame, or the resync, fills from the database.
        await fanout.join(conversation_id=found.pk, socket=self)
        self.resync = asyncio.create_task(self._resync_loop())

    async def disconnect(self, code: int) -> None:
        await self._release()

    # ------------------------------------------------------------------ client → server

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.conversation is None:
            return  # a refused socket (4403/4404/4429) may still get frames that were on their way
        now = time.monotonic()
        if len(self.frames) == MAX_FRAMES_PER_SECOND and now - self.frames[0] < 1.0:
            self.frames.append(now)
            await self._error("rate_limited", f"Zu viele Nachrichten: höchstens {MAX_FRAMES_PER_SECOND} pro "
                                              "Sekunde. Bitte einen Moment warten.")
            return
        self.frames.append(now)
        if text_data is None:
            await self._error("invalid_message", "Bitte Textnachrichten im JSON-Format senden.")
            return
        if len(text_data) > MAX_FRAME_CHARS:
            await self._error("invalid_message",
                              f"Die Nachricht ist zu lang (höchstens {MAX_MESSAGE_CHARS} Zeichen).")
            return
        try:  # bounded before parsing; no NUL, no lone surrogate; errors quote nothing of the frame
            frame = parse_json(text_data)
        except BadInput as exc:
            await self._error("invalid_message", str(exc))
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self._error("invalid_message", "Jede Nachricht braucht ein Feld „type“.")
            return
        handler = {
            "user_message": self._user_message,
            "cancel": self._cancel,
            "continue_in_background": self._continue,
            "sync": self._catch_up,
        }.get(frame["type"])
        if handler is None:
            await self._error("invalid_message", "Unbekannter Nachrichtentyp. "
                              "Erlaubt: user_message, cancel, continue_in_background, sync.")
            return
        # A refusal names the frame it refers to when the client gave the frame a `client_id`.
        ref = frame.get("client_id")
        ref = ref[:MAX_CLIENT_ID_CHARS] if isinstance(ref, str) and ref else None
        try:
            await handler(frame)
        except DomainError as exc:  # config.errors: the same codes and messages as the API
            await self._error(exc.code, exc.message, client_id=ref, **exc.extra)
        except (OperationalError, InterfaceError) as exc:
            if not ist_ausfall(exc):
                raise
            ausfall.gemeldet(exc, wo="chat")  # one log line per outage, no traceback per frame
            await self._error("database_unavailable", API_MELDUNG, client_id=ref)
        except Exception as exc:  # the socket stays open whatever one frame does
            logger.exception("websocket frame %s failed", frame.get("type"))
            await arecord_error(kind="websocket", code=type(exc).__name__, message=str(exc)[:500],
                                user_id=self.user.pk, context_type=self.conversation.context_type)
            await self._error("error", "Das hat nicht geklappt. Bitte versuche es noch einmal.",
                              client_id=ref)

    async def _user_message(self, frame: dict[str, Any]) -> None:
        await database_sync_to_async(services.start_run)(  # the service checks text and mode
            user=self.user, conversation=self.conversation, text=frame.get("text"),
            mode=frame.get("mode", "auto"))

    async def _run_of(self, frame: dict[str, Any]) -> Any:
        run_id = frame.get("run_id")
        if not isinstance(run_id, str) or not run_id:
            raise RunRefused(code="invalid_message", message="Das Feld „run_id“ fehlt.")
        try:
            run = await database_sync_to_async(selectors.get_run)(user=self.user, run_id=run_id)
        except NotFound:
            run = None
        if run is None or run.conversation_id != self.conversation.pk:
            raise NotFound("Dieser Lauf wurde nicht gefunden.")
        return run

    async def _cancel(self, frame: dict[str, Any]) -> None:
        run = await self._run_of(frame)
        await database_sync_to_async(services.cancel_run)(run=run)

    async def _continue(self, frame: dict[str, Any]) -> None:
        run = await self._run_of(frame)
        await database_sync_to_async(services.continue_in_background)(user=self.user, run=run)

    async def _catch_up(self, frame: dict[str, Any]) -> None:
        """Send what the client missed: events after `after[run_id]` for the given runs, and all
        events of runs still in progress that the client does not know yet."""
        after = frame.get("after", {})
        if not isinstance(after, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for k, v in after.items()
        ):
            await self._error("invalid_message", "„after“ muss ein Objekt {run_id: seq} sein.")
            return
        async with self.relaying:
            for run_id, seq in after.items():
                self.sent[run_id] = max(self.sent.get(run_id, 0), seq)
            missing = await database_sync_to_async(selectors.missing_events)(
                conversation=self.conversation, after=dict(self.sent), run_ids=list(after))
            for event in missing:
                await self._relay(frame_of(event), fill_gaps=False)

    async def _resync_loop(self) -> None:
        """Read from the database what pub/sub may have lost: when an unfinished run has been quiet
        for the interval, and every few intervals anyway (a run none of whose events arrived)."""
        interval = float(getattr(settings, "HELENA_WS_RESYNC_SECONDS", 5.0))
        last_read = time.monotonic()
        while True:
            await asyncio.sleep(interval)
            now = time.monotonic()
            unfinished = any(run_id not in self.finished for run_id in self.sent)
            if not ((unfinished and now - self.heard >= interval) or self.read_all
                    or now - last_read >= interval * RESYNC_IDLE_FACTOR):
                continue
            last_read, self.read_all = now, False
            try:
                async with self.relaying:
                    missing = await database_sync_to_async(selectors.missing_events)(
                        conversation=self.conversation, after=dict(self.sent), run_ids=list(self.sent),
                        since=self.connected_at)
                    for event in missing:
                        await self._relay(frame_of(event), fill_gaps=False)
                    self.heard = time.monotonic()
            except Exception as exc:  # the next round tries again; the socket stays
                if ist_ausfall(exc):
                    ausfall.gemeldet(exc, wo="chat resync")
                else:
                    logger.exception("resync of conversation %s failed", self.conversation.pk)

    # ------------------------------------------------------------------ server → client

    async def live(self, frames: list[Frame]) -> None:
        """The conversation's frames of one published batch (each run's in seq order), encoded.

        Sent at once while nothing else is relaying and no seq is missing (the frame goes straight
        to daphne, which never waits); otherwise kept, in order, for a task that fills the gap from
        the database first, so the fanout's reader is never held up by one socket.
        """
        if self.closed:
            return
        self.heard = time.monotonic()
        if self.backlog or self.relaying.locked():
            self.backlog.extend(frames)
            self._drain_soon()
            return
        for i, frame in enumerate(frames):
            last = self.sent.get(frame.run_id, 0)
            if frame.seq <= last:
                continue  # already sent (stored and live overlap after a sync)
            if frame.seq > last + 1:
                self.backlog.extend(frames[i:])
                self._drain_soon()
                return
            self._sent(frame)
            await self._send_frame(frame)

    def missed(self) -> None:
        """The fanout lost its Redis connection: the next resync round reads everything since connect
        (also runs this socket never heard of)."""
        self.read_all = True

    def _drain_soon(self) -> None:
        if not self.closed and (self.draining is None or self.draining.done()):
            self.draining = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        """Relay the backlog in order, filling gaps from the database; a failure leaves the rest to
        the next live frame or the resync (the socket stays)."""
        try:
            async with self.relaying:
                while self.backlog and not self.closed:
                    frames, self.backlog = self.backlog, []
                    for frame in frames:
                        await self._relay(frame, fill_gaps=True)
        except Exception as exc:
            if ist_ausfall(exc):
                ausfall.gemeldet(exc, wo="chat")
            else:
                logger.exception("relaying to a socket of conversation %s failed",
                                 getattr(self.conversation, "pk", None))

    async def _send_frame(self, frame: Frame) -> None:
        """A run event's frame to the client; a socket that is closing takes no more (quietly)."""
        try:
            if not self.writer.write(frame):
                await self.frame_send({"type": "websocket.send", "text": frame.text})
        except Disconnected:
            self.closed = True

    def _sent(self, frame: Frame) -> None:
        self.sent[frame.run_id] = frame.seq
        if frame.done:
            self.finished.add(frame.run_id)

    async def _relay(self, frame: Frame, *, fill_gaps: bool) -> None:
        last = self.sent.get(frame.run_id, 0)
        if frame.seq <= last:
            return  # already sent (stored and live overlap after a sync)
        if fill_gaps and frame.seq > last + 1:
            gap = await database_sync_to_async(selectors.run_events)(
                run_id=frame.run_id, after=last, before=frame.seq)
            for missed in gap:
                await self._send_frame(frame_of(missed))
        self._sent(frame)
        await self._send_frame(frame)

    async def _error(self, code: str, message: str, **extra: Any) -> None:
        """An `error` event about a frame: not part of any run (run_id null, seq 0)."""
        payload = {"type": "error", "run_id": None, "seq": 0, "ts": event_ts(), "code": code,
                   "message": message}
        payload.update({k: v for k, v in extra.items() if v is not None})
        await self.send(text_data=json.dumps(payload, ensure_ascii=True, default=str))
