"""Live events to the conversation's websocket consumers, over the Redis pub/sub channel layer.

The consumers subscribe through Channels (`channels_redis.pubsub.RedisPubSubChannelLayer`,
group_add); runs publish here. channels_redis publishes one message per call under a lock per
process, one Redis round trip after the other: with 50 runs streaming, the round trips of 1,000
events a second queued behind each other and the chat fell seconds behind (bench/stream_latency.py).
Here every event loop has one publisher that sends whatever piled up meanwhile, from all runs of
the process, in one pipeline, and a run's events travel as one message per batch. Per run the order
is kept: one queue per loop, and Redis delivers a pipeline's messages in order.

Messages are `{"type": "helena.events", "events": [...]}`, serialised by the channel layer itself,
on the channel name the layer gives the group, so they arrive as if sent with group_send.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import redis
import redis.asyncio as aioredis
from channels.layers import get_channel_layer
from django.conf import settings

from helena.infra.loops import PerLoop

log = logging.getLogger(__name__)

MESSAGE_TYPE = "helena.events"  # ConversationConsumer.helena_events


def group_name(conversation_id: int) -> str:
    return f"helena.conversation.{conversation_id}"


def _channel(conversation_id: int) -> str:
    """The Redis channel the pub/sub layer subscribes a group to (its own naming, prefix included)."""
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
    return f"{prefix}__group__{group_name(conversation_id)}"


def _message(events: list[dict[str, Any]]) -> bytes:
    layer = get_channel_layer()
    assert layer is not None, "CHANNEL_LAYERS is not configured"
    return layer.serialize({"type": MESSAGE_TYPE, "events": events})


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
    await _publishers.get().publish(_channel(conversation_id), _message(events))


def publish_events_sync(*, conversation_id: int, events: list[dict[str, Any]]) -> None:
    """The same from sync code (the sweep): an event loop just for this would leave its client behind."""
    global _sync_client
    with _sync_lock:
        if _sync_client is None:
            _sync_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=15)
    _sync_client.publish(_channel(conversation_id), _message(events))
