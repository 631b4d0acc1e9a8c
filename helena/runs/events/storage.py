"""Storing run events: the hot path of every streamed token.

Every text delta of every run is a RunEvent row, stored before any client sees it. Through the ORM
on a database thread a batch cost ~0.8 ms of CPU (model instances, SQL compilation, the hop to the
thread and back) and, with 50 runs streaming, several ms of waiting for the GIL on each hop. On a
runner loop (daphne's inline runner, a worker's runner: long-lived loops) the rows go through the
loop's own asynchronous psycopg connection instead (helena/infra/loop_db.py), in one statement:
~0.2 ms of CPU and no thread hop (bench/stream_latency.py).

Anywhere else (a short-lived loop, a sync caller whose transaction must see the rows, as in tests)
the same statement runs on Django's connection on the event-storing database thread.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection

from helena.infra import loop_db
from helena.infra.db import db_streaming
from helena.models import AgentRun, RunEvent

log = logging.getLogger(__name__)

Row = tuple[Any, int, int, str, dict[str, Any]]  # run_id, attempt, seq, type, payload

# All rows of a batch in one statement, all or nothing; they share the statement's now(). The rows
# travel as one JSON document: one json.dumps instead of four arrays adapted element by element.
# Fenced (helena/runs/durable): a row is stored only while its run is still in the attempt that
# emitted it. A process that lost its run to another (taken over after its heartbeat lapsed) stores
# nothing more; FOR SHARE makes a takeover wait for a batch being stored, so the new owner's first
# seq comes after it.
_INSERT = (
    f"INSERT INTO {RunEvent._meta.db_table} (run_id, seq, type, payload, created_at) "
    "SELECT x.r, x.s, x.t, x.p, now() "
    "FROM jsonb_to_recordset(%s::jsonb) AS x(r uuid, a integer, s integer, t text, p jsonb) "
    f"JOIN {AgentRun._meta.db_table} AS run ON run.id = x.r AND run.attempt = x.a FOR SHARE OF run "
    "RETURNING run_id, created_at"
)


class Stored(NamedTuple):
    moment: datetime | None  # when the rows were stored (None: none were)
    runs: frozenset[str]  # the runs whose rows were stored; the others' attempt is over


def _params(rows: Sequence[Row]) -> tuple[str]:
    """The rows as one JSON array; payloads encoded as the model's JSONField encodes them."""
    document = [{"r": str(run_id), "a": attempt, "s": seq, "t": type_, "p": payload}
                for run_id, attempt, seq, type_, payload in rows]
    return (json.dumps(document, cls=DjangoJSONEncoder, ensure_ascii=False),)


def _stored(returned: list[tuple[Any, datetime]]) -> Stored:
    return Stored(moment=returned[0][1] if returned else None, runs=frozenset(str(r) for r, _ in returned))


def _insert_sync(rows: Sequence[Row]) -> Stored:
    with connection.cursor() as cursor:
        cursor.execute(_INSERT, _params(rows))
        return _stored(cursor.fetchall())


async def insert_events(rows: Sequence[Row]) -> Stored:
    """Insert the rows in one statement (all or nothing); when, and whose were stored."""
    if loop_db.on_runner_loop():
        return _stored(await loop_db.events_connection().fetch(_INSERT, _params(rows), again=True))
    return await db_streaming(_insert_sync, rows)
