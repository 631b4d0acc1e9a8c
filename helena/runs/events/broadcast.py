"""Live events to the conversation's chat sockets, over Redis pub/sub (helena.realtime.fanout receives).

One Redis channel per conversation; each process with a socket on it subscribes once
(helena/realtime/fanout.py) and hands every message to its sockets of the conversation. Every event
is encoded here once, as the exact text frame the clients get (docs/protocol.md "Websocket"), and
travels with its run, seq and whether it is the run's `done`, so the receiving side orders and
deduplicates without decoding JSON and sends the frame as it is: one line per event,
``run_id \t seq \t done \t frame``; JSON escapes every newline inside a frame.

Every event loop has one publisher that sends whatever piled up meanwhile, from all runs of the
process, in one pipeline (channels_redis published one message per call under a lock per process,
and with 50 runs streaming the round trips queued behind each other). Per run the order is kept:
one queue per loop, and Redis delivers a pipeline's messages in order.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any, NamedTuple

import redis
import redis.asyncio as aioredis
from django.conf import settings

from helena.infra.loops import PerLoop

log = logging.getLogger(__name__)



class Frame(NamedTuple):
    """One event as the receiving side needs it: where it belongs and the finished text frame."""

    run_id: str
    seq: int
    done: bool
    text: str


def encode_frame(event: dict[str, Any]) -> str:
    """The text frame a client gets for an event (the one encoding, also for events read back)."""
    return json.dumps(event, ensure_ascii=False, default=str)


def frame_of(event: dict[str, Any]) -> Frame:
    return Frame(str(event.get("run_id")), int(event.get("seq", 0)), event.get("type") == "done",
                 encode_frame(event))


def channel(conversation_id: int) -> str:
    """The conversation's Redis channel; the prefix keeps installations sharing a Redis apart."""
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
    return f"{prefix}:helena:conversation:{conversation_id}"


def conversation_of(channel_name: bytes) -> int:
    return int(channel_name.rpartition(b":")[2])


def encode(events: list[dict[str, Any]]) -> bytes:
    lines = []
    for event in events:
        frame = frame_of(event)
        lines.append(f"{frame.run_id}\t{frame.seq}\t{int(frame.done)}\t{frame.text}")
    return "\n".join(lines).encode()


def decode(message: bytes) -> list[Frame]:
    frames = []
    for line in message.decode().split("\n"):
        run_id, seq, done, text = line.split("\t", 3)
        frames.append(Frame(run_id, int(seq), done == "1", text))
    return frames


class _LoopPublisher:
    """One per event loop: a queue of (channel, message) and one task that pipelines them out."""

    def __init__(self) -> None:
        self._redis = aioredis.Redis.from_url(settings.REDIS_URL, socket_timeout=15)
        self._queue: list[tuple[str, bytes, asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None

    def close_with(self, loop: asyncio.AbstractEventLoop) -> None:
        """Close the client when the loop closes (async_to_sync and asyncio.run make short-lived
        loops; a client left behind would warn about its unclosed connection later)."""
        close = loop.close

        def close_publisher_first() -> None:
            if not loop.is_closed() and not loop.is_running():
                try:
                    loop.run_until_complete(self._redis.aclose())
                except Exception:  # closing is best effort
                    log.debug("closing the publisher's Redis client failed", exc_info=True)
            close()

        loop.close = close_publisher_first  # type: ignore[method-assign]

    async def publish(self, channel: str, message: bytes) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((channel, message, done))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain())
        await done

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    for channel, message, _ in batch:
                        pipe.publish(channel, message)
                    await pipe.execute()
            except Exception as exc:  # each waiting run gets the error; the next batch tries again
                for *_, done in batch:
                    if not done.done():
                        done.set_exception(exc)
            else:
                for *_, done in batch:
                    if not done.done():
                        done.set_result(None)


def _new_publisher(loop: asyncio.AbstractEventLoop) -> _LoopPublisher:
    publisher = _LoopPublisher()
    publisher.close_with(loop)
    return publisher


_publishers: PerLoop[_LoopPublisher] = PerLoop(_new_publisher)
_sync_client: redis.Redis | None = None
_sync_lock = threading.Lock()


async def publish_events(*, conversation_id: int, events: list[dict[str, Any]]) -> None:
    """Send one run's events, in order, to everyone watching the conversation."""
    if not events:
        return
    await _publishers.get().publish(channel(conversation_id), encode(events))


def publish_events_sync(*, conversation_id: int, events: list[dict[str, Any]]) -> None:
    """The same from sync code (the sweep): an event loop just for this would leave its client behind."""
    global _sync_client
    with _sync_lock:
        if _sync_client is None:
            _sync_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=15)
    _sync_client.publish(channel(conversation_id), encode(events))
