"""The end of a run, recorded once: status, answer, totals, transcript and the answer as a message —
by the attempt that owns the run (a process that lost it records nothing)."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce, NullIf
from django.utils import timezone

from helena.agent.loop import AgentResult
from helena.llm.base import Usage
from helena.models import AgentRun, LLMCall, Message
from helena.runs.ending import run_ended

log = logging.getLogger(__name__)

ACTIVE = (AgentRun.Status.QUEUED, AgentRun.Status.RUNNING)


def result_from_done(done: dict[str, Any], *, messages: list[dict[str, Any]]) -> AgentResult:
    """A run's result as its stored `done` says (the process died before it recorded it)."""
    text = str(done.get("text") or "")
    usage = done.get("usage") or {}
    final = [{"role": "assistant", "content": text}] if text and messages else []
    return AgentResult(finish_reason=str(done.get("finish_reason") or "stop"), text=text,
                       usage=Usage(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                                   completion_tokens=int(usage.get("completion_tokens") or 0)),
                       steps=0, messages=[*messages, *final])


def record_outcome(*, run_pk: Any, result: Any, attempt: int | None = None,
                   known: tuple[int, str] | None = None) -> None:
    """The run's end: status, answer, totals and the answer as a message — once, and only by the
    attempt that owns the run (a process that lost it records nothing). `known`: the run's
    (conversation id, mode), if the caller has them (else read).

    One UPDATE decides it (still active, still this attempt) and sums the run's ledger rows in the
    same statement; it replaced reading the row (checkpoint and all) under a lock, a separate sum
    and a save of every column (bench/capacity.py: a run start's end cost 7 statements, now 4).
    """
    status = {"cancelled": AgentRun.Status.CANCELLED, "error": AgentRun.Status.FAILED}.get(
        result.finish_reason, AgentRun.Status.FINISHED
    )
    calls = LLMCall.objects.filter(run_id=OuterRef("pk")).order_by().values("run_id")

    def total(field: str, fallback: Any) -> Any:
        summed = Subquery(calls.annotate(total=Sum(field)).values("total"))
        return Coalesce(NullIf(summed, Value(0)), Value(fallback)) if fallback is not None \
            else Coalesce(summed, Value(Decimal("0")))

    if known is None:
        known = AgentRun.objects.filter(pk=run_pk).values_list("conversation_id", "mode").first()
        if known is None:
            return
    conversation_id, mode = known
    runs = AgentRun.objects.filter(pk=run_pk)
    if attempt is not None:
        runs = runs.filter(attempt=attempt, status__in=ACTIVE)
    with transaction.atomic():
        updated = runs.update(
            status=status, finish_reason=result.finish_reason, text=result.text,
            prompt_tokens=total("prompt_tokens", result.usage.prompt_tokens),
            completion_tokens=total("completion_tokens", result.usage.completion_tokens),
            cost=total("cost", None), transcript=result.messages, ended_at=timezone.now(),
            owner="", heartbeat_at=None,
            checkpoint={},  # the transcript holds it all now; a run that ended goes on nowhere
        )
        if not updated:
            log.warning("run %s: attempt %s is over, its outcome is not recorded", run_pk, attempt)
            return
        if result.text:
            Message.objects.create(conversation_id=conversation_id, role=Message.Role.ASSISTANT,
                                   text=result.text, run_id=run_pk)
    if mode == AgentRun.Mode.BACKGROUND:  # a task's run is one (auftraege.auftrag_geben); inline runs
        run_ended(run_pk=run_pk)  # save the query: a task given to Helena ends with its run
