"""Semantic ranking of the norms: their sentence vectors as one in-memory matrix per process.

PostgreSQL keeps each norm's vector (Norm.vektor, float16); a question is one matrix product over
all of them (about 9,400 × 384: a few milliseconds), so no vector extension is needed in the
database — the embedded PostgreSQL of `make run` could not load pgvector anyway. The matrix is
rebuilt like the lexical index when the norms change (helena/knowledge/cache.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db import connection

from helena.knowledge.cache import TableCache
from helena.knowledge.embeddings import DIM


@dataclass
class DenseIndex:
    """The norms' vectors centred on their mean: a multilingual model's vectors share a large common
    part, and norms near it (long, generic ones) turn up as neighbours of every question ("hubs");
    centring lifted the semantic ranking's recall@5 on the development questions (57.8 → 58.8 %) and
    the fused one's (89.2 → 90.2 %); the held-out questions were only checked (37.5 → 40.9 %)."""

    ids: np.ndarray  # norm primary keys, by row
    gesetz_ids: np.ndarray
    matrix: np.ndarray  # float32, one unit vector per row, centred
    mean: np.ndarray | None = None  # what was taken off every row; taken off the question too

    def rank(self, vector: np.ndarray, *, gesetz_id: int | None = None,
             limit: int = 50) -> list[tuple[int, float]]:
        """The most similar norms as (primary key, cosine)."""
        if not len(self.ids):
            return []
        if self.mean is not None:
            vector = vector - self.mean
            vector = vector / (np.linalg.norm(vector) or 1.0)
        scores = self.matrix @ vector
        if gesetz_id is not None:
            scores = np.where(self.gesetz_ids == gesetz_id, scores, -np.inf)
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]


def _build() -> DenseIndex:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, gesetz_id, vektor FROM knowledge_norm WHERE vektor IS NOT NULL ORDER BY id")
        rows = cursor.fetchall()
    matrix = np.zeros((len(rows), DIM), dtype=np.float32)
    for row, (_, _, data) in enumerate(rows):
        matrix[row] = np.frombuffer(bytes(data), dtype="<f2")
    mean = matrix.mean(axis=0) if len(rows) > 1 else None
    if mean is not None:
        matrix -= mean
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-6)
    return DenseIndex(ids=np.array([r[0] for r in rows], dtype=np.int64),
                      gesetz_ids=np.array([r[1] for r in rows], dtype=np.int64), matrix=matrix, mean=mean)


_cache: TableCache[DenseIndex] = TableCache(table="knowledge_norm", build=_build)


def dense_index() -> DenseIndex:
    """The current matrix, rebuilt after an import changed the norms."""
    return _cache.get()


def invalidate() -> None:
    _cache.invalidate()
