"""The end of a run, recorded once: status, answer, totals, transcript and the answer as a message —
by the attempt that owns the run (a process that lost it records nothing)."""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from helena.agent.loop import AgentResult
from helena.infra import loop_db
from helena.infra.db import db
from helena.infra.rows import Insert
from helena.llm.base import Usage
from helena.models import AgentRun, LLMCall, Message
from helena.runs.ending import run_ended

log = logging.getLogger(__name__)
_MESSAGE = Insert(Message)  # the answer, written at the end of every run


def result_from_done(done: dict[str, Any], *, messages: list[dict[str, Any]]) -> AgentResult:
    """A run's result as its stored `done` says (the process died before it recorded it)."""
    text = str(done.get("text") or "")
    usage = done.get("usage") or {}
    final = [{"role": "assistant", "content": text}] if text and messages else []
    return AgentResult(finish_reason=str(done.get("finish_reason") or "stop"), text=text,
                       usage=Usage(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                                   completion_tokens=int(usage.get("completion_tokens") or 0)),
                       steps=0, messages=[*messages, *final])


_END = """
    UPDATE {runs} AS run SET
        status = %s, finish_reason = %s, text = %s, transcript = %s,
        prompt_tokens = COALESCE(NULLIF(calls.p, 0), %s),
        completion_tokens = COALESCE(NULLIF(calls.c, 0), %s),
        cost = COALESCE(calls.cost, 0), ended_at = %s, owner = '', heartbeat_at = NULL,
        checkpoint = '{{}}'::jsonb
    FROM (SELECT SUM(prompt_tokens) AS p, SUM(completion_tokens) AS c, SUM(cost) AS cost
          FROM {calls} WHERE run_id = %s) AS calls
    WHERE run.id = %s {fence}
    RETURNING run.conversation_id, run.mode
"""
_FENCE = "AND run.attempt = %s AND run.status IN ('queued', 'running')"
_END_FENCED, _END_ANY = (_END.format(runs=AgentRun._meta.db_table, calls=LLMCall._meta.db_table, fence=fence)
                         for fence in (_FENCE, ""))


def record_outcome(*, run_pk: Any, result: Any, attempt: int | None = None) -> None:
    """The run's end: status, answer, totals and the answer as a message — once, and only by the
    attempt that owns the run (a process that lost it records nothing).

    One statement decides it (still active, still this attempt), sums the run's ledger rows, and
    writes the answer as a message into the conversation the UPDATE names; it replaced reading the
    whole row (checkpoint and all) under a lock, a separate sum, a save of every column and the
    message's own INSERT (bench/capacity.py: a run's end cost 7 statements, then 4 in a
    transaction, now 1). Plain SQL: it runs at the end of every run, and the ORM's compiling cost
    more than the statement.
    """
    sql, params, answer_by_orm = _statement(run_pk=run_pk, result=result, attempt=attempt)
    # One statement is a transaction of its own; with the ORM's INSERT after it, both in one.
    with transaction.atomic() if answer_by_orm else contextlib.nullcontext():
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is not None and answer_by_orm:  # save signals: the ORM writes the answer
            _MESSAGE.create(conversation_id=row[0], role=Message.Role.ASSISTANT, text=result.text,
                            run_id=run_pk)
    if _ended(row, run_pk=run_pk, attempt=attempt):
        run_ended(run_pk=run_pk)


async def arecord_outcome(*, run_pk: Any, result: Any, attempt: int | None = None) -> None:
    """record_outcome from a run's loop: the one statement on the runner loop's own connection
    (helena/infra/loop_db.py), no hop to a database thread; through the ORM where it must be."""
    sql, params, answer_by_orm = _statement(run_pk=run_pk, result=result, attempt=attempt)
    if answer_by_orm:  # rare (a receiver of Message's save signals): the ORM's way, on a database thread
        await db(record_outcome, run_pk=run_pk, result=result, attempt=attempt)
        return
    rows = await loop_db.fetch(sql, params)
    if _ended(rows[0] if rows else None, run_pk=run_pk, attempt=attempt):
        await db(run_ended, run_pk=run_pk)


def _statement(*, run_pk: Any, result: Any, attempt: int | None) -> tuple[str, list[Any], bool]:
    """The end's statement, its parameters, and whether the answer must be saved through the ORM
    after it (a receiver of Message's save signals is connected)."""
    status = {"cancelled": AgentRun.Status.CANCELLED, "error": AgentRun.Status.FAILED}.get(
        result.finish_reason, AgentRun.Status.FINISHED
    )
    now = timezone.now()
    params: list[Any] = [str(status), result.finish_reason, result.text, Jsonb(result.messages, dumps=_dumps),
                         result.usage.prompt_tokens, result.usage.completion_tokens, now, run_pk, run_pk]
    sql = _END_FENCED if attempt is not None else _END_ANY
    if attempt is not None:
        params.append(attempt)
    plain = _MESSAGE.plain  # asked once: a receiver connected meanwhile must not write it twice
    if result.text and plain:
        _, answer_sql, answer_params = _MESSAGE.select_into(
            "run", taken={"conversation_id": "run.conversation_id"}, role=Message.Role.ASSISTANT,
            text=result.text, run_id=run_pk)
        sql, params = (f"WITH run AS ({sql}), answer AS ({answer_sql}) SELECT conversation_id, mode FROM run",
                       [*params, *answer_params])
    return sql, params, bool(result.text) and not plain


def _ended(row: Any, *, run_pk: Any, attempt: int | None) -> bool:
    """Whether the run's end needs `run_ended` (a task's run: auftraege.auftrag_geben; inline runs
    save the query), after saying so when the attempt was over and nothing was recorded."""
    if row is None:
        log.warning("run %s: attempt %s is over, its outcome is not recorded", run_pk, attempt)
        return False
    return row[1] == AgentRun.Mode.BACKGROUND


def _dumps(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder)  # as the transcript field itself encodes
