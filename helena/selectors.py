"""Reads of Helena's records, scoped to the user: another user's conversation or run is NotFound."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from akten.models import User
from akten.selectors import NotFound
from helena.models import AgentRun, Conversation, RunEvent


def conversations_for(*, user: User) -> QuerySet[Conversation]:
    return Conversation.objects.filter(user=user).select_related("akte")


def get_conversation(*, user: User, conversation_id: int | str) -> Conversation:
    try:
        return conversations_for(user=user).get(pk=int(conversation_id))
    except (TypeError, ValueError, Conversation.DoesNotExist):
        raise NotFound from None


def get_run(*, user: User, run_id: str | uuid.UUID) -> AgentRun:
    try:
        return AgentRun.objects.select_related("conversation").get(pk=uuid.UUID(str(run_id)), user=user)
    except (ValueError, AgentRun.DoesNotExist):
        raise NotFound from None


def events_of(*, run: AgentRun, after: int = 0) -> QuerySet[RunEvent]:
    return run.events.filter(seq__gt=after).order_by("seq")
