"""Executing an AgentRun: inline on a process-wide event loop, or in a Celery worker.

Both paths call `execute_run`, which owns the run from `running` to its end: it resolves the
model, builds the prompt, runs the loop with an emitter that persists every event (RunEvent,
seq without gaps) and then broadcasts it to the conversation's Channels group, and records the
outcome. A run survives the client going away: nothing here depends on a request.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import Coroutine
from datetime import timedelta
from decimal import Decimal
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import close_old_connections, transaction
from django.db.models import Sum
from django.utils import timezone

from helena.agent.context import prepare_run
from helena.agent.events import Emitter, Event
from helena.agent.loop import Limits, run_agent
from helena.llm.base import LLMError
from helena.models import AgentRun, HelenaSettings, LLMCall, Message, RunEvent

log = logging.getLogger(__name__)

CONTINUE_PROMPT = "Mach bitte im Hintergrund weiter, bis die Aufgabe erledigt ist."
DEADLINE_GRACE = timedelta(seconds=60)  # after timeout + grace, the sweep declares a run dead
CANCEL_POLL_SECONDS = 0.5


def group_name(conversation_id: int) -> str:
    return f"helena.conversation.{conversation_id}"


def limits_for(mode: str) -> Limits:
    """Loop limits from the admin settings (environment defaults until someone changes them)."""
    s = HelenaSettings.load()
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


def deadline_for(mode: str) -> Any:
    return timezone.now() + timedelta(seconds=limits_for(mode).timeout) + DEADLINE_GRACE


# --- events: persist, then broadcast ---------------------------------------------------------


def _next_seq(run_id: Any) -> int:
    last = RunEvent.objects.filter(run_id=run_id).order_by("-seq").values_list("seq", flat=True).first()
    return (last or 0) + 1


def persist_event(*, run_id: Any, type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Store one event with the next seq of its run and return it as sent to clients."""
    with transaction.atomic():
        AgentRun.objects.select_for_update().filter(pk=run_id).values("pk").first()  # serialise seq
        seq = _next_seq(run_id)
        event = RunEvent.objects.create(run_id=run_id, seq=seq, type=type, payload=payload)
    return {
        "type": type,
        "run_id": str(run_id),
        "seq": seq,
        "ts": event.created_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        **payload,
    }


async def broadcast(*, conversation_id: int, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(group_name(conversation_id), {"type": "helena.event", "event": event})
    except Exception:  # a broken broadcast must not break the run; clients catch up from the DB
        log.exception("broadcast failed")


def _store_event(*, run_id: Any, seq: int, type: str, payload: dict[str, Any]) -> dict[str, Any]:
    event = RunEvent.objects.create(run_id=run_id, seq=seq, type=type, payload=payload)
    return {"type": type, "run_id": str(run_id), "seq": seq,
            "ts": event.created_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"), **payload}


class PersistentEmitter(Emitter):
    """The loop's emitter for real runs: DB first (the source of truth), then the group.

    A run has one emitter while it executes, so it numbers the events itself (no lock or query
    per event); the unique (run, seq) constraint still refuses any second writer.
    """

    def __init__(self, *, run: AgentRun) -> None:
        super().__init__(run_id=str(run.pk))
        self.run_pk = run.pk
        self.conversation_id = run.conversation_id
        self.suppress: set[str] = set()
        self._seq: int | None = None

    async def emit(self, type: str, **data: Any) -> Event:
        if type in self.suppress:
            return Event(type=type, run_id=self.run_id, seq=0, ts="", data=data)
        if self._seq is None:
            self._seq = await sync_to_async(_next_seq)(self.run_pk) - 1
        self._seq += 1
        stored = await sync_to_async(_store_event)(run_id=self.run_pk, seq=self._seq, type=type, payload=data)
        event = Event(type=type, run_id=self.run_id, seq=stored["seq"], ts=stored["ts"], data=data)
        self.events.append(event)
        await broadcast(conversation_id=self.conversation_id, event=stored)
        return event


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
    status = AgentRun.Status.CANCELLED if reason == "cancelled" else AgentRun.Status.FAILED
    await AgentRun.objects.filter(pk=run.pk).aupdate(
        status=status,
        finish_reason=reason,
        ended_at=timezone.now(),
        text=message if reason != "cancelled" else "",
    )


# --- the run ------------------------------------------------------------------------------------


def _history(run: AgentRun) -> tuple[list[dict[str, Any]], str]:
    """Earlier messages of the conversation as chat turns (long ones summarised), and the question."""
    from helena.agent.history import history_for

    return history_for(conversation=run.conversation, run_id=run.pk)


def _redactor_for(run: AgentRun) -> Any:
    from helena.agent.pii import Redactor

    akte = run.conversation.akte if run.conversation.akte_id else None
    return Redactor.for_akte(akte)


def _first_contact(run: AgentRun) -> bool:
    return not AgentRun.objects.filter(user=run.user_id, created_at__lt=run.created_at).exists()


async def _watch_cancel(run_pk: Any, cancel: asyncio.Event) -> None:
    while not cancel.is_set():
        await asyncio.sleep(CANCEL_POLL_SECONDS)
        if await AgentRun.objects.filter(pk=run_pk, cancel_requested=True).aexists():
            cancel.set()


async def execute_run(run_id: Any) -> None:
    """Run one AgentRun to its end (idempotent: a run that is no longer queued is left alone)."""
    from helena.llm import router  # imported late: router reads admin settings per run

    mode = await AgentRun.objects.filter(pk=run_id).values_list("mode", flat=True).afirst()
    if mode is None:
        return
    deadline = await sync_to_async(deadline_for)(mode)
    claimed = await AgentRun.objects.filter(pk=run_id, status=AgentRun.Status.QUEUED).aupdate(
        status=AgentRun.Status.RUNNING, started_at=timezone.now(), deadline=deadline
    )
    if not claimed:
        return
    run = await AgentRun.objects.select_related("conversation", "user").aget(pk=run_id)
    if run.cancel_requested:
        await finish_without_loop(run=run, reason="cancelled", code="cancelled", message="Abgebrochen.")
        return
    cloud_allowed = await sync_to_async(router.is_cloud_allowed)()
    try:
        resolved = await router.resolve(tier=run.tier, cloud_allowed=cloud_allowed)
    except LLMError as exc:
        await finish_without_loop(run=run, reason="error", code=exc.code, message=str(exc))
        return
    await _run_loop(run=run, resolved=resolved, cloud_allowed=cloud_allowed)


async def _run_loop(*, run: AgentRun, resolved: Any, cloud_allowed: bool) -> None:
    from helena.agent.pii import RedactingModel
    from helena.llm import router
    from helena.llm.accounting import RecordingModel

    limits = await sync_to_async(limits_for)(run.mode)
    history, question = await sync_to_async(_history)(run)
    tools_setup = await sync_to_async(prepare_run)(
        user=run.user,
        question=question,
        history=history,
        akte_id=run.conversation.akte_id,
        first_contact=await sync_to_async(_first_contact)(run),
        run_id=str(run.pk),
        context_type=run.conversation.context_type,
        conversation_id=run.conversation_id,
    )
    messages = tools_setup.messages
    if run.answers_question_id and run.transcript:  # resumes after ask_user: ends with the answer
        messages = list(run.transcript)
    elif run.transcript:  # a continuation: carry on from where the inline run stopped
        messages = [*run.transcript, {"role": "user", "content": CONTINUE_PROMPT}]
    emitter = PersistentEmitter(run=run)
    cancel = asyncio.Event()
    watcher = asyncio.create_task(_watch_cancel(run.pk, cancel))
    tier = resolved.tier
    try:
        while True:
            model = resolved.model
            if resolved.fallback_note:
                await emitter.emit("warning", code="model_fallback", message=resolved.fallback_note)
            if resolved.provider == "openai":  # cloud: nothing identifying leaves the firm
                redactor = await sync_to_async(_redactor_for)(run)
                model = RedactingModel(model, redactor)
            model = RecordingModel(
                model,
                run_id=run.pk,
                user_id=run.user_id,
                tier=tier,
                context_type=run.conversation.context_type,
                price_in=resolved.price_in,
                price_out=resolved.price_out,
            )
            await AgentRun.objects.filter(pk=run.pk).aupdate(
                model=resolved.name, provider=resolved.provider, tier=tier
            )
            next_tier = await sync_to_async(router.escalate)(tier, cloud_allowed=cloud_allowed)
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
            )
            if result.finish_reason == "stall" and next_tier:
                await emitter.emit(
                    "warning",
                    code="escalation",
                    message=f"Helena kam nicht weiter; neuer Versuch mit Modellstufe {next_tier}.",
                )
                resolved = await router.resolve(tier=next_tier, cloud_allowed=cloud_allowed)
                tier = resolved.tier
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
    finally:
        watcher.cancel()
    await sync_to_async(_record_outcome)(run_pk=run.pk, result=result)


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
    ASGI process, answer within the request's lifetime or beyond it, and never block a request."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self.tasks: set[asyncio.Future] = set()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or not self._loop.is_running():
                loop = asyncio.new_event_loop()
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


def dispatch(run: AgentRun) -> None:
    """Start a committed run: inline on the runner, background on Celery."""
    if run.mode == AgentRun.Mode.INLINE:
        inline_runner.submit(_inline(run.pk))
        return
    from helena.tasks import run_in_background

    result = run_in_background.delay(str(run.pk))
    AgentRun.objects.filter(pk=run.pk).update(celery_task_id=result.id)


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
            event = persist_event(run_id=run.pk, type=type_, payload=payload)
            from asgiref.sync import async_to_sync

            async_to_sync(broadcast)(conversation_id=run.conversation_id, event=event)
    return len(stale)
