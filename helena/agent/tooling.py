"""What a tool is, what it gets, what it returns; the run context through which the core reaches
the world.

The agent core knows tools only as these specs: the handlers (helena/tools/) read the firm's records,
and everything a run needs from outside (persist a plan, ask the user, a second model, the executor)
comes in as a port on the `ToolContext`, set by helena/runs. Like Pydantic AI's `Tool` and
`RunContext`: the core stays testable with a scripted model and fakes, without a database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

if TYPE_CHECKING:
    from helena.agent.planning import PlanStore
    from helena.llm.base import ChatModel

ToolKind = Literal["read", "write", "meta"]


@dataclass
class ToolResult:
    """A tool's observation. Failures are data too: {"error": ...} for the model, never a raise."""

    ok: bool
    data: Any = None
    error: str | None = None
    error_code: str | None = None  # invalid_arguments, not_found, forbidden, timeout, unknown_tool, …
    summary: str = ""  # German one-liner for the chat step ("3 Fristen gefunden")
    sources: list[dict[str, Any]] = field(default_factory=list)  # {"table","id"} or {"corpus","citation"}
    # Extra events for the chat after the tool_result, e.g. ("draft_created", {draft_id, kind, html}).
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    pause: bool = False  # ask_user: the run stops here and waits for the user's answer
    # What the tool read of the firm's records on the user's behalf (akten.lesezugriffe.services.Lesung:
    # an Akte, one of its parts, a Dokument, a search hit quoting one) — the read log's rows; a list
    # reads none.
    reads: list[Any] = field(default_factory=list)

    def observation(self) -> dict[str, Any]:
        """What the model sees."""
        if self.ok:
            return self.data if isinstance(self.data, dict) else {"result": self.data}
        return {"error": self.error, **({"code": self.error_code} if self.error_code else {})}


# execute(name=, arguments=, ctx=, offered=) -> ToolResult: runs one call, never raises, audits it.
Execute = Callable[..., Awaitable[ToolResult]]
# ask(question=, answer_key=, plan_id=) -> the answer key: persists the run's question to the user.
Ask = Callable[..., Awaitable[str]]
# model_at_least(model, tier, operation) -> the run's `model` if it is of at least that tier, else
# that tier's; booked for the run as `operation`.
ModelAtLeast = Callable[[Any, int, str], Awaitable["ChatModel"]]
# record_reads() -> None: stores the reads the step's tools collected in ctx.reads (one INSERT).
RecordReads = Callable[[], Awaitable[None]]


@dataclass
class ToolContext:
    """Everything a tool may use: who asks, in which Akte, in which run, and the run's ports."""

    user: Any  # akten.models.User
    akte_id: int | None = None  # the Akte in focus of the conversation, if any
    run_id: str | None = None
    conversation_id: str | None = None
    cancel: asyncio.Event | None = None
    now: Callable[[], datetime] = lambda: datetime.now(UTC)
    cache: dict[str, Any] = field(default_factory=dict)  # per run, e.g. for lookups
    call_id: str | None = None  # the tool call being executed (set per call by the loop)
    # Set by the loop, in its own copy of the context, for meta tools (plan, ask_user): the run's
    # model, its event emitter, the tools offered in this run and the executor, so a plan can think
    # and act within the same run.
    model: Any = None
    emit: Callable[..., Awaitable[Any]] | None = None
    offered: dict[str, Any] | None = None
    execute: Execute | None = None
    # Set by a run: the audit rows of its tool calls are written behind the loop (a database round
    # trip per step less on the way to the next model call) and awaited before the run ends.
    audits: list[asyncio.Task[None]] | None = None
    # Every source the run's tool results named, in order: the run's Privacy learns the Akten they
    # belong to before the next model call, so a cloud model never sees their people in clear.
    sources: list[Any] = field(default_factory=list)
    # The run's helena.llm.pii.privacy.Privacy: for side calls and anything else that leaves the house
    # (search_web's query). None outside a run.
    privacy: Any = None
    # The reads of the run's tool calls (ToolResult.reads), collected by the executor until the loop
    # calls `record_reads` after the step (the read log wants one INSERT per step, not per call).
    reads: list[Any] = field(default_factory=list)
    # Ports of a run (helena/runs/ports.py); None outside one.
    record_reads: RecordReads | None = None
    ask: Ask | None = None
    plans: PlanStore | None = None
    model_at_least: ModelAtLeast | None = None


Handler = Callable[[BaseModel, ToolContext], Awaitable[ToolResult]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str  # English, for the model
    kind: ToolKind
    params: type[BaseModel]
    handler: Handler
    roles: frozenset[str] | None = None  # narrower than the role filter allows; None: as it allows
    label: str = ""  # German verb phrase for the chat step, e.g. "Durchsuche Gesetze"
    timeout: float = 15.0
    available: Callable[[], bool] = lambda: True  # e.g. search_web only with HELENA_SEARCH_URL
    unavailable_note: str = ""  # German, for the model and the chat when it is not set up here

    def offered_schema(self) -> dict[str, Any]:
        """schema(), built once per tool and shared by every run that offers it: the loop offers
        the same dicts each turn and run, and the model clients only read them (a test streams the
        registry's schemas through every provider and checks them unchanged). A copy per run cost
        ~2 ms of every run start."""
        cached = self.__dict__.get("_offered")
        if cached is None:
            cached = self.schema()
            object.__setattr__(self, "_offered", cached)  # frozen dataclass: a cache, not a field
        return cached

    def schema(self) -> dict[str, Any]:
        """OpenAI function schema offered to the model."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.params.model_json_schema(),
            },
        }
