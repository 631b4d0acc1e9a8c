"""Run events from Redis to this process's chat sockets: one subscription per process.

Channels' pub/sub layer gave every socket a channel of its own: each event was unpacked (msgpack),
queued per socket, taken up by a task per message and encoded to JSON per socket again. Here one
reader per event loop takes each message once (a batch of a publishing process's event writer,
helena.runs.events.broadcast) and hands its frames, encoded once by the publisher, to this process's
sockets of each frame's conversation; frames of conversations without a socket here are skipped
unread.

Pub/sub delivers at most once. When the connection to Redis breaks, the reader connects again,
subscribes what its sockets need and tells each socket that it may have missed something; the
socket then reads that from the database (helena/realtime/chat.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from django.conf import settings

from helena.infra import redis_wire
from helena.infra.loops import PerLoop
from helena.runs.events.broadcast import Frame, channel, decode

log = logging.getLogger(__name__)

RECONNECT_PAUSE = (0.1, 0.5, 1.0, 2.0)  # seconds between attempts, the last one repeated
COMMAND_TIMEOUT = 15.0  # s for connecting, SUBSCRIBE and UNSUBSCRIBE (a message may take any time)


class Listener(Protocol):
    async def live(self, frames: list[Frame]) -> None:
        """A conversation's frames, in the order published; must not wait for anything slow."""

    def missed(self) -> None:
        """Messages may have been lost (Redis was away): read what is missing from the database."""


class _Fanout:
    """One per event loop: the subscriptions of its sockets and the task that reads them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        # The reader waits for the next message as long as it takes; a dead connection shows up as
        # an error (keepalive for the silent kind). helena/infra/redis_wire.py: why not redis-py.
        self._connection: redis_wire.Connection | None = None
        self._sockets: dict[int, set[Listener]] = {}  # conversation → its sockets in this process
        self._subscribed = False
        self._lost = False  # a socket joined while Redis was away: it is told once subscribed
        self._lock = asyncio.Lock()  # subscribe, unsubscribe and reconnect one after the other
        self._wanted = asyncio.Event()  # set when there is something to read
        self._reader: asyncio.Task[None] | None = None
        self._close_with(loop)

    async def join(self, conversation_id: int, socket: Listener) -> None:
        """From now on `socket` gets the conversation's messages (subscribed when this returns, unless
        Redis is away: then the reader subscribes once it is back, and the socket reads what it
        missed from the database; a socket is never refused for it)."""
        self._sockets.setdefault(conversation_id, set()).add(socket)
        try:
            await self._subscribe()
        except Exception:
            log.warning("Redis unavailable: live events wait for its return", exc_info=True)
            self._lost = True
        self._wanted.set()
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read())

    async def _subscribe(self) -> None:
        async with self._lock:
            if not self._subscribed and self._sockets:
                if self._connection is None or self._connection.closed:
                    self._connection = await redis_wire.connect(settings.REDIS_URL, timeout=COMMAND_TIMEOUT,
                                                                keepalive=True)
                await self._connection.subscribe(channel())
                self._subscribed = True

    async def leave(self, conversation_id: int, socket: Listener) -> None:
        sockets = self._sockets.get(conversation_id)
        if sockets is None:
            return
        sockets.discard(socket)
        if sockets:
            return
        del self._sockets[conversation_id]
        async with self._lock:
            if self._subscribed and not self._sockets and self._connection is not None:
                self._subscribed = False
                with contextlib.suppress(Exception):  # gone with the connection anyway
                    await self._connection.unsubscribe(channel())

    async def _read(self) -> None:
        failures = 0
        while True:
            if not self._sockets:
                self._wanted.clear()
                await self._wanted.wait()
                continue
            try:
                if not self._subscribed:
                    await self._subscribe()
                    if failures or self._lost:
                        self._lost = False
                        self._tell_missed()
                if not self._subscribed or self._connection is None:
                    continue  # the last socket left meanwhile
                data = await self._connection.next_message()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                pause = RECONNECT_PAUSE[min(failures, len(RECONNECT_PAUSE) - 1)]
                failures += 1
                log.warning("Redis subscription lost (%s); connecting again in %.1f s", exc, pause)
                await asyncio.sleep(pause)
                await self._reconnect()
                continue
            failures = 0
            await self._deliver(data)

    async def _deliver(self, data: bytes) -> None:
        try:
            conversations = decode(data, self._sockets)
        except ValueError:
            log.error("unreadable message on the run events' channel")
            return
        for conversation_id, frames in conversations.items():
            for socket in list(self._sockets.get(conversation_id, ())):
                try:
                    await socket.live(frames)
                except Exception:  # one socket's trouble is not the others'
                    log.exception("relaying to a socket of conversation %s failed", conversation_id)

    async def _reconnect(self) -> None:
        """A new connection; the reader subscribes on it (at once, or once Redis is back), and the
        sockets read what they missed meanwhile."""
        async with self._lock:
            old, self._connection, self._subscribed = self._connection, None, False
            if old is not None:
                old.close()
        self._tell_missed()

    def _tell_missed(self) -> None:
        for sockets in list(self._sockets.values()):
            for socket in list(sockets):
                socket.missed()

    def _close_with(self, loop: asyncio.AbstractEventLoop) -> None:
        """Stop the reader and close the connection when the loop closes (tests run short-lived loops)."""
        close = loop.close

        def close_fanout_first() -> None:
            if not loop.is_closed() and not loop.is_running():
                reader, self._reader = self._reader, None
                try:
                    if reader is not None:
                        reader.cancel()
                        loop.run_until_complete(asyncio.gather(reader, return_exceptions=True))
                    if self._connection is not None:
                        self._connection.close()
                        loop.run_until_complete(asyncio.sleep(0))  # the transport closes
                except Exception:  # closing is best effort
                    log.debug("closing the fanout's Redis connection failed", exc_info=True)
            close()

        loop.close = close_fanout_first  # type: ignore[method-assign]


_fanouts: PerLoop[_Fanout] = PerLoop(_Fanout)


async def join(*, conversation_id: int, socket: Listener) -> None:
    await _fanouts.get().join(conversation_id, socket)


async def leave(*, conversation_id: int, socket: Listener) -> None:
    await _fanouts.get().leave(conversation_id, socket)
