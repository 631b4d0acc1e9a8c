"""Exact matches in the Akten a user may see: names, Aktenzeichen, words of a Dokument or Notiz.

A name or an Aktenzeichen is found only this way (a sentence vector does not know "Schulz" from
"Schmidt"); the phrase is tried first, then each word of three letters or more that is not a
stop word.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from akten.dokumente.seiten import seite_an
from akten.models import Akte, Beteiligter, Dokument, Notiz
from helena.knowledge.thesaurus import FRAGEWOERTER

SNIPPET = 80
# Single words that say nothing about a file: "der", "unter", "wurde" occur in every Dokument.
STOPWOERTER = frozenset((
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "und", "oder", "aber", "mit",
    "von", "vom", "zum", "zur", "für", "auf", "aus", "bei", "nach", "über", "unter", "vor", "gegen",
    "ohne", "wer", "was", "wie", "wo", "wem", "wen", "ich", "du", "er", "sie", "es", "wir", "ihr", "sich",
    "nicht", "auch", "als", "wenn", "ob", "um", "an", "am", "im", "in", "zu", "bis", "durch", "alle",
    "alles", "kein", "keine", "sein", "seine", "ihre", "ihren", "ihrem", "dies", "diese", "dieser",
    *FRAGEWOERTER,
))


def snippet(text: str, needle: str | None, *, width: int = SNIPPET) -> str:
    """A short excerpt around the first match (or the start), on one line."""
    flat = " ".join((text or "").split())
    if not flat:
        return ""
    pos = flat.casefold().find(needle.casefold()) if needle else -1
    if pos < 0:
        return flat[: 2 * width] + ("…" if len(flat) > 2 * width else "")
    start, end = max(0, pos - width), min(len(flat), pos + len(needle or "") + width)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


@dataclass
class Treffer:
    """Where in an Akte the search found something."""

    akte_id: int
    fundstelle: str  # aktenzeichen, kurzrubrum, wegen, zusammenfassung, schlagwort, beteiligter,
    #                  dokument_titel, dokument_text, notiz
    text: str = ""
    dokument_id: int | None = None
    notiz_id: int | None = None
    titel: str | None = None
    begriff: str | None = None
    seite: int | None = None  # the page of an uploaded Dokument the text stands on
    semantisch: bool = False  # found by meaning, not by the words
    score: float = field(default=0.0, compare=False)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"fundstelle": self.fundstelle}
        if self.dokument_id is not None:
            out["dokument_id"] = str(self.dokument_id)
        if self.notiz_id is not None:
            out["notiz_id"] = str(self.notiz_id)
        if self.titel is not None:
            out["titel"] = self.titel
        if self.text:
            out["text"] = self.text
        if self.begriff:
            out["begriff"] = self.begriff
        if self.seite is not None:
            out["seite"] = self.seite
        if self.semantisch:
            out["semantisch"] = True
        return out


def matches(visible: QuerySet[Akte], term: str, *, dokumente_only: bool = False) -> Iterable[Treffer]:
    """Every place of the visible Akten that contains the term."""
    needle = term.casefold()
    if not dokumente_only:
        yield from _akte_fields(visible, term)
        for b in Beteiligter.objects.filter(akte__in=visible, name__icontains=term):
            yield Treffer(b.akte_id, "beteiligter", f"{b.get_rolle_display()}: {b.name}")
    for d in Dokument.objects.filter(Q(titel__icontains=term) | Q(inhalt__icontains=term), akte__in=visible):
        im_titel = needle in d.titel.casefold()
        folded = d.inhalt.casefold()  # offsets in the folded text (casefold may change lengths)
        seite = None if im_titel else seite_an(inhalt=folded, dateityp=d.dateityp, offset=folded.find(needle))
        yield Treffer(d.akte_id, "dokument_titel" if im_titel else "dokument_text",
                      "" if im_titel else snippet(d.inhalt, term), dokument_id=d.pk, titel=d.titel,
                      seite=seite)
    if dokumente_only:
        return
    for n in Notiz.objects.filter(Q(titel__icontains=term) | Q(inhalt__icontains=term), akte__in=visible):
        yield Treffer(n.akte_id, "notiz", snippet(n.inhalt, term), notiz_id=n.pk, titel=n.titel)


def _akte_fields(visible: QuerySet[Akte], term: str) -> Iterable[Treffer]:
    needle = term.casefold()
    for akte in visible.filter(
        Q(aktenzeichen__icontains=term) | Q(kurzrubrum__icontains=term) | Q(wegen__icontains=term)
        | Q(summary__icontains=term) | Q(tags__contains=[term])
    ):
        for feld in ("aktenzeichen", "kurzrubrum", "wegen"):
            if needle in getattr(akte, feld).casefold():
                yield Treffer(akte.pk, feld, getattr(akte, feld))
        if needle in akte.summary.casefold():
            yield Treffer(akte.pk, "zusammenfassung", snippet(akte.summary, term))
        if term in akte.tags:
            yield Treffer(akte.pk, "schlagwort", term)


def lexical(visible: QuerySet[Akte], query: str, *, dokumente_only: bool = False
            ) -> tuple[dict[int, list[Treffer]], list[int], bool]:
    """Hits per Akte, the Akten ranked (most distinct words, then most hits), and whether only
    single words matched (the phrase did not occur)."""
    treffer: dict[int, list[Treffer]] = {}
    begriffe: dict[int, set[str]] = {}
    for hit in matches(visible, query, dokumente_only=dokumente_only):
        treffer.setdefault(hit.akte_id, []).append(hit)
        begriffe.setdefault(hit.akte_id, set()).add(query)
    words = [w for w in (w.strip("?!.,;:()\"'„“") for w in query.split())
             if len(w) >= 3 and w.casefold() not in STOPWOERTER]
    nur_woerter = not treffer and len(words) > 1
    if nur_woerter:
        for word in words:
            for hit in matches(visible, word, dokumente_only=dokumente_only):
                hit.begriff = word
                treffer.setdefault(hit.akte_id, []).append(hit)
                begriffe.setdefault(hit.akte_id, set()).add(word)
    ranked = sorted(treffer, key=lambda pk: (-len(begriffe[pk]), -len(treffer[pk]), -pk))
    return treffer, ranked, nur_woerter and bool(treffer)
