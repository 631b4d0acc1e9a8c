"""One synchronous Redis client per process and timeout, for the small counters and signals that
live in Redis (wrong tokens, the settings' version, what Helena learned, closing sockets): each
client keeps its own connection pool, so a module must not build one per call, and one place keeps
the four modules that need one from each growing its own lazy global."""

from __future__ import annotations

from functools import cache

import redis
from django.conf import settings


@cache
def sync_redis(*, timeout: float) -> redis.Redis:
    """The process's client for REDIS_URL whose calls give up after `timeout` seconds."""
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=timeout, socket_connect_timeout=timeout)
