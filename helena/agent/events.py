"""The events of a run (docs/protocol.md, websocket section): numbered 1..n, timestamped, one `done`.

The fields of the events more than one place sends (`run_started`, `tool_call`, `tool_result`,
`done`) are built here and nowhere else.

The loop only calls `emit`; where events go (a callback here, the database and the Channels
group once runs are persisted) is the emitter's business.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from helena.infra.timestamps import event_ts

EVENT_TYPES = frozenset({
    "run_started", "agent_state", "text", "reasoning", "tool_call", "tool_result", "step", "draft_created",
    "plan_created", "plan_ready_for_review", "plan_review", "plan_step", "ask_user", "warning",
    "done", "error", "resumed",
})


@dataclass(frozen=True)
class Event:
    type: str
    run_id: str
    seq: int
    ts: str
    data: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "run_id": self.run_id, "seq": self.seq, "ts": self.ts, **self.data}


def run_started_fields(*, mode: str, tier: int, model: str, provider: str, max_steps: int,
                       message: str | None = None) -> dict[str, Any]:
    """A run's `run_started` (docs/protocol.md): how it runs, and the user's message it answers (so a second
    tab shows it without a reload; absent for a continuation, which answers no new message)."""
    fields: dict[str, Any] = {"mode": mode, "tier": tier, "model": model, "provider": provider,
                              "max_steps": max_steps}
    if message is not None:
        fields["message"] = message
    return fields


def tool_call_fields(*, call_id: str, tool: str, arguments: Any, step: int) -> dict[str, Any]:
    """A `tool_call` as the chat shows the step, from the loop and from a plan alike."""
    return {"call_id": call_id, "tool": tool, "arguments": arguments, "step": step}


def tool_result_fields(*, call_id: str, tool: str, result: Any) -> dict[str, Any]:
    """A `tool_result` from a helena.agent.tooling.ToolResult: ok, a German summary, the sources it
    cites, and the error the model was told."""
    summary = result.summary or ("ok" if result.ok else (result.error or "Fehler"))
    fields: dict[str, Any] = {"call_id": call_id, "tool": tool, "ok": result.ok, "summary": summary}
    if result.sources:
        fields["source"] = result.sources
    if not result.ok:
        fields["error"] = result.error
    return fields


def done_fields(*, finish_reason: str, text: str = "", prompt_tokens: int = 0, completion_tokens: int = 0,
                cap_reached: bool = False, continue_offered: bool = False) -> dict[str, Any]:
    """The fields of a run's one `done` event (docs/protocol.md), wherever the run ends."""
    return {"finish_reason": finish_reason, "text": text,
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
            "cap_reached": cap_reached, "continue_offered": continue_offered}


Callback = Callable[[Event], Awaitable[None] | None]


@dataclass
class Emitter:
    """Numbers events without gaps and hands each to the callback; keeps them as the trace."""

    run_id: str
    callback: Callback | None = None
    events: list[Event] = field(default_factory=list)

    async def emit(self, type: str, **data: Any) -> Event:
        if type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type!r}")
        event = Event(type=type, run_id=self.run_id, seq=len(self.events) + 1, ts=event_ts(), data=data)
        self.events.append(event)
        if self.callback is not None:
            result = self.callback(event)
            if inspect.isawaitable(result):
                await result
        return event
