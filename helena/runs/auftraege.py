"""A task's end: when its run has ended, the task takes the run's outcome and the requester gets a
Hinweis with the result (and how many drafts wait for them).

Called where a run ends (execute, finish_without_loop) and by a beat task every minute, which
also catches the ends that happen elsewhere (a cancel while queued, the sweep of a lost run).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from akten.models import Alert
from drafts.models import Draft
from helena.models import AgentRun, HelenaTask, RunEvent

_ENDED = {AgentRun.Status.FINISHED: HelenaTask.Status.ERLEDIGT,
          AgentRun.Status.FAILED: HelenaTask.Status.FEHLGESCHLAGEN,
          AgentRun.Status.CANCELLED: HelenaTask.Status.ABGEBROCHEN}
RESULT_CHARS = 600


def _message(task: HelenaTask, status: str, entwuerfe: int) -> str:
    kurz = task.auftrag if len(task.auftrag) <= 80 else task.auftrag[:80].rsplit(" ", 1)[0] + " …"
    if status != HelenaTask.Status.ERLEDIGT:
        message = f"Dein Auftrag an Helena ist {HelenaTask.Status(status).label}: „{kurz}“."
        grund = _why_failed(task) if status == HelenaTask.Status.FEHLGESCHLAGEN else ""
        return f"{message} {grund}" if grund else message
    parts = [f"Helena hat deinen Auftrag erledigt: „{kurz}“."]
    if entwuerfe:
        parts.append(f"{entwuerfe} Entwurf wartet auf deine Freigabe." if entwuerfe == 1
                     else f"{entwuerfe} Entwürfe warten auf deine Freigabe.")
    result = " ".join((task.run.text or "").split())
    if result:
        parts.append("Ergebnis: " + (result if len(result) <= RESULT_CHARS else result[:RESULT_CHARS] + " …"))
    return " ".join(parts)


def _why_failed(task: HelenaTask) -> str:
    """The German reason the chat showed for the run's end (its last `error` event), so the Hinweis
    says why, not only that: "Kein Sprachmodell ist erreichbar …"."""
    payload = (RunEvent.objects.filter(run_id=task.run_id, type="error").order_by("-seq")
               .values_list("payload", flat=True).first())
    message = payload.get("message", "") if isinstance(payload, dict) else ""
    return " ".join(str(message).split())[:RESULT_CHARS]


def close_tasks(*, run_pk: Any = None) -> int:
    """Close every task whose run has ended (only that run's, if given); the number closed."""
    tasks = HelenaTask.objects.filter(status=HelenaTask.Status.LAEUFT, run__status__in=list(_ENDED))
    if run_pk is not None:
        tasks = tasks.filter(run_id=run_pk)
    closed = 0
    for task in tasks.select_related("run", "akte", "requested_by"):
        with transaction.atomic():
            locked = HelenaTask.objects.select_for_update().filter(pk=task.pk,
                                                                   status=HelenaTask.Status.LAEUFT)
            if not list(locked):
                continue  # closed meanwhile by the other caller
            status = _ENDED[task.run.status]
            entwuerfe = Draft.objects.filter(run_id=task.run_id, status=Draft.Status.PENDING).count()
            locked.update(status=status, result=task.run.text, beendet_am=timezone.now())
            Alert.objects.create(
                empfaenger=task.requested_by, akte=task.akte, art=Alert.Art.AUFGABE,
                severity=(Alert.Severity.INFO if status == HelenaTask.Status.ERLEDIGT
                          else Alert.Severity.WARNING),
                message=_message(task, status, entwuerfe))
        closed += 1
    return closed
