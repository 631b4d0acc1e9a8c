"""The emitter of a real run: every event stored first (the source of truth), then broadcast; the
guard warnings and run errors also go to the error log. And the end of a run that never reached
the loop."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from typing import Any

from django.conf import settings
from django.utils import timezone

from config.db_unavailable import ist_ausfall
from helena.agent.checkpoint import Suspended
from helena.agent.events import EVENT_TYPES, Emitter, Event, done_fields
from helena.infra.db import db
from helena.infra.errorlog import arecord_error
from helena.infra.timestamps import event_ts
from helena.models import AgentRun
from helena.runs.ending import run_ended
from helena.runs.events import writer

log = logging.getLogger(__name__)

# Warnings that mean a guard caught something going wrong (the error log shows them to the admin).
GUARD_CODES = frozenset({"tool_cap", "tool_call_format", "truncated", "stall"})


class PersistentEmitter(Emitter):
    """The loop's emitter for real runs: DB first (the source of truth), then the group.

    A run has one emitter while it executes, so it numbers the events itself (no lock or query
    per event); the unique (run, seq) constraint still refuses any second writer.

    emit() does not wait for the database: the loop's writer (_LoopWriter) stores what was emitted
    behind the run, in seq order, everything that piled up meanwhile in one INSERT, and the emitter
    broadcasts a batch only once it is stored. A client therefore never sees an event that is not in
    the database, and sees each run's events in order; the timestamp is the moment the event was
    stored. Text deltas that pile up behind the writer are joined into one event. A run calls
    flush() before it records its outcome, so a finished run has all its events stored. A failed
    write stops the emitter and is raised by the next emit() or flush(): nothing after it is stored
    or sent, so the seq stays without gaps (the sweep continues after the last stored one).
    """

    def __init__(self, *, run: AgentRun, next_seq: int | None = None) -> None:
        super().__init__(run_id=str(run.pk))
        self.run_pk = run.pk
        self.attempt = run.attempt  # its events are stored only while the run is in this attempt
        self.user_id = run.user_id
        self.conversation_id = run.conversation_id
        self.suppress: set[str] = set()
        self._seq: int | None = None if next_seq is None else next_seq - 1
        self._first_seq = 0  # seq of self.events[0]
        self._pending: list[Event] = []  # emitted, not yet handed to the writer
        self._in_flight = 0  # events the writer is storing
        self._written: asyncio.Event | None = None  # set while nothing is pending or in flight
        self.broadcasting: asyncio.Future[None] | None = None  # the writer's broadcast of the last batch
        self._failed: BaseException | None = None
        # Coalescing window for text deltas (settings.HELENA_STREAM_WINDOW_MS): the first delta after
        # a pause goes out at once, the ones that follow within the window wait and travel as one.
        self._window = settings.HELENA_STREAM_WINDOW_MS / 1000
        self._held: tuple[str, str] | None = None  # (type, joined deltas) waiting for the window
        self._held_timer: asyncio.TimerHandle | None = None
        self._delta_out_at = -math.inf  # loop time the last delta went to the writer

    async def emit(self, type: str, **data: Any) -> Event:
        if type in self.suppress:
            return Event(type=type, run_id=self.run_id, seq=0, ts="", data=data)
        if type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type!r}")
        self._raise_failure()
        if (type == "error" and data.get("code") != "cancelled") or (
                type == "warning" and data.get("code") in GUARD_CODES):
            await arecord_error(kind="run" if type == "error" else "guard", code=str(data.get("code", "")),
                                message=str(data.get("message", "")), run_id=self.run_pk,
                                user_id=self.user_id, unless_model_failed=type == "error")
        if self._seq is None:
            self._seq = await db(writer.next_seq, self.run_pk) - 1
        if type in ("text", "reasoning") and data.keys() == {"delta"} and self._window > 0:
            return self._delta(type, data["delta"])
        self._release_held()  # deltas held back go before this event
        return self._append(type, data)

    def _delta(self, type: str, delta: str) -> Event:
        """A text delta: at once after a pause, else held until the window closes, joined with the
        deltas that come meanwhile (one event, one row, one publish and one frame for all)."""
        loop = asyncio.get_running_loop()
        if self._held is not None and self._held[0] != type:
            self._release_held()
        if self._held is not None:
            self._held = (type, self._held[1] + delta)
        elif loop.time() - self._delta_out_at >= self._window:
            self._delta_out_at = loop.time()
            return self._append(type, {"delta": delta})
        else:
            self._held = (type, delta)
            self._held_timer = loop.call_at(self._delta_out_at + self._window, self._release_held)
        return Event(type=type, run_id=self.run_id, seq=0, ts="", data={"delta": delta})

    def _release_held(self) -> None:
        if self._held_timer is not None:
            self._held_timer.cancel()
            self._held_timer = None
        if self._held is None or self._failed is not None:
            self._held = None
            return
        (type, delta), self._held = self._held, None
        self._delta_out_at = asyncio.get_running_loop().time()
        self._append(type, {"delta": delta})

    def _append(self, type: str, data: dict[str, Any]) -> Event:
        assert self._seq is not None
        last = self._pending[-1] if self._pending else None
        if type in ("text", "reasoning") and last is not None and last.type == type \
                and data.keys() == {"delta"} and last.data.keys() == {"delta"}:
            # Deltas that arrive while the writer is busy travel as one: the client appends them
            # anyway, and each event costs an insert row and a broadcast.
            merged = dataclasses.replace(last, data={"delta": last.data["delta"] + data["delta"]})
            self._pending[-1] = self.events[-1] = merged
            return merged
        if not self.events:
            self._first_seq = self._seq + 1
        self._seq += 1
        # Until it is stored, the event carries the moment it was emitted.
        event = Event(type=type, run_id=self.run_id, seq=self._seq, ts=event_ts(),
                      data=data)
        self.events.append(event)
        self._pending.append(event)
        if self._written is None:
            self._written = asyncio.Event()
        self._written.clear()
        writer.writers.get().wake(self)
        return event

    @property
    def last_seq(self) -> int:
        """The seq of the last event emitted (after flush(): stored)."""
        return self._seq or 0

    async def flush(self) -> None:
        """Wait until every event emitted so far is stored and broadcast."""
        self._release_held()
        if self._pending:
            writer.writers.get().hurry()
        while True:
            if self._written is not None and not self._written.is_set():
                await self._written.wait()  # the writer is not the run's: a cancel does not stop it
            elif self.broadcasting is not None and not self.broadcasting.done():
                await asyncio.shield(self.broadcasting)
            else:
                break
        self._raise_failure()

    def _raise_failure(self) -> None:
        """A failed write ends this process's part in the run: Suspended when the run goes on from
        its checkpoint (taken over; the database gone), else an error."""
        if self._failed is None:
            return
        if isinstance(self._failed, writer.AttemptOver):
            raise Suspended("taken_over") from self._failed
        if ist_ausfall(self._failed):
            raise Suspended("database") from self._failed
        raise RuntimeError(f"Ereignisse des Laufs {self.run_id} konnten nicht gespeichert werden.") \
            from self._failed

    # The loop's writer calls these three.

    def take_pending(self) -> list[Event]:
        batch, self._pending = ([], []) if self._failed is not None else (self._pending, [])
        self._in_flight += len(batch)
        return batch

    def stored(self, batch: list[Event], stamps: list[str]) -> list[Event]:
        """The batch is in the database: the events with the moment they were stored."""
        stored = []
        for event, ts in zip(batch, stamps, strict=True):
            stored.append(Event(event.type, event.run_id, event.seq, ts, event.data))
            self.events[event.seq - self._first_seq] = stored[-1]
        self._settle(len(batch))
        return stored

    def write_failed(self, batch: list[Event], exc: BaseException) -> None:
        log.error("events %d–%d of run %s not stored", batch[0].seq, batch[-1].seq, self.run_id,
                  exc_info=exc)
        self._failed, self._pending = exc, []
        self._settle(len(batch))

    def _settle(self, count: int) -> None:
        self._in_flight -= count
        if self._written is not None and not self._pending and not self._in_flight:
            self._written.set()


async def finish_without_loop(*, run: AgentRun, reason: str, code: str, message: str) -> None:
    """End a run that never reached the loop (no model, cancelled while queued) properly."""
    emitter = PersistentEmitter(run=run)
    await emitter.emit("error", code=code, message=message)
    await emitter.emit("done", **done_fields(finish_reason=reason))
    await emitter.flush()
    status = AgentRun.Status.CANCELLED if reason == "cancelled" else AgentRun.Status.FAILED
    await db(
        AgentRun.objects.filter(pk=run.pk).update,
        status=status,
        finish_reason=reason,
        ended_at=timezone.now(),
        text=message if reason != "cancelled" else "",
    )
    await db(run_ended, run_pk=run.pk)
