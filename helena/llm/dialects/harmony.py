"""gpt-oss harmony: channels for reasoning (analysis), calls (commentary to=functions.NAME), answers (final).

    <|channel|>analysis<|message|>The user asks …<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>
    {"city":"Berlin"}<|call|>
    <|start|>assistant<|channel|>final<|message|>Es sind 20 Grad.<|return|>

A message's header runs to <|message|>; its body to <|end|>, <|call|>, <|return|> or the next
header. Final (and commentary without a recipient: the preamble harmony shows to users) streams as
text, a message to a function is a call once complete, and every other channel (analysis, or one
Helena does not know) as reasoning: when in doubt, a message is held back from the answer.
"""

from __future__ import annotations

import re
from typing import Any

from helena.llm.base import ToolCall
from helena.llm.dialects._base import (
    Block,
    Call,
    Ctx,
    Emit,
    Fragment,
    Malformed,
    Opener,
    Outcome,
    Reasoning,
)
from helena.llm.dialects._base import held_prefix as _held
from helena.llm.dialects._calls import coerce_args, known_name, new_id

_MESSAGE = "<|message|>"
_ENDS = ("<|end|>", "<|call|>", "<|return|>")
_NEXT = ("<|start|>", "<|channel|>")
_CHANNEL_RE = re.compile(r"<\|channel\|>\s*(?P<channel>\w+)")
_RECIPIENT_RE = re.compile(r"\bto=(?P<to>[\w.\-:]+)")
_MAX_HEADER = 300
_ANSWER_CHANNELS = frozenset({"final", "commentary"})


class MessageBlock(Block):
    def __init__(self, ctx: Ctx, opener: str) -> None:
        super().__init__(ctx, opener)
        self.channel: str | None = None
        self.recipient: str | None = None
        self.inner: Any = None  # reads a final answer for any other dialect's markup

    def step(self, text: str, final: bool) -> Outcome:
        if self.channel is None:
            return self._header(text, final)
        return self._body(text, final)

    def _header(self, text: str, final: bool) -> Outcome:
        index = text.find(_MESSAGE, 0, _MAX_HEADER + len(_MESSAGE))
        if index < 0:
            if len(text) >= _MAX_HEADER + len(_MESSAGE):
                return Emit(consumed=_MAX_HEADER)  # no header this long: drop it, read on as prose
            if final:
                return Emit(consumed=len(text))  # a header without a message: markup, nothing to show
            return None
        header = text[:index]
        channel = _CHANNEL_RE.search(header)
        self.channel = channel.group("channel") if channel else "final"
        recipient = _RECIPIENT_RE.search(header)
        self.recipient = recipient.group("to") if recipient else None
        return Emit(consumed=index + len(_MESSAGE), done=False)

    def _body(self, text: str, final: bool) -> Outcome:
        stops = [(text.find(marker), marker) for marker in (*_ENDS, *_NEXT)]
        found = [(index, marker) for index, marker in stops if index >= 0]
        if found:
            index, marker = min(found)
            end = index + len(marker) if marker in _ENDS else index
            return Emit(consumed=end, events=self._events(text[:index], complete=True, ending=True))
        if final:
            return Emit(consumed=len(text), events=self._events(text, complete=not self.ctx.truncated,
                                                                 ending=True))
        if self.recipient:
            return None  # a call is read whole
        keep = _held(text, (*_ENDS, *_NEXT))
        if not keep:
            return None
        return Emit(consumed=keep, events=self._events(text[:keep], complete=True), done=False)

    def _events(self, body: str, *, complete: bool, ending: bool = False) -> list[Fragment]:
        if self.recipient:
            if not complete:
                return [Malformed("Aufruf abgeschnitten", body, truncated=True)]
            name = self.recipient.removeprefix("functions.")
            call = ToolCall(id=new_id(), name=known_name(name, self.ctx.names) or name,
                            arguments=coerce_args(body.strip()))
            return [Call(call)]
        if self.channel not in _ANSWER_CHANNELS:
            return [Reasoning(body)] if body else []
        if self.inner is None:
            assert self.ctx.nested is not None
            self.inner = self.ctx.nested(names=())
        events: list[Fragment] = self.inner.feed(body)
        if ending:
            events += self.inner.finish(truncated=self.ctx.truncated)
        return events


OPENERS = [Opener(marker, MessageBlock) for marker in _NEXT]
