"""Database work of agent runs on a small pool of threads, not on asgiref's one shared thread.

`sync_to_async(thread_sensitive=True)` outside a request sends every call of the whole process to
one thread: with many runs at once, every event insert, ledger row and settings read of every run
queued behind all the others (bench/agent_overhead.py). Run code awaits `db(fn, ...)` instead,
which runs `fn` on one of HELENA_DB_THREADS threads. A thread gives its connection back to the
pool after each call (a pooled connection is borrowed per call, not per thread), so the threads
hold no connection while idle.

Under async_to_sync (a sync caller such as a test or a request waiting for the result) the call
stays on the caller's thread, as thread_sensitive=True does: it may need the caller's transaction.

Code that is not ours (the tools, Django's async ORM) calls sync_to_async with thread_sensitive=True;
`run_context()` gives each run one of HELENA_DB_THREADS single threads for those calls, taken in
turn, so runs no longer queue behind each other on asgiref's one thread while each run's calls still
share a thread, as thread-sensitive code expects.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import AsyncToSync, SyncToAsync, ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.db import connections

P = ParamSpec("P")
R = TypeVar("R")

_executor: ThreadPoolExecutor | None = None
_singles: list[ThreadPoolExecutor] = []
_executor_lock = threading.Lock()
_turn = itertools.count()


def _threads() -> int:
    return max(1, int(getattr(settings, "HELENA_DB_THREADS", 8)))


def _pool() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=_threads(), thread_name_prefix="helena-db")
        return _executor


def _single() -> ThreadPoolExecutor:
    """The next of the single-thread executors for runs' thread-sensitive calls, in turn."""
    with _executor_lock:
        if not _singles:
            _singles.extend(ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"helena-run-{i}")
                            for i in range(_threads()))
        return _singles[next(_turn) % len(_singles)]


class _RunContext(ThreadSensitiveContext):
    """Marks a run's own thread-sensitive context, so db() still uses its pool inside it."""


def release_connections() -> None:
    """Give this thread's connections back: to the pool if there is one, else keep them unless broken.

    Without a pool, closing would mean a new connection (~5 ms) for the next call, so a healthy
    connection stays with its thread; one that saw an error is dropped, so the next call reconnects.
    """
    for conn in connections.all(initialized_only=True):
        # With DEBUG, Django keeps the last 9,000 queries per connection and forgets them when a
        # request starts; these threads serve no requests, so each call counts as one.
        conn.queries_log.clear()
        if conn.in_atomic_block or conn.connection is None:
            continue
        if conn.settings_dict.get("OPTIONS", {}).get("pool"):
            conn.close()
        elif conn.errors_occurred:
            conn.close_if_unusable_or_obsolete()


def _call(fn: Callable[..., R], args: tuple[Any, ...], kwargs: dict[str, Any]) -> R:
    try:
        return fn(*args, **kwargs)
    finally:
        release_connections()


def under_sync_caller() -> bool:
    """True when a sync thread waits for this coroutine (async_to_sync) or a request context is set."""
    if getattr(AsyncToSync.executors, "current", None) is not None:
        return True
    context = SyncToAsync.thread_sensitive_context.get(None)
    return context is not None and not isinstance(context, _RunContext)


_streaming: ThreadPoolExecutor | None = None


def _streaming_thread() -> ThreadPoolExecutor:
    global _streaming
    with _executor_lock:
        if _streaming is None:
            _streaming = ThreadPoolExecutor(max_workers=1, thread_name_prefix="helena-db-events")
        return _streaming


async def db(fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """Run the sync (ORM) function `fn` off the event loop and return its result."""
    if under_sync_caller():
        return await sync_to_async(fn)(*args, **kwargs)
    return await sync_to_async(_call, thread_sensitive=False, executor=_pool())(fn, args, kwargs)


async def db_streaming(fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """db() on a thread of its own, for storing the events that clients wait for: on the shared
    threads they queued behind the start-up queries of every run starting at the same moment."""
    if under_sync_caller():
        return await sync_to_async(fn)(*args, **kwargs)
    return await sync_to_async(_call, thread_sensitive=False, executor=_streaming_thread())(fn, args, kwargs)


@asynccontextmanager
async def run_context() -> AsyncIterator[None]:
    """Thread-sensitive calls inside go to a single thread of their own instead of asgiref's one.

    Under a sync caller nothing changes (its thread, and transaction, stay in charge). At the end
    the thread gives its connection back, as the one the calls went to before did after each run.
    """
    if under_sync_caller():
        yield
        return
    async with _RunContext(executor=_single()):
        try:
            yield
        finally:
            await sync_to_async(release_connections)()
