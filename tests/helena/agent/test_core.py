"""The agent core on its own: no database, no model server, no Celery (issue 17).

The loop runs against an in-process scripted model, the tools against a fake executor, and a plan
against an in-memory PlanStore and a fake `ask` port: what the core does is visible in its events
and in what it hands its ports. pytest-django refuses any database access here (no `db` fixture),
so a core that reached for the ORM would fail these tests.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from helena.agent.events import Emitter
from helena.agent.loop import run_agent
from helena.agent.plan_runner import agent_create_plan
from helena.agent.planning import PlanBusy, PlanItem, PlanStatus
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.llm.providers.scripted import ScriptedModel, ScriptedTurn


class QueryParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str


async def _lookup(params: QueryParams, ctx: ToolContext) -> ToolResult:
    return ToolResult(ok=True, data={"treffer": f"§ 517 ZPO zu {params.query}"}, summary="1 Treffer")


LOOKUP = Tool(name="search_gesetze", description="Search statutes.", kind="read", params=QueryParams,
              handler=_lookup, label="Durchsuche Gesetze")


@dataclass
class FakeExecutor:
    """Runs the handler directly and remembers every call, as the real executor audits them."""

    calls: list[tuple[str, Any]] = field(default_factory=list)

    async def __call__(self, *, name: str, arguments: Any, ctx: ToolContext,
                       offered: dict[str, Tool]) -> ToolResult:
        self.calls.append((name, arguments))
        tool = offered.get(name)
        if tool is None:
            return ToolResult(ok=False, error="Dieses Werkzeug steht dir nicht zur Verfügung.",
                              error_code="forbidden")
        return await tool.handler(tool.params.model_validate(arguments), ctx)


def _run(model: ScriptedModel, *, tools: list[Tool], execute: Any, ctx: ToolContext | None = None,
         question: str = "Wie lange ist die Berufungsfrist?") -> tuple[Any, list[dict[str, Any]]]:
    emitter = Emitter(run_id="core-1")
    messages = [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": question}]
    result = asyncio.run(run_agent(model=model, messages=messages, tools=tools,
                                   ctx=ctx or ToolContext(user=None, run_id="core-1"), emitter=emitter,
                                   execute=execute, known_names={t.name for t in tools}, question=question))
    return result, [e.as_dict() for e in emitter.events]


def test_a_tool_call_and_an_answer_stream_as_numbered_events_without_a_database() -> None:
    model = ScriptedModel([
        ScriptedTurn(tool_calls=[("search_gesetze", {"query": "Berufung"})]),
        "Die Berufungsfrist beträgt einen Monat (§ 517 ZPO).",
    ])
    executor = FakeExecutor()
    result, events = _run(model, tools=[LOOKUP], execute=executor)
    assert result.finish_reason == "stop"
    assert result.text == "Die Berufungsfrist beträgt einen Monat (§ 517 ZPO)."
    assert executor.calls == [("search_gesetze", {"query": "Berufung"})]
    types = [e["type"] for e in events]
    assert types[0] == "run_started" and types[-1] == "done" and types.count("done") == 1
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    (tool_result,) = [e for e in events if e["type"] == "tool_result"]
    assert tool_result["ok"] and tool_result["summary"] == "1 Treffer"
    # the observation went back to the model
    tool_message = [m for m in model.calls[1].messages if m["role"] == "tool"]
    assert "§ 517 ZPO zu Berufung" in tool_message[0]["content"]


def test_a_call_of_a_tool_not_offered_is_refused_by_the_executor_and_the_run_answers() -> None:
    model = ScriptedModel([ScriptedTurn(tool_calls=[("create_draft_frist", {"akte_id": 1})]),
                           "Das darf ich nicht anlegen."])
    executor = FakeExecutor()
    result, events = _run(model, tools=[LOOKUP], execute=executor)
    (tool_result,) = [e for e in events if e["type"] == "tool_result"]
    assert not tool_result["ok"] and "nicht zur Verfügung" in tool_result["error"]
    assert result.finish_reason == "stop"


def test_repeating_the_same_call_is_a_stall_that_still_ends_with_an_answer() -> None:
    same = ScriptedTurn(tool_calls=[("search_gesetze", {"query": "Berufung"})])
    model = ScriptedModel([same, same, "Ich komme so nicht weiter."])
    executor = FakeExecutor()
    result, events = _run(model, tools=[LOOKUP], execute=executor)
    assert result.finish_reason == "stall"
    assert result.text == "Ich komme so nicht weiter."
    assert len(executor.calls) == 1  # the identical second call came from the run's cache
    assert [e["type"] for e in events].count("done") == 1


# --------------------------------------------------------------------------- a plan through its ports


@dataclass
class MemoryPlan:
    objective: str
    execution_mode: str
    status: str
    items: list[dict[str, Any]]
    pk: uuid.UUID = field(default_factory=uuid.uuid4)
    version: int = 1
    revisions: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class MemoryPlanStore:
    plans: list[MemoryPlan] = field(default_factory=list)
    user_answers: dict[str, Any] = field(default_factory=dict)

    async def open_plan(self) -> MemoryPlan | None:
        open_ = [p for p in self.plans if p.status not in PlanStatus.CLOSED]
        return open_[-1] if open_ else None

    async def create(self, *, objective: str, execution_mode: str, requested_outputs: list[str],
                     priority_entities: list[str], status: str, items: list[PlanItem]) -> MemoryPlan:
        for plan in self.plans:
            if plan.status not in PlanStatus.CLOSED:
                plan.status = PlanStatus.SUPERSEDED
        plan = MemoryPlan(objective=objective, execution_mode=execution_mode, status=status,
                          items=[i.as_dict() for i in items])
        self.plans.append(plan)
        return plan

    async def save(self, plan: MemoryPlan, items: list[PlanItem], **changes: Any) -> None:
        stored = next(p for p in self.plans if p.pk == plan.pk)
        if stored.version != plan.version and stored is not plan:
            raise PlanBusy
        plan.version += 1
        plan.items = [i.as_dict() for i in items]
        for key, value in changes.items():
            setattr(plan, key, value)

    async def answers(self) -> dict[str, Any]:
        return dict(self.user_answers)


PLAN = json.dumps({"items": [
    {"position": 1, "description": "Die einschlägige Frist ist ermittelt",
     "acceptance_criteria": "Norm genannt", "dependencies": []},
    {"position": 2, "description": "Das Zustellungsdatum ist bekannt",
     "acceptance_criteria": "Datum liegt vor", "dependencies": []},
    {"position": 3, "description": "Das Fristende ist berechnet", "acceptance_criteria": "Datum genannt",
     "dependencies": [1, 2]},
]})


def test_a_plan_keeps_its_state_and_asks_the_user_only_through_the_run_ports() -> None:
    """The plan is created and advanced in the PlanStore; the missing date goes out through `ask`,
    and the run pauses. Nothing here touches a database."""
    asked: list[dict[str, Any]] = []

    async def ask(**question: Any) -> str:
        asked.append(question)
        return "zustellungsdatum"

    store = MemoryPlanStore()
    model = ScriptedModel([
        PLAN,  # the plan
        json.dumps({"rationale": "Suche die Norm.",
                    "action": {"type": "tool_call", "tool": "search_gesetze",
                               "tool_input": {"query": "Berufungsfrist"}},
                    "expected_outcome": "§ 517 ZPO"}),
        json.dumps({"met": True, "reason": "Norm genannt."}),
        json.dumps({"rationale": "Datum fehlt.", "action": {"type": "ask_user",
                    "question": "Wann wurde das Urteil zugestellt?", "answer_key": "zustellungsdatum"},
                    "expected_outcome": "Datum"}),
    ])
    emitted: list[tuple[str, dict[str, Any]]] = []

    async def emit(type: str, **data: Any) -> None:
        emitted.append((type, data))

    executor = FakeExecutor()
    ctx = ToolContext(user=None, run_id="core-plan", conversation_id="c1", model=model, emit=emit,
                      offered={"search_gesetze": LOOKUP}, execute=executor, ask=ask, plans=store)

    class Params(BaseModel):
        objective: str = "Berechne die Berufungsfrist."
        execution_mode: str = "auto_execute"
        requested_outputs: list[str] | None = None
        priority_entities: list[str] | None = None

    result = asyncio.run(agent_create_plan(Params(), ctx))
    assert result.ok and result.pause
    assert asked == [{"call_id": "", "question": "Wann wurde das Urteil zugestellt?",
                      "answer_key": "zustellungsdatum", "plan_id": store.plans[0].pk}]
    (plan,) = store.plans
    assert plan.status == PlanStatus.WAITING
    assert [i["status"] for i in plan.items] == ["completed", "pending", "pending"]
    assert executor.calls == [("search_gesetze", {"query": "Berufungsfrist"})]
    assert ("ask_user", {"question": "Wann wurde das Urteil zugestellt?", "answer_key": "zustellungsdatum"}) \
        in result.events
    assert [t for t, _ in emitted if t == "plan_created"] == ["plan_created"]
