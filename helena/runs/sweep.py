"""The sweep, the last net under durable runs: a run whose deadline passed while queued or running
(no process took it over in time — none left, or it kept dying) is failed with an error and a done
event, so no client waits forever. A run whose process died is normally taken over long before
(helena/runs/durable/watch.py), and a takeover moves the deadline on by the time the run has left."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from helena.agent.events import done_fields
from helena.infra.errorlog import record_error
from helena.models import AgentRun, RunEvent
from helena.runs.events.broadcast import publish_sync
from helena.runs.events.writer import persist_event
from helena.runs.outcome import record_outcome, result_from_done

log = logging.getLogger(__name__)


MESSAGE = ("Die Bearbeitung wurde unterbrochen (der ausführende Prozess ist ausgefallen). "
           "Bitte frag noch einmal.")


def sweep_stale_runs() -> int:
    """Fail runs whose deadline passed while still queued/running (a worker died, a process
    restarted, no one took them over): they get an error and a done event, so no client waits
    forever. A run that had stored its `done` gets that end recorded instead."""
    stale = list(
        AgentRun.objects.filter(
            status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING], deadline__lt=timezone.now()
        ).values_list("pk", "conversation_id", "user_id")
    )
    swept = 0
    for run_pk, conversation_id, user_id in stale:
        swept += _sweep(run_pk=run_pk, conversation_id=conversation_id, user_id=user_id)
    return swept


def _sweep(*, run_pk: Any, conversation_id: int, user_id: int) -> int:
    with transaction.atomic():
        # Checked again under the lock: a takeover may just have moved the deadline on.
        locked = (AgentRun.objects.select_for_update()
                  .filter(pk=run_pk, status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING],
                          deadline__lt=timezone.now()).first())
        if locked is None:
            return 0
        done = RunEvent.objects.filter(run_id=run_pk, type="done").values_list("payload", flat=True).first()
        # A new attempt: a process still at work on it stores nothing more (fenced).
        AgentRun.objects.filter(pk=run_pk).update(attempt=F("attempt") + 1, owner="", heartbeat_at=None)
        attempt = locked.attempt + 1
    if done is not None:
        record_outcome(run_pk=run_pk, attempt=attempt, result=result_from_done(done, messages=[]))
        return 1
    with transaction.atomic():
        AgentRun.objects.filter(pk=run_pk, attempt=attempt).update(
            status=AgentRun.Status.FAILED, finish_reason="error", text=MESSAGE, ended_at=timezone.now(),
            checkpoint={})
    record_error(kind="run", code="run_lost", message=MESSAGE, run_id=run_pk, user_id=user_id)
    stored = [persist_event(run_id=run_pk, type=type_, payload=payload) for type_, payload in (
        ("error", {"code": "run_lost", "message": MESSAGE}),
        ("done", done_fields(finish_reason="error", text=MESSAGE)),
    )]
    try:
        publish_sync([(conversation_id, stored)])
    except Exception:  # the clients' catch-up reads the stored events
        log.exception("broadcast of the sweep failed")
    return 1
