"""Executing an AgentRun, inline or in a Celery worker: `execute_run` owns the run from `running` to
its end. It claims the run, reads what it needs (limits, tiers, history, the run's Privacy),
resolves the model, runs the loop with a PersistentEmitter, escalates a stalled run to the next
tier, and records the outcome. A run survives the client going away: nothing here depends on a
request.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from helena.agent.events import done_fields, run_started_fields
from helena.agent.loop import AgentResult, Limits, run_agent
from helena.infra.db import db, run_context
from helena.infra.errorlog import arecord_error
from helena.infra.loops import PerLoop
from helena.llm import router  # imported late: router reads admin settings per run
from helena.llm.base import LLMError, Usage
from helena.llm.escalation import EscalatingModel
from helena.llm.pii.touched import privacy_for
from helena.llm.wrappers.accounting import RecordingModel
from helena.models import AgentRun, HelenaSettings, LLMCall, Message
from helena.runs.cancel import cancel_watch
from helena.runs.ending import run_ended
from helena.runs.events.emitter import PersistentEmitter, finish_without_loop
from helena.runs.events.writer import next_seq
from helena.runs.history import history_for
from helena.runs.setup import RunSetup, prepare_run
from helena.runs.step_limits import deadline_for, limits_for
from helena.tools.executor import settle_audits

log = logging.getLogger(__name__)

CONTINUE_PROMPT = "Mach bitte im Hintergrund weiter, bis die Aufgabe erledigt ist."


def _history(run: AgentRun, privacy: Any) -> tuple[list[dict[str, Any]], str]:
    """Earlier messages of the conversation as chat turns (long ones summarised), and the question."""
    return history_for(conversation=run.conversation, run_id=run.pk, privacy=privacy)


def _first_contact(run: AgentRun) -> bool:
    return not AgentRun.objects.filter(user=run.user_id, created_at__lt=run.created_at).exists()


@dataclasses.dataclass
class _Claimed:
    """A run taken from the queue, with everything its start needs (read in one database trip)."""

    run: AgentRun
    limits: Limits
    configs: dict[int, Any]  # router.TierConfig per tier
    cloud_allowed: bool  # tier 3 may serve (configured, and internal or opted in)
    opt_in: bool  # the firm's cloud opt-in: without it no call reaches a cloud endpoint on any tier
    privacy: Any  # helena.llm.pii.privacy.Privacy: the run's redaction for every cloud call it makes
    setup: RunSetup | None  # None when the run is to be cancelled before it starts
    next_seq: int = 1  # of the run's next event


def _claim(run_id: Any) -> _Claimed | None:
    """Set a queued run to running and read what it needs; None if it is gone or not queued."""
    mode = AgentRun.objects.filter(pk=run_id).values_list("mode", flat=True).first()
    if mode is None:
        return None
    helena = HelenaSettings.cached()
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
            answer_in_question_language=helena.antwort_in_sprache_der_frage,
        )
        setup.ctx.sources = sources
        setup.ctx.privacy = privacy
    return _Claimed(run=run, limits=limits, configs=configs,
                    cloud_allowed=router.is_cloud_allowed(helena=helena, configs=configs),
                    opt_in=bool(helena.cloud_allowed), privacy=privacy, setup=setup,
                    next_seq=next_seq(run.pk))


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
        claimed = await db(_claim, run_id)
    if claimed is None:
        return
    run = claimed.run
    if claimed.setup is None:
        await finish_without_loop(run=run, reason="cancelled", code="cancelled", message="Abgebrochen.")
        return
    if run.task_type == AgentRun.BLANK_TASK:
        await _clarify(run=run, claimed=claimed)
        return
    try:
        resolved = await router.resolve(tier=run.tier, cloud_allowed=claimed.opt_in,
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


async def _clarify(*, run: AgentRun, claimed: _Claimed) -> None:
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
    await db(_record_outcome, run_pk=run.pk, result=result)


def _set_model(run_pk: Any, resolved: Any, tier: int) -> None:
    AgentRun.objects.filter(pk=run_pk).update(model=resolved.name, provider=resolved.provider, tier=tier)


async def _run_loop(*, run: AgentRun, resolved: Any, claimed: _Claimed) -> None:
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
    cancel_watch.watch(run.pk, cancel)

    def book(resolved: Any) -> RecordingModel:
        return RecordingModel(resolved.model, run_id=run.pk, user_id=run.user_id, tier=resolved.tier,
                              context_type=run.conversation.context_type, price_in=resolved.price_in,
                              price_out=resolved.price_out,
                              defer_booking=True)  # the ledger row is written while the loop goes on

    model = EscalatingModel(resolved, book=book, opt_in=claimed.opt_in, cloud_allowed=cloud_allowed,
                            configs=claimed.configs, privacy=claimed.privacy)
    tools_setup.ctx.audits = []  # the tool audit rows are awaited before the outcome, too
    try:
        while True:
            if model.resolved.fallback_note:
                await emitter.emit("warning", code="model_fallback", message=model.resolved.fallback_note)
            await db(_set_model, run.pk, model.resolved, model.tier)
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
            )
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
        await emitter.flush()  # every event stored before the run counts as ended
    finally:
        cancel_watch.forget(run.pk)
        await model.settle()  # _record_outcome sums the ledger rows
        await settle_audits(tools_setup.ctx)
        await _record_last_reads(tools_setup.ctx)
        await model.aclose()
    await db(_record_outcome, run_pk=run.pk, result=result)


async def _record_last_reads(ctx: Any) -> None:
    """A step cut short (cancel, timeout) read too; its rows are stored here, and a failure is logged
    rather than hiding why the run ended."""
    if ctx.record_reads is None:
        return
    try:
        await ctx.record_reads()
    except Exception:
        log.exception("Lesezugriffe des Laufs nicht gespeichert")


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
    if run.mode == AgentRun.Mode.BACKGROUND:  # a task's run is one (auftraege.auftrag_geben); inline runs
        run_ended(run_pk=run_pk)  # save the query: a task given to Helena ends with its run
