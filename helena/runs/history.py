"""Conversation history that stays within the context window (seed 004 §4.2).

Short conversations go to the model verbatim. Past a threshold (40 earlier messages, or 60 % of
the context window by estimate) the older turns are condensed by one tier-1 call (operation
`summary`) into a system note and the newest turns stay verbatim. The summary is stored on the
conversation and reused; it is only extended when enough new turns have piled up behind it, so a
long conversation costs one summary call every few turns, not one per turn.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from asgiref.sync import async_to_sync
from django.db import connection

from helena.agent.budget import estimate_tokens
from helena.llm.base import collect
from helena.llm.pii.touched import privacy_for
from helena.llm.router import get_model_for_tier
from helena.llm.wrappers.accounting import RecordingModel
from helena.models import Conversation, Message

log = logging.getLogger(__name__)

THRESHOLD_MESSAGES = 40
THRESHOLD_SHARE = 0.6
KEEP_VERBATIM = 12  # the newest earlier messages always go verbatim
SLACK = 10  # this many unsummarised older messages are tolerated before the summary is extended
DEFAULT_WINDOW = 8192
SUMMARY_PROMPT = """Fasse den bisherigen Verlauf eines Gesprächs zwischen einer Person aus einer \
Anwaltskanzlei und Helena (KI-Kollegin) für Helena zusammen, damit sie ohne die alten Nachrichten \
weiterarbeiten kann. Behalte: Aktenzeichen, Namen, Daten, Fristen und Beträge wörtlich; Entscheidungen \
und Zusagen; offene Punkte. Höchstens 200 Wörter, Deutsch, Stichpunkte."""


class _Said(NamedTuple):
    """A message as the history needs it (rows, not model instances: read for every run)."""

    pk: int
    role: str
    text: str


def _turns(messages: list[_Said]) -> list[dict[str, Any]]:
    return [{"role": m.role, "content": m.text} for m in messages]


def _summarise(*, previous: str, messages: list[_Said], model: Any) -> str:
    text = "\n".join(f"{'Nutzer' if m.role == 'user' else 'Helena'}: {m.text}" for m in messages)
    if previous:
        text = f"Bisherige Zusammenfassung:\n{previous}\n\nNeuere Nachrichten:\n{text}"
    turn = async_to_sync(collect)(model.stream(messages=[{"role": "system", "content": SUMMARY_PROMPT},
                                                         {"role": "user", "content": text}], tools=None))
    return turn.text.strip()


def _summary_model(*, conversation: Conversation, run_id: Any, privacy: Any) -> Any:
    """The tier-1 model for the summary, booked as `summary`; a cloud one redacts with the run's
    Privacy (learned here, in this synchronous code, so the call itself reads nothing)."""
    if privacy is None:
        privacy = privacy_for(user=conversation.user, conversation_id=conversation.pk,
                              akte_id=conversation.akte_id)
    found = get_model_for_tier(1, privacy=privacy)
    if found is None:
        return None
    model, config = found
    if config.cloud:
        privacy.refresh_sync()
    return RecordingModel(model, run_id=run_id, user_id=conversation.user_id, tier=1, operation="summary",
                          context_type=conversation.context_type, price_in=config.price_in,
                          price_out=config.price_out)


_MESSAGES = (f"SELECT id, role, text FROM {Message._meta.db_table} WHERE conversation_id = %s "
             "ORDER BY created_at, id")
# The same rows as one JSON text [[id, role, text], …], for a statement that reads more (the claim).
MESSAGES_AS_JSON = (
    "SELECT COALESCE(json_agg(json_build_array(m.id, m.role, m.text) ORDER BY m.created_at, m.id), "
    f"'[]')::text FROM {Message._meta.db_table} m WHERE m.conversation_id = {{conversation}}")


def history_for(*, conversation: Conversation, run_id: Any = None, privacy: Any = None,
                context_window: int = DEFAULT_WINDOW,
                messages: list[tuple[int, str, str]] | None = None) -> tuple[list[dict[str, Any]], str]:
    """The earlier turns for the model (a summary note first when the conversation is long) and the
    question of this run (the last user message). `messages`: the conversation's rows, when the
    caller read them already (MESSAGES_AS_JSON)."""
    if messages is None:
        with connection.cursor() as cursor:  # plain SQL: every run start reads it, compiling cost more
            cursor.execute(_MESSAGES, [conversation.pk])
            messages = cursor.fetchall()
    messages = [_Said(*row) for row in messages]
    question = messages[-1].text if messages and messages[-1].role == Message.Role.USER else ""
    earlier = messages[:-1] if question else messages
    turns = _turns(earlier)
    if len(earlier) <= THRESHOLD_MESSAGES and estimate_tokens(turns) <= THRESHOLD_SHARE * context_window:
        return turns, question
    covered = conversation.summary_upto or 0
    unsummarised = [m for m in earlier if m.pk > covered]
    summary = conversation.summary
    if not summary or len(unsummarised) > KEEP_VERBATIM + SLACK:
        fold, unsummarised = unsummarised[:-KEEP_VERBATIM], unsummarised[-KEEP_VERBATIM:]
        model = _summary_model(conversation=conversation, run_id=run_id, privacy=privacy)
        try:
            fresh = _summarise(previous=summary, messages=fold, model=model) if model and fold else ""
        except Exception:  # no summary is better than no answer: keep the newest turns only
            log.exception("summary of conversation %s failed", conversation.pk)
            fresh = ""
        if fresh:
            summary = fresh
            Conversation.objects.filter(pk=conversation.pk).update(summary=summary, summary_upto=fold[-1].pk)
        elif not summary:
            return _turns(earlier[-KEEP_VERBATIM:]), question
    note = {"role": "system", "content": f"Zusammenfassung des früheren Gesprächsverlaufs:\n{summary}"}
    return [note, *_turns(unsummarised)], question
