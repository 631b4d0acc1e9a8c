"""One object per asyncio event loop, for state that must not cross loops (tasks, clients, locks).

Runs execute on long-lived loops (daphne's inline runner, a worker's runner) but also on short ones
(asyncio.run, async_to_sync in tests and the sweep); a per-loop registry keyed weakly lets each
loop's state go with its loop.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


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
