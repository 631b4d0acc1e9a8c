"""One streamed turn of a real server, parsed: what both providers share.

A provider yields raw parts as its server sends them (content text, a separate reasoning field,
structured tool calls, the end); this turns them into the Chunks the agent sees: content runs
through the dialect parser, structured calls are repaired, and a server that refuses tools gets
the same turn again with prompt-based tool calling (remembered per model).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, Literal

from helena.llm.base import Chunk, FinishReason, ModelHTTPError, ToolCall, Usage
from helena.llm.dialects import (
    Call,
    Fragment,
    Malformed,
    Reasoning,
    Text,
    normalize_call,
    profiles,
    render_prompt,
    tool_types,
    tools_unsupported,
)
from helena.llm.dialects.parser import StreamParser

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Raw:
    """A part as the server sent it. finish: the server's reason on the end part ("length" …)."""

    kind: Literal["content", "reasoning", "call", "cut", "end"]  # cut: a call cut off mid-arguments
    text: str = ""
    call: ToolCall | None = None
    usage: Usage | None = None
    finish: str | None = None


RawStream = Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], AsyncIterator[Raw]]


def chunks_of(events: list[Fragment]) -> list[Chunk]:
    """Parser events as the Chunks of the ChatModel protocol."""
    out = []
    for event in events:
        if isinstance(event, Text):
            out.append(Chunk(kind="text", text=event.text))
        elif isinstance(event, Reasoning):
            out.append(Chunk(kind="reasoning", text=event.text))
        elif isinstance(event, Call):
            out.append(Chunk(kind="tool_call", tool_call=event.call))
        elif isinstance(event, Malformed):
            log.warning("unreadable tool call (%s): %.300r", event.reason, event.raw)
            out.append(Chunk(kind="malformed", text=event.reason, detail=event.raw[:2000]))
    return out


async def parsed_turn(*, raw: RawStream, key: tuple[str, str, str], profile: profiles.Profile,
                      messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                      tool_names: Collection[str] | None) -> AsyncIterator[Chunk]:
    """Chunks of one turn; ends with exactly one end chunk (finish "tool_calls" if a call came)."""
    profile = profiles.with_learned(profile, key)
    offered = {(tool.get("function") or {}).get("name", "") for tool in tools or []}
    names = frozenset(offered | set(tool_names or ()))
    prompt_mode = bool(tools) and not profile.native_tools
    while True:
        sent_messages = messages
        if prompt_mode:
            sent_messages = render_prompt(messages, tools or [], profile.prompt_format)
        turn = _Turn(StreamParser(names=names, reasoning_first=profile.reasoning_prefilled,
                                  types=tool_types(tools)), names)
        try:
            async with aclosing(raw(sent_messages, None if prompt_mode else tools)) as parts:
                async for part in parts:
                    for chunk in turn.chunks(part):
                        yield chunk
        except ModelHTTPError as exc:
            refused = tools_unsupported(exc.detail or str(exc))
            if prompt_mode or not tools or turn.produced or not refused:
                raise
            log.info("%s refuses tools (%s): prompt-based tool calling from now on", key, exc.detail[:200])
            profiles.learn(key, profiles.NO_TOOLS)
            prompt_mode = True
            continue
        for flag in turn.parser.flags:
            profiles.learn(key, flag)
        return


class _Turn:
    """One attempt's state: raw parts in, Chunks out."""

    def __init__(self, parser: StreamParser, names: frozenset[str]) -> None:
        self.parser = parser
        self.names = names
        self.produced = False
        self.saw_call = False

    def chunks(self, part: Raw) -> list[Chunk]:
        if part.kind == "content":
            chunks = chunks_of(self.parser.feed(part.text))
        elif part.kind == "reasoning":
            chunks = [Chunk(kind="reasoning", text=part.text)] if part.text else []
        elif part.kind == "cut":
            chunks = chunks_of([Malformed("Aufruf abgeschnitten", part.text, truncated=True)])
        elif part.kind == "call" and part.call is not None:
            chunks = [Chunk(kind="tool_call", tool_call=normalize_call(part.call, self.names))]
        else:
            truncated = part.finish == "length"
            chunks = chunks_of(self.parser.finish(truncated=truncated))
            called = self.saw_call or any(c.kind == "tool_call" for c in chunks)
            finish: FinishReason = ("tool_calls" if called else "length" if truncated
                                    else "error" if part.finish == "error" else "stop")
            chunks.append(Chunk(kind="end", usage=part.usage or Usage(), finish_reason=finish))
        if chunks:
            self.produced = True
            self.saw_call = self.saw_call or any(c.kind == "tool_call" for c in chunks)
        return chunks
