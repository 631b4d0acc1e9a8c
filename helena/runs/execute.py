"""Executing an AgentRun, inline or in a Celery worker: `execute_run` owns the run from `running` to
its end. It claims the run, reads what it needs (limits, tiers, history, the run's Privacy),
resolves the model, runs the loop with a PersistentEmitter, escalates a stalled run to the next
tier, and records the outcome. A run survives the client going away: nothing here depends on a
request. It survives its process, too: the loop keeps a checkpoint after every step, and a run
suspended (handed over, taken over, its database gone) goes on from it (helena/runs/resume.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from config.db_unavailable import ist_ausfall
from helena.agent.checkpoint import Checkpoint, Suspended
from helena.agent.events import done_fields, run_started_fields
from helena.agent.loop import AgentResult, run_agent
from helena.infra import loop_db
from helena.infra.db import db, run_context
from helena.infra.errorlog import arecord_error
from helena.infra.loops import PerLoop
from helena.llm import router  # imported late: router reads admin settings per run
from helena.llm.base import LLMError, Usage
from helena.llm.escalation import EscalatingModel
from helena.llm.wrappers.accounting import RecordingModel
from helena.models import AgentRun
from helena.runs.cancel import cancel_watch
from helena.runs.claim import Claimed, claim, retaken
from helena.runs.durable import checkpoints, local
from helena.runs.events.emitter import PersistentEmitter, finish_without_loop
from helena.runs.outcome import arecord_outcome, result_from_done
from helena.runs.resume import suspended_here
from helena.tools.executor import settle_audits

log = logging.getLogger(__name__)

CONTINUE_PROMPT = "Mach bitte im Hintergrund weiter, bis die Aufgabe erledigt ist."

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
    async with _claim_gates.get():
        claimed = await db(claim, run_id)
    if claimed is None:
        return
    await start(claimed)


async def resume_run(run_id: Any, attempt: int, cause: str = "crash") -> None:
    """Go on with a run this process has taken over (the watch gave it `attempt`)."""
    async with run_context():
        try:
            claimed = await db(retaken, run_id, attempt, cause)
        except Exception:
            log.exception("run %s could not be taken over", run_id)
            return
        if claimed is not None:
            await go_on(claimed)


async def go_on(claimed: Claimed) -> None:
    """A run taken over: its outcome recorded if its `done` was stored, ended if it cannot go on
    (too little time left, taken over too often), else on from its checkpoint."""
    run, resumption = claimed.run, claimed.resumption
    assert resumption is not None
    if resumption.done is not None:  # it ended; its process died before the end was recorded
        messages = [*_prompt(run, claimed)[0], *resumption.checkpoint.messages] if claimed.setup else []
        await arecord_outcome(run_pk=run.pk, attempt=run.attempt,
                              result=result_from_done(resumption.done, messages=messages))
    elif claimed.ended:
        await finish_without_loop(run=run, reason="error", code="run_lost", message=claimed.ended)
    else:
        log.warning("run %s goes on from step %d (attempt %d)", run.pk, resumption.checkpoint.steps,
                    run.attempt)
        if claimed.cause == "crash":  # the admin learns that a process dies (Fehlerprotokoll)
            await arecord_error(kind="run", code="run_taken_over", run_id=run.pk, user_id=run.user_id,
                                message=f"Der Prozess dieses Laufs ist ausgefallen (kein Lebenszeichen seit "
                                        f"15 s); ein anderer hat ihn nach Schritt "
                                        f"{resumption.checkpoint.steps} übernommen.")
        await start(claimed)


async def start(claimed: Claimed) -> None:
    """Run a claimed run (new or taken over) from its start or its checkpoint to its end."""
    run = claimed.run
    if claimed.setup is None:
        await finish_without_loop(run=run, reason="cancelled", code="cancelled", message="Abgebrochen.")
        return
    if run.task_type == AgentRun.BLANK_TASK:
        await _clarify(run=run, claimed=claimed)
        return
    resumption = claimed.resumption
    tier = resumption.tier if resumption is not None and resumption.tier else run.tier
    try:
        resolved = await router.resolve(tier=tier, cloud_allowed=claimed.opt_in,
                                        configs=claimed.configs, privacy=claimed.privacy)
    except LLMError as exc:  # the lawyer reads the message; the admin the addresses (Fehlerprotokoll)
        await arecord_error(kind="model", code=exc.code,
                            message=f"{exc} ({exc.detail})" if exc.detail else str(exc),
                            run_id=run.pk, user_id=run.user_id, mode=run.mode)
        await finish_without_loop(run=run, reason="error", code=exc.code, message=str(exc))
        return
    await _run_loop(run=run, resolved=resolved, claimed=claimed)


CLARIFYING_QUESTION = ("Deine Nachricht war leer. Wobei kann ich dir helfen? Du kannst mich zum Beispiel "
                       "nach einer Frist, einer Akte, einer Vorschrift oder den Gebühren fragen.")


async def _clarify(*, run: AgentRun, claimed: Claimed) -> None:
    """The answer to a blank message: a short clarifying question, streamed and stored like any
    answer, without asking a model (there is nothing to ask it)."""
    emitter = PersistentEmitter(run=run, next_seq=claimed.next_seq)
    await emitter.emit("run_started", **run_started_fields(
        mode=run.mode, tier=run.tier, model="", provider="", max_steps=claimed.limits.max_steps, message=""))
    await emitter.emit("text", delta=CLARIFYING_QUESTION)
    await emitter.emit("done", **done_fields(finish_reason="stop", text=CLARIFYING_QUESTION))
    await emitter.flush()
    result = AgentResult(finish_reason="stop", text=CLARIFYING_QUESTION, usage=Usage(), steps=0,
                         messages=[{"role": "assistant", "content": CLARIFYING_QUESTION}])
    await arecord_outcome(run_pk=run.pk, result=result, attempt=run.attempt)


_SET_MODEL = f"UPDATE {AgentRun._meta.db_table} SET model = %s, provider = %s, tier = %s WHERE id = %s"


async def _set_model(run_pk: Any, resolved: Any, tier: int) -> None:
    """The model that serves the run, on its row (plain SQL: once per run and escalation)."""
    await loop_db.fetch(_SET_MODEL, [resolved.name, resolved.provider, tier, run_pk])


RESUMED = {  # the notice where the answer paused, by why it did
    "crash": "Helena macht weiter – der Prozess, der deine Anfrage bearbeitet hat, ist ausgefallen.",
    "handover": "Helena macht weiter – der Server wurde neu gestartet, ein anderer Prozess übernimmt.",
    "database": "Helena macht weiter – die Datenbank war kurz nicht erreichbar.",
}


def _prompt(run: AgentRun, claimed: Claimed) -> tuple[list[dict[str, Any]], str]:
    """The messages the loop starts from, and the question run_started shows."""
    assert claimed.setup is not None
    if run.answers_question_id and run.transcript:  # resumes after ask_user: ends with the answer
        return list(run.transcript), claimed.setup.question
    if run.transcript:  # a continuation: carry on from where the inline run stopped
        return [*run.transcript, {"role": "user", "content": CONTINUE_PROMPT}], ""
    return claimed.setup.messages, claimed.setup.question


async def _run_loop(*, run: AgentRun, resolved: Any, claimed: Claimed) -> None:
    limits, cloud_allowed, tools_setup = claimed.limits, claimed.cloud_allowed, claimed.setup
    assert tools_setup is not None
    messages, question = _prompt(run, claimed)
    emitter = PersistentEmitter(run=run, next_seq=claimed.next_seq)
    resume: Checkpoint | None = None
    if claimed.resumption is not None and claimed.next_seq > 1:  # the client saw part of it: go on
        resume = claimed.resumption.checkpoint
        await emitter.emit("resumed", message=RESUMED.get(claimed.cause, RESUMED["crash"]),
                           text=claimed.resumption.shown, attempt=run.attempt)
    cancel = asyncio.Event()
    cancel_watch.watch(run.pk, cancel)
    mine = local.register(run.pk, run.attempt)

    def book(resolved: Any) -> RecordingModel:
        return RecordingModel(resolved.model, run_id=run.pk, user_id=run.user_id, tier=resolved.tier,
                              context_type=run.conversation.context_type, price_in=resolved.price_in,
                              price_out=resolved.price_out,
                              defer_booking=True)  # the ledger row is written while the loop goes on

    model = EscalatingModel(resolved, book=book, opt_in=claimed.opt_in, cloud_allowed=cloud_allowed,
                            configs=claimed.configs, privacy=claimed.privacy)

    save = _SavePort(run=run, emitter=emitter, model=model,
                     reads=frozenset(t.name for t in tools_setup.tools if t.kind == "read"))
    tools_setup.ctx.audits = []  # the tool audit rows are awaited before the outcome, too
    suspended: Suspended | None = None
    try:
        while True:
            if model.resolved.fallback_note:
                await emitter.emit("warning", code="model_fallback", message=model.resolved.fallback_note)
            await _set_model(run.pk, model.resolved, model.tier)
            may_escalate = model.next_tier() is not None
            emitter.suppress = {"done"} if may_escalate else set()  # a stalled try is not the end
            result = await run_agent(
                model=model,
                messages=messages,
                tools=tools_setup.tools,
                ctx=tools_setup.ctx,
                execute=tools_setup.execute,
                known_names=tools_setup.known_names,
                emitter=emitter,
                mode=run.mode,
                tier=model.tier,
                limits=limits,
                cancel=cancel,
                question=question,
                answer_language=tools_setup.answer_language,
                save=save,
                resume=resume,
            )
            resume = None  # an escalated try starts from the prompt
            if result.finish_reason == "stall" and may_escalate:
                await emitter.emit("warning", code="escalation", message=(
                    f"Helena kam nicht weiter; neuer Versuch mit Modellstufe {model.next_tier()}."))
                await model.escalate()
                continue
            if emitter.suppress:
                emitter.suppress = set()
                await emitter.emit("done", **done_fields(
                    finish_reason=result.finish_reason, text=result.text,
                    prompt_tokens=result.usage.prompt_tokens,
                    completion_tokens=result.usage.completion_tokens,
                    cap_reached=result.cap_reached, continue_offered=result.continue_offered))
            break
        await save.settle()
        await emitter.flush()  # every event stored before the run counts as ended
    except (Exception, asyncio.CancelledError) as exc:
        suspended = _suspension(exc, mine)
        if suspended is None:
            local.forget(run.pk, mine)
            raise
    finally:
        cancel_watch.forget(run.pk)
        mine.settled = True  # what follows is its end or its handover: not to be cut short
        await save.abandon()
        await _settle(model=model, ctx=tools_setup.ctx)
    try:
        if suspended is None:
            try:
                await arecord_outcome(run_pk=run.pk, result=result, attempt=run.attempt)
                return
            except Exception as exc:  # its `done` is stored: once the database is back, that is recorded
                if not ist_ausfall(exc):
                    raise
                suspended = Suspended("database")
        again = await suspended_here(run=run, emitter=emitter, reason=suspended.reason)
        if again is not None:  # the database is back: on from the checkpoint (or its stored end), here
            local.forget(run.pk, mine)
            await go_on(again)
    finally:
        local.forget(run.pk, mine)


class _SavePort:
    """The loop's `save`: keeps a checkpoint once the events before it are stored (its seq says what
    the client has seen); stops the run when its process is handing its runs over.

    Only the checkpoint a resumed run must find before anything else happens is awaited: the one
    whose pending calls change something (a draft, a question, a plan — found again by their call
    ids) and any while the process drains. The others are written behind the loop, in order,
    while the next model call already runs (bench/agent_overhead.py: two awaited round trips per
    step were most of the loop's overhead). Should the process die before such a save lands, the
    run goes on from the one before: a step of reads is done again, which changes nothing. A failed
    or refused save stops the run at the next save or at its end (`settle`).
    """

    def __init__(self, *, run: AgentRun, emitter: PersistentEmitter, model: Any,
                 reads: frozenset[str]) -> None:
        self.run, self.emitter, self.model, self.reads = run, emitter, model, reads
        self.stored: list[Any] = []  # the messages stored so far (the same objects as the loop's)
        self.behind: asyncio.Task[None] | None = None

    async def __call__(self, checkpoint: Checkpoint) -> None:
        if self.behind is not None and self.behind.done():
            await self.settle()  # a refused or failed save stops the run here, not only at its end
        messages = checkpoint.messages
        stored = self.stored
        grows = bool(stored) and len(messages) >= len(stored) and messages[len(stored) - 1] is stored[-1]
        data = {**checkpoint.as_dict(messages=not grows), "seq": self.emitter.last_seq,
                "tier": self.model.tier}
        new = messages[len(stored):] if grows else None
        self.stored = list(messages)
        changes = checkpoint.pending and any(c.name not in self.reads for c in checkpoint.pending_calls())
        if changes or local.draining.is_set():
            await self.settle()
            await self._write(None, data, new)
            if local.draining.is_set():
                raise Suspended("handover")
            return
        # saves append to each other: this one after the one still on its way
        self.behind = asyncio.create_task(self._write(self.behind, data, new))

    async def _write(self, before: asyncio.Task[None] | None, data: dict[str, Any],
                     new: list[Any] | None) -> None:
        if before is not None:
            await before  # what stopped it stops this one, too
        await self.emitter.flush()
        try:
            kept = await db(checkpoints.save, run_pk=self.run.pk, attempt=self.run.attempt, data=data,
                            new_messages=new)
        except Exception as exc:
            if ist_ausfall(exc):
                raise Suspended("database") from exc
            raise
        if not kept:
            raise Suspended("taken_over")

    async def settle(self) -> None:
        """Wait for the save written behind the loop; raise what stopped it."""
        behind, self.behind = self.behind, None
        if behind is not None:
            await behind

    async def abandon(self) -> None:
        """The run stops anyway: let a save still on its way end, whatever it found."""
        behind, self.behind = self.behind, None
        if behind is not None:
            with contextlib.suppress(BaseException):
                await behind


def _suspension(exc: BaseException, mine: local.LocalRun) -> Suspended | None:
    """Why the run stops here without an end, or None when `exc` is a real failure (raised on)."""
    if isinstance(exc, Suspended):
        return exc
    if isinstance(exc, asyncio.CancelledError):  # cut short mid-step: taken over, or told to stop
        return Suspended("taken_over" if mine.lost else "handover") if mine.lost or local.draining.is_set() \
            else None
    return Suspended("database") if ist_ausfall(exc) else None


async def _settle(*, model: Any, ctx: Any) -> None:
    """What the run left behind the loop: ledger rows, audit rows, the last reads. A failure is
    logged, not raised: it must not hide why the run ended (or that it is going on elsewhere)."""
    for step in (model.settle, lambda: settle_audits(ctx), lambda: _record_last_reads(ctx), model.aclose):
        try:
            await step()
        except Exception:
            log.exception("Nacharbeit des Laufs fehlgeschlagen")


async def _record_last_reads(ctx: Any) -> None:
    """A step cut short (cancel, timeout) read too; its rows are stored here."""
    if ctx.record_reads is not None:
        await ctx.record_reads()
