"""A runner loop's own database connection, for the statements every run makes on its way.

A run's statements went to a database thread (helena.infra.db): per statement a hop there and back
(asgiref's wrapping, a pooled connection borrowed and returned, the loop woken from another
thread), ~0.5–1 ms of CPU on a small machine, more than the statement. On a runner loop (daphne's
inline runner, a worker's runner: loops as long-lived as their process) the event rows, the model
on the run, the ledger row and the run's end go through the loop's own asynchronous psycopg
connection instead: no thread, no pool, one statement at a time (bench/capacity.py, docs/betrieb.md).
Two connections per loop: one for the event rows (every token waits for them) and one for the rest,
so a run's end, with its whole transcript, never holds up another run's tokens.

A statement is sent at most once: a connection the server ended while idle (restart, idle timeout,
terminated) has said so on its socket (its FATAL, or the close) and is replaced before anything is
sent on it (the check of config/postgres/base.py); a connection that breaks while a statement is on
its way raises, and the run treats that as the database's outage (helena/runs/execute.py) — sending
the ledger row or the end again could book a call twice. The event rows, stored fenced and in seq
order, are the exception: their statement is sent once more on a new connection.

Django's `connection` is touched here only for what needs no connection (quoting, value adapters).

Anywhere else (a short-lived loop, or a sync caller whose transaction must see the rows, as in
tests) the same statement runs on Django's connection through `db()`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import psycopg
from django.db import connection, connections

from config.postgres.base import quiet
from helena.infra.db import db, under_sync_caller
from helena.infra.loops import PerLoop, is_resident

Rows = list[tuple[Any, ...]]


class LoopConnection:
    """A runner loop's own connection (autocommit), opened on first use and again after it broke."""

    def __init__(self) -> None:
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()  # one statement at a time on the connection

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        params = connections["default"].get_connection_params()
        for sync_only in ("cursor_factory", "context"):
            params.pop(sync_only, None)
        conn = await psycopg.AsyncConnection.connect(**params, autocommit=True)
        await conn.execute("SET TIME ZONE 'UTC'")
        return conn

    async def fetch(self, sql: str, params: Sequence[Any], *, again: bool = False) -> Rows:
        """The statement's rows (none for a statement that returns nothing). `again`: sent once more
        on a new connection when the first broke on the way (only for a statement that may run twice)."""
        async with self._lock:
            for attempt in (1, 2):
                if self._conn is not None and not self._conn.closed and not quiet(self._conn):
                    broken, self._conn = self._conn, None  # the server ended it meanwhile (or it is busy)
                    await broken.close()
                if self._conn is None or self._conn.closed:
                    self._conn = await self._connect()
                try:
                    cursor = await self._conn.execute(sql, params)
                    return await cursor.fetchall() if cursor.description is not None else []
                except psycopg.OperationalError:
                    broken, self._conn = self._conn, None
                    await broken.close()
                    if attempt == 2 or not again:
                        raise
                except BaseException:
                    if self._conn.broken:  # e.g. cancelled mid-statement
                        broken, self._conn = self._conn, None
                        await broken.close()
                    raise
        raise AssertionError("unreachable")


_events: PerLoop[LoopConnection] = PerLoop(lambda _loop: LoopConnection())
_statements: PerLoop[LoopConnection] = PerLoop(lambda _loop: LoopConnection())


def on_runner_loop() -> bool:
    """Whether statements go through the loop's own connection here (see the module docstring)."""
    return is_resident() and not under_sync_caller()


async def fetch(sql: str, params: Sequence[Any]) -> Rows:
    """One statement of a run, where it costs least; its rows."""
    if on_runner_loop():
        return await _statements.get().fetch(sql, params)
    return await db(fetch_sync, sql, params)


def fetch_sync(sql: str, params: Sequence[Any]) -> Rows:
    """The same statement on Django's connection (the caller's transaction, if it has one)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description is not None else []


def events_connection() -> LoopConnection:
    """This runner loop's connection for the event rows (the event writer, with its own fallback)."""
    return _events.get()


def statements_connection() -> LoopConnection:
    """This runner loop's connection for the other statements of its runs (`fetch`)."""
    return _statements.get()
