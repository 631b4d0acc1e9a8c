"""A process-local copy of something built from a table, rebuilt when the table changed.

The lexicon and the norm postings are read many times per second and change only with an
import. Each process keeps one copy; it asks the table for its version (row count, highest id,
and the sum of the rows' xmin, which any UPDATE changes: a law updated in place keeps its rows' ids)
at most every RECHECK_SECONDS and rebuilds when that differs. Imports in the same process call
invalidate() so they are visible at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from django.db import connection

T = TypeVar("T")
RECHECK_SECONDS = 5.0


class TableCache(Generic[T]):
    def __init__(self, *, table: str, build: Callable[[], T]) -> None:
        self.table = table
        self.build = build
        self.recheck_seconds = RECHECK_SECONDS
        self._lock = threading.Lock()
        self._value: T | None = None
        self._version: tuple[int, int, int] | None = None
        self._checked_at = 0.0

    def _current_version(self) -> tuple[int, int, int]:
        # Every UPDATE raises the xmin sum; a VACUUM FREEZE changes it too: one needless rebuild.
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*), coalesce(max(id), 0), coalesce(sum(xmin::text::bigint), 0) "
                           f"FROM {self.table}")
            count, max_id, rows = cursor.fetchone()
        return int(count), int(max_id), int(rows)

    def get(self) -> T:
        value = self._value
        if value is not None and time.monotonic() - self._checked_at < self.recheck_seconds:
            return value
        version = self._current_version()
        self._checked_at = time.monotonic()
        if value is not None and version == self._version:
            return value
        with self._lock:
            if self._value is None or self._version != version:
                self._value, self._version = self.build(), version
            return self._value

    def invalidate(self) -> None:
        """Ask the table again on the next get()."""
        self._checked_at = 0.0
