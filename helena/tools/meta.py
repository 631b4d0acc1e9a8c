"""Meta tools (PROTOCOL.md): ask_user pauses the run with a question; agent_create_plan plans and
runs multi-step objectives (helena/agent/plan_runner.py)."""

from __future__ import annotations

import re

from asgiref.sync import sync_to_async
from pydantic import BaseModel, ConfigDict, Field

from helena.tools.base import Tool, ToolContext, ToolResult

_KEY = re.compile(r"[^a-z0-9_]+")


class AskUserParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=2000, description="die Frage an den Nutzer, auf Deutsch")
    answer_key: str | None = Field(
        None, max_length=100, description="stabiler Schlüssel für die Antwort, z. B. 'zustellungsdatum'"
    )


def _ask(params: AskUserParams, ctx: ToolContext) -> ToolResult:
    from helena.services import ask_question

    question = " ".join(params.question.split())
    key = _KEY.sub("_", (params.answer_key or "").strip().lower()).strip("_") or None
    if ctx.run_id is not None:
        stored = ask_question(run_id=ctx.run_id, call_id=ctx.call_id or "", question=question, answer_key=key)
        key = stored.answer_key
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
    handler=sync_to_async(_ask),
    label="Fragt nach",
)
