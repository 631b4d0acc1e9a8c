"""The sweep, the last net under durable runs: a run whose deadline passed while queued or running
(no process took it over in time — none left, or it kept dying) is failed with an error and a done
event, so no client waits forever. A run whose process died is normally taken over long before
(helena/runs/durable/watch.py), and a takeover moves the deadline on by the time the run has left."""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from helena.agent.events import done_fields
from helena.infra.errorlog import record_error
from helena.models import AgentRun
from helena.runs.events.broadcast import publish_events_sync
from helena.runs.events.writer import persist_event

log = logging.getLogger(__name__)


def sweep_stale_runs() -> int:
    """Fail runs whose deadline passed while still queued/running (a worker died, a process
    restarted): they get an error and a done event, so no client waits forever."""
    stale = list(
        AgentRun.objects.filter(
            status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING], deadline__lt=timezone.now()
        )
    )
    message = (
        "Die Bearbeitung wurde unterbrochen (der ausführende Prozess ist ausgefallen). "
        "Bitte frag noch einmal."
    )
    for run in stale:
        with transaction.atomic():
            locked = (
                AgentRun.objects.select_for_update()
                .filter(pk=run.pk, status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING])
                .first()
            )
            if locked is None:
                continue
            locked.status = AgentRun.Status.FAILED
            locked.finish_reason = "error"
            locked.text = message
            locked.ended_at = timezone.now()
            locked.save()
        record_error(kind="run", code="run_lost", message=message, run_id=run.pk, user_id=run.user_id)
        stored = []
        for type_, payload in (
            ("error", {"code": "run_lost", "message": message}),
            ("done", done_fields(finish_reason="error", text=message)),
        ):
            stored.append(persist_event(run_id=run.pk, type=type_, payload=payload))
        try:
            publish_events_sync(conversation_id=run.conversation_id, events=stored)
        except Exception:  # the clients' catch-up reads the stored events
            log.exception("broadcast of the sweep failed")
    return len(stale)
