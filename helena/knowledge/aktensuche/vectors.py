"""The Akten passages' vectors as one in-memory matrix per process, like the norms' (dense.py).

Scoping happens before ranking: rows of Akten the user may not see are masked out, so such a
passage can be neither a hit nor a neighbour. Memory: 384 float32 per passage (1.5 KB); a firm
with 100,000 passages holds ~150 MB per process (figures in bench/knowledge_search.py).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
from django.db import connection

from helena.knowledge.cache import TableCache
from helena.knowledge.embeddings import DIM
from helena.knowledge.models import AktenPassage

QUELLEN = tuple(AktenPassage.Quelle.values)


@dataclass(frozen=True)
class Nachbar:
    passage_id: int
    akte_id: int
    quelle: str
    quelle_id: int
    score: float


@dataclass
class PassagenIndex:
    ids: np.ndarray
    akte_ids: np.ndarray
    quellen: np.ndarray  # index into QUELLEN
    quelle_ids: np.ndarray
    matrix: np.ndarray

    def _allowed(self, akte_ids: Collection[int], quellen: Collection[str]) -> np.ndarray:
        """Which rows belong to these Akten (and sources): a lookup table by Akte id, O(rows)."""
        wanted = np.fromiter(akte_ids, dtype=np.int64)
        if not len(self.akte_ids) or not len(wanted):
            return np.zeros(len(self.akte_ids), dtype=bool)
        lookup = np.zeros(int(max(self.akte_ids.max(), wanted.max())) + 1, dtype=bool)
        lookup[wanted[wanted >= 0]] = True
        allowed = lookup[self.akte_ids]
        if set(quellen) != set(QUELLEN):
            allowed &= np.isin(self.quellen, [QUELLEN.index(q) for q in quellen])
        return allowed

    def covers_any(self, akte_ids: Collection[int]) -> bool:
        """Whether any of these Akten has a passage (else the question need not be embedded)."""
        return bool(self._allowed(akte_ids, QUELLEN).any())

    def rank(self, vector: np.ndarray, *, akte_ids: Collection[int], quellen: Collection[str] = QUELLEN,
             limit: int = 50, floor: float = 0.0, margin: float = 1.0) -> list[Nachbar]:
        """The passages most similar to the question, among the given Akten only: at least `floor`
        and at most `margin` below the best."""
        rows = np.flatnonzero(self._allowed(akte_ids, quellen))
        if not len(rows):
            return []
        # A few Akten: multiply only their rows; most of the firm: one product over all, then pick
        # (no copy of the matrix).
        few = len(rows) * 4 < len(self.ids)
        scores = self.matrix[rows] @ vector if few else (self.matrix @ vector)[rows]
        keep = scores >= max(floor, float(scores.max()) - margin)
        rows, scores = rows[keep], scores[keep]
        limit = min(limit, len(rows))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [Nachbar(int(self.ids[rows[i]]), int(self.akte_ids[rows[i]]), QUELLEN[self.quellen[rows[i]]],
                        int(self.quelle_ids[rows[i]]), float(scores[i])) for i in top]


def _build() -> PassagenIndex:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, akte_id, quelle, quelle_id, vektor FROM {AktenPassage._meta.db_table} "
                       "ORDER BY id")
        rows = cursor.fetchall()
    matrix = np.zeros((len(rows), DIM), dtype=np.float32)
    for row, (*_, data) in enumerate(rows):
        matrix[row] = np.frombuffer(bytes(data), dtype="<f2")
    return PassagenIndex(
        ids=np.array([r[0] for r in rows], dtype=np.int64),
        akte_ids=np.array([r[1] for r in rows], dtype=np.int64),
        quellen=np.array([QUELLEN.index(r[2]) for r in rows], dtype=np.int8),
        quelle_ids=np.array([r[3] for r in rows], dtype=np.int64),
        matrix=matrix,
    )


_cache: TableCache[PassagenIndex] = TableCache(table=AktenPassage._meta.db_table, build=_build)


def passagen_index() -> PassagenIndex:
    return _cache.get()


def invalidate() -> None:
    _cache.invalidate()
