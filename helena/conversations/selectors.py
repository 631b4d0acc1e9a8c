"""Reads of Helena's records, scoped to the user: another user's conversation or run is NotFound."""

from __future__ import annotations

import re
import uuid
from datetime import date, timedelta
from typing import Any

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from akten.models import User
from akten.selectors import akten_for
from config.errors import NotFound
from drafts.models import Draft
from helena.models import AgentRun, Conversation, HelenaTask, Message, PendingQuestion, Plan, RunEvent


def conversations_for(*, user: User) -> QuerySet[Conversation]:
    """The user's own conversations; deleted ones are gone for them (kept for the audit)."""
    return Conversation.objects.filter(user=user, geloescht_am__isnull=True).select_related("akte")


_WORD = re.compile(r"\w+")
MAX_QUERY_WORDS = 12


def _search_query(q: str) -> SearchQuery | None:
    """The words of `q` as a German full-text query, the last one as a prefix (typed so far)."""
    words = _WORD.findall(q)[:MAX_QUERY_WORDS]
    if not words:
        return None
    terms = [*words[:-1], f"{words[-1]}:*"]
    return SearchQuery(" & ".join(terms), config="german", search_type="raw")


def _matching(conversations: QuerySet[Conversation], q: str) -> QuerySet[Conversation]:
    """Conversations whose title or any message matches every word of `q` (German stemming)."""
    query = _search_query(q)
    if query is None:
        return conversations
    in_messages = Message.objects.annotate(fts=SearchVector("text", config="german")).filter(
        conversation=OuterRef("pk"), fts=query)
    return (conversations.annotate(title_fts=SearchVector("title", config="german"))
            .filter(Q(title_fts=query) | Q(title__icontains=q.strip()) | Exists(in_messages)))


def _asked() -> Q:
    """Something was asked in the conversation: a message, or a run (which always answers one)."""
    return (Q(Exists(Message.objects.filter(conversation=OuterRef("pk"))))
            | Q(Exists(AgentRun.objects.filter(conversation=OuterRef("pk")))))


def conversation_list(*, user: User, q: str = "", akte_id: int | None = None, archiviert: bool | None = False,
                      von: date | None = None, bis: date | None = None,
                      leere: bool = True) -> QuerySet[Conversation]:
    """The user's conversations, pinned first, then newest activity, each with its first question,
    how its last run ended (a failed one shows in the list, not only inside the chat) and how many
    of its drafts wait for approval. `archiviert=None` lists both; `von`/`bis` bound the last activity.
    `leere=False` leaves out conversations in which nothing was asked (opened, no message): the
    pages' lists do, the API lists what a client created."""
    first_question = Message.objects.filter(conversation=OuterRef("pk"), role=Message.Role.USER).order_by(
        "created_at", "id")
    last_run = AgentRun.objects.filter(conversation=OuterRef("pk")).order_by("-created_at")
    pending = (Draft.objects.filter(conversation=OuterRef("pk"), status=Draft.Status.PENDING)
               .order_by().values("conversation").annotate(n=Count("pk")).values("n"))
    conversations = conversations_for(user=user)
    if archiviert is not None:
        conversations = conversations.filter(archiviert=archiviert)
    if not leere:
        conversations = conversations.filter(_asked())
    if akte_id is not None:
        conversations = conversations.filter(akte_id=akte_id)
    if von is not None:
        conversations = conversations.filter(updated_at__date__gte=von)
    if bis is not None:
        conversations = conversations.filter(updated_at__date__lte=bis)
    if q.strip():
        conversations = _matching(conversations, q)
    return (conversations
            .annotate(first_question=Subquery(first_question.values("text")[:1]),
                      last_status=Subquery(last_run.values("status")[:1]),
                      last_finish=Subquery(last_run.values("finish_reason")[:1]),
                      offene_entwuerfe=Subquery(pending[:1]))
            .order_by("-angeheftet", "-updated_at"))


def akten_of_conversations(*, user: User) -> QuerySet[Any]:
    """The Akten the user may see and has conversations about (the list's Akte filter); an empty
    conversation (nothing asked yet) does not count."""
    mine = conversations_for(user=user).filter(_asked())
    return akten_for(user=user).filter(pk__in=mine.values("akte_id")).distinct()


def empty_conversation(*, user: User, akte_id: int | None, context_type: str | None) -> Conversation | None:
    """The user's newest conversation in which nothing was asked yet, with this Akte or context, to
    open again instead of leaving one more empty "Neues Gespräch" behind (the chat page's start
    buttons); untouched only: not renamed, archived or pinned."""
    found = conversations_for(user=user).filter(akte_id=akte_id, archiviert=False, angeheftet=False,
                                                title="").exclude(_asked())
    if akte_id is None:
        found = found.filter(context_type=context_type or Conversation.ContextType.GLOBAL)
    else:  # an Akte the user may no longer see gets no conversation opened again
        found = found.filter(akte__in=akten_for(user=user))
    return found.order_by("-created_at").first()


def zustand(conversation: Conversation) -> str:
    """What a list shows beside a conversation of conversation_list(): Helena works ("laeuft"), the
    last answer failed ("fehlgeschlagen"), she waits for the user ("wartet_auf_antwort"), or ""."""
    status = getattr(conversation, "last_status", None)
    if status in (AgentRun.Status.QUEUED, AgentRun.Status.RUNNING):
        return "laeuft"
    if status == AgentRun.Status.FAILED:
        return "fehlgeschlagen"
    return "wartet_auf_antwort" if getattr(conversation, "last_finish", "") == "waiting_on_user" else ""


def find_conversations(*, user: User, q: str, limit: int = 5) -> list[Conversation]:
    """The user's conversations matching `q` (the header's search box), archived ones included."""
    if not q.strip():
        return []
    return list(conversation_list(user=user, q=q, archiviert=None, leere=False)[:limit])


def tasks_for(*, user: User) -> QuerySet[HelenaTask]:
    """The tasks this user gave Helena, newest first."""
    return HelenaTask.objects.filter(requested_by=user).order_by("-angelegt_am")


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


def conversation_access(*, user: Any, conversation_id: Any) -> Conversation | str:
    """The conversation if it is the user's; else "not_found" (no such id) or "forbidden".

    Only the websocket distinguishes the two (close codes 4404/4403, docs/protocol.md); the API
    answers 404 for both.
    """
    try:
        conversation = Conversation.objects.select_related("akte").get(pk=int(conversation_id),
                                                                       geloescht_am__isnull=True)
    except (TypeError, ValueError, Conversation.DoesNotExist):
        return "not_found"
    if user is None or not user.is_authenticated or not user.is_active or conversation.user_id != user.pk:
        return "forbidden"
    return conversation


def run_events(*, run_id: Any, after: int = 0, before: int | None = None) -> list[dict[str, Any]]:
    """Stored events of one run with after < seq < before, as sent to clients."""
    qs = RunEvent.objects.filter(run_id=run_id, seq__gt=after)
    if before is not None:
        qs = qs.filter(seq__lt=before)
    return [e.as_dict() for e in qs.order_by("seq")]


def missing_events(
    *, conversation: Conversation, after: dict[str, int], run_ids: list[str], since: Any = None
) -> list[dict[str, Any]]:
    """What a (re)connecting client lacks: the stored events after the seq the client has, for the
    runs it names, all runs in progress, every run started after the newest one it names, and
    (`since`, a moment) every run started after it."""
    valid: list[uuid.UUID] = []
    for run_id in run_ids:
        try:
            valid.append(uuid.UUID(run_id))
        except ValueError:
            continue
    wanted = Q(pk__in=valid) | Q(status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING])
    newest_known = (AgentRun.objects.filter(conversation=conversation, pk__in=valid)
                    .order_by("-created_at").values_list("created_at", flat=True).first())
    if newest_known is not None:  # runs that started and ended while the client was away
        wanted |= Q(created_at__gt=newest_known)
    if since is not None:
        wanted |= Q(created_at__gt=since)
    runs = list(AgentRun.objects.filter(conversation=conversation).filter(wanted).order_by("created_at")
                .values_list("pk", flat=True))
    if not runs:
        return []
    # One read for all of them (a socket's resync names every run it has seen: one query per run,
    # each loading the whole run row, grew with the conversation).
    fresh = [pk for pk in runs if after.get(str(pk), 0) <= 0]
    wanted_events = Q(run_id__in=fresh) if fresh else Q(pk__in=[])
    for pk in runs:
        if after.get(str(pk), 0) > 0:
            wanted_events |= Q(run_id=pk, seq__gt=after[str(pk)])
    order = {pk: index for index, pk in enumerate(runs)}
    found = sorted(RunEvent.objects.filter(wanted_events), key=lambda e: (order[e.run_id], e.seq))
    return [event.as_dict() for event in found]


def plans_of(*, conversation: Conversation) -> QuerySet[Any]:
    """The conversation's plans, oldest first (the chat shows each as a card)."""
    return Plan.objects.filter(conversation=conversation).order_by("created_at")


QUESTION_TTL_DAYS = 7  # an ask_user question not answered within this many days lapses


def question_is_stale(question: Any, *, now: Any = None) -> bool:
    """Whether an open question is past its time to live (the services expire it)."""
    return question.asked_at < (now or timezone.now()) - timedelta(days=QUESTION_TTL_DAYS)


# A question of conversation %s neither answered nor expired (also inside the admission's statement,
# helena/conversations/services.py).
UNANSWERED_QUESTION = (f"SELECT 1 FROM {PendingQuestion._meta.db_table} WHERE conversation_id = %s "
                       "AND answered_at IS NULL AND expired_at IS NULL")


def has_unanswered_question(*, conversation_id: int) -> bool:
    """Whether the conversation has a question neither answered nor expired: asked at every message,
    and almost always no (one plain statement instead of the full read below)."""
    with connection.cursor() as cursor:
        cursor.execute(f"{UNANSWERED_QUESTION} LIMIT 1", [conversation_id])
        return cursor.fetchone() is not None


def open_question_of(*, conversation: Conversation, include_stale: bool = False) -> Any:
    """The question the conversation's next message answers (ask_user), or None; read only.

    The one rule: not answered, not expired, and (unless `include_stale`, for the services that
    expire it) asked within QUESTION_TTL_DAYS.
    """
    qs = PendingQuestion.objects.filter(conversation=conversation, answered_at__isnull=True,
                                        expired_at__isnull=True).select_related("run")
    if not include_stale:
        qs = qs.filter(asked_at__gte=timezone.now() - timedelta(days=QUESTION_TTL_DAYS))
    return qs.order_by("-asked_at").first()
