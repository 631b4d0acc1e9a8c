"""Checkpoints on the AgentRun row, the statements of heartbeat and takeover, and the state a run
resumes from (helena/agent/checkpoint.py holds what a checkpoint is).

Every statement that changes a run's ownership names the attempt or the owner it expects: a process
that lost its run (taken over while it could not say it was alive) changes nothing any more.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.db.models import F
from django.db.models.functions import Greatest, Now

from helena.agent.checkpoint import Checkpoint
from helena.models import AgentRun, RunEvent

_TABLE = AgentRun._meta.db_table
RUNNING = AgentRun.Status.RUNNING


def save(*, run_pk: Any, attempt: int, data: dict[str, Any], new_messages: list[Any] | None = None) -> bool:
    """Keep the checkpoint (and say the run is alive); False when the attempt is over. With
    `new_messages`, `data` holds everything but the messages, and only the new ones are added to those
    stored: a step writes what it added, not the whole run again."""
    if new_messages is None:
        return AgentRun.objects.filter(pk=run_pk, attempt=attempt, status=RUNNING).update(
            checkpoint=data, heartbeat_at=Now()) == 1
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_TABLE} SET heartbeat_at = now(), checkpoint = %s::jsonb || jsonb_build_object("
            "'messages', COALESCE(checkpoint->'messages', '[]'::jsonb) || %s::jsonb) "
            "WHERE id = %s AND attempt = %s AND status = %s",
            [_json(data), _json(new_messages), run_pk, attempt, RUNNING])
        return cursor.rowcount == 1


def _json(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


HANDED_OVER_WAITS = timedelta(minutes=15)  # a run handed over waits this long for a process to start


def release(*, run_pk: Any, attempt: int) -> bool:
    """Hand the run over: any other process may take it at once (this one is going away). When all
    are stopping (Ctrl-C, a deploy), the run waits for the first to start again — past its deadline,
    which otherwise lets the sweep end it first."""
    return AgentRun.objects.filter(pk=run_pk, attempt=attempt, status=RUNNING).update(
        owner="", heartbeat_at=None, deadline=Greatest(F("deadline"), Now() + HANDED_OVER_WAITS)) == 1


def retake(*, run_pk: Any, attempt: int, owner: str) -> int | None:
    """Go on with a run this process still owns after it lost its database for a while: a new
    attempt (the old one's events, should any still arrive, are refused). None: it is not ours."""
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {_TABLE} SET attempt = attempt + 1, heartbeat_at = now() "
                       "WHERE id = %s AND attempt = %s AND owner = %s AND status = %s RETURNING attempt",
                       [run_pk, attempt, owner, RUNNING])
        row = cursor.fetchone()
    return row[0] if row else None


def heartbeat(*, owner: str, runs: list[str]) -> set[str]:
    """Say that `runs` — those this process is running right now, no others: a run it owns but no
    longer runs (a failure left it) must lapse, so another process takes it — are alive; of them,
    those it has lost: taken over by another process or ended elsewhere (the sweep). A run this
    connection cannot see (not yet committed) is not lost."""
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {_TABLE} SET heartbeat_at = now() WHERE owner = %s AND status = %s "
                       "AND id = ANY(%s::uuid[]) RETURNING id", [owner, RUNNING, runs])
        owned = {str(row[0]) for row in cursor.fetchall()}
        others = [pk for pk in runs if pk not in owned]
        if not others:
            return set()
        cursor.execute(f"SELECT id FROM {_TABLE} WHERE id = ANY(%s::uuid[])", [others])
        return {str(row[0]) for row in cursor.fetchall()}


def take_over(*, owner: str, modes: list[str], lapse: float, late: float | None, limit: int,
              released: list[str]) -> list[tuple[str, int, str]]:
    """Claim up to `limit` runs whose process is gone — of `modes` after `lapse` seconds without a
    heartbeat, of any mode after `late` — or that were handed over (`released` modes): each one's
    next attempt is this owner's. (id, attempt, cause: "handover" or "crash") of each."""
    lapsed = "COALESCE(heartbeat_at, started_at, created_at)"
    late_clause = f"OR {lapsed} < now() - %(late)s * interval '1 second'" if late is not None else ""
    sql = (
        f"UPDATE {_TABLE} AS run SET attempt = run.attempt + 1, takeovers = run.takeovers + 1, "
        "owner = %(owner)s, heartbeat_at = now() "
        f"FROM (SELECT id, owner = '' AND heartbeat_at IS NULL AS released FROM {_TABLE} "
        "WHERE status = %(running)s AND ((owner = '' AND heartbeat_at IS NULL AND mode = ANY(%(released)s)) "
        f"OR (mode = ANY(%(modes)s) AND {lapsed} < now() - %(lapse)s * interval '1 second') {late_clause}) "
        f"ORDER BY {lapsed} LIMIT %(limit)s FOR UPDATE SKIP LOCKED) AS lapsed "
        "WHERE run.id = lapsed.id RETURNING run.id, run.attempt, lapsed.released"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, {"owner": owner, "running": RUNNING, "released": released, "modes": modes,
                             "lapse": lapse, "late": late, "limit": limit})
        return [(str(pk), attempt, "handover" if released_ else "crash")
                for pk, attempt, released_ in cursor.fetchall()]


@dataclass
class Resumption:
    """What a run taken over goes on from."""

    checkpoint: Checkpoint
    tier: int | None  # the model tier it ran on at the checkpoint (None: its first)
    shown: str  # the answer text the client shows as of the checkpoint
    done: dict[str, Any] | None  # the run had already ended: its stored `done` (only the outcome is missing)
    # No checkpoint, yet calls made (a run of a version without checkpoints): going on from the prompt
    # could make them twice, so the run ends instead.
    unsafe: bool = False


def resumption(run: AgentRun) -> Resumption:
    data = run.checkpoint or {}
    checkpoint = Checkpoint.from_dict(data) or Checkpoint(messages=[])
    seq = int(data.get("seq") or 0)
    shown = ""
    for type_, payload in (RunEvent.objects.filter(run=run, seq__lte=seq, type__in=("text", "resumed"))
                           .order_by("seq").values_list("type", "payload")):
        shown = str(payload.get("text", "")) if type_ == "resumed" else shown + str(payload.get("delta", ""))
    announced, reported, done = set(), set(), None
    for type_, payload in RunEvent.objects.filter(run=run, seq__gt=seq).values_list("type", "payload"):
        if type_ == "tool_call":
            announced.add(str(payload.get("call_id", "")))
        elif type_ == "tool_result":
            reported.add(str(payload.get("call_id", "")))
        elif type_ == "done":
            done = payload
    checkpoint.announced, checkpoint.reported = frozenset(announced), frozenset(reported)
    tier = data.get("tier")
    unsafe = not data and bool(announced)
    return Resumption(checkpoint=checkpoint, tier=int(tier) if tier else None, shown=shown, done=done,
                      unsafe=unsafe)
