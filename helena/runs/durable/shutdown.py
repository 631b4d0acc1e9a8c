"""A process told to stop (SIGTERM from systemd, a deploy, `make run`'s Ctrl-C) hands its runs over
instead of failing them or keeping the deploy waiting for minutes.

It takes no more runs, lets each running one reach its next step boundary — where the run keeps
its checkpoint, stops and releases itself (helena/runs/execute.py, resume.suspended_here) — and cuts
the runs still mid-step short after HELENA_HANDOVER_SECONDS: they go on from their last checkpoint,
the step they were in is done again. Another process takes a released run at once (the watch);
with none left, the first to start again does.

daphne calls `hand_over` from a Twisted "before shutdown" trigger (config/asgi.py), a Celery worker
from `worker_shutting_down` (config/celery.py), each before the process stops its loops.
"""

from __future__ import annotations

import logging
import sys
import time

from django.conf import settings

from helena.runs.durable import local

log = logging.getLogger(__name__)

RELEASE_SECONDS = 5.0  # for the runs cut short to store their events and release themselves
SETTLE_SECONDS = 0.3


def hand_over(timeout: float | None = None) -> int:
    """Hand this process's runs over; returns how many there were, once they are gone."""
    local.draining.set()
    time.sleep(SETTLE_SECONDS)  # a run being claimed or taken over right now is registered by then
    runs = local.running()
    if not runs:
        return 0
    wait = settings.HELENA_HANDOVER_SECONDS if timeout is None else timeout
    log.warning("told to stop: handing %d runs over at their next step boundary", len(runs))
    _wait_until_gone(wait)
    for run in local.running().values():
        if not run.settled:  # still mid-step: cut short, it goes on from its last checkpoint
            run.loop.call_soon_threadsafe(run.task.cancel)
    _wait_until_gone(RELEASE_SECONDS)
    left = local.running()
    if left:
        log.error("%d runs did not hand themselves over; they are taken over once their heartbeat "
                  "lapses", len(left))
    return len(runs)


def _wait_until_gone(seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while local.running() and time.monotonic() < deadline:
        time.sleep(0.05)


def hand_over_before_twisted_stops() -> None:
    """Under daphne: Twisted runs "before shutdown" triggers on SIGTERM and waits for the Deferreds
    they return, so the runs are handed over before the reactor and its loops stop."""
    if "twisted.internet.reactor" not in sys.modules:  # not daphne (a test importing the app)
        return
    from twisted.internet import reactor, threads  # noqa: PLC0415

    reactor.addSystemEventTrigger("before", "shutdown", lambda: threads.deferToThread(hand_over))
