"""Storing a run's events (RunEvent, seq without gaps) and handing them to the broadcast.

One writer per event loop stores what all of its runs emitted meanwhile in one INSERT and
broadcasts it as one message; the timestamp clients see is the moment an event was stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from helena.agent.events import Event
from helena.infra.loops import PerLoop
from helena.infra.timestamps import event_ts
from helena.models import AgentRun, RunEvent
from helena.runs.events.broadcast import Batch as Stored
from helena.runs.events.broadcast import publish
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


async def broadcast(stored: list[Stored]) -> None:
    """Stored events of several runs, each run's in order, to the chat sockets (events.broadcast)."""
    try:
        await publish(stored)
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
    """One per event loop: stores what all runs of the loop emitted meanwhile in one INSERT and
    broadcasts it in one message.

    A writer per run made one INSERT, one commit and one hop to a database thread per event: with
    50 runs streaming, 1,000 a second, and the events queued for the database threads (bench/
    stream_latency.py). One writer per loop stores one batch after the other, so each run's events
    are stored in seq order; a failed multi-run batch is retried run by run, so only the run whose
    events cannot be stored stops. Under load (the last batch held several runs' events) batches
    start at most every HELENA_EVENT_BATCH_MS, so what the runs emit meanwhile goes together (with
    100 runs streaming, one batch and one message every few ms instead of one per event); a single
    run's events, and a run waiting for its own (flush), are stored at once.
    """

    def __init__(self) -> None:
        self._waiting: dict[int, PersistentEmitter] = {}  # id(emitter) → emitter with pending events
        self._task: asyncio.Task[None] | None = None
        self._window = settings.HELENA_EVENT_BATCH_MS / 1000
        self._started = -self._window  # loop time the last batch started
        self._shared = False  # the last batch held several runs' events: under load, batches wait
        self._hurry = asyncio.Event()  # a run waits for its events (its end): no pause before the next batch
        self._outbox: list[tuple[list[Stored], asyncio.Future[None]]] = []  # stored, to broadcast
        self._sender: asyncio.Task[None] | None = None

    def hurry(self) -> None:
        """Store what is pending without waiting for the window (a run's flush: its end, a save)."""
        self._hurry.set()

    def wake(self, emitter: PersistentEmitter) -> None:
        self._waiting[id(emitter)] = emitter
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            pause = self._started + self._window - loop.time() if self._shared else 0
            if pause > 0 and not self._hurry.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(pause):
                        await self._hurry.wait()
            self._hurry.clear()
            self._started = loop.time()
            emitters, self._waiting = list(self._waiting.values()), {}
            batches = [(emitter, emitter.take_pending()) for emitter in emitters]
            batches = [(emitter, events) for emitter, events in batches if events]
            if not batches:
                continue
            self._shared = len(batches) > 1
            # Before any emitter counts as written: its flush() then also waits for this broadcast.
            sent: asyncio.Future[None] = loop.create_future()
            for emitter, _ in batches:
                emitter.broadcasting = sent
            stored: list[tuple[PersistentEmitter, list[Event]]] = []
            if len(batches) > 1:
                try:
                    stamps = await store_many([(emitter.run_pk, emitter.attempt, events)
                                               for emitter, events in batches])
                except Exception:
                    log.warning("a batch of %d runs' events was not stored; storing run by run", len(batches),
                                exc_info=True)
                else:
                    stored = [(emitter, _settle(emitter, events, times))
                              for (emitter, events), times in zip(batches, stamps, strict=True)]
                    batches = []
            for emitter, events in batches:
                try:
                    times = await store_events(emitter.run_pk, events, emitter.attempt)
                except Exception as exc:
                    emitter.write_failed(events, exc)
                else:
                    stored.append((emitter, _settle(emitter, events, times)))
            self._broadcast([(emitter.conversation_id, [event.as_dict() for event in events])
                             for emitter, events in stored if events], sent)

    def _broadcast(self, stored: list[Stored], sent: asyncio.Future[None]) -> None:
        """Hand a stored batch to the one sender of this loop; `sent` resolves once it is out. The
        sender sends whatever piled up meanwhile in one message, so the runs' order holds and a
        Redis that hangs costs one timeout for everything waiting, not one per batch."""
        self._outbox.append((stored, sent))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send())

    async def _send(self) -> None:
        while self._outbox:
            waiting, self._outbox = self._outbox, []
            try:
                stored = [batch for batches, _ in waiting for batch in batches]
                if stored:
                    await broadcast(stored)
            finally:
                for _, sent in waiting:
                    if not sent.done():
                        sent.set_result(None)


def _settle(emitter: PersistentEmitter, events: list[Event], times: list[str] | None) -> list[Event]:
    """The events as stored (with their timestamps); none when the run's attempt is over."""
    if times is None:
        emitter.write_failed(events, AttemptOver(f"run {emitter.run_id} was taken over"))
        return []
    return emitter.stored(events, times)


writers: PerLoop[_LoopWriter] = PerLoop(lambda _loop: _LoopWriter())
