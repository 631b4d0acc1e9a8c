"""One object per asyncio event loop, for state that must not cross loops (tasks, clients, locks).

Runs execute on long-lived loops (daphne's inline runner, a worker's runner) but also on short ones
(asyncio.run, async_to_sync in tests and the sweep); a per-loop registry keyed weakly lets each
loop's state go with its loop.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

try:
    import uvloop
except ImportError:  # no build for Windows (requirements.txt)
    uvloop = None

T = TypeVar("T")


def uvloop_wanted() -> bool:
    """Whether long-lived loops run on uvloop: on unless HELENA_UVLOOP=0, and where it is installed
    (it is pinned for Linux and macOS; Windows has none)."""
    off = os.environ.get("HELENA_UVLOOP", "1").strip().lower() in {"0", "false", "no", "off"}
    return uvloop is not None and not off


def new_loop() -> asyncio.AbstractEventLoop:
    """A loop for a whole process's life (the runner's, daphne's): uvloop's where wanted, which does
    what asyncio's selector loop does in C – selecting, waking, scheduling callbacks, the sockets of
    the model client, Redis and PostgreSQL. asyncio's own machinery was ~30 % of the runner loop's
    CPU per run (py-spy, docs/betrieb.md, Issue 39)."""
    if uvloop_wanted():
        return uvloop.new_event_loop()
    return asyncio.new_event_loop()


class PerLoop(Generic[T]):
    """`get()` returns this loop's T, made by `factory(loop)` on first use."""

    def __init__(self, factory: Callable[[asyncio.AbstractEventLoop], T]) -> None:
        self._factory = factory
        self._items: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = weakref.WeakKeyDictionary()

    def get(self) -> T:
        loop = asyncio.get_running_loop()
        item = self._items.get(loop)
        if item is None:
            item = self._items[loop] = self._factory(loop)
        return item


# Loops that live as long as their process (the inline runner's, a worker's runner): state that is
# costly to set up (a database connection of their own) is kept only on these.
_resident: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def make_resident(loop: asyncio.AbstractEventLoop) -> None:
    _resident.add(loop)


def is_resident() -> bool:
    """True on a loop that lives as long as the process (see make_resident)."""
    return asyncio.get_running_loop() in _resident
