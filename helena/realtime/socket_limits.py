"""How many chat sockets each user has open, across every daphne process (a sorted set in Redis).

A user who reconnects in a loop must not pile up subscriptions and resync tasks: each socket
registers here when it opens and leaves when it ends, however it ends. While a socket lives, its
process refreshes its entry (all of the process's entries in one pipeline every third of the TTL,
not a round trip per socket), so the entry of a process that died without cleaning up expires.
"""

from __future__ import annotations

import asyncio
import logging
import time

import redis.asyncio as aioredis
from django.conf import settings

from helena.infra.loops import PerLoop

log = logging.getLogger(__name__)

KEY = "helena:ws:user:{user_id}"


def _client(loop: asyncio.AbstractEventLoop) -> aioredis.Redis:
    return aioredis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)


_clients: PerLoop[aioredis.Redis] = PerLoop(_client)


class _Live:
    """One per event loop: the entries of its open sockets, and the task that keeps them alive."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.entries: dict[str, int] = {}  # channel → user id
        self.task: asyncio.Task[None] | None = None

    def add(self, user_id: int, channel: str) -> None:
        self.entries[channel] = user_id
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._refresh())

    async def _refresh(self) -> None:
        while self.entries:
            await asyncio.sleep(ttl() / 3)
            try:
                async with _clients.get().pipeline(transaction=False) as pipe:
                    for channel, user_id in list(self.entries.items()):
                        key = KEY.format(user_id=user_id)
                        pipe.zadd(key, {channel: time.time() + ttl()}, xx=True)
                        pipe.expire(key, int(ttl()) + 1)
                    await pipe.execute()
            except Exception:  # the next round tries again; an entry lives for three rounds
                log.debug("socket registry refresh failed", exc_info=True)


_live: PerLoop[_Live] = PerLoop(_Live)


def limit() -> int:
    return int(getattr(settings, "HELENA_WS_MAX_PER_USER", 20))


def ttl() -> float:
    """How long an entry lives without a refresh: several resync intervals (a socket refreshes in each)."""
    return max(30.0, 6 * float(getattr(settings, "HELENA_WS_RESYNC_SECONDS", 5.0)))


async def register(*, user_id: int, channel: str) -> bool:
    """Count this socket for the user; False (and nothing counted) when they already have `limit()`.

    A Redis failure lets the socket in: the limit protects the server, it must not lock users out.
    """
    key, now = KEY.format(user_id=user_id), time.time()
    try:
        redis = _clients.get()
        # Count itself in and count, in one transaction: a socket stays only if, with it, there are
        # at most `limit` entries. Admitted sockets stay counted, so however many open at the same
        # moment, the k-th to stay saw at least k entries: never more than `limit` stay. (A refused
        # one counts for the moment until it is taken out again.)
        async with redis.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, {channel: now + ttl()})
            pipe.expire(key, int(ttl()) + 1)
            pipe.zcard(key)
            *_, count = await pipe.execute()
        if count > limit():
            await redis.zrem(key, channel)
            return False
        _live.get().add(user_id, channel)
    except Exception:
        log.warning("socket registry unavailable; socket of user %s not counted", user_id, exc_info=True)
    return True


async def unregister(*, user_id: int, channel: str) -> None:
    _live.get().entries.pop(channel, None)
    try:
        await _clients.get().zrem(KEY.format(user_id=user_id), channel)
    except Exception:
        log.warning("socket registry: could not remove %s of user %s", channel, user_id, exc_info=True)


async def open_count(*, user_id: int) -> int:
    """Live sockets of a user (for tests and the admin)."""
    key = KEY.format(user_id=user_id)
    redis = _clients.get()
    await redis.zremrangebyscore(key, "-inf", time.time())
    return int(await redis.zcard(key))
