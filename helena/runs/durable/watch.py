"""The watch: one thread per process that says its runs are alive and takes over the runs of
processes that are gone.

Every HEARTBEAT_SECONDS it writes one UPDATE for all of the process's runs (and learns which it no
longer owns: their tasks stop); where takeover is on (HELENA_RUN_TAKEOVER, on by default; daphne
takes inline runs, a Celery worker background runs; after twice the lapse either takes what the
other kind did not — no worker left, no daphne left), it
claims runs whose heartbeat lapsed for LAPSE_SECONDS or that were handed over, and resumes them on
the process's runner loop. A thread and not a task of the loop: a loop busy with fifty streams
still beats, and a run's process counts as gone only when it really is.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings

from helena.infra.db import release_connections
from helena.runs.durable import checkpoints, local

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0
LAPSE_SECONDS = 15.0  # a run without a heartbeat this long has lost its process
TAKE_AT_ONCE = 4  # runs one statement claims, so that processes starting together share them
TAKE_ROUNDS = 25  # statements a round makes at most (100 runs)
LOOP_ANSWERS_SECONDS = 2.0

ROLES: dict[str, dict[str, Any]] = {
    # modes taken after LAPSE_SECONDS, modes taken when handed over, after how long any mode
    "web": {"modes": ["inline"], "released": ["inline"], "late": 2 * LAPSE_SECONDS},
    "worker": {"modes": ["background"], "released": ["inline", "background"], "late": 2 * LAPSE_SECONDS},
}


class Watch:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.role: str | None = None  # None: heartbeat only (a process that serves no one, a test)
        self.taken: list[tuple[str, int, float]] = []  # (run id, attempt, monotonic time): for the bench
        # Starts a run taken over on the process's runner (helena/runs/dispatch.py sets it).
        self.resume: Callable[[str, int, str], Any] | None = None

    def start(self, *, role: str | None = None) -> None:
        """Run the watch in this process (again after a fork); with a role, take over runs too."""
        with self._lock:
            if role is not None:
                self.role = role
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="helena-run-watch", daemon=True)
                self._thread.start()

    @property
    def takes_over(self) -> bool:
        return bool(self.role) and settings.HELENA_RUN_TAKEOVER and not local.draining.is_set()

    def _serve(self) -> None:
        failing = False
        while True:
            time.sleep(HEARTBEAT_SECONDS * random.uniform(0.8, 1.0))  # processes do not beat in step
            try:
                self.beat()
                if self.takes_over:
                    self.take()
                if failing:
                    log.warning("run watch: the database answers again")
                failing = False
            except Exception as exc:  # the database is away: the runs wait for it, the next round retries
                if not failing:
                    log.warning("run watch: no heartbeat (%s)", exc)
                failing = True
            finally:
                release_connections()

    def beat(self) -> None:
        mine = {pk: run for pk, run in local.running().items() if _answers(run.loop)}
        if not mine:
            return
        lost = checkpoints.heartbeat(owner=local.owner(), runs=list(mine))
        for run_pk, run in mine.items():
            if run_pk in lost and not run.settled:
                log.warning("run %s was taken over by another process; stopping it here", run_pk)
                local.give_up(run_pk)

    def take(self) -> None:
        """Claim what is there to take, TAKE_AT_ONCE at a time, until nothing is left (a daphne that
        died with twenty runs leaves twenty) or this process is told to stop."""
        assert self.role is not None
        role = ROLES[self.role]
        for _round in range(TAKE_ROUNDS):
            if local.draining.is_set():
                return
            taken = checkpoints.take_over(owner=local.owner(), modes=role["modes"], released=role["released"],
                                          lapse=LAPSE_SECONDS, late=role["late"], limit=TAKE_AT_ONCE)
            for run_pk, attempt, cause in taken:
                log.warning("run %s: taking it over (attempt %d, %s)", run_pk, attempt, cause)
                self.taken.append((run_pk, attempt, time.monotonic()))
                if self.resume is not None:
                    self.resume(run_pk, attempt, cause)
            if len(taken) < TAKE_AT_ONCE:
                return


def _answers(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the runner loop still turns: a loop that is stuck (blocked, deadlocked) gets no
    heartbeat for its runs, so another process takes them over."""
    if loop.is_closed() or not loop.is_running():
        return False
    try:
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout=LOOP_ANSWERS_SECONDS)
    except Exception:
        log.warning("run watch: a runner loop did not answer within %.0f s", LOOP_ANSWERS_SECONDS)
        return False
    return True


watch = Watch()
