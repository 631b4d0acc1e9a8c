"""The admin's settings (HelenaSettings, ModelTier, TaskRoute, RateLimit), read once per process and
again only after one of them changed: each run start needed eight queries for them.

A change (post_save/post_delete of one of the models) clears this process's copy at once and, once
committed, bumps a version in Redis; every process compares its copy's version with Redis (at most
every VERSION_TTL seconds, one GET) and reloads after a change elsewhere. Until a change in this
process is committed nothing is cached here (a rolled-back change must not stay). Without Redis
every read goes to the database, as before.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from django.db import transaction

from config.redis_client import sync_redis

log = logging.getLogger(__name__)
T = TypeVar("T")
VERSION_KEY = "helena:admin-settings:version"
# How stale another process's change may be seen here, at most (s); the tests set 0, so a daphne
# they started sees a change the moment it is committed.
VERSION_TTL: float = float(os.environ.get("HELENA_ADMIN_CACHE_RECHECK", "0.2"))

_lock = threading.Lock()
_values: dict[str, Any] = {}
_version: bytes | None = None
_checked_at = -1.0
_uncommitted = False  # a change of this process waits for its commit


def _redis() -> redis.Redis:
    return sync_redis(timeout=1)


def _current_version() -> bytes | None:
    """Redis's version, or None when Redis cannot be asked (then nothing is cached)."""
    global _version, _checked_at
    now = time.monotonic()
    if now - _checked_at < VERSION_TTL and _version is not None:
        return _version
    try:
        version = _redis().get(VERSION_KEY) or b"0"
    except redis.RedisError:
        log.debug("admin settings version unavailable; reading the database", exc_info=True)
        return None
    with _lock:
        if version != _version:
            _values.clear()
            _version = version
        _checked_at = now
    return version


def cached(name: str, load: Callable[[], T]) -> T:
    """The value of `load()`, from this process's copy while no setting changed."""
    if _uncommitted or _current_version() is None:
        return load()
    with _lock:
        if name in _values:
            return _values[name]
    value = load()
    with _lock:
        if not _uncommitted:
            _values[name] = value
    return value


def changed(**_kwargs: Any) -> None:
    """A setting changed: forget it here now, and everywhere once the change is committed."""
    global _uncommitted
    with _lock:
        _values.clear()
        _uncommitted = True
    transaction.on_commit(_publish)


def _publish() -> None:
    clear()
    try:
        _redis().incr(VERSION_KEY)
    except redis.RedisError:
        log.warning("admin settings changed, but Redis could not be told: other processes may keep "
                    "the old values until the next change or their restart", exc_info=True)


def clear() -> None:
    """Forget everything (tests: a rolled-back test transaction must not leave its rows here)."""
    global _uncommitted, _checked_at
    with _lock:
        _values.clear()
        _uncommitted = False
        _checked_at = -1.0
