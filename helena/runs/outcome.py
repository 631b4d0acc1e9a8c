"""The end of a run, recorded once: status, answer, totals, transcript and the answer as a message —
by the attempt that owns the run (a process that lost it records nothing)."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from helena.agent.loop import AgentResult
from helena.llm.base import Usage
from helena.models import AgentRun, LLMCall, Message
from helena.runs.ending import run_ended

log = logging.getLogger(__name__)


def result_from_done(done: dict[str, Any], *, messages: list[dict[str, Any]]) -> AgentResult:
    """A run's result as its stored `done` says (the process died before it recorded it)."""
    text = str(done.get("text") or "")
    usage = done.get("usage") or {}
    final = [{"role": "assistant", "content": text}] if text and messages else []
    return AgentResult(finish_reason=str(done.get("finish_reason") or "stop"), text=text,
                       usage=Usage(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                                   completion_tokens=int(usage.get("completion_tokens") or 0)),
                       steps=0, messages=[*messages, *final])


def record_outcome(*, run_pk: Any, result: Any, attempt: int | None = None) -> None:
    """The run's end: status, answer, totals and the answer as a message — once, and only by the
    attempt that owns the run (a process that lost it records nothing)."""
    status = {"cancelled": AgentRun.Status.CANCELLED, "error": AgentRun.Status.FAILED}.get(
        result.finish_reason, AgentRun.Status.FINISHED
    )
    totals = LLMCall.objects.filter(run_id=run_pk).aggregate(
        p=Sum("prompt_tokens"), c=Sum("completion_tokens"), cost=Sum("cost")
    )
    with transaction.atomic():
        run = AgentRun.objects.select_for_update().get(pk=run_pk)
        if attempt is not None and (run.attempt != attempt or not run.active):
            log.warning("run %s: attempt %s is over, its outcome is not recorded", run_pk, attempt)
            return
        run.status = status
        run.finish_reason = result.finish_reason
        run.text = result.text
        run.prompt_tokens = totals["p"] or result.usage.prompt_tokens
        run.completion_tokens = totals["c"] or result.usage.completion_tokens
        run.cost = totals["cost"] or Decimal("0")
        run.transcript = result.messages
        run.ended_at = timezone.now()
        run.owner, run.heartbeat_at = "", None
        run.checkpoint = {}  # the transcript holds it all now; a run that ended goes on nowhere
        run.save()
        if result.text:
            Message.objects.create(
                conversation_id=run.conversation_id, role=Message.Role.ASSISTANT, text=result.text, run=run
            )
    if run.mode == AgentRun.Mode.BACKGROUND:  # a task's run is one (auftraege.auftrag_geben); inline runs
        run_ended(run_pk=run_pk)  # save the query: a task given to Helena ends with its run
