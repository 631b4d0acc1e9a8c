"""Helena's questions that pause a run (ask_user): the one a conversation's next message answers,
and their end when nobody answers within QUESTION_TTL_DAYS (a beat task). Answering one starts a
run and is therefore in services (`start_run`)."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from helena.conversations import selectors
from helena.models import Conversation, Message, PendingQuestion

# --- conversations and runs ------------------------------------------------------------------


QUESTION_TTL_DAYS = selectors.QUESTION_TTL_DAYS


def open_question(*, conversation: Conversation) -> PendingQuestion | None:
    """The question the conversation's next message answers, if any (a stale one is expired)."""
    if not selectors.has_unanswered_question(conversation_id=conversation.pk):
        return None
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
