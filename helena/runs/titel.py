"""The title Helena proposes for a conversation after its first answer: the question, without the
greeting and the polite run-up, cut at a word boundary. Cheap and the same for every model (a model
call per conversation would cost a small local model seconds); the user can rename it any time."""

from __future__ import annotations

import re
from typing import Any

from django.db.models import OuterRef, Subquery

from helena.models import Conversation, Message

MAX_CHARS = 70

_GREETING = re.compile(
    r"^\s*(?:(?:hallo|hi|hey|moin|servus|guten\s+(?:morgen|tag|abend)|liebe|lieber)\b[\s,!.:-]*)?"
    r"(?:helena\b[\s,!.:-]*)?", re.IGNORECASE)
_RUN_UP = re.compile(
    r"^(?:(?:kannst|könntest|würdest|magst)\s+du\s+(?:mir\s+)?(?:bitte\s+)?(?:mal\s+)?"
    r"|(?:ich\s+(?:hätte|habe)\s+eine\s+frage\s*[:,.-]?\s*)|bitte\s+)", re.IGNORECASE)
# "… sagen, wann die Frist endet" → "Wann die Frist endet"
_ASK_VERB = re.compile(r"^(?:sagen|erklären|erläutern|zeigen|nennen)\s*,?\s*"
                       r"(?=(?:wann|wie|was|ob|welche|wer|wo|warum|wieso|weshalb)\b)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.?!])\s")


def propose_title(question: str, answer: str = "") -> str:
    """A short title from the first question (else the answer's first line); "" if neither says anything."""
    text = " ".join((question or "").split())
    text = _GREETING.sub("", text, count=1)
    text = _RUN_UP.sub("", text, count=1).strip(" ,.:;-")
    text = _ASK_VERB.sub("", text, count=1)
    if not text and (answer or "").strip():
        text = " ".join(answer.strip().splitlines()[0].split()).lstrip("#>*- ")
    text = _SENTENCE_END.split(text, maxsplit=1)[0].strip()
    if len(text) > MAX_CHARS:
        cut = text[:MAX_CHARS - 1].rsplit(" ", 1)[0] if " " in text[:MAX_CHARS - 1] else text[:MAX_CHARS - 1]
        text = cut.rstrip(" ,.:;-") + "…"
    return text[:1].upper() + text[1:]


def title_after_answer(*, conversation_id: Any, answer: str) -> None:
    """After the first answer, the conversation gets Helena's title unless it has one. The question
    is read from the stored message (the model may have seen it pseudonymised); one query that finds
    nothing once a title is there."""
    first = Message.objects.filter(conversation=OuterRef("pk"), role=Message.Role.USER).order_by(
        "created_at", "id")
    untitled = Conversation.objects.filter(pk=conversation_id, title="", titel_von_hand=False)
    found = untitled.annotate(question=Subquery(first.values("text")[:1])).values_list("question", flat=True)
    for question in found:
        title = propose_title(question or "", answer)
        if title:
            untitled.update(title=title)
