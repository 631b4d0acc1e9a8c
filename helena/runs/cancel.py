"""Cancelling running runs: one thread per process reads the cancel flags of all its runs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Any

from helena.infra.db import release_connections
from helena.models import AgentRun

log = logging.getLogger(__name__)

CANCEL_POLL_SECONDS = 0.5


class CancelWatch:
    """The cancel flags of all runs executing in this process, read with one query per interval.

    One poll per run and interval made 200 queries a second at 100 runs, all competing with the
    runs' own database work; now it is one, from a thread of its own, and a flagged run's loop
    gets its cancel event set.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[Any, tuple[asyncio.AbstractEventLoop, asyncio.Event]] = {}
        self._busy = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, run_pk: Any, cancel: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            self._runs[run_pk] = (loop, cancel)
            if self._thread is None or not self._thread.is_alive():  # also after a fork
                self._thread = threading.Thread(target=self._serve, name="helena-cancel-watch", daemon=True)
                self._thread.start()
        self._busy.set()

    def forget(self, run_pk: Any) -> None:
        with self._lock:
            self._runs.pop(run_pk, None)

    def _serve(self) -> None:
        while True:
            with self._lock:
                if not self._runs:
                    self._busy.clear()
            self._busy.wait()
            time.sleep(CANCEL_POLL_SECONDS)
            with self._lock:
                watched = dict(self._runs)
            if not watched:
                continue
            try:
                flagged = list(
                    AgentRun.objects.filter(pk__in=list(watched), cancel_requested=True)
                    .values_list("pk", flat=True)
                )
            except Exception:  # the next round tries again; the loop's own timeout still holds
                log.exception("reading the cancel flags failed")
                flagged = []
            finally:
                release_connections()
            for pk in flagged:
                loop, cancel = watched[pk]
                with contextlib.suppress(RuntimeError):  # that run's loop has ended meanwhile
                    loop.call_soon_threadsafe(cancel.set)


cancel_watch = CancelWatch()
