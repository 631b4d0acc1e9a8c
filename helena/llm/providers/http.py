"""HTTP plumbing of the model providers: one SSL context per process, kept clients per event loop.

A client per model call cost a new connection for every call and, for the openai client and the
health check, a new SSL context (~18–30 ms of CPU each): with many runs at once a good part of the
machinery's CPU (bench/agent_overhead.py). The router builds a model per run, so a client per model
instance serves the calls of one run over one kept-alive connection. It is not shared between
concurrent runs: one httpx pool serving a hundred concurrent streams spends more CPU on its own
bookkeeping than separate connections cost. Building a client and connecting anew for every run
still cost ~1.5 ms of a run start's CPU, so a run's client comes from a small free-list per event
loop and server (ClientPool) and goes back to it when the run ends, its connection still open: the
next run reuses both, on the loops that live as long as the process (helena/infra/loops.py); a
short-lived loop's (async_to_sync, asyncio.run) client is closed as before. A client belongs to the
event loop it was made on.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from helena.infra.loops import is_resident

log = logging.getLogger(__name__)

C = TypeVar("C")
IDLE_PER_KEY = 8  # idle clients kept per loop and server: more concurrent runs make (and close) their own


@functools.cache
def ssl_context() -> ssl.SSLContext:
    """One default SSL context per process: building one costs ~18 ms of CPU."""
    return ssl.create_default_context()


async def _close(client: Any) -> None:
    try:
        closing: Any = client.close()
        if asyncio.iscoroutine(closing):
            await closing
    except Exception:  # a client that cannot close cleanly must not fail the run
        log.debug("closing %r failed", client, exc_info=True)


class ClientPool:
    """Idle clients per resident event loop and key (server, timeout …): a run takes one, gives it back
    at its end. A client is never handed to two runs at once (one client per concurrent stream).
    """

    def __init__(self, idle_per_key: int = IDLE_PER_KEY) -> None:
        self.idle_per_key = idle_per_key
        self._idle: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Hashable, list[Any]]] = (
            weakref.WeakKeyDictionary())

    def take(self, key: Hashable) -> Any | None:
        """An idle client for `key` on the running loop, or None."""
        if not self._idle:
            return None
        idle = self._idle.get(asyncio.get_running_loop(), {}).get(key)
        return idle.pop() if idle else None

    async def give_back(self, key: Hashable, client: Any) -> None:
        """Keep a client for the next run on this loop (close it when enough are idle already, or
        when the loop does not live as long as the process)."""
        if not is_resident():
            await _close(client)
            return
        idle = self._idle.setdefault(asyncio.get_running_loop(), {}).setdefault(key, [])
        if len(idle) < self.idle_per_key:
            idle.append(client)
        else:
            await _close(client)

    def clear(self) -> None:
        """Forget the idle clients (tests; they close with their loop)."""
        self._idle.clear()


POOL = ClientPool()


class LoopClient(Generic[C]):
    """A client made (or taken from POOL, with a `key`) on first use and reused on the same event loop.

    Used from another loop (a caller that runs each call in its own asyncio.run), it makes a new
    client; the earlier one belongs to a loop that no longer runs and is left to the garbage
    collector, as closing it would need that loop.
    """

    def __init__(self, make: Callable[[], C], *, key: Hashable | None = None) -> None:
        self._make = make
        self._key = key
        self._client: C | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> C:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            kept = POOL.take(self._key) if self._key is not None else None
            self._client, self._loop = (kept if kept is not None else self._make()), loop
        return self._client

    async def aclose(self) -> None:
        """Give the client back to POOL (with a key) or close it, if it was made on the running loop."""
        client, loop = self._client, self._loop
        self._client = self._loop = None
        if client is None or loop is not asyncio.get_running_loop():
            return
        if self._key is not None:
            await POOL.give_back(self._key, client)
        else:
            await _close(client)


async def aclose_model(model: Any) -> None:
    """Close a model's HTTP client, if it has one (wrappers and scripted models have none)."""
    aclose = getattr(type(model), "aclose", None)
    if aclose is not None:
        await aclose(model)
