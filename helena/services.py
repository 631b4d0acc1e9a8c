"""Writes of Helena's own records: conversations, runs and the questions that pause them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.db.models import Case, F, Value, When
from django.utils import timezone

from akten.models import User
from akten.selectors import get_akte
from config.celery import app
from config.errors import DomainError
from drafts.roles import kinds_decidable_by
from helena import selectors
from helena.agent.classifier import classify, classify_with_model
from helena.agent.prompts import CONTEXT_MIN_TIER
from helena.llm.accounting import RecordingModel
from helena.llm.base import ModelUnavailable
from helena.llm.http import aclose_model
from helena.llm.router import check_reachable, get_model_for_tier, is_cloud_allowed, task_routes
from helena.models import AgentRun, Conversation, HelenaSettings, HelenaTask, Message, PendingQuestion
from helena.privacy import privacy_for
from helena.runs.admission import AdmissionBusy, RateLimited, admission, admit
from helena.runs.dispatch import dispatch
from helena.runs.emitter import finish_without_loop
from helena.runs.limits import deadline_for
from helena.runs.titel import propose_title

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
    # No title yet: Helena proposes one after the first answer (helena/runs/titel.py); the list
    # shows the Akte beside it anyway.
    return Conversation.objects.create(user=user, akte=akte, context_type=kind)


MODES = ("auto", "inline", "background")


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
    question = open_question(conversation=conversation)
    if question is not None:
        return _answer_question(user=user, conversation=conversation, question=question, text=text)

    helena = HelenaSettings.cached()  # read once per message
    routes, cloud = task_routes(), is_cloud_allowed(helena=helena)
    decision = classify(text=text, mode=mode, routes=routes, cloud_allowed=cloud)
    if helena.llm_classifier:
        decision = _classify_with_tier1(user=user, conversation=conversation, text=text, mode=mode,
                                        routes=routes, cloud=cloud, fallback=decision)
    tier = max(decision.tier, CONTEXT_MIN_TIER.get(conversation.context_type, 1))
    with _admitted(user):
        Message.objects.create(conversation=conversation, role=Message.Role.USER, text=text)
        run = AgentRun.objects.create(
            conversation=conversation, user=user, mode=decision.mode, tier=tier,
            task_type=decision.task_type, classifier_reason=decision.reason[:300],
            context_type=conversation.context_type,
            deadline=deadline_for(decision.mode, helena),
        )
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now(),
                                                               **_title_for(conversation, text))
        transaction.on_commit(lambda: dispatch(run))
    return run


def _title_for(conversation: Conversation, question: str) -> dict[str, Any]:
    """Helena's title for an untitled conversation, from its first question (helena/runs/titel.py),
    set in the UPDATE the message makes anyway; a title already there (the user's) stays."""
    if conversation.title or conversation.titel_von_hand:
        return {}
    title = propose_title(question)
    if not title:
        return {}
    return {"title": Case(When(title="", titel_von_hand=False, then=Value(title)), default=F("title"))}


def _blank_message(*, user: User, conversation: Conversation) -> AgentRun:
    """A blank message is no error (PROTOCOL.md): Helena answers it with a short clarifying question,
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


def _classify_with_tier1(*, user: User, conversation: Conversation, text: str, mode: str,
                         routes: dict[str, int], cloud: bool, fallback: Any) -> Any:
    """The admin's optional LLM classifier on the tier-1 model (recorded as usage); the rules'
    decision stands on any failure."""

    privacy = privacy_for(user=user, conversation_id=conversation.pk, akte_id=conversation.akte_id, text=text)
    found = get_model_for_tier(1, privacy=privacy)
    if found is None:
        return fallback
    model, config = found
    if config.cloud:
        privacy.refresh_sync()  # learned here: the call itself runs on another loop
    recorded = RecordingModel(model, user_id=user.pk, tier=1, operation="classifier",
                              price_in=config.price_in, price_out=config.price_out)

    async def classify() -> Any:
        try:
            return await classify_with_model(model=recorded, text=text, fallback=fallback, mode=mode,
                                             routes=routes, cloud_allowed=cloud, timeout=5.0)
        finally:
            await aclose_model(model)  # its connection belongs to this call's event loop

    return async_to_sync(classify)()


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


# --- ask_user: questions that pause a run ------------------------------------------------------

QUESTION_TTL_DAYS = selectors.QUESTION_TTL_DAYS


def open_question(*, conversation: Conversation) -> PendingQuestion | None:
    """The question the conversation's next message answers, if any (a stale one is expired)."""
    question = selectors.open_question_of(conversation=conversation, include_stale=True)
    if question is not None and selectors.question_is_stale(question):
        expire_question(question=question)
        return None
    return question


def expire_question(*, question: PendingQuestion) -> None:
    """Close a question nobody answered within the TTL, with a note in the conversation."""
    with transaction.atomic():
        updated = type(question).objects.filter(pk=question.pk, answered_at__isnull=True,
                                                expired_at__isnull=True).update(expired_at=timezone.now())
        if updated:
            Message.objects.create(
                conversation_id=question.conversation_id, role=Message.Role.ASSISTANT, run=question.run,
                text=(f"Meine Rückfrage „{question.question}“ ist nach {QUESTION_TTL_DAYS} Tagen ohne "
                      "Antwort verfallen. Wenn das Thema noch aktuell ist, schreib mir einfach erneut."),
            )


def expire_stale_questions() -> int:
    """For the periodic sweep: close every question older than the TTL."""

    stale = PendingQuestion.objects.filter(answered_at__isnull=True, expired_at__isnull=True,
                                           asked_at__lt=timezone.now() - timedelta(days=QUESTION_TTL_DAYS))
    count = 0
    for question in stale:
        expire_question(question=question)
        count += 1
    return count


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


HELENA_MENTION = "@helena"


TASK_FORBIDDEN = "Deine Rolle darf Helena keine Aufträge geben; frag sie im Chat."


def may_give_task(user: User) -> bool:
    """A task is Helena working in the requester's name, and her work ends in drafts: who may make
    none (the Praktikant reads) gives her none; asking her in the chat stays open to everyone."""
    return bool(kinds_decidable_by(user))


def start_task(*, user: User, auftrag: Any, akte_id: Any = None,
               quelle: str = HelenaTask.Quelle.API) -> HelenaTask:
    """A task for Helena: a background run in the requester's name, in a conversation of its own
    (bound to the Akte if given, which the user must see); its end brings a Hinweis
    (helena/runs/auftraege.py)."""
    if not may_give_task(user):
        raise RunRefused(code="forbidden", status=403, message=TASK_FORBIDDEN)
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


def task_from_notiz(*, notiz: Any) -> HelenaTask | None:
    """A Notiz that begins with „@Helena“ is a task for her, from its author, in its Akte."""
    inhalt = (notiz.inhalt or "").strip()
    if not inhalt.casefold().startswith(HELENA_MENTION) or notiz.verfasst_von is None:
        return None
    return start_task(user=notiz.verfasst_von, auftrag=inhalt[len(HELENA_MENTION):].lstrip(" :,-"),
                      akte_id=notiz.akte_id, quelle=HelenaTask.Quelle.NOTIZ)
