"""The ports a run hands the agent core (helena/agent/tooling.py): ask the user, keep plans, a
second model, store the step's reads in the read log (akten.lesezugriffe). The core calls them; only
here do they touch the database and the router.

Database work goes through `sync_to_async` (thread-sensitive): inside a run that is the run's own
thread (helena.infra.db.run_context), under a test's async_to_sync the caller's, with its transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction
from django.utils import timezone

from akten.lesezugriffe.services import speichern
from config.db_unavailable import ist_ausfall
from helena.agent.checkpoint import Suspended
from helena.agent.planning import PlanBusy, PlanItem, PlanStatus
from helena.agent.tooling import ToolContext
from helena.llm import router
from helena.llm.wrappers.accounting import RecordingModel
from helena.llm.wrappers.base import booked_as, layer
from helena.models import AgentRun, Conversation, PendingQuestion, Plan


def ask_question(*, run_id: Any, call_id: str, question: str, answer_key: str | None,
                 plan_id: Any = None) -> PendingQuestion:
    """Persist the run's question; the conversation's next message will answer it. The same call
    asked again (a run resumed after its process died) gets the question it asked before."""
    if call_id:
        earlier = PendingQuestion.objects.filter(run_id=run_id, call_id=call_id).first()
        if earlier is not None:
            return earlier
    run = AgentRun.objects.select_related("conversation").get(pk=run_id)
    asked_before = PendingQuestion.objects.filter(conversation=run.conversation).count()
    key = (answer_key or "").strip() or f"antwort_{asked_before + 1}"
    with transaction.atomic():
        # A newer question replaces an older open one: the user can only answer one at a time.
        PendingQuestion.objects.filter(conversation=run.conversation, answered_at__isnull=True,
                                       expired_at__isnull=True).update(expired_at=timezone.now())
        return PendingQuestion.objects.create(conversation=run.conversation, run=run, call_id=call_id,
                                              question=question, answer_key=key[:100], plan_id=plan_id)


@dataclass
class PlanStore:
    """The plans of one run's conversation (helena.agent.planning.PlanStore)."""

    run_id: Any
    conversation_id: Any

    def _open(self) -> Plan | None:
        return (Plan.objects.filter(conversation_id=self.conversation_id)
                .exclude(status__in=PlanStatus.CLOSED).order_by("-created_at").first())

    async def open_plan(self) -> Plan | None:
        return await sync_to_async(self._open)()

    def _create(self, *, objective: str, execution_mode: str, requested_outputs: list[str],
                priority_entities: list[str], status: str, items: list[PlanItem]) -> Plan:
        run = AgentRun.objects.filter(pk=self.run_id).only("conversation_id", "context_type").first()
        with transaction.atomic():
            if run is not None:  # a new plan replaces an unfinished one of this conversation
                Plan.objects.filter(conversation_id=run.conversation_id).exclude(
                    status__in=PlanStatus.CLOSED).update(status=PlanStatus.SUPERSEDED)
            return Plan.objects.create(
                conversation_id=run.conversation_id if run else None, run=run, objective=objective,
                execution_mode=execution_mode, requested_outputs=requested_outputs,
                priority_entities=priority_entities, context_type=run.context_type if run else "",
                status=status, items=[i.as_dict() for i in items],
            )

    async def create(self, **fields: Any) -> Plan:
        return await sync_to_async(self._create)(**fields)

    async def save(self, plan: Plan, items: list[PlanItem], **changes: Any) -> None:
        await sync_to_async(save_plan)(plan, items, **changes)

    def _answers(self) -> dict[str, Any]:
        stored = Conversation.objects.filter(pk=self.conversation_id).values_list("answers", flat=True)
        return stored.first() or {}

    async def answers(self) -> dict[str, Any]:
        return await sync_to_async(self._answers)()


def save_plan(plan: Plan, items: list[PlanItem], **changes: Any) -> None:
    """Write items (and e.g. status) only if nobody else did since we read `plan.version`."""
    values = {"items": [i.as_dict() for i in items], **changes}
    updated = Plan.objects.filter(pk=plan.pk, version=plan.version).update(version=plan.version + 1, **values)
    if not updated:
        raise PlanBusy
    plan.version += 1
    plan.items = values["items"]
    for key, value in changes.items():
        setattr(plan, key, value)


def _model_at_least(model: Any, privacy: Any, tier: int, operation: str) -> Any:
    """A model of at least `tier` for a side call of the run, booked as `operation`: the run's own
    if it is that good (or nothing better is configured), else the tier's, redacted like the run's."""
    recording = layer(model, RecordingModel)
    if recording is None or recording.tier >= tier:
        return booked_as(model, operation)
    found = router.get_model_for_tier(tier, privacy=privacy)
    if found is None:
        return booked_as(model, operation)
    model, config = found
    return RecordingModel(model, run_id=recording.run_id, user_id=recording.user_id, tier=tier,
                          operation=operation, context_type=recording.context_type,
                          price_in=config.price_in, price_out=config.price_out)


def attach(ctx: ToolContext) -> ToolContext:
    """Give a run's context its ports (a context without a run keeps none: meta tools then say so)."""
    if ctx.run_id is None:
        return ctx

    async def ask(*, call_id: str, question: str, answer_key: str | None, plan_id: Any = None) -> str:
        stored = await sync_to_async(ask_question)(run_id=ctx.run_id, call_id=call_id, question=question,
                                                   answer_key=answer_key, plan_id=plan_id)
        return stored.answer_key

    async def model_at_least(model: Any, tier: int, operation: str) -> Any:
        return await sync_to_async(_model_at_least)(model, ctx.privacy, tier, operation)

    async def record_reads() -> None:
        batch, ctx.reads[:] = list(ctx.reads), []
        if not batch:
            return
        try:
            await sync_to_async(speichern)(user=ctx.user, lesungen=batch, run_id=ctx.run_id)
        except Exception as exc:  # the database went away: the run waits for it (helena/runs/resume.py)
            if ist_ausfall(exc):
                raise Suspended("database") from exc
            raise

    ctx.ask, ctx.model_at_least, ctx.record_reads = ask, model_at_least, record_reads
    if ctx.conversation_id is not None:
        ctx.plans = PlanStore(run_id=ctx.run_id, conversation_id=ctx.conversation_id)
    return ctx
