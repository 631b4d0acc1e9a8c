"""Hermes / Qwen2.5 / Qwen3 <tool_call>{json}</tool_call>, and its relatives.

One or several calls in a row, JSON or Python-dict literals inside, or Qwen3-Coder's XML. The same
block reads Granite's <|tool_call|>[{…}] (no closing tag; arguments may be a JSON string holding
JSON) and the <tool_calls>/<function_call> variants small models invent. Inside the markup any
name counts as a call attempt: an unknown tool gets the executor's "unknown tool" answer, so the
model can correct itself, instead of raw markup reaching the user. A body that is neither JSON nor
Python nor Qwen3-Coder's XML is read by _payload (GLM's NAME<arg_key>…, Laguna's NAME\n{…}).
"""

from __future__ import annotations

import re

from helena.llm.dialects._base import Block, Call, Ctx, Emit, Fragment, Malformed, Opener, Outcome
from helena.llm.dialects._calls import calls_from, python_calls
from helena.llm.dialects._payload import read_calls
from helena.llm.dialects._scan import repair_value, value_sequence
from helena.llm.dialects.qwen3_coder import xml_calls

_FENCE_RE = re.compile(r"\A```[\w\-]*\s*|\s*```\Z")
CLOSERS = {"<tool_call>": "</tool_call>", "<tool_calls>": "</tool_calls>",
           "<function_call>": "</function_call>", "<|tool_call|>": "<|/tool_call|>"}


def body_events(body: str, ctx: Ctx) -> list[Fragment] | None:
    """The calls written in a tag body; None when the body is not made of calls."""
    events = _known_shapes(body, ctx)
    if events is None:
        calls = read_calls(body, ctx, any_name=True)
        events = [Call(call) for call in calls] if calls else None
    return events


def _known_shapes(body: str, ctx: Ctx) -> list[Fragment] | None:
    stripped = _FENCE_RE.sub("", body.strip()).strip()
    if not stripped:
        return []
    if stripped.startswith("<function="):
        calls = xml_calls(stripped, ctx.names, ctx.types)
        return [Call(call) for call in calls] if calls else None
    if stripped[0] in "{[":
        sequence = value_sequence(stripped, 0, final=True)
        values = sequence.values
        if sequence.status != "done" or stripped[sequence.end:].strip(" \t\r\n,;`"):
            repaired = repair_value(stripped)
            if repaired is None:
                return None
            values = [repaired]
        events: list[Fragment] = []
        for value in values:
            calls = calls_from(value, ctx.names, any_name=True)
            if calls is None:
                return None
            events.extend(Call(call) for call in calls)
        return events
    calls = python_calls(stripped.strip("`"), ctx.names)
    return [Call(call) for call in calls] if calls else None


class TagBlock(Block):
    def __init__(self, ctx: Ctx, opener: str) -> None:
        super().__init__(ctx, opener)
        self.close = CLOSERS[opener]

    def step(self, text: str, final: bool) -> Outcome:
        start = len(self.opener)
        close = text.find(self.close, start)
        following = text.find(self.opener, start)
        if close >= 0 and (following < 0 or close < following):
            return self._decide(text, text[start:close], close + len(self.close))
        if following >= 0:  # unclosed, and the next call begins
            return self._decide(text, text[start:following], following)
        if self.close == "<|/tool_call|>":  # Granite: usually no closing tag, the JSON ends the call
            sequence = value_sequence(text, start, final=final, stops=(self.close,))
            if sequence.status == "done":
                return self._decide(text, text[start:sequence.end], sequence.end)
            rest = text[start:].lstrip()
            if sequence.status == "invalid" and rest and rest[0] not in "{[":
                return Emit(consumed=start)  # prose after the marker: only the marker goes
        if not final:
            return None
        if self.ctx.truncated:
            return Emit(consumed=len(text), events=[Malformed("Aufruf abgeschnitten", text, truncated=True)])
        return self._decide(text, text[start:], len(text))

    def _decide(self, text: str, body: str, end: int) -> Emit:
        events = body_events(body, self.ctx)
        if events is None:
            return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
        return Emit(consumed=end, events=events)


OPENERS = [Opener(opener, TagBlock) for opener in CLOSERS]
