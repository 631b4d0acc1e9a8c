"""Gemma 4 and FunctionGemma: calls as call:NAME{key:value}, strings between delimiter tokens.

    <|channel>thought
    The user wants the weather.<channel|><|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>
    <start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>

Keys are bare, strings sit between <|"|> (FunctionGemma: <escape>) and may hold any quote,
numbers and true/false/null are bare. Gemma 4 sometimes closes a call with <turn|>, writes a
stray ':' after the opener, or drops the opener after its reasoning (a bare call:NAME{…}, read by
the bare-name reader in _names). Its reasoning is a channel whose first line names it ("thought").
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from helena.llm.base import ToolCall
from helena.llm.dialects._base import Block, Call, Ctx, Emit, Malformed, Opener, Outcome
from helena.llm.dialects._calls import known_name, new_id
from helena.llm.dialects._jsonish import decode_at
from helena.llm.dialects._think import ThinkBlock

_DELIMITERS = ('<|"|>', "<escape>")
CALL_RE = re.compile(r"\s*:?\s*call:(?P<name>[\w.\-]+)\{")
_ENDS = {"<|tool_call>": ("<tool_call|>", "<turn|>"), "<start_function_call>": ("<end_function_call>",)}


def args_end(text: str, start: int) -> int | None:
    """The index after the '}' that closes text[start] ('{'), minding delimited and JSON strings."""
    depth = 0
    index = start
    end = len(text)
    while index < end:
        delimiter = next((d for d in _DELIMITERS if text.startswith(d, index)), None)
        if delimiter:
            close = text.find(delimiter, index + len(delimiter))
            if close < 0:
                return None
            index = close + len(delimiter)
            continue
        char = text[index]
        if char == '"':
            index += 1
            while index < end and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return None


def decode_args(raw: str) -> dict[str, Any] | None:
    """{key:<|"|>text<|"|>,n:1} as a dict: delimited strings become JSON strings, keys may be bare."""
    pattern = "|".join(re.escape(d) for d in _DELIMITERS)
    converted = re.sub(rf"({pattern})(.*?)\1", lambda m: json.dumps(m.group(2), ensure_ascii=False), raw,
                       flags=re.S)
    decoded = decode_at(converted)
    if decoded is None or converted[decoded[1]:].strip() or not isinstance(decoded[0], dict):
        return None
    return decoded[0]


def call_at(text: str, pos: int, names: Collection[str], *,
            any_name: bool) -> tuple[ToolCall, int] | bool | None:
    """call:NAME{…} at pos: (call, end); True if it may still be completed; None if it is none."""
    match = CALL_RE.match(text, pos)
    if match is None:
        return None
    name = known_name(match.group("name"), names) or (match.group("name") if any_name else None)
    if name is None:
        return None
    end = args_end(text, match.end() - 1)
    if end is None:
        return True
    arguments = decode_args(text[match.end() - 1:end])
    if arguments is None:
        return None
    return ToolCall(id=new_id(), name=name, arguments=arguments), end


class CallBlock(Block):
    """<|tool_call>call:…<tool_call|> (or <turn|>, or the next opener, or the end)."""

    def step(self, text: str, final: bool) -> Outcome:
        start = len(self.opener)
        stops = [(text.find(stop, start), stop) for stop in (*_ENDS[self.opener], self.opener)]
        found = [(index, stop) for index, stop in stops if index >= 0]
        if not found and not final:
            return None
        if not found and self.ctx.truncated:
            return Emit(consumed=len(text), events=[Malformed("Aufruf abgeschnitten", text, truncated=True)])
        index, stop = min(found) if found else (len(text), "")
        end = index + (len(stop) if stop != self.opener else 0)
        read = call_at(text[:index], start, self.ctx.names, any_name=True)
        if not isinstance(read, tuple) or text[read[1]:index].strip():
            return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
        return Emit(consumed=end, events=[Call(read[0])])


class ChannelBlock(ThinkBlock):
    """<|channel>thought\\n…<channel|>: reasoning; the channel's name on the first line is not."""

    def __init__(self, ctx: Ctx, opener: str) -> None:
        super().__init__(ctx, opener, closers=("<channel|>",))
        self.named = False

    def step(self, text: str, final: bool) -> Outcome:
        if not self.opened or self.named:
            return super().step(text, final)
        body = text[:len("thought") + 1]
        if not final and len(body) < len("thought") + 1 and "thought".startswith(body.rstrip("\n")):
            return None
        self.named = True
        skip = len("thought") + 1 if body.startswith("thought") and body[-1:] in ("\n", " ") else 0
        return Emit(consumed=skip, done=False)


OPENERS = [Opener("<|tool_call>", CallBlock), Opener("<start_function_call>", CallBlock),
           Opener("<|channel>", ChannelBlock)]
