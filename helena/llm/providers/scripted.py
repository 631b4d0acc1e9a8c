"""An in-process ChatModel that plays back a script, so agent tests run without any model server."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from helena.llm.base import Chunk, FinishReason, LLMError, ToolCall, Usage
from helena.llm.dialects.parser import StreamParser
from helena.llm.providers.stream import chunks_of

END_OF_SCRIPT = "(Ende des Skripts)"


@dataclass
class ScriptedTurn:
    """One answer of the script.

    tool_calls are (name, arguments) pairs; arguments may be a raw string to imitate a model
    that emits broken JSON. If error is set, the text (if any) is streamed first, then it is raised.
    usage None means a rough estimate (4 characters per token).
    """

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    error: LLMError | None = None
    chunk_delay: float = 0
    usage: tuple[int, int] | None = None
    finish_reason: FinishReason | None = None


@dataclass
class ScriptedCall:
    """What the code under test sent to the model in one stream() call."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    temperature: float | None


ScriptEntry = ScriptedTurn | str | Callable[[list[dict[str, Any]]], "ScriptedTurn | str"]


def _split(text: str, parts: int = 3) -> list[str]:
    """A few deltas, so consumers are tested against a real stream rather than one block."""
    if len(text) <= parts:
        return [text] if text else []
    size = -(-len(text) // parts)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _estimate_tokens(value: Any) -> int:
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, default=str)
    return max(1, len(value) // 4) if value else 0


class ScriptedModel:
    """Answers each stream() call with the next script entry; records every call in .calls."""

    provider: Literal["scripted"] = "scripted"

    def __init__(
        self,
        turns: list[ScriptEntry],
        *,
        name: str = "scripted",
        context_window: int = 8192,
        delay: float = 0,
    ) -> None:
        self.name = name
        self.turns = list(turns)
        self.delay = delay
        self.calls: list[ScriptedCall] = []
        self._context_window = context_window
        self._call_ids = 0

    def __repr__(self) -> str:
        return f"ScriptedModel({self.name!r}, {len(self.turns)} turns left)"

    @property
    def remaining(self) -> int:
        return len(self.turns)

    async def context_window(self) -> int:
        return self._context_window

    def _next_turn(self, messages: list[dict[str, Any]]) -> ScriptedTurn:
        if not self.turns:
            return ScriptedTurn(text=END_OF_SCRIPT)
        entry = self.turns.pop(0)
        if callable(entry):
            entry = entry(messages)
        return ScriptedTurn(text=entry) if isinstance(entry, str) else entry

    async def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        tool_names: Collection[str] | None = None,
    ) -> AsyncIterator[Chunk]:
        """Play the next turn; the recorded messages are a deep copy, later mutation does not leak in.

        The text goes through the dialect parser as a server's content would, so markup in a
        script behaves as it does with a real model.
        """
        recorded = copy.deepcopy(messages)
        call = ScriptedCall(messages=recorded, tools=copy.deepcopy(tools), temperature=temperature)
        self.calls.append(call)
        turn = self._next_turn(recorded)
        if self.delay:
            await asyncio.sleep(self.delay)
        names = {(t.get("function") or {}).get("name", "") for t in tools or []} | set(tool_names or ())
        parser = StreamParser(names=names)
        parsed_call = False
        for i, delta in enumerate(_split(turn.text)):
            if i and turn.chunk_delay:
                await asyncio.sleep(turn.chunk_delay)
            for chunk in chunks_of(parser.feed(delta)):
                parsed_call = parsed_call or chunk.kind == "tool_call"
                yield chunk
        if turn.error is not None:
            raise turn.error
        for chunk in chunks_of(parser.finish(truncated=turn.finish_reason == "length")):
            parsed_call = parsed_call or chunk.kind == "tool_call"
            yield chunk
        for name, arguments in turn.tool_calls:
            self._call_ids += 1
            yield Chunk(
                kind="tool_call",
                tool_call=ToolCall(id=f"call_scripted_{self._call_ids}", name=name,
                                   arguments=copy.deepcopy(arguments)),
            )
        if turn.usage is not None:
            usage = Usage(prompt_tokens=turn.usage[0], completion_tokens=turn.usage[1])
        else:
            usage = Usage(
                prompt_tokens=sum(_estimate_tokens(m.get("content") or "") for m in recorded),
                completion_tokens=_estimate_tokens(turn.text) + sum(
                    _estimate_tokens(args) for _, args in turn.tool_calls
                ),
            )
        finish = turn.finish_reason or ("tool_calls" if turn.tool_calls or parsed_call else "stop")
        yield Chunk(kind="end", usage=usage, finish_reason=finish)
