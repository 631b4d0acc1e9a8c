"""What a tool is, what it gets, what it returns.

A tool module in helena/tools/ defines one or more `Tool` objects at module level; the registry
(helena/tools/registry.py) discovers them. Adding a tool is adding a file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

ToolKind = Literal["read", "write", "meta"]
ALL_ROLES = frozenset({"ADMIN", "ANWALT", "SACHBEARBEITER", "SEKRETARIAT", "PRAKTIKANT"})


def role_of(user: Any) -> str:
    """The role the tool filter applies: superusers count as ADMIN (they see every Akte)."""
    return "ADMIN" if getattr(user, "sees_all_akten", False) else str(getattr(user, "role", ""))


class DauerParams(BaseModel):
    """A Frist's length as the tools take it (calculate_frist, create_draft_frist)."""

    model_config = ConfigDict(extra="forbid")
    tage: int = Field(0, ge=0)
    wochen: int = Field(0, ge=0)
    monate: int = Field(0, ge=0)
    jahre: int = Field(0, ge=0)


@dataclass
class ToolContext:
    """Everything a tool may use: who asks, in which Akte, in which run."""

    user: Any  # akten.models.User
    akte_id: int | None = None  # the Akte in focus of the conversation, if any
    run_id: str | None = None
    conversation_id: str | None = None
    cancel: asyncio.Event | None = None
    now: Callable[[], datetime] = timezone.now
    cache: dict[str, Any] = field(default_factory=dict)  # per run, e.g. for lookups
    call_id: str | None = None  # the tool call being executed (set per call by the loop)
    # Set by the loop for meta tools (plan, ask_user): the run's model, its event emitter, the tools
    # offered in this run and the executor, so a plan can think and act within the same run.
    model: Any = None
    emit: Callable[..., Awaitable[Any]] | None = None
    offered: dict[str, Any] | None = None
    execute: Callable[..., Awaitable[Any]] | None = None
    # Set by a run: the audit rows of its tool calls are written behind the loop (a database round
    # trip per step less on the way to the next model call) and awaited before the run ends.
    audits: list[asyncio.Task[None]] | None = None
    # Every source the run's tool results named, in order: the run's Privacy learns the Akten they
    # belong to before the next model call, so a cloud model never sees their people in clear.
    sources: list[Any] = field(default_factory=list)
    # The run's helena.llm.pii.Privacy: for side calls and anything else that leaves the house
    # (search_web's query). None outside a run.
    privacy: Any = None

    @property
    def role(self) -> str:
        return role_of(self.user)


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

    def observation(self) -> dict[str, Any]:
        """What the model sees."""
        if self.ok:
            return self.data if isinstance(self.data, dict) else {"result": self.data}
        return {"error": self.error, **({"code": self.error_code} if self.error_code else {})}


Handler = Callable[[BaseModel, ToolContext], Awaitable[ToolResult]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str  # English, for the model
    kind: ToolKind
    params: type[BaseModel]
    handler: Handler
    roles: frozenset[str] = ALL_ROLES
    label: str = ""  # German verb phrase for the chat step, e.g. "Durchsuche Gesetze"
    timeout: float = 15.0
    available: Callable[[], bool] = lambda: True  # e.g. search_web only with HELENA_SEARCH_URL

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
