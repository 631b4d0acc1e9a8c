"""Meta tools (docs/protocol.md): ask_user pauses the run with a question; agent_create_plan plans and
runs multi-step objectives (helena/agent/plan_runner.py)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from helena.agent.plan_runner import agent_create_plan as run_plan
from helena.agent.tooling import Tool, ToolContext, ToolResult

_KEY = re.compile(r"[^a-z0-9_]+")


class AskUserParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=2000, description="die Frage an den Nutzer, auf Deutsch")
    answer_key: str | None = Field(
        None, max_length=100, description="stabiler Schlüssel für die Antwort, z. B. 'zustellungsdatum'"
    )


async def _ask(params: AskUserParams, ctx: ToolContext) -> ToolResult:
    question = " ".join(params.question.split())
    key = _KEY.sub("_", (params.answer_key or "").strip().lower()).strip("_") or None
    if ctx.ask is not None:  # in a run: the question is kept until the user answers
        key = await ctx.ask(call_id=ctx.call_id or "", question=question, answer_key=key)
    key = key or "antwort"
    return ToolResult(
        ok=True,
        data={"status": "waiting_on_user", "answer_key": key,
              "hinweis": "Die Frage ist gestellt; der Lauf pausiert, bis der Nutzer antwortet."},
        summary=f"Rückfrage: {question[:80]}",
        events=[("ask_user", {"question": question, "answer_key": key})],
        pause=True,
    )


ask_user = Tool(
    name="ask_user",
    description=(
        "Ask the user a question when information you need is missing (e.g. a date of service, which "
        "party). The run pauses; the user's next message is the answer and you continue from here. "
        "Ask one precise question in German; do not guess legally relevant facts."
    ),
    kind="meta",
    params=AskUserParams,
    handler=_ask,
    label="Fragt nach",
)


class AgentCreatePlanParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    objective: str = Field(min_length=1, max_length=4000, description="what is to be achieved end to end")
    execution_mode: Literal["auto_execute", "draft_only", "agent_review"] = Field(
        "auto_execute", description="auto_execute (default), draft_only (show the plan to the user first) "
                                    "or agent_review (a reviewer checks it before execution)"
    )
    requested_outputs: list[str] | None = Field(None, description="deliverables the user expects")
    priority_entities: list[str] | None = Field(None, description="Akten, Fristen etc. to focus on")


async def _plan(params: AgentCreatePlanParams, ctx: ToolContext) -> ToolResult:
    if ctx.plans is None or ctx.model is None:
        return ToolResult(ok=False, error="Pläne gibt es nur innerhalb eines Laufs.",
                          error_code="unavailable")
    return await run_plan(params, ctx)


agent_create_plan = Tool(
    name="agent_create_plan",
    description=(
        "For multi-step objectives: create a goal-oriented plan (3–7 items with acceptance criteria) and "
        "execute it (auto_execute), show it to the user for review first (draft_only: then call again "
        "after the user agreed or asked for changes, with the changes in objective) or have it reviewed "
        "(agent_review). Calling it again continues the conversation's unfinished plan."
    ),
    kind="meta",
    params=AgentCreatePlanParams,
    handler=_plan,
    label="Plant und arbeitet ab",
    timeout=900.0,  # the whole plan runs inside this call; the run's own timeout still bounds it
)
