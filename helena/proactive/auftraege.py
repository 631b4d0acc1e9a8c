"""Aufträge an Helena (HelenaTask): who may give one, the start (from the API, the Akte page or a
Notiz beginning with „@Helena“) as a background run in the requester's name, and the end: when
its run has ended, the task takes the run's outcome and the requester gets a Hinweis with the
result (and how many drafts wait for them).

The end is taken where a run ends (helena.runs.ending calls `auftraege_abschliessen`, registered in
HelenaConfig.ready, since runs know nothing above them) and by a beat task every minute, which
also catches the ends that happen elsewhere (a cancel while queued, the sweep of a lost run).
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.utils import timezone

from akten.models import Alert, User
from akten.selectors import get_akte
from drafts.models import Draft
from drafts.roles import kinds_decidable_by
from helena.conversations.services import RunRefused, create_conversation, start_run
from helena.llm.base import ModelUnavailable
from helena.llm.router import check_reachable, is_cloud_allowed
from helena.models import (
    AgentRun,
    HelenaTask,
    RunEvent,
)

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


def auftraege_abschliessen(*, run_pk: Any = None) -> int:
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


HELENA_MENTION = "@helena"


AUFTRAG_VERBOTEN = "Deine Rolle darf Helena keine Aufträge geben; frag sie im Chat."


def darf_auftraege_geben(user: User) -> bool:
    """A task is Helena working in the requester's name, and her work ends in drafts: who may make
    none (the Praktikant reads) gives her none; asking her in the chat stays open to everyone."""
    return bool(kinds_decidable_by(user))


def auftrag_geben(*, user: User, auftrag: Any, akte_id: Any = None,
               quelle: str = HelenaTask.Quelle.API) -> HelenaTask:
    """A task for Helena: a background run in the requester's name, in a conversation of its own
    (bound to the Akte if given, which the user must see); its end brings a Hinweis
    (helena/proactive/auftraege.py)."""
    if not darf_auftraege_geben(user):
        raise RunRefused(code="forbidden", status=403, message=AUFTRAG_VERBOTEN)
    text = " ".join(auftrag.split()) if isinstance(auftrag, str) else ""
    if not text:
        raise RunRefused(code="invalid_message", message="Bitte beschreibe den Auftrag an Helena.")
    if akte_id not in (None, ""):
        get_akte(user=user, akte_id=akte_id)  # a foreign Akte is a 404 before the model is asked
    try:  # known now (the health check's answer), said now: not a Hinweis of failure a minute later
        async_to_sync(check_reachable)(cloud_allowed=is_cloud_allowed())
    except ModelUnavailable as exc:
        raise RunRefused(code=exc.code, message=f"{exc} Dein Auftrag wurde nicht angenommen.",
                         status=503) from None
    with transaction.atomic():  # the run starts after the commit, when its task exists
        conversation = create_conversation(user=user, akte_id=akte_id)
        conversation.title = f"Auftrag: {text}"[:200]
        conversation.save(update_fields=["title"])
        run = start_run(user=user, conversation=conversation, text=text, mode="background")
        return HelenaTask.objects.create(auftrag=text, akte=conversation.akte, requested_by=user,
                                         quelle=quelle, run=run)


def auftrag_aus_notiz(*, notiz: Any) -> HelenaTask | None:
    """A Notiz that begins with „@Helena“ is a task for her, from its author, in its Akte."""
    inhalt = (notiz.inhalt or "").strip()
    if not inhalt.casefold().startswith(HELENA_MENTION) or notiz.verfasst_von is None:
        return None
    return auftrag_geben(user=notiz.verfasst_von, auftrag=inhalt[len(HELENA_MENTION):].lstrip(" :,-"),
                      akte_id=notiz.akte_id, quelle=HelenaTask.Quelle.NOTIZ)
