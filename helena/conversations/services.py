"""Writes of Helena's own records: conversations, runs and the questions that pause them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.db.models import Case, F, Value, When
from django.utils import timezone

from akten.models import User
from akten.selectors import get_akte
from config.celery import app
from config.errors import DomainError
from helena.agent.classifier import classify
from helena.agent.prompts import CONTEXT_MIN_TIER
from helena.conversations import questions, selectors
from helena.conversations.classification import classify_with_tier1
from helena.conversations.title import propose_title
from helena.infra.rows import Insert
from helena.llm.router import is_cloud_allowed, task_routes
from helena.models import AgentRun, Conversation, HelenaSettings, Message, PendingQuestion
from helena.runs.dispatch import dispatch
from helena.runs.events.emitter import finish_without_loop
from helena.runs.rate_limit import AdmissionBusy, Gated, RateLimited, admission, admit, admit_and_write
from helena.runs.step_limits import deadline_for

# --- conversations and runs ------------------------------------------------------------------

MAX_MESSAGE_CHARS = 20_000


class RunRefused(DomainError):
    """A request we do not start a run for; `code` and German `message` for the client."""

    def __init__(self, *, code: str, message: str, status: int = 422, retry_at: Any = None) -> None:
        super().__init__(message, code=code, status=status,
                         retry_at=retry_at.isoformat() if retry_at is not None else None)
        self.retry_at = retry_at


def _refused_by_limit(exc: Any) -> RunRefused:
    return RunRefused(code="rate_limited", message=exc.message, status=429, retry_at=exc.retry_at)


@contextmanager
def _admitted(user: User) -> Iterator[None]:
    """The one admission of every new run (a message, a continuation, an answer to a question):
    queue per user, then the exact count inside the transaction that creates the run; refused as
    RunRefused (429 with retry_at; 503 while the user's queue is full). The body runs inside it."""
    try:
        with admission(user), transaction.atomic():
            admit(user=user)
            yield
    except RateLimited as exc:
        raise _refused_by_limit(exc) from None
    except AdmissionBusy as exc:
        raise RunRefused(code=exc.code, message=exc.message, status=503) from None


def create_conversation(*, user: User, akte_id: Any = None, context_type: str | None = None) -> Conversation:
    """A new conversation; bound to an Akte only if the user may see it (else NotFound)."""
    akte = get_akte(user=user, akte_id=akte_id) if akte_id not in (None, "") else None
    kind = context_type or (Conversation.ContextType.AKTE if akte else Conversation.ContextType.GLOBAL)
    if kind not in Conversation.ContextType.values:
        raise RunRefused(code="invalid_message", message=f"Unbekannter Kontext „{kind}“.")
    # No title yet: Helena proposes one after the first answer (helena/conversations/title.py); the list
    # shows the Akte beside it anyway.
    return Conversation.objects.create(user=user, akte=akte, context_type=kind)


MODES = ("auto", "inline", "background")
_MESSAGE, _RUN = Insert(Message), Insert(AgentRun)  # written by every message: the INSERT built once
# Each message expires at most one stale question of its conversation before it is admitted (normally
# there is none, or one); past this many it is refused (409) instead of going round for ever.
MAX_STALE_QUESTIONS = 10


def _checked_message(text: Any, mode: Any) -> str:
    """The message as every edge (socket, API) gets it checked: a text, not too long, a known mode.
    A blank text is a message (Helena asks back), a missing one is not."""
    if not isinstance(text, str):
        raise RunRefused(code="invalid_message", message="Das Feld „text“ fehlt.")
    if len(text.strip()) > MAX_MESSAGE_CHARS:
        raise RunRefused(code="invalid_message",
                         message=f"Die Nachricht ist zu lang (höchstens {MAX_MESSAGE_CHARS} Zeichen).")
    if mode not in MODES:
        raise RunRefused(code="invalid_message",
                         message="Unbekannter Modus: „mode“ muss auto, inline oder background sein.")
    return text.strip()


def start_run(*, user: User, conversation: Conversation, text: Any, mode: Any = "auto") -> AgentRun:
    """The one entry point for every client: check → rate limit → classify → create → execute.

    Everything is created in one transaction after the rate limit admitted the run, so a refused
    request leaves nothing behind; execution starts once that transaction has committed.
    """
    text = _checked_message(text, mode)
    if not text:
        return _blank_message(user=user, conversation=conversation)
    helena = HelenaSettings.cached()  # read once per message
    if helena.llm_classifier:  # a model call classifies: not for a message that answers a question
        question = questions.open_question(conversation=conversation)
        if question is not None:
            return _answer_question(user=user, conversation=conversation, question=question, text=text)
    routes, cloud = task_routes(), is_cloud_allowed(helena=helena)
    decision = classify(text=text, mode=mode, routes=routes, cloud_allowed=cloud)
    if helena.llm_classifier:
        decision = classify_with_tier1(user=user, conversation=conversation, text=text, mode=mode,
                                        routes=routes, cloud=cloud, fallback=decision)
    tier = max(decision.tier, CONTEXT_MIN_TIER.get(conversation.context_type, 1))
    fields = {"conversation": conversation, "user": user, "mode": decision.mode, "tier": tier,
              "task_type": decision.task_type, "classifier_reason": decision.reason[:300],
              "context_type": conversation.context_type, "deadline": deadline_for(decision.mode, helena)}
    title = _proposed_title(conversation, text)
    # An open question found by the admission is answered by this message; a stale one is expired
    # (one per round) and the admission tried again.
    for _ in range(MAX_STALE_QUESTIONS):
        run = _admitted_message(user=user, conversation=conversation, text=text, fields=fields, title=title)
        if run is not None:
            break
        question = questions.open_question(conversation=conversation)
        if question is not None:
            return _answer_question(user=user, conversation=conversation, question=question, text=text)
    else:
        raise RunRefused(code="conflict", status=409,
                         message="Die offene Rückfrage hat sich gerade geändert. "
                                 "Bitte schick die Nachricht noch einmal.")
    transaction.on_commit(lambda: dispatch(run))
    if title:  # the socket keeps this instance: its next message proposes no title again
        conversation.title = title
    return run


def _admitted_message(*, user: User, conversation: Conversation, text: str, fields: dict[str, Any],
                      title: str) -> AgentRun | None:
    """The message and its run, admitted and written in one round trip (helena/runs/rate_limit.py:
    `admit_and_write`), stamped with the moment of the admission (after the user's queue and the
    lock, as before: the messages keep the order they were admitted in); None when the conversation
    has an open question (nothing written then). With save signals on Message or AgentRun, the ORM
    writes them after admit() as before."""
    if not (_MESSAGE.plain and _RUN.plain):
        return _admitted_by_orm(user=user, conversation=conversation, text=text, fields=fields, title=title)
    gate, stamped = "gate WHERE gate.admitted", {"created_at": "gate.at"}
    _, message_sql, message_params = _MESSAGE.select_into(
        gate, taken=stamped, conversation=conversation, role=Message.Role.USER, text=text)
    run, run_sql, run_params = _RUN.select_into(gate, taken=stamped, **fields)
    touch_sql, touch_params = _touch_conversation(conversation.pk, title)
    try:
        with admission(user):
            at = admit_and_write(
                user=user, unless=Gated(selectors.UNANSWERED_QUESTION, [conversation.pk]),
                writes=[Gated(message_sql, message_params), Gated(run_sql, run_params),
                        Gated(touch_sql, touch_params)])
    except RateLimited as exc:
        raise _refused_by_limit(exc) from None
    except AdmissionBusy as exc:
        raise RunRefused(code=exc.code, message=exc.message, status=503) from None
    if at is None:
        return None
    run.created_at = at
    return run


def _touch_conversation(pk: int, title: str) -> tuple[str, list[Any]]:
    """The conversation's UPDATE of every message, once admitted: updated_at (the admission's
    moment), and Helena's title for one without a title (a title already there, the user's, stays)."""
    table = Conversation._meta.db_table
    if not title:
        return (f"UPDATE {table} SET updated_at = gate.at FROM gate WHERE {table}.id = %s AND gate.admitted",
                [pk])
    return (f"UPDATE {table} SET updated_at = gate.at, title = CASE WHEN {table}.title = '' "
            f"AND NOT {table}.titel_von_hand THEN %s ELSE {table}.title END "
            f"FROM gate WHERE {table}.id = %s AND gate.admitted", [title, pk])


def _admitted_by_orm(*, user: User, conversation: Conversation, text: str, fields: dict[str, Any],
                     title: str) -> AgentRun | None:
    """_admitted_message through the ORM (save signals connected: no receiver is skipped)."""
    if questions.open_question(conversation=conversation) is not None:
        return None
    with _admitted(user):
        _MESSAGE.create(conversation=conversation, role=Message.Role.USER, text=text)
        run = _RUN.create(**fields)
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now(), **_titled(title))
    return run


def _proposed_title(conversation: Conversation, question: str) -> str:
    """Helena's title for an untitled conversation, from its first question (helena/conversations/title.py);
    "" when it has one."""
    if conversation.title or conversation.titel_von_hand:
        return ""
    return propose_title(question) or ""


def _titled(title: str) -> dict[str, Any]:
    """The title set in the UPDATE the message makes anyway; a title already there (the user's) stays."""
    if not title:
        return {}
    return {"title": Case(When(title="", titel_von_hand=False, then=Value(title)), default=F("title"))}


def _blank_message(*, user: User, conversation: Conversation) -> AgentRun:
    """A blank message is no error (docs/protocol.md): Helena answers it with a short clarifying question,
    in a run like any other (admitted, streamed, stored), which needs no model."""
    with _admitted(user):
        run = AgentRun.objects.create(
            conversation=conversation, user=user, mode=AgentRun.Mode.INLINE, tier=1,
            task_type=AgentRun.BLANK_TASK,
            classifier_reason="leere Nachricht", context_type=conversation.context_type,
            deadline=deadline_for(AgentRun.Mode.INLINE),
        )
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
        transaction.on_commit(lambda: dispatch(run))
    return run


def cancel_run(*, run: AgentRun) -> AgentRun:
    """Ask a run to stop: the loop polls the flag; a run still waiting in the queue is revoked."""

    if not run.active:
        raise RunRefused(code="conflict", message="Dieser Lauf ist bereits beendet.", status=409)
    AgentRun.objects.filter(pk=run.pk).update(cancel_requested=True)
    with transaction.atomic():
        queued = AgentRun.objects.select_for_update().filter(pk=run.pk, status=AgentRun.Status.QUEUED).first()
        if queued is not None:
            queued.status = AgentRun.Status.CANCELLED
            queued.save(update_fields=["status"])
    if queued is not None:
        if queued.celery_task_id:
            app.control.revoke(queued.celery_task_id)
        queued.refresh_from_db()
        async_to_sync(finish_without_loop)(run=queued, reason="cancelled", code="cancelled",
                                           message="Abgebrochen, bevor die Bearbeitung begann.")
    run.refresh_from_db()
    return run


def continue_in_background(*, user: User, run: AgentRun) -> AgentRun:
    """A background run that carries the inline run's messages with a fresh step budget."""
    if (run.mode != AgentRun.Mode.INLINE or run.active or run.finish_reason not in ("max_steps", "timeout")
            or run.children.exists()):
        raise RunRefused(code="conflict", status=409,
                         message="Nur ein abgeschlossener Inline-Lauf, der nicht fertig wurde, kann im "
                                 "Hintergrund weitergeführt werden.")
    with _admitted(user):
        child = AgentRun.objects.create(
            conversation=run.conversation, user=user, parent=run, mode=AgentRun.Mode.BACKGROUND,
            tier=run.tier, task_type=run.task_type, classifier_reason="Fortsetzung im Hintergrund",
            context_type=run.context_type,
            transcript=run.transcript, deadline=deadline_for(AgentRun.Mode.BACKGROUND),
        )
        transaction.on_commit(lambda: dispatch(child))
    return child


def _answer_question(*, user: User, conversation: Conversation, question: PendingQuestion,
                     text: str) -> AgentRun:
    """The message answers Helena's open question: the paused run resumes in a new run, same mode
    and tier, from its transcript plus the answer; completed steps are not repeated."""
    paused = question.run
    answer = {"role": "user", "content": f"Antwort auf deine Rückfrage „{question.question}“: {text}"}
    with _admitted(user):
        locked = PendingQuestion.objects.select_for_update().get(pk=question.pk)
        if locked.answered_at is not None or locked.expired_at is not None:
            raise RunRefused(code="conflict", status=409,
                             message="Diese Rückfrage wurde inzwischen schon beantwortet.")
        locked.answer, locked.answered_at = text, timezone.now()
        locked.save(update_fields=["answer", "answered_at"])
        conv = Conversation.objects.select_for_update().get(pk=conversation.pk)
        conv.answers = {**conv.answers, locked.answer_key: text}
        conv.save(update_fields=["answers", "updated_at"])
        Message.objects.create(conversation=conversation, role=Message.Role.USER, text=text)
        run = AgentRun.objects.create(
            conversation=conversation, user=user, parent=paused, mode=paused.mode, tier=paused.tier,
            task_type=paused.task_type, classifier_reason="Antwort auf Rückfrage",
            context_type=paused.context_type, transcript=[*paused.transcript, answer],
            answers_question=locked, deadline=deadline_for(paused.mode),
        )
        transaction.on_commit(lambda: dispatch(run))
    return run
