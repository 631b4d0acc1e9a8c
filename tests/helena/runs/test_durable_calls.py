"""Calls with side effects across a resume, found by the fresh-eye review of issue 38: a question
asked just before a handover is not asked twice (the run still pauses on it); an identical call made
again after a resume finds the draft of the first; a replanned plan step does not get the failed
step's draft. A fake model stands in: what is tested is the loop's bookkeeping, not a wire format."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from pydantic import BaseModel

from drafts.models import Draft
from drafts.services import create_draft
from helena.agent import plan_runner
from helena.agent.checkpoint import Checkpoint, Suspended
from helena.agent.events import Emitter
from helena.agent.loop import Limits, run_agent
from helena.agent.planning import PlanItem
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.llm.base import Chunk, ToolCall, Usage
from helena.models import AgentRun, Conversation
from helena.tools.handlers.meta import ask_user
from helena.tools.registry import all_tools
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db(transaction=True)


class FakeModel:
    name, provider = "fake", "scripted"

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        self.turns, self.calls = list(turns), 0

    async def context_window(self) -> int:
        return 8192

    async def stream(self, *, messages: Any, tools: Any = None, temperature: Any = None,
                     tool_names: Any = None) -> Any:
        self.calls += 1
        turn = self.turns.pop(0) if self.turns else {"text": "Ende."}
        if "text" in turn:
            yield Chunk(kind="text", text=turn["text"])
        for call_id, name, arguments in turn.get("calls", []):
            yield Chunk(kind="tool_call", tool_call=ToolCall(id=call_id, name=name, arguments=arguments))
        yield Chunk(kind="end", usage=Usage(1, 1), finish_reason="stop")


def _go(turns: list[dict[str, Any]], tools: list[Tool], execute: Any, *, handover_at: int | None = None,
        resume: Checkpoint | None = None) -> tuple[Any, list[Checkpoint], FakeModel]:
    saved: list[Checkpoint] = []

    async def save(checkpoint: Checkpoint) -> None:
        saved.append(Checkpoint.from_dict(json.loads(json.dumps(checkpoint.as_dict()))))
        if handover_at is not None and len(saved) >= handover_at:
            raise Suspended("handover")  # what the runs layer's port does while the process drains

    model = FakeModel(turns)
    messages = [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": "Frage"}]

    async def go() -> Any:
        try:
            return await run_agent(model=model, messages=messages, tools=tools, emitter=Emitter(run_id="r"),
                                   ctx=ToolContext(user=None, run_id="r"), mode="background", execute=execute,
                                   known_names=all_tools(), save=save, resume=resume,
                                   limits=Limits(max_steps=6, timeout=30))
        except Suspended:
            return None

    return async_to_sync(go)(), saved, model


def test_a_question_asked_before_a_handover_is_not_asked_again() -> None:
    asked: list[str] = []

    async def execute(*, name: str, arguments: Any, ctx: ToolContext, offered: dict[str, Tool]) -> ToolResult:
        asked.append(ctx.call_id or "")
        return await offered[name].handler(offered[name].params.model_validate(arguments), ctx)

    turns = [{"calls": [("c1", "ask_user", {"question": "Wann wurde zugestellt?"})]},
             {"calls": [("c2", "ask_user", {"question": "Wann genau wurde zugestellt?"})]}]
    # Told to stop at every checkpoint from the second on: the step with the question pauses the run
    # without one, so the run still ends waiting on the answer.
    result, saved, model = _go(list(turns), [ask_user], execute, handover_at=2)
    assert result is not None and result.finish_reason == "waiting_on_user"
    assert asked == ["c1"] and model.calls == 1
    assert [c.pending for c in saved] == [True]
    # Had it died there: resumed from the checkpoint with the call pending, it asks under the same id.
    resumed, _saved, again = _go(list(turns[1:]), [ask_user], execute, resume=saved[-1])
    assert resumed.finish_reason == "waiting_on_user" and again.calls == 0
    assert asked == ["c1", "c1"]


def test_an_identical_call_after_a_resume_goes_under_the_first_calls_id() -> None:
    executed: list[str] = []

    async def execute(*, name: str, arguments: Any, ctx: ToolContext, offered: dict[str, Tool]) -> ToolResult:
        executed.append(ctx.call_id or "")
        return ToolResult(ok=True, data={"draft_id": ctx.call_id}, summary="Entwurf")

    class Params(BaseModel):
        titel: str

    draft = Tool(name="create_draft_notiz", description="d", kind="write", params=Params, handler=execute)
    same = {"titel": "Notiz"}
    turns = [{"calls": [("c1", "create_draft_notiz", same)]}, {"calls": [("c2", "create_draft_notiz", same)]},
             {"text": "Fertig."}]
    reference, _saved, _model = _go(list(turns), [draft], execute)  # no resume: the repeat is cached
    assert executed == ["c1"]
    executed.clear()
    _result, saved, _model = _go(list(turns), [draft], execute, handover_at=2)  # handed over after step 1
    assert executed == ["c1"] and list(saved[-1].answered.values()) == ["c1"]
    result, _saved, _model = _go(list(turns[1:]), [draft], execute, resume=saved[-1])
    assert result.finish_reason == reference.finish_reason  # the same judgement as without the resume
    assert executed == ["c1", "c1"]  # made again, under the first call's id: create_draft finds its draft


@dataclass
class _Plan:
    pk: Any = field(default_factory=uuid.uuid4)
    version: int = 1
    objective: str = "Notiz anlegen"
    execution_mode: str = "auto_execute"
    status: str = "executing"
    items: list = field(default_factory=list)
    revisions: list = field(default_factory=list)


class _Store:
    def __init__(self, plan: _Plan) -> None:
        self.plan = plan

    async def open_plan(self) -> _Plan:
        return self.plan

    async def save(self, plan: _Plan, items: list[PlanItem], **changes: Any) -> None:
        plan.items, plan.version = [i.as_dict() for i in items], plan.version + 1
        for key, value in changes.items():
            setattr(plan, key, value)

    async def answers(self) -> dict[str, Any]:
        return {}


def test_a_replanned_step_proposes_its_own_draft(kanzlei: Kanzlei) -> None:
    user, akte = kanzlei.users["anwalt"], kanzlei.akten["A"]
    run = AgentRun.objects.create(conversation=Conversation.objects.create(user=user, akte=akte), user=user,
                                  mode="background", status="running")
    plan = _Plan(items=[PlanItem(position=1, description="Notiz", acceptance_criteria="nennt 7 Monate",
                                 max_attempts=1).as_dict()])
    proposed: list[str] = []

    async def execute(*, name: str, arguments: Any, ctx: ToolContext, offered: Any) -> ToolResult:
        made = await sync_to_async(create_draft)(user=user, kind="notiz", akte_id=akte.pk, fields=arguments,
                                                 run_id=str(run.pk), call_id=ctx.call_id or "")
        proposed.append(made.fields["inhalt"])
        return ToolResult(ok=True, data={"draft_id": str(made.pk)}, summary="Entwurf")

    def turn(data: dict[str, Any]) -> dict[str, Any]:
        return {"text": json.dumps(data)}

    model = FakeModel([
        turn({"rationale": "", "action": {"type": "tool_call", "tool": "create_draft_notiz",
                                          "tool_input": {"inhalt": "Frist 3 Monate"}}}),
        turn({"met": False, "reason": "falsche Frist"}),
        turn({"items": [{"description": "Notiz neu", "acceptance_criteria": "nennt 7 Monate"}]}),
        turn({"rationale": "", "action": {"type": "tool_call", "tool": "create_draft_notiz",
                                          "tool_input": {"inhalt": "Frist 7 Monate"}}}),
        turn({"met": True, "reason": "ok"}),
    ])
    ctx = ToolContext(user=user, run_id=str(run.pk), model=model, plans=_Store(plan), execute=execute,
                      offered={}, call_id="outer-1")
    async_to_sync(plan_runner._execute)(ctx, plan)
    assert proposed == ["Frist 3 Monate", "Frist 7 Monate"]
    assert sorted(Draft.objects.filter(run=run).values_list("fields__inhalt", flat=True)) == [
        "Frist 3 Monate", "Frist 7 Monate"]
