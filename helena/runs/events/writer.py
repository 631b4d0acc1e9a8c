"""Storing a run's events (RunEvent, seq without gaps) and handing them to the broadcast.

One writer per event loop stores what all of its runs emitted meanwhile in one INSERT; the
timestamp clients see is the moment an event was stored.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from django.db import transaction

from helena.agent.events import Event
from helena.infra.loops import PerLoop
from helena.infra.timestamps import event_ts
from helena.models import AgentRun, RunEvent
from helena.runs.events.broadcast import publish_events
from helena.runs.events.storage import insert_events

if TYPE_CHECKING:
    from helena.runs.events.emitter import PersistentEmitter

log = logging.getLogger(__name__)


def next_seq(run_id: Any) -> int:
    last = RunEvent.objects.filter(run_id=run_id).order_by("-seq").values_list("seq", flat=True).first()
    return (last or 0) + 1


def persist_event(*, run_id: Any, type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Store one event with the next seq of its run and return it as sent to clients."""
    with transaction.atomic():
        AgentRun.objects.select_for_update().filter(pk=run_id).values("pk").first()  # serialise seq
        seq = next_seq(run_id)
        event = RunEvent.objects.create(run_id=run_id, seq=seq, type=type, payload=payload)
    return {"type": type, "run_id": str(run_id), "seq": seq, "ts": event_ts(event.created_at), **payload}


async def broadcast(*, conversation_id: int, events: list[dict[str, Any]]) -> None:
    """One run's stored events, in order, to the conversation's websockets (helena.runs.events.broadcast)."""
    try:
        await publish_events(conversation_id=conversation_id, events=events)
    except Exception:  # a broken broadcast must not break the run; clients catch up from the DB
        log.exception("broadcast failed")


class AttemptOver(Exception):
    """The run was taken over by another process: this one's events are no longer stored."""


Batch = tuple[Any, int, list[Event]]  # run id, the attempt that emitted them, events


async def store_events(run_id: Any, events: list[Event], attempt: int = 0) -> list[str] | None:
    """One run's batch of events in one statement; their timestamps as sent to clients (None: the
    run's attempt is over, nothing was stored)."""
    return (await store_many([(run_id, attempt, events)]))[0]


async def store_many(batches: list[Batch]) -> list[list[str] | None]:
    """Several runs' batches in one statement (all or nothing); per batch, the timestamps, or None
    for a run whose attempt is over (helena/runs/events/storage.py: fenced)."""
    rows = [(run_id, attempt, e.seq, e.type, e.data) for run_id, attempt, events in batches for e in events]
    stored = await insert_events(rows)
    ts = event_ts(stored.moment) if stored.moment is not None else ""
    return [[ts] * len(events) if str(run_id) in stored.runs else None for run_id, _, events in batches]


class _LoopWriter:
    """One per event loop: stores what all runs of the loop emitted meanwhile in one INSERT.

    A writer per run made one INSERT, one commit and one hop to a database thread per event: with
    50 runs streaming, 1,000 a second, and the events queued for the database threads (bench/
    stream_latency.py). One writer per loop stores one batch after the other, so each run's events
    are stored in seq order; a failed multi-run batch is retried run by run, so only the run whose
    events cannot be stored stops.
    """

    def __init__(self) -> None:
        self._waiting: dict[int, PersistentEmitter] = {}  # id(emitter) → emitter with pending events
        self._task: asyncio.Task[None] | None = None

    def wake(self, emitter: PersistentEmitter) -> None:
        self._waiting[id(emitter)] = emitter
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        while self._waiting:
            emitters, self._waiting = list(self._waiting.values()), {}
            batches = [(emitter, emitter.take_pending()) for emitter in emitters]
            batches = [(emitter, events) for emitter, events in batches if events]
            if not batches:
                continue
            if len(batches) > 1:
                try:
                    stamps = await store_many([(emitter.run_pk, emitter.attempt, events)
                                               for emitter, events in batches])
                except Exception:
                    log.warning("a batch of %d runs' events was not stored; storing run by run", len(batches),
                                exc_info=True)
                else:
                    for (emitter, events), times in zip(batches, stamps, strict=True):
                        _settle(emitter, events, times)
                    continue
            for emitter, events in batches:
                try:
                    times = await store_events(emitter.run_pk, events, emitter.attempt)
                except Exception as exc:
                    emitter.write_failed(events, exc)
                else:
                    _settle(emitter, events, times)


def _settle(emitter: PersistentEmitter, events: list[Event], times: list[str] | None) -> None:
    if times is None:
        emitter.write_failed(events, AttemptOver(f"run {emitter.run_id} was taken over"))
    else:
        emitter.stored(events, times)


writers: PerLoop[_LoopWriter] = PerLoop(lambda _loop: _LoopWriter())
