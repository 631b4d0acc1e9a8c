"""Durable runs, the agent core's part: the state a run resumes from, and the signal to stop without
an end.

After every completed model turn and after its tool calls, the loop hands a `Checkpoint` to the
run's `save` port (helena/runs/durable/checkpoints.py keeps it in PostgreSQL). A run whose process
dies resumes from the last one on another process, as LangGraph resumes a thread from its last
checkpoint: the turn whose calls were saved but not yet answered ("pending", LangGraph's pending
writes) executes the SAME calls again — tools with side effects find their work by the call id
(a draft is not proposed twice) — and a turn cut off while the model streamed is asked again.

What a checkpoint holds is what the events do not: the run's own messages after the prompt it
started with (the system prompt, the history and the Akte facts are built again), counters and the
loop's once-a-run flags. Text, calls and results the client saw are in the run's events.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from helena.llm.base import ToolCall

VERSION = 1


class Suspended(Exception):
    """Stop the run here without an end (no `done`): its process is going away ("handover"), has
    lost the run to another process ("taken_over") or has lost its database ("database"). The run
    goes on from its last checkpoint — here or elsewhere."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Checkpoint:
    messages: list[dict[str, Any]]  # the run's own messages, after those it started with
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    text: str = ""  # the answer so far (a preamble before calls, kept if the run is cut short)
    elapsed: float = 0.0  # seconds of the run's time budget used
    pending: bool = False  # the last message's calls have not all been answered yet
    flags: dict[str, bool] = field(default_factory=dict)  # the loop's once-a-run decisions
    answered: dict[str, str] = field(default_factory=dict)  # a successful call (tool:arguments) → its id
    # Set on resume from the stored events, never stored: calls whose tool_call / tool_result
    # (and card) the client has already seen, so a repeated call is not shown twice.
    announced: frozenset[str] = frozenset()
    reported: frozenset[str] = frozenset()

    def as_dict(self, *, messages: bool = True) -> dict[str, Any]:
        """As stored (JSON); without the messages for a save that only appends the new ones."""
        data: dict[str, Any] = {"v": VERSION, "steps": self.steps, "prompt_tokens": self.prompt_tokens,
                                "completion_tokens": self.completion_tokens, "text": self.text,
                                "elapsed": self.elapsed, "pending": self.pending, "flags": dict(self.flags),
                                "answered": dict(self.answered)}
        if messages:
            data["messages"] = list(self.messages)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Checkpoint | None:
        """None for an empty or unknown checkpoint (the run then starts from its prompt)."""
        if not data or data.get("v") != VERSION:
            return None
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def pending_calls(self) -> list[ToolCall]:
        """The calls of the last turn, when they were saved but not all answered."""
        if not self.pending or not self.messages:
            return []
        calls = []
        for raw in self.messages[-1].get("tool_calls") or []:
            function = raw.get("function", {})
            arguments: Any = function.get("arguments", "")
            try:
                parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
            except ValueError:
                parsed = arguments
            calls.append(ToolCall(id=str(raw.get("id", "")), name=str(function.get("name", "")),
                                  arguments=parsed if isinstance(parsed, dict) else arguments))
        return calls


Save = Callable[[Checkpoint], Awaitable[None]]
"""The run's port that keeps a checkpoint; it may raise Suspended (after saving, when the process
is handing its runs over; instead of saving, when the run was taken over or the database is gone)."""

FLAGS = ("reasked", "answer_asked", "nudged")


def snapshot(run: Any, *, base: int, elapsed: float, pending: bool) -> Checkpoint:
    """The loop's state (helena.agent.loop._Run) as a checkpoint."""
    return Checkpoint(messages=list(run.messages[base:]), steps=run.steps,
                      prompt_tokens=run.usage.prompt_tokens, completion_tokens=run.usage.completion_tokens,
                      text=run.text, elapsed=round(elapsed, 3), pending=pending,
                      flags={name: bool(getattr(run, name)) for name in FLAGS}, answered=dict(run.answered))


def restore(run: Any, checkpoint: Checkpoint) -> None:
    """Put a checkpoint's state back into a fresh loop state whose messages are the prompt."""
    run.messages.extend(checkpoint.messages)
    run.steps = checkpoint.steps
    run.usage.prompt_tokens = checkpoint.prompt_tokens
    run.usage.completion_tokens = checkpoint.completion_tokens
    run.text = checkpoint.text
    for name in FLAGS:
        setattr(run, name, bool(checkpoint.flags.get(name)))
    run.announced, run.reported = set(checkpoint.announced), set(checkpoint.reported)
    run.answered = dict(checkpoint.answered)
    answered = checkpoint.messages[:-1] if checkpoint.pending else checkpoint.messages
    for message in answered:  # the stall detector remembers the calls made so far
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            run.stall.record_call(str(function.get("name", "")), _arguments(function.get("arguments")))
    run.stall.reason = None  # a call repeated before the crash was answered then; judge from here on


def _arguments(raw: Any) -> Any:
    try:
        return json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return raw
