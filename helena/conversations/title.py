"""The title Helena gives a conversation with its first question: the question without the greeting
and the polite run-up, cut at a word boundary. Cheap and the same for every model (a model call per
conversation would cost a small local model seconds and the run a query); set in the UPDATE the
message makes anyway (helena.conversations.services.start_run), so the list shows it at once; the
user can rename it any time."""

from __future__ import annotations

import re

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

