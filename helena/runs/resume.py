"""A run that stopped in this process without an end: handed over (told to stop), lost to another
process, or waiting here for its database to come back.

How a run taken over goes on is in helena/runs/execute.py (`resume_run`): from its checkpoint
(helena/runs/claim.py `retaken`), the client told with a `resumed` event (a short German notice
and the answer text as of the checkpoint: what streamed after it is asked again, so no text shows
twice), its events going on in the same answer, exactly one `done` at the end.
"""

from __future__ import annotations

import asyncio
import logging

from helena.infra.db import db
from helena.models import AgentRun
from helena.runs.claim import Claimed, retaken
from helena.runs.durable import checkpoints, local
from helena.runs.events.emitter import PersistentEmitter

log = logging.getLogger(__name__)

# Waiting for the database after a run lost it: 0.5 s, doubling, at most 8 s a wait, 2 minutes in all.
DATABASE_WAITS = (0.5, 1, 2, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8)


async def suspended_here(*, run: AgentRun, emitter: PersistentEmitter, reason: str) -> Claimed | None:
    """The run stopped in this process without an end (helena/agent/checkpoint.py Suspended);
    the run to go on with here when it was the database that went away and came back."""
    if reason == "taken_over":
        log.warning("run %s: taken over by another process", run.pk)
        return None
    if reason == "handover":
        try:
            await emitter.flush()  # what it emitted is stored, so the next owner's events follow on
        except Exception:
            log.warning("run %s: events not stored before the handover", run.pk, exc_info=True)
        try:
            released = await db(checkpoints.release, run_pk=run.pk, attempt=run.attempt)
        except Exception:  # its heartbeat lapses instead: taken over a little later
            log.warning("run %s: not released; it is taken over once its heartbeat lapses", run.pk,
                        exc_info=True)
        else:
            log.warning("run %s handed over at step boundary: %s", run.pk, "ok" if released else "not ours")
        return None
    return await _wait_for_database(run)


async def _wait_for_database(run: AgentRun) -> Claimed | None:
    """The run lost its database: wait for it (with backoff, bounded) and go on from the
    checkpoint in this process. If it stays away, the run waits there: once it is back, the run's
    lapsed heartbeat lets any process take it over."""
    log.warning("run %s: database connection lost; waiting for it", run.pk)
    for wait in DATABASE_WAITS:
        await asyncio.sleep(wait)
        try:
            attempt = await db(checkpoints.retake, run_pk=run.pk, attempt=run.attempt, owner=local.owner())
        except Exception:
            continue
        if attempt is None:
            log.warning("run %s: taken over elsewhere while the database was away", run.pk)
            return None
        log.warning("run %s: database back, going on from the checkpoint", run.pk)
        return await db(retaken, run.pk, attempt, "database")
    log.error("run %s: the database stayed away; another process takes it over once it is back", run.pk)
    return None
