"""An in-memory copy of the norms' PostgreSQL search vectors, for ranking in a few milliseconds.

PostgreSQL stems the statutes (`german` configuration, generated `search` column) and stays the
source of truth; the GIN index serves decisions and templates. Ranking a natural question over
the statutes needs, per candidate norm and per concept of the question, "does it occur in the
title, the text or the structure path": evaluated row by row in SQL that costs 100–300 ms for a
long question, over these posting lists it costs a few. The copy is a few MB, built on first use
from the tsvectors themselves and rebuilt when the norms change (their count or highest id).
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from django.db import connection

from helena.knowledge.cache import TableCache

TITLE_FLAG, TEXT_FLAG, STRUCTURE_FLAG, REGISTER_FLAG = 1, 2, 4, 8
_WEIGHT_FLAGS = {"A": TITLE_FLAG, "B": TEXT_FLAG, "C": STRUCTURE_FLAG, "D": REGISTER_FLAG}
# 'lexeme':1A,5,7C — a position without a letter has weight D: the Sachregister keywords.
_ENTRY_RE = re.compile(r"'((?:[^']|'')+)'(?::([0-9A-D,]+))?")



@dataclass
class NormIndex:
    ids: array  # norm primary keys, by position
    gesetz_ids: array
    section_ids: array  # the norm's place in its statute (same Titel/Untertitel = same id)
    lennorm: list[float]  # 1 / (1 + ln(1 + length / average)): long norms count less per hit
    postings: dict[str, tuple[array, bytes]]  # lexeme → (positions, field flags)
    law_abks: dict[int, str] = field(default_factory=dict)  # gesetz id → abbreviation ("ZPO")

    @cached_property
    def _positions(self) -> dict[int, int]:
        return {pk: position for position, pk in enumerate(self.ids)}

    def law_of(self, pk: int) -> str:
        """The abbreviation of the norm's statute ("" for a norm newer than the index)."""
        position = self._positions.get(pk)
        return "" if position is None else self.law_abks.get(self.gesetz_ids[position], "")

    def concept_hits(self, words: Iterable[str]) -> dict[int, int]:
        """Position → the best field flags any of the words has there."""
        hits: dict[int, int] = {}
        get = hits.get
        for word in words:
            entry = self.postings.get(word)
            if entry is None:
                continue
            positions, flags = entry
            for pos, flag in zip(positions, flags, strict=True):
                hits[pos] = get(pos, 0) | flag
        return hits


def _parse(vector: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for match in _ENTRY_RE.finditer(vector):
        lexeme = match.group(1).replace("''", "'")
        flags = 0
        for position in (match.group(2) or "").split(","):
            if position:
                flags |= _WEIGHT_FLAGS[position[-1]] if position[-1].isalpha() else REGISTER_FLAG
        out[lexeme] = flags
    return out


def _build() -> NormIndex:
    ids, gesetz_ids, section_ids, lengths = array("q"), array("q"), array("I"), []
    sections: dict[tuple[int, str], int] = {}
    raw: dict[str, tuple[array, bytearray]] = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, gesetz_id, gliederung, length(search), search::text FROM knowledge_norm ORDER BY id"
        )
        for position, (pk, gesetz_id, gliederung, length, vector) in enumerate(cursor.fetchall()):
            ids.append(pk)
            gesetz_ids.append(gesetz_id)
            section_ids.append(sections.setdefault((gesetz_id, gliederung or ""), len(sections)))
            lengths.append(length or 0)
            for lexeme, flags in _parse(vector or "").items():
                entry = raw.get(lexeme)
                if entry is None:
                    entry = raw[lexeme] = (array("I"), bytearray())
                entry[0].append(position)
                entry[1].append(flags or REGISTER_FLAG)
        cursor.execute("SELECT id, abk FROM knowledge_gesetz")
        law_abks = dict(cursor.fetchall())
    average = (sum(lengths) / len(lengths)) if lengths else 1.0
    lennorm = [1.0 / (1.0 + math.log(1.0 + n / average)) for n in lengths]
    postings = {lexeme: (positions, bytes(flags)) for lexeme, (positions, flags) in raw.items()}
    return NormIndex(ids=ids, gesetz_ids=gesetz_ids, section_ids=section_ids,
                     lennorm=lennorm, postings=postings, law_abks=law_abks)


_cache: TableCache[NormIndex] = TableCache(table="knowledge_norm", build=_build)


def norm_index() -> NormIndex:
    """The current index, rebuilt after an import changed the norms."""
    return _cache.get()


@dataclass(frozen=True)
class Weights:
    title: float
    text: float
    structure: float
    law_boost: float
    register: float = 0.0
    section_boost: float = 0.0
    coordination: float = 0.5


def rank(
    index: NormIndex,
    concepts: Sequence[tuple[float, Sequence[str]]],
    *,
    weights: Weights,
    gesetz_id: int | None = None,
    limit: int = 10,
) -> list[tuple[int, float]]:
    """Top norms as (primary key, score): Σ concept weight × best field hit, plus a share of the
    best scores of the same law (a question about tenancy lends weight to all tenancy norms)."""
    scores: dict[int, float] = {}
    matched: dict[int, int] = {}
    get = scores.get
    lennorm = index.lennorm
    for weight, words in concepts:
        for pos, flags in index.concept_hits(words).items():
            matched[pos] = matched.get(pos, 0) + 1
            value = 0.0
            if flags & TITLE_FLAG:
                value += weights.title
            if flags & TEXT_FLAG:
                value += weights.text * lennorm[pos]
            if flags & STRUCTURE_FLAG:
                value += weights.structure
            if flags & REGISTER_FLAG:
                value += weights.register
            scores[pos] = get(pos, 0.0) + weight * value
    # Coordination: a norm that answers more of the question's concepts is the better answer.
    total = max(len(concepts), 1)
    scores = {pos: s * (matched[pos] / total) ** weights.coordination for pos, s in scores.items()}
    if gesetz_id is not None:
        scores = {pos: s for pos, s in scores.items() if index.gesetz_ids[pos] == gesetz_id}
    if not scores:
        return []
    for boost, groups in ((weights.law_boost, index.gesetz_ids), (weights.section_boost, index.section_ids)):
        if boost:
            scores = _group_boost(scores, groups, boost)
    top = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [(index.ids[pos], score) for pos, score in top]


def _group_boost(scores: dict[int, float], groups: array, boost: float) -> dict[int, float]:
    """Add a share of the mean of the five best scores in the norm's law or section."""
    best: dict[int, list[float]] = {}
    for pos, score in scores.items():
        best.setdefault(groups[pos], []).append(score)
    group_score = {g: sum(sorted(values, reverse=True)[:5]) / 5 for g, values in best.items()}
    return {pos: s + boost * group_score[groups[pos]] for pos, s in scores.items()}



def invalidate() -> None:
    _cache.invalidate()
