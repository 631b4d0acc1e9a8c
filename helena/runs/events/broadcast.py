"""Live events to the chat sockets, over Redis pub/sub (helena.realtime.fanout receives).

One Redis channel for all conversations: a process that holds chat sockets subscribes to it once
(helena/realtime/fanout.py) and hands each event to its sockets of the event's conversation. A
message carries everything one batch of the event writer stored, from all runs of the process, so
a process publishes one message per batch instead of one per run, and a receiver reads one per
batch instead of one per event. Every event is encoded here once, as the exact text frame the
clients get (docs/protocol.md "Websocket"), with its conversation, run, seq and whether it is the
run's `done`, so the receiving side orders and deduplicates without decoding JSON and sends the
frame as it is: one line per event, ``conversation \t run_id \t seq \t done \t frame`` (JSON
escapes every newline and tab inside a frame).

Every event loop has one publisher that sends whatever piled up meanwhile in one write, on a lean
connection of its own (helena/infra/redis_wire.py). Per run the order is kept: one queue per loop,
and Redis delivers the messages of one connection in order.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import threading
from collections.abc import Container
from typing import Any, NamedTuple

import redis
from django.conf import settings

from helena.infra import redis_wire
from helena.infra.loops import PerLoop
from helena.infra.websocket_frames import payload_of, text_frame

log = logging.getLogger(__name__)



class Frame(NamedTuple):
    """One event as the receiving side needs it: where it belongs and the finished websocket frame
    (header and payload, built once; helena/realtime/frame_writer.py writes it to each socket)."""

    run_id: str
    seq: int
    done: bool
    wire: bytes

    @property
    def text(self) -> str:
        """The frame's text, for a send that is not a write of the finished frame."""
        return payload_of(self.wire).decode()


Batch = tuple[int, list[dict[str, Any]]]  # a conversation and events of one of its runs, in seq order


def encode_frame(event: dict[str, Any]) -> str:
    """The text frame a client gets for an event (the one encoding, also for events read back)."""
    return json.dumps(event, ensure_ascii=False, default=str)


def frame_of(event: dict[str, Any]) -> Frame:
    return Frame(str(event.get("run_id")), int(event.get("seq", 0)), event.get("type") == "done",
                 text_frame(encode_frame(event).encode()))


def channel() -> str:
    """The Redis channel of all run events of this installation. Pub/sub ignores Redis's database
    number, and conversation ids of two installations overlap: the name holds a digest of the
    installation's SECRET_KEY (the same on all its machines, docs/betrieb.md) and database name, so
    installations (or test runs) sharing a Redis never get each other's events, however each
    machine spells the database's address."""
    installation = _installation(settings.SECRET_KEY, settings.DATABASES["default"]["NAME"])
    return f"{_prefix()}:helena:events:{installation}"


def _prefix() -> str:
    return settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")


@functools.lru_cache(maxsize=4)
def _installation(secret_key: str, database: str) -> str:
    return hashlib.sha256(f"{secret_key}\n{database}".encode()).hexdigest()[:20]


def encode(batches: list[Batch]) -> bytes:
    lines = []
    for conversation_id, events in batches:
        for event in events:
            done = int(event.get("type") == "done")
            lines.append(f"{conversation_id}\t{event.get('run_id')}\t{int(event.get('seq', 0))}\t{done}\t"
                         f"{encode_frame(event)}")
    return "\n".join(lines).encode()


def decode(message: bytes, wanted: Container[int]) -> dict[int, list[Frame]]:
    """The frames of the wanted conversations, per conversation in the order sent (others skipped
    before anything of them is parsed)."""
    message.decode()  # a frame the browser gets is valid UTF-8, or nothing of the message is sent
    frames: dict[int, list[Frame]] = {}
    for line in message.split(b"\n"):
        conversation, _, rest = line.partition(b"\t")
        conversation_id = int(conversation)
        if conversation_id not in wanted:
            continue
        run_id, seq, done, payload = rest.split(b"\t", 3)
        frames.setdefault(conversation_id, []).append(
            Frame(run_id.decode(), int(seq), done == b"1", text_frame(payload)))
    return frames


class _LoopPublisher:
    """One per event loop: a queue of (channel, message) and one task that pipelines them out."""

    TIMEOUT = 15.0  # s for connecting and for the replies of one write

    def __init__(self) -> None:
        self._connection: redis_wire.Connection | None = None
        self._queue: list[tuple[str, bytes, asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None

    def close_with(self, loop: asyncio.AbstractEventLoop) -> None:
        """Close the connection when the loop closes (async_to_sync and asyncio.run make short-lived
        loops; a connection left behind would warn about its unclosed transport later)."""
        close = loop.close

        def close_publisher_first() -> None:
            if not loop.is_closed() and not loop.is_running() and self._connection is not None:
                try:
                    self._connection.close()
                    loop.run_until_complete(asyncio.sleep(0))  # the transport closes
                except Exception:  # closing is best effort
                    log.debug("closing the publisher's Redis connection failed", exc_info=True)
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
                if self._connection is None or self._connection.closed:
                    self._connection = await redis_wire.connect(settings.REDIS_URL, timeout=self.TIMEOUT)
                await self._connection.execute(*(("PUBLISH", channel, message)
                                                 for channel, message, _ in batch))
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


async def publish(batches: list[Batch]) -> None:
    """Send stored events of any number of runs, each run's in order, to everyone watching them."""
    if any(events for _, events in batches):
        await _publishers.get().publish(channel(), encode(batches))


def publish_sync(batches: list[Batch]) -> None:
    """The same from sync code (the sweep): an event loop just for this would leave its client behind."""
    global _sync_client
    with _sync_lock:
        if _sync_client is None:
            _sync_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=15)
    _sync_client.publish(channel(), encode(batches))
