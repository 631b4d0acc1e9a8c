"""What Helena learned about a model while talking to it, shared by every process, shown to and reset
by the admin.

Three facts, each a guess from one stream (docs/modelle.md): the server refuses tools (a 400 "does
not support tools": tools go into the prompt from then on), the template pre-fills "<think>" (a
"</think>" was seen without its opener: the next output starts as reasoning, held until it shows),
and the opposite (a guessed pre-fill that a stream refuted: its reasoning never closed, or the
server sent the reasoning in a field of its own).

Where they live, and why: in one Redis hash (HELENA_KEY), each process with a copy it re-reads at
most every RECHECK seconds (helena/llm/dialects/profiles.py holds the copy the streams use).
Kept per process, as before, the admin would see only the facts of the web process it asks, never
those of the Celery workers and the ASGI process where the runs learn them; a version bump
(helena/infra/settings_cache.py) could reset them everywhere but not show them. The database would
need a model and a migration and a query per model call for facts that are cheap to learn again.
Redis is there already (channels, Celery, the settings' version); when it cannot be asked, the
process keeps its own copy, as before. A fact lives MAX_AGE at most: a server is upgraded, a model
replaced under its name, and a guess is tried again without anyone having to reset it.

Only the admin resets (forget); no HTTP API reaches this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import redis

from config.redis_client import sync_redis
from helena.llm.dialects import profiles

log = logging.getLogger(__name__)

Key = tuple[str, str, str]  # (provider, host, model) as the providers call it
HELENA_KEY = "helena:llm:learned"
RECHECK: float = float(os.environ.get("HELENA_LEARNED_RECHECK", "2"))
MAX_AGE = 7 * 24 * 3600.0

LABELS = {
    profiles.NO_TOOLS: "nimmt keine Werkzeuge an: Werkzeuge stehen im Prompt",
    profiles.PREFILLED: "Überlegung vorbelegt: Ausgabe beginnt ohne <think>",
    profiles.NOT_PREFILLED: "Überlegung nicht vorbelegt: die Vermutung ist verworfen",
}


@dataclass(frozen=True)
class Fact:
    """One learned fact about one model, for the admin: what, since when, from what."""

    provider: str
    host: str
    model: str
    fact: str  # profiles.NO_TOOLS, PREFILLED or NOT_PREFILLED
    since: datetime
    why: str  # German: what Helena saw

    @property
    def label(self) -> str:
        return LABELS.get(self.fact, self.fact)

    @property
    def key(self) -> Key:
        return (self.provider, self.host, self.model)


_lock = threading.Lock()
_facts: dict[tuple[Key, str], Fact] = {}  # this process's copy, with the details
_synced_at = -1.0


def _redis() -> redis.Redis:
    return sync_redis(timeout=0.5)


def _field(key: Key, fact: str) -> str:
    return json.dumps([*key, fact], ensure_ascii=False)


def _publish_locked() -> None:
    """The copy the streams read (profiles) from this module's copy; with _lock held."""
    facts: dict[Key, set[str]] = {}
    for key, fact in _facts:
        facts.setdefault(key, set()).add(fact)
    profiles.replace_learned(facts)


def _read_all() -> dict[tuple[Key, str], Fact] | None:
    """Every fact in Redis that is not too old; None when Redis cannot be asked."""
    try:
        raw = _redis().hgetall(HELENA_KEY)
    except redis.RedisError:
        log.debug("learned facts unavailable in Redis; this process keeps its own", exc_info=True)
        return None
    now = time.time()
    out: dict[tuple[Key, str], Fact] = {}
    stale: list[bytes] = []
    for field, value in raw.items():
        try:
            provider, host, model, fact = json.loads(field)
            detail = json.loads(value)
            since = float(detail["since"])
        except (ValueError, TypeError, KeyError):
            stale.append(field)
            continue
        if now - since > MAX_AGE:
            stale.append(field)
            continue
        when, why = datetime.fromtimestamp(since, UTC), str(detail.get("why", ""))
        out[((provider, host, model), fact)] = Fact(provider, host, model, fact, when, why)
    if stale:
        with contextlib.suppress(redis.RedisError):
            _redis().hdel(HELENA_KEY, *stale)
    return out


def refresh(*, force: bool = False) -> None:
    """Re-read the shared facts when RECHECK has passed (or now, with force)."""
    global _synced_at
    now = time.monotonic()
    if not force and now - _synced_at < RECHECK:
        return
    shared = _read_all()
    with _lock:
        _synced_at = now
        if shared is None:  # Redis away: this process's own facts stay
            return
        _facts.clear()
        _facts.update(shared)
        _publish_locked()


async def arefresh() -> None:
    """refresh() from async code: the Redis round trip (when due) on a thread, not on the loop."""
    if time.monotonic() - _synced_at >= RECHECK:
        await asyncio.to_thread(refresh)


def learn(key: Key, fact: str, why: str) -> None:
    """Remember a fact about a model here and for every process (its opposite is dropped)."""
    now = time.time()
    entry = Fact(*key, fact=fact, since=datetime.fromtimestamp(now, UTC), why=why[:300])
    opposite = profiles.OPPOSITE.get(fact)
    with _lock:
        _facts[(key, fact)] = entry
        if opposite:
            _facts.pop((key, opposite), None)
        _publish_locked()
    log.info("learned about %s: %s (%s)", key, fact, why[:200])
    try:
        pipe = _redis().pipeline()
        value = json.dumps({"since": now, "why": entry.why}, ensure_ascii=False)
        pipe.hset(HELENA_KEY, _field(key, fact), value)
        if opposite:
            pipe.hdel(HELENA_KEY, _field(key, opposite))
        pipe.execute()
    except redis.RedisError:
        log.warning("learned fact about %s kept in this process only (Redis unavailable)", key, exc_info=True)


async def alearn(key: Key, fact: str, why: str) -> None:
    await asyncio.to_thread(learn, key, fact, why)


def learned_facts() -> list[Fact]:
    """Everything learned, newest first, as all processes share it (the admin's view)."""
    refresh(force=True)
    with _lock:
        return sorted(_facts.values(), key=lambda f: f.since, reverse=True)


def facts_of(key: Key) -> list[Fact]:
    """What was learned about one model (the admin's view of a tier)."""
    return [fact for fact in learned_facts() if fact.key == key]


def forget(*, provider: str | None = None, host: str | None = None, model: str | None = None,
           fact: str | None = None) -> int:
    """Forget what was learned (all of it, or what matches every given part), here and in every
    process (theirs within RECHECK); the next call of such a model tries again as if new, e.g.
    offers tools again. Returns how many facts were forgotten."""
    refresh(force=True)
    with _lock:
        gone = [(key, name) for key, name in _facts
                if (provider is None or key[0] == provider) and (host is None or key[1] == host)
                and (model is None or key[2] == model) and (fact is None or name == fact)]
        for item in gone:
            del _facts[item]
        _publish_locked()
    if gone:
        log.info("forgot %d learned facts (provider=%s host=%s model=%s fact=%s)", len(gone), provider, host,
                 model, fact)
        try:
            _redis().hdel(HELENA_KEY, *(_field(key, name) for key, name in gone))
        except redis.RedisError:
            log.warning("learned facts forgotten in this process only (Redis unavailable)", exc_info=True)
    return len(gone)


def forget_all() -> None:
    """Forget everything, everywhere (tests, also via profiles.forget_learned; router.clear_health_cache)."""
    global _synced_at
    with _lock:
        _facts.clear()
        _synced_at = -1.0
        _publish_locked()
    try:
        _redis().delete(HELENA_KEY)
    except redis.RedisError:
        log.debug("learned facts: Redis unavailable while forgetting", exc_info=True)


profiles.FORGET_HOOKS.append(forget_all)
