"""Is an answer German? Decided from its first words, so a small model's English answer can be asked
again in German before the user sees it, without holding back German answers.

A stop-word count is enough to tell German from English (the only confusion that matters with the
models firms run); a language-identification library would add a model to load for one bit.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["de", "en", "unknown"]
AnswerLanguage = Literal["de", "en"]
# Before an English answer the model gave even when asked again in German: the first words a user
# sees are German (seed 001: always German), and the English is better than no answer.
ENGLISH_ONLY_NOTE = "Ich konnte die Antwort leider nur auf Englisch formulieren:"

_GERMAN = frozenset("""
der die das den dem des ein eine einen einem einer eines und oder aber nicht kein keine ist sind war
waren wird werden wurde hat haben hatte ich du er sie es wir ihr mit von zu zur zum auf für bei nach
aus im in an am als auch noch nur schon sehr wie was wer wo wenn dass weil ob so da dann hier dies
diese dieser dieses kann können muss müssen soll sollte darf gibt gegen über unter durch ohne bis
sich mich dich dir mir uns euch ihnen ihm ihn mein dein sein ihre unser bitte gern gerne ja nein
""".split())  # noqa: SIM905 (a word list reads better as text)
_ENGLISH = frozenset("""
the a and or but not no is are were be been has have had i you he she it we they with
of to on for at from by as only very how what who where when that because if then here this
these those can could must should may there their your my our please yes which would do does did
let me sure okay based according
""".split())  # noqa: SIM905 (a word list reads better as text)
_WORD_RE = re.compile(r"[A-Za-zÄÖÜäöüß]+")
_GERMAN_LETTERS = frozenset("äöüßÄÖÜ")
# English answers show it at once ("The", "Based on", "Okay, the user", "I will"); three words
# without an English one are German (or neutral: "§ 517 ZPO: …") and go out at once.
NEUTRAL_WORDS = 3


def language_of(text: str, *, final: bool = False) -> Language:
    """"de", "en", or "unknown" while the words so far do not decide (always decided when final).

    Only complete words count (a word is complete once something follows it), so the verdict does
    not depend on where the stream was split.
    """
    words = _WORD_RE.findall(text)
    if words and not final and text[-1:].isalpha():
        words = words[:-1]
    german = english = 0
    for count, word in enumerate(words, 1):
        lower = word.lower()
        if lower in _GERMAN or _GERMAN_LETTERS & set(word):
            german += 1
        elif lower in _ENGLISH:
            english += 1
        if german and german >= english:
            return "de"
        if english >= 2 and english > german:
            return "en"
        if count >= NEUTRAL_WORDS and not english:
            return "de"
        if count >= 4 * NEUTRAL_WORDS:
            return "de" if english < 3 else "en"
    if final:
        return "en" if english >= 2 and english > 2 * german else "de"
    return "unknown"


class Gate:
    """Holds the start of a turn's text until its language is known; English stays held."""

    def __init__(self, *, active: bool = True) -> None:
        self.verdict: Language = "unknown" if active else "de"
        self.held = ""

    def feed(self, text: str) -> str:
        """The text that may be shown now."""
        if self.verdict == "de":
            return text
        self.held += text
        if self.verdict == "unknown":
            self.verdict = language_of(self.held)
            if self.verdict == "de":
                released, self.held = self.held, ""
                return released
        return ""

    def finish(self, *, last_chance: bool = False) -> str:
        """At the end of the turn: what is still held and may be shown. Nothing if English, unless it
        is the last chance (asked again already): then the English after a German note."""
        if self.verdict == "unknown":
            self.verdict = language_of(self.held, final=True)
        if self.verdict == "en" and not last_chance:
            return ""
        released, self.held = self.held, ""
        if self.verdict == "en" and released.strip():
            return f"{ENGLISH_ONLY_NOTE}\n\n{released.strip()}"
        return released


def answer_language(question: str, *, follow_question: bool) -> AnswerLanguage:
    """The language Helena answers in: German, unless the firm lets her answer in the question's
    language (HelenaSettings.antwort_in_sprache_der_frage) and the question is English."""
    return "en" if follow_question and language_of(question, final=True) == "en" else "de"
