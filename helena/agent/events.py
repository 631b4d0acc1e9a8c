"""The events of a run (PROTOCOL.md, websocket section): numbered 1..n, timestamped, one `done`.

The loop only calls `emit`; where events go (a callback here, the database and the Channels
group once runs are persisted) is the emitter's business.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from helena.timestamps import event_ts

EVENT_TYPES = frozenset({
    "run_started", "agent_state", "text", "reasoning", "tool_call", "tool_result", "step", "draft_created",
    "plan_created", "plan_ready_for_review", "plan_review", "plan_step", "ask_user", "warning",
    "done", "error",
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


def done_fields(*, finish_reason: str, text: str = "", prompt_tokens: int = 0, completion_tokens: int = 0,
                cap_reached: bool = False, continue_offered: bool = False) -> dict[str, Any]:
    """The fields of a run's one `done` event (PROTOCOL.md), wherever the run ends."""
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
