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

import numpy as np
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

    @cached_property
    def lennorm_array(self) -> np.ndarray:
        return np.asarray(self.lennorm, dtype=np.float64)

    @cached_property
    def gesetz_id_array(self) -> np.ndarray:
        return np.frombuffer(self.gesetz_ids, dtype=np.int64)

    @cached_property
    def section_id_array(self) -> np.ndarray:
        return np.frombuffer(self.section_ids, dtype=np.uint32)

    def concept_hits_array(self, words: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
        """The positions any of the words occurs at, with the best field flags each has there."""
        found = [self.postings[word] for word in words if word in self.postings]
        if not found:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8)
        if len(found) == 1:
            positions, flags = found[0]
            return np.frombuffer(positions, dtype=np.uint32), np.frombuffer(flags, dtype=np.uint8)
        best = np.zeros(len(self.ids), dtype=np.uint8)
        for positions, flags in found:
            np.bitwise_or.at(best, np.frombuffer(positions, dtype=np.uint32),
                             np.frombuffer(flags, dtype=np.uint8))
        hit = np.nonzero(best)[0]
        return hit, best[hit]


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
    best scores of the same law (a question about tenancy lends weight to all tenancy norms).

    Vectorised over all norms (numpy): a long question's 48 concepts over 20,000 norms cost a few
    milliseconds, where a loop over their postings cost tens."""
    size = len(index.ids)
    scores = np.zeros(size)
    matched = np.zeros(size, dtype=np.int32)
    lennorm = index.lennorm_array
    base = np.array([weights.title * bool(f & TITLE_FLAG) + weights.structure * bool(f & STRUCTURE_FLAG)
                     + weights.register * bool(f & REGISTER_FLAG) for f in range(16)])
    for weight, words in concepts:
        hit, flags = index.concept_hits_array(words)
        if not len(hit):
            continue
        value = base[flags] + weights.text * lennorm[hit] * ((flags & TEXT_FLAG) > 0)
        scores[hit] += weight * value
        matched[hit] += 1
    # Coordination: a norm that answers more of the question's concepts is the better answer.
    mask = matched > 0
    total = max(len(concepts), 1)
    scores[mask] *= (matched[mask] / total) ** weights.coordination
    if gesetz_id is not None:
        mask &= index.gesetz_id_array == gesetz_id
    positions = np.nonzero(mask)[0]
    if not len(positions):
        return []
    for boost, groups in ((weights.law_boost, index.gesetz_id_array),
                          (weights.section_boost, index.section_id_array)):
        if boost:
            scores[positions] += boost * _group_scores(scores, positions, groups[positions])
    if len(positions) > limit:  # everything that ties with the last place stays in the running
        kth = np.partition(scores[positions], len(positions) - limit)[len(positions) - limit]
        positions = positions[scores[positions] >= kth]
    order = np.lexsort((positions, -scores[positions]))[:limit]  # by score, then by primary key
    return [(index.ids[int(pos)], float(scores[pos])) for pos in positions[order]]


def _group_scores(scores: np.ndarray, positions: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """For each position: the mean of the five best scores in its law or section (before boosting)."""
    best: dict[int, list[float]] = {}
    for group, score in zip(groups.tolist(), scores[positions].tolist(), strict=True):
        best.setdefault(group, []).append(score)
    group_score = {g: sum(sorted(values, reverse=True)[:5]) / 5 for g, values in best.items()}
    return np.array([group_score[g] for g in groups.tolist()])


def invalidate() -> None:
    _cache.invalidate()
