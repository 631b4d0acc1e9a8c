"""What a long question asks: the legal concern inside a client's e-mail.

A client writes a story of a few hundred words — greeting, who did what and when, how it felt —
and the question somewhere near the end. Searched as one bag of words, the story drowns the
question, and a cap on the number of terms would keep the greeting and cut the question. So a
long text is split here: the sentences that ask (a "?" or the word order and cue words of a
question) are its core, the rest is context that counts less; greeting and sign-off are dropped.
A short question passes unchanged. Pure text rules: no database, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Below this many words a text is a question, not a story.
LONG_WORDS = 40
# Without any asking sentence the last sentences are taken as the core: clients ask at the end.
FALLBACK_SENTENCES = 2

_GREETING_RE = re.compile(
    r"^\s*(?:sehr\s+geehrte|liebe[rs]?\b|hallo\b|guten\s+(?:tag|morgen|abend)\b|hi\b|moin\b|servus\b"
    r"|grüß\s+gott\b|grüezi\b|werte[rs]?\b)[^\n,!]*[,!]?",
    re.IGNORECASE,
)
_SIGN_OFF_RE = re.compile(
    r"(?:^|(?<=[.!?] ))\s*(?:(?:mit\s+)?"
    r"(?:(?:freundlichen|besten|vielen|lieben|herzlichen|schönen|viele|liebe|beste)\s+)?(?:grü(?:ß|ss)|gru(?:ß|ss))\w*|(?:mfg|lg|vg|cheers)\b|(?:vielen\s+)?dank(?:e)?\s+(?:im\s+voraus|schon\s+mal"
    r"|vorab|für\s+ihre|für\s+deine|und))",
    re.IGNORECASE | re.MULTILINE,
)
# A sentence ends at "?", "!" or "…", or at a period after a word (not "7. Mai", "Nr. 3", "z. B.")
# before a capital; a blank line, a list item or a numbered point starts a new one.
_SENTENCE_RE = re.compile(
    r"(?<=[!?…])\s+|(?<=[a-zäöüß]{2}\.)\s+(?=[A-ZÄÖÜa-zäöü„\"(])|\n\s*\n|\n(?=\s*[-–•*]|\s*\d+[.)]\s)")
# A question without "?": verb first ("Kann ich …", "Muss der Vermieter …"), or the phrases
# clients use to ask ("Ich möchte wissen, ob …", "Habe ich Anspruch auf …", "Ist das rechtens").
_ASKING_RE = re.compile(
    r"(?:^|[,;:]\s*|\b(?:und|oder|aber|also|jetzt|nun)\s+)"
    r"(?:kann|darf|muss|müssen|dürfen|können|soll|sollte|sollen|könnte|hätte|habe|hat|haben|ist|sind|gilt"
    r"|steht|stehen|bekomme|bekommt|bekommen|zahlt|haftet|wer|was|wie|wann|wo|wohin|welche[rnms]?|warum"
    r"|weshalb|ob)\b"
    r"|\bich\s+(?:möchte|würde\s+gerne?|will|wollte)\s+(?:gerne?\s+)?(?:wissen|fragen|erfahren)"
    r"|\b(?:bis|ab|seit)\s+wann\b|\bwie\s+(?:lange|viel|viele|hoch|oft)\b"
    r"|\bmeine\s+frage|\bfrage\s+mich|\bwissen\s+(?:ob|wie|was|wann|wer)\b|\b(?:bitte\s+um|brauche)\s+(?:rat|hilfe)"
    r"|\b(?:rechtens|zulässig|erlaubt|legal)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Anliegen:
    """The question's core (what is searched at full weight) and its context (at less)."""

    kern: str
    kontext: str = ""

    @property
    def lang(self) -> bool:
        return bool(self.kontext)


def _body(text: str) -> str:
    """The text without a greeting at its start and without the sign-off (and name) at its end."""
    body = _GREETING_RE.sub(" ", text, count=1)
    for match in _SIGN_OFF_RE.finditer(body):
        if match.start() >= len(body) * 0.6:  # a "Grüße" early in the story is part of it
            return body[: match.start()]
    return body


def saetze(text: str) -> list[str]:
    """The text's sentences (also list items and paragraphs), stripped, none empty."""
    return [s for s in (" ".join(part.split()) for part in _SENTENCE_RE.split(text)) if s]


def fragt(satz: str) -> bool:
    """Whether a sentence asks something."""
    return "?" in satz or bool(_ASKING_RE.search(satz))


def anliegen(text: str) -> Anliegen:
    """Split a long text into the sentences that ask and the story around them."""
    if len(text.split()) < LONG_WORDS:
        return Anliegen(kern=text)
    sentences = saetze(_body(text))
    if len(sentences) < 2:
        return Anliegen(kern=text)
    # "?" anywhere; the word order of a question only in the last third, where clients ask
    # ("Wie vereinbart habe ich …" early in the story is no question).
    late = len(sentences) - max(len(sentences) // 3, FALLBACK_SENTENCES)
    asking = [i for i, satz in enumerate(sentences) if "?" in satz or (i >= late and fragt(satz))]
    if not asking:
        asking = list(range(len(sentences)))[-FALLBACK_SENTENCES:]
    kern = " ".join(sentences[i] for i in asking)
    kontext = " ".join(s for i, s in enumerate(sentences) if i not in set(asking))
    return Anliegen(kern=kern, kontext=kontext)
