"""HTTP plumbing of the model providers: one SSL context per process, one client per model instance.

A client per model call cost a new connection for every call and, for the openai client and the
health check, a new SSL context (~18–30 ms of CPU each): with many runs at once a good part of the
machinery's CPU (bench/agent_overhead.py). The router builds a model per run, so a client per model
instance serves the calls of one run over one kept-alive connection. It is not shared between runs:
one httpx pool serving a hundred concurrent streams spends more CPU on its own bookkeeping than
separate connections cost. A client belongs to the event loop it was made on; the run closes it
with aclose() when it ends.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
from collections.abc import Callable
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

C = TypeVar("C")


@functools.cache
def ssl_context() -> ssl.SSLContext:
    """One default SSL context per process: building one costs ~18 ms of CPU."""
    return ssl.create_default_context()


class LoopClient(Generic[C]):
    """A client made on first use and reused on the same event loop.

    Used from another loop (a caller that runs each call in its own asyncio.run), it makes a new
    client; the earlier one belongs to a loop that no longer runs and is left to the garbage
    collector, as closing it would need that loop.
    """

    def __init__(self, make: Callable[[], C]) -> None:
        self._make = make
        self._client: C | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> C:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = self._make(), loop
        return self._client

    async def aclose(self) -> None:
        """Close the client if it was made on the running loop (else there is nothing to await)."""
        client, loop = self._client, self._loop
        self._client = self._loop = None
        if client is None or loop is not asyncio.get_running_loop():
            return
        try:
            closing: Any = client.close()  # type: ignore[attr-defined]
            if asyncio.iscoroutine(closing):
                await closing
        except Exception:  # a client that cannot close cleanly must not fail the run
            log.debug("closing %r failed", client, exc_info=True)


async def aclose_model(model: Any) -> None:
    """Close a model's HTTP client, if it has one (wrappers and scripted models have none)."""
    aclose = getattr(type(model), "aclose", None)
    if aclose is not None:
        await aclose(model)
