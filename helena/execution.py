"""Executing an AgentRun: inline on a process-wide event loop, or in a Celery worker.

Both paths call `execute_run`, which owns the run from `running` to its end: it resolves the
model, builds the prompt, runs the loop with an emitter that persists every event (RunEvent,
seq without gaps) and then broadcasts it to the conversation's Channels group, and records the
outcome. A run survives the client going away: nothing here depends on a request.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import dataclasses
import logging
import threading
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections, transaction
from django.db.models import Sum
from django.utils import timezone

from helena.agent.context import RunSetup, prepare_run
from helena.agent.events import EVENT_TYPES, Emitter, Event
from helena.agent.loop import Limits, run_agent
from helena.aio import PerLoop, make_resident
from helena.broadcast import publish_events, publish_events_sync
from helena.db import db, release_connections, run_context
from helena.errorlog import arecord_error, record_error
from helena.event_store import insert_events
from helena.llm.base import LLMError
from helena.llm.http import aclose_model
from helena.models import AgentRun, HelenaSettings, LLMCall, Message, RunEvent
from helena.privacy import privacy_for
from helena.tools.executor import settle_audits

log = logging.getLogger(__name__)

# Warnings that mean a guard caught something going wrong (the error log shows them to the admin).
GUARD_CODES = frozenset({"tool_cap", "tool_call_format", "truncated", "stall"})
CONTINUE_PROMPT = "Mach bitte im Hintergrund weiter, bis die Aufgabe erledigt ist."
DEADLINE_GRACE = timedelta(seconds=60)  # after timeout + grace, the sweep declares a run dead
CANCEL_POLL_SECONDS = 0.5


def limits_for(mode: str, helena: HelenaSettings | None = None) -> Limits:
    """Loop limits from the admin settings (environment defaults until someone changes them);
    pass `helena` when it has just been loaded anyway."""
    s = helena or HelenaSettings.load()
    if mode == "background":
        return Limits(
            max_steps=s.background_max_steps,
            timeout=float(s.background_timeout_s),
            max_tool_calls_per_turn=s.max_tool_calls_per_turn,
        )
    return Limits(
        max_steps=s.inline_max_steps,
        timeout=float(s.inline_timeout_s),
        max_tool_calls_per_turn=s.max_tool_calls_per_turn,
    )


def deadline_for(mode: str, helena: HelenaSettings | None = None) -> Any:
    return timezone.now() + timedelta(seconds=limits_for(mode, helena).timeout) + DEADLINE_GRACE


# --- events: persist, then broadcast ---------------------------------------------------------


def _next_seq(run_id: Any) -> int:
    last = RunEvent.objects.filter(run_id=run_id).order_by("-seq").values_list("seq", flat=True).first()
    return (last or 0) + 1


def _ts(moment: datetime) -> str:
    """An event timestamp as clients get it (the API renders RunEvent.created_at the same way)."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def persist_event(*, run_id: Any, type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Store one event with the next seq of its run and return it as sent to clients."""
    with transaction.atomic():
        AgentRun.objects.select_for_update().filter(pk=run_id).values("pk").first()  # serialise seq
        seq = _next_seq(run_id)
        event = RunEvent.objects.create(run_id=run_id, seq=seq, type=type, payload=payload)
    return {"type": type, "run_id": str(run_id), "seq": seq, "ts": _ts(event.created_at), **payload}


async def broadcast(*, conversation_id: int, events: list[dict[str, Any]]) -> None:
    """One run's stored events, in order, to the conversation's websockets (helena.broadcast)."""
    try:
        await publish_events(conversation_id=conversation_id, events=events)
    except Exception:  # a broken broadcast must not break the run; clients catch up from the DB
        log.exception("broadcast failed")


async def _store_events(run_id: Any, events: list[Event]) -> list[str]:
    """One run's batch of events in one statement; their timestamps as sent to clients."""
    return (await _store_many([(run_id, events)]))[0]


async def _store_many(batches: list[tuple[Any, list[Event]]]) -> list[list[str]]:
    """Several runs' batches in one statement (all or nothing); per batch, the timestamps."""
    rows = [(run_id, e.seq, e.type, e.data) for run_id, events in batches for e in events]
    moment = await insert_events(rows)
    ts = _ts(moment)
    return [[ts] * len(events) for _, events in batches]


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
                    stamps = await _store_many([(emitter.run_pk, events) for emitter, events in batches])
                except Exception:
                    log.warning("a batch of %d runs' events was not stored; storing run by run", len(batches),
                                exc_info=True)
                else:
                    for (emitter, events), times in zip(batches, stamps, strict=True):
                        emitter.stored(events, times)
                    continue
            for emitter, events in batches:
                try:
                    times = await _store_events(emitter.run_pk, events)
                except Exception as exc:
                    emitter.write_failed(events, exc)
                else:
                    emitter.stored(events, times)


_writers: PerLoop[_LoopWriter] = PerLoop(lambda _loop: _LoopWriter())


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
        self.user_id = run.user_id
        self.conversation_id = run.conversation_id
        self.suppress: set[str] = set()
        self._seq: int | None = None if next_seq is None else next_seq - 1
        self._first_seq = 0  # seq of self.events[0]
        self._pending: list[Event] = []  # emitted, not yet handed to the writer
        self._in_flight = 0  # events the writer is storing
        self._written: asyncio.Event | None = None  # set while nothing is pending or in flight
        self._unsent: collections.deque[Event] = collections.deque()  # stored, not yet broadcast
        self._sender: asyncio.Task[None] | None = None
        self._failed: BaseException | None = None

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
        last = self._pending[-1] if self._pending else None
        if type in ("text", "reasoning") and last is not None and last.type == type \
                and data.keys() == {"delta"} and last.data.keys() == {"delta"}:
            # Deltas that arrive while the writer is busy travel as one: the client appends them
            # anyway, and each event costs an insert row and a broadcast.
            merged = dataclasses.replace(last, data={"delta": last.data["delta"] + data["delta"]})
            self._pending[-1] = self.events[-1] = merged
            return merged
        if self._seq is None:
            self._seq = await db(_next_seq, self.run_pk) - 1
        if not self.events:
            self._first_seq = self._seq + 1
        self._seq += 1
        # Until it is stored, the event carries the moment it was emitted.
        event = Event(type=type, run_id=self.run_id, seq=self._seq, ts=_ts(timezone.now()), data=data)
        self.events.append(event)
        self._pending.append(event)
        if self._written is None:
            self._written = asyncio.Event()
        self._written.clear()
        _writers.get().wake(self)
        return event

    async def flush(self) -> None:
        """Wait until every event emitted so far is stored and broadcast."""
        while True:
            if self._written is not None and not self._written.is_set():
                await self._written.wait()  # the writer is not the run's: a cancel does not stop it
            elif self._sender is not None and not self._sender.done():
                await asyncio.shield(self._sender)
            else:
                break
        self._raise_failure()

    def _raise_failure(self) -> None:
        if self._failed is not None:
            raise RuntimeError(f"Ereignisse des Laufs {self.run_id} konnten nicht gespeichert werden.") \
                from self._failed

    # The loop's writer calls these three.

    def take_pending(self) -> list[Event]:
        batch, self._pending = ([], []) if self._failed is not None else (self._pending, [])
        self._in_flight += len(batch)
        return batch

    def stored(self, batch: list[Event], stamps: list[str]) -> None:
        for event, ts in zip(batch, stamps, strict=True):
            stored = dataclasses.replace(event, ts=ts)
            self.events[event.seq - self._first_seq] = stored
            self._unsent.append(stored)
        self._settle(len(batch))
        # Broadcast in a task of its own, so the next batch is stored meanwhile; one sender per
        # run keeps the order.
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send())

    def write_failed(self, batch: list[Event], exc: BaseException) -> None:
        log.error("events %d–%d of run %s not stored", batch[0].seq, batch[-1].seq, self.run_id,
                  exc_info=exc)
        self._failed, self._pending = exc, []
        self._settle(len(batch))

    def _settle(self, count: int) -> None:
        self._in_flight -= count
        if self._written is not None and not self._pending and not self._in_flight:
            self._written.set()

    async def _send(self) -> None:
        while self._unsent:
            events = [event.as_dict() for event in self._unsent]
            self._unsent.clear()
            await broadcast(conversation_id=self.conversation_id, events=events)


async def finish_without_loop(*, run: AgentRun, reason: str, code: str, message: str) -> None:
    """End a run that never reached the loop (no model, cancelled while queued) properly."""
    emitter = PersistentEmitter(run=run)
    await emitter.emit("error", code=code, message=message)
    await emitter.emit(
        "done",
        finish_reason=reason,
        text="",
        usage={"prompt_tokens": 0, "completion_tokens": 0},
        cap_reached=False,
        continue_offered=False,
    )
    await emitter.flush()
    status = AgentRun.Status.CANCELLED if reason == "cancelled" else AgentRun.Status.FAILED
    await db(
        AgentRun.objects.filter(pk=run.pk).update,
        status=status,
        finish_reason=reason,
        ended_at=timezone.now(),
        text=message if reason != "cancelled" else "",
    )


# --- the run ------------------------------------------------------------------------------------


def _history(run: AgentRun, privacy: Any) -> tuple[list[dict[str, Any]], str]:
    """Earlier messages of the conversation as chat turns (long ones summarised), and the question."""
    from helena.agent.history import history_for

    return history_for(conversation=run.conversation, run_id=run.pk, privacy=privacy)


def _first_contact(run: AgentRun) -> bool:
    return not AgentRun.objects.filter(user=run.user_id, created_at__lt=run.created_at).exists()


class _CancelWatch:
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


_cancel_watch = _CancelWatch()


@dataclasses.dataclass
class _Claimed:
    """A run taken from the queue, with everything its start needs (read in one database trip)."""

    run: AgentRun
    limits: Limits
    configs: dict[int, Any]  # router.TierConfig per tier
    cloud_allowed: bool  # tier 3 may serve (configured, and internal or opted in)
    opt_in: bool  # the firm's cloud opt-in: without it no call reaches a cloud endpoint on any tier
    privacy: Any  # helena.llm.pii.Privacy: the run's redaction for every cloud call it makes
    setup: RunSetup | None  # None when the run is to be cancelled before it starts
    next_seq: int = 1  # of the run's next event


def _claim(run_id: Any) -> _Claimed | None:
    """Set a queued run to running and read what it needs; None if it is gone or not queued."""
    from helena.llm import router  # imported late: router reads admin settings per run

    mode = AgentRun.objects.filter(pk=run_id).values_list("mode", flat=True).first()
    if mode is None:
        return None
    helena = HelenaSettings.load()
    limits = limits_for(mode, helena)
    claimed = AgentRun.objects.filter(pk=run_id, status=AgentRun.Status.QUEUED).update(
        status=AgentRun.Status.RUNNING, started_at=timezone.now(), deadline=deadline_for(mode, helena)
    )
    if not claimed:
        return None
    run = AgentRun.objects.select_related("conversation", "user").get(pk=run_id)
    configs = router.tier_configs()
    setup = None
    sources: list[Any] = []  # what the run's tools read, learned before each model call
    privacy = privacy_for(user=run.user, conversation_id=run.conversation_id,
                          akte_id=run.conversation.akte_id, sources=sources)
    if not run.cancel_requested:
        history, question = _history(run, privacy)
        setup = prepare_run(
            user=run.user,
            question=question,
            history=history,
            akte_id=run.conversation.akte_id,
            first_contact=_first_contact(run),
            run_id=str(run.pk),
            context_type=run.conversation.context_type,
            conversation_id=run.conversation_id,
        )
        setup.ctx.sources = sources
        setup.ctx.privacy = privacy
    return _Claimed(run=run, limits=limits, configs=configs,
                    cloud_allowed=router.is_cloud_allowed(helena=helena, configs=configs),
                    opt_in=bool(helena.cloud_allowed), privacy=privacy, setup=setup,
                    next_seq=_next_seq(run.pk))


CONCURRENT_CLAIMS = 2
# At most CONCURRENT_CLAIMS runs of a loop read their start-up data at once. A run's start is ~10 ms
# of ORM work on a database thread. Fifty runs starting together kept all database threads busy
# with it, and the runs already streaming waited for the GIL behind them: their tokens reached the
# chat hundreds of ms late (bench/stream_latency.py). In a queue the starts take as long in all,
# and the streams keep flowing.
_claim_gates: PerLoop[asyncio.Semaphore] = PerLoop(lambda _loop: asyncio.Semaphore(CONCURRENT_CLAIMS))


async def execute_run(run_id: Any) -> None:
    """Run one AgentRun to its end (idempotent: a run that is no longer queued is left alone)."""
    async with run_context():  # the tools' database calls on a thread of this run's own
        await _execute(run_id)


async def _execute(run_id: Any) -> None:
    from helena.llm import router

    async with _claim_gates.get():
        claimed = await db(_claim, run_id)
    if claimed is None:
        return
    run = claimed.run
    if claimed.setup is None:
        await finish_without_loop(run=run, reason="cancelled", code="cancelled", message="Abgebrochen.")
        return
    try:
        resolved = await router.resolve(tier=run.tier, cloud_allowed=claimed.opt_in,
                                        configs=claimed.configs, privacy=claimed.privacy)
    except LLMError as exc:
        await finish_without_loop(run=run, reason="error", code=exc.code, message=str(exc))
        return
    await _run_loop(run=run, resolved=resolved, claimed=claimed)


def _set_model(run_pk: Any, resolved: Any, tier: int) -> None:
    AgentRun.objects.filter(pk=run_pk).update(model=resolved.name, provider=resolved.provider, tier=tier)


async def _run_loop(*, run: AgentRun, resolved: Any, claimed: _Claimed) -> None:
    from helena.llm import router
    from helena.llm.accounting import RecordingModel

    limits, cloud_allowed, tools_setup = claimed.limits, claimed.cloud_allowed, claimed.setup
    assert tools_setup is not None
    messages = tools_setup.messages
    question = tools_setup.question  # shown with run_started; a continuation answers no new message
    if run.answers_question_id and run.transcript:  # resumes after ask_user: ends with the answer
        messages = list(run.transcript)
    elif run.transcript:  # a continuation: carry on from where the inline run stopped
        messages = [*run.transcript, {"role": "user", "content": CONTINUE_PROMPT}]
        question = ""
    emitter = PersistentEmitter(run=run, next_seq=claimed.next_seq)
    cancel = asyncio.Event()
    _cancel_watch.watch(run.pk, cancel)
    tier = resolved.tier
    configured = router.usable_tiers(claimed.configs, cloud_allowed=claimed.opt_in)
    models = [resolved.model]  # their connections are closed when the run ends
    recorders: list[RecordingModel] = []  # their ledger rows are awaited before the outcome
    tools_setup.ctx.audits = []  # the tool audit rows too
    try:
        while True:
            model = resolved.model
            if resolved.fallback_note:
                await emitter.emit("warning", code="model_fallback", message=resolved.fallback_note)
            model = RecordingModel(
                model,
                run_id=run.pk,
                user_id=run.user_id,
                tier=tier,
                context_type=run.conversation.context_type,
                price_in=resolved.price_in,
                price_out=resolved.price_out,
                defer_booking=True,  # the ledger row is written while the loop goes on
            )
            recorders.append(model)
            await db(_set_model, run.pk, resolved, tier)
            next_tier = router.escalate(tier, cloud_allowed=cloud_allowed, configured=configured)
            emitter.suppress = {"done"} if next_tier else set()
            result = await run_agent(
                model=model,
                messages=messages,
                tools=tools_setup.tools,
                ctx=tools_setup.ctx,
                emitter=emitter,
                mode=run.mode,
                tier=tier,
                limits=limits,
                cancel=cancel,
                question=question,
            )
            if result.finish_reason == "stall" and next_tier:
                await emitter.emit(
                    "warning",
                    code="escalation",
                    message=f"Helena kam nicht weiter; neuer Versuch mit Modellstufe {next_tier}.",
                )
                resolved = await router.resolve(tier=next_tier, cloud_allowed=claimed.opt_in,
                                                privacy=claimed.privacy)
                models.append(resolved.model)
                tier = resolved.tier
                configured = router.usable_tiers(await db(router.tier_configs), cloud_allowed=claimed.opt_in)
                continue
            if emitter.suppress:
                emitter.suppress = set()
                await emitter.emit(
                    "done",
                    finish_reason=result.finish_reason,
                    text=result.text,
                    usage={
                        "prompt_tokens": result.usage.prompt_tokens,
                        "completion_tokens": result.usage.completion_tokens,
                    },
                    cap_reached=result.cap_reached,
                    continue_offered=result.continue_offered,
                )
            break
        await emitter.flush()  # every event stored before the run counts as ended
    finally:
        _cancel_watch.forget(run.pk)
        for recorder in recorders:
            await recorder.settle()  # _record_outcome sums the ledger rows
        await settle_audits(tools_setup.ctx)
        for used in models:
            await aclose_model(used)
    await db(_record_outcome, run_pk=run.pk, result=result)


def _record_outcome(*, run_pk: Any, result: Any) -> None:
    status = {"cancelled": AgentRun.Status.CANCELLED, "error": AgentRun.Status.FAILED}.get(
        result.finish_reason, AgentRun.Status.FINISHED
    )
    totals = LLMCall.objects.filter(run_id=run_pk).aggregate(
        p=Sum("prompt_tokens"), c=Sum("completion_tokens"), cost=Sum("cost")
    )
    with transaction.atomic():
        run = AgentRun.objects.select_for_update().get(pk=run_pk)
        run.status = status
        run.finish_reason = result.finish_reason
        run.text = result.text
        run.prompt_tokens = totals["p"] or result.usage.prompt_tokens
        run.completion_tokens = totals["c"] or result.usage.completion_tokens
        run.cost = totals["cost"] or Decimal("0")
        run.transcript = result.messages
        run.ended_at = timezone.now()
        run.save()
        if result.text:
            Message.objects.create(
                conversation_id=run.conversation_id, role=Message.Role.ASSISTANT, text=result.text, run=run
            )


# --- inline: one event loop per process ------------------------------------------------------


class InlineRunner:
    """A daemon thread with its own asyncio loop: inline runs are tasks on it, so they live in the
    ASGI process, answer within the request's lifetime or beyond it, and never block a request.
    A Celery worker runs its background runs on its own one, too (helena.tasks)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self.tasks: set[asyncio.Future] = set()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or not self._loop.is_running():
                loop = asyncio.new_event_loop()
                make_resident(loop)
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                threading.Thread(target=serve, name="helena-inline-runs", daemon=True).start()
                ready.wait()
                self._loop = loop
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, Any]) -> Any:
        # A fresh context: the caller's (a request under daphne) points at an asgiref executor
        # that is gone once the response is sent; the run must not inherit it.
        future = contextvars.Context().run(asyncio.run_coroutine_threadsafe, coro, self._ensure())
        self.tasks.add(future)
        future.add_done_callback(self.tasks.discard)
        return future


inline_runner = InlineRunner()


async def _inline(run_id: Any) -> None:
    try:
        await execute_run(run_id)
    except Exception:
        log.exception("inline run %s failed", run_id)
    finally:
        await sync_to_async(close_old_connections)()


# Celery keeps a result backend (with its own Redis client) per thread and makes it on first use;
# every request runs on a thread of its own, so publishing from there made one per message. A few
# long-lived threads publish instead (more than one, so a slow broker does not queue every request).
_publisher = ThreadPoolExecutor(max_workers=4, thread_name_prefix="helena-publish")


def _publish(run_pk: Any) -> str:
    from helena.tasks import run_in_background

    return run_in_background.delay(str(run_pk)).id


def dispatch(run: AgentRun) -> None:
    """Start a committed run: inline on the runner, background on Celery."""
    if run.mode == AgentRun.Mode.INLINE:
        inline_runner.submit(_inline(run.pk))
        return
    task_id = _publisher.submit(_publish, run.pk).result()  # errors surface here, as before
    AgentRun.objects.filter(pk=run.pk).update(celery_task_id=task_id)


# --- the sweep ---------------------------------------------------------------------------------


def sweep_stale_runs() -> int:
    """Fail runs whose deadline passed while still queued/running (a worker died, a process
    restarted): they get an error and a done event, so no client waits forever."""
    stale = list(
        AgentRun.objects.filter(
            status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING], deadline__lt=timezone.now()
        )
    )
    message = (
        "Die Bearbeitung wurde unterbrochen (der ausführende Prozess ist ausgefallen). "
        "Bitte frag noch einmal."
    )
    for run in stale:
        with transaction.atomic():
            locked = (
                AgentRun.objects.select_for_update()
                .filter(pk=run.pk, status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING])
                .first()
            )
            if locked is None:
                continue
            locked.status = AgentRun.Status.FAILED
            locked.finish_reason = "error"
            locked.text = message
            locked.ended_at = timezone.now()
            locked.save()
        record_error(kind="run", code="run_lost", message=message, run_id=run.pk, user_id=run.user_id)
        stored = []
        for type_, payload in (
            ("error", {"code": "run_lost", "message": message}),
            (
                "done",
                {
                    "finish_reason": "error",
                    "text": message,
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0},
                    "cap_reached": False,
                    "continue_offered": False,
                },
            ),
        ):
            stored.append(persist_event(run_id=run.pk, type=type_, payload=payload))
        try:
            publish_events_sync(conversation_id=run.conversation_id, events=stored)
        except Exception:  # the clients' catch-up reads the stored events
            log.exception("broadcast of the sweep failed")
    return len(stale)
