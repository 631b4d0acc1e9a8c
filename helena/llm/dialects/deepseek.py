"""DeepSeek V3 / R1 / V3.1 tool-call tokens.

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Berlin"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

V3.1 drops the type and the fence: <｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Berlin"}.
Some servers and templates write the bars as ASCII '|'; both are read.
"""

from __future__ import annotations

import re

from helena.llm.base import ToolCall
from helena.llm.dialects._base import Block, Call, Emit, Fragment, Malformed, Opener, Outcome
from helena.llm.dialects._calls import coerce_args, known_name, new_id

_BAR = "[｜|]"
_SEP = f"<{_BAR}tool▁sep{_BAR}>"
_CALL_RE = re.compile(
    rf"<{_BAR}tool▁call▁begin{_BAR}>\s*"
    rf"(?:function\s*{_SEP}\s*(?P<name>[^\n<`]+?)\s*(?:\n|(?=```))|(?P<name31>[^\n<`]+?)\s*{_SEP}\s*)"
    rf"(?:```(?:json)?\s*(?P<fenced>.*?)\s*```|(?P<bare>.*?))\s*(?:<{_BAR}tool▁call▁end{_BAR}>|\Z)",
    re.S,
)
_END_RE = re.compile(f"<{_BAR}tool▁calls▁end{_BAR}>")


def calls_in(body: str, names: frozenset[str]) -> list[ToolCall] | None:
    calls = []
    rest = body
    for match in _CALL_RE.finditer(body):
        raw_name = (match.group("name") or match.group("name31") or "").strip()
        arguments = match.group("fenced") if match.group("fenced") is not None else match.group("bare")
        calls.append(ToolCall(id=new_id(), name=known_name(raw_name, names) or raw_name,
                              arguments=coerce_args((arguments or "").strip())))
        rest = rest.replace(match.group(0), "", 1)
    if not calls or rest.strip():
        return None
    return calls


class ToolCallsBlock(Block):
    def step(self, text: str, final: bool) -> Outcome:
        end_match = _END_RE.search(text, len(self.opener))
        if end_match is None and not final:
            return None
        if end_match is None and self.ctx.truncated:
            return Emit(consumed=len(text), events=[Malformed("Aufruf abgeschnitten", text, True)])
        body_end = end_match.start() if end_match else len(text)
        end = end_match.end() if end_match else len(text)
        calls = calls_in(text[len(self.opener):body_end], self.ctx.names)
        return Emit(consumed=end, events=_events(calls, text[:end]))


class CallBlock(ToolCallsBlock):
    """A single <｜tool▁call▁begin｜> without the calls wrapper: up to its own end token."""

    def step(self, text: str, final: bool) -> Outcome:
        end_match = re.compile(f"<{_BAR}tool▁call▁end{_BAR}>").search(text, len(self.opener))
        if end_match is None and not final:
            return None
        end = end_match.end() if end_match else len(text)
        if end_match is None and self.ctx.truncated:
            return Emit(consumed=end, events=[Malformed("Aufruf abgeschnitten", text, True)])
        calls = calls_in(text[:end], self.ctx.names)
        return Emit(consumed=end, events=_events(calls, text[:end]))


def _events(calls: list[ToolCall] | None, raw: str) -> list[Fragment]:
    return [Call(call) for call in calls] if calls else [Malformed("Aufruf unlesbar", raw)]


OPENERS = [
    *(Opener(f"<{bar}tool▁calls▁begin{bar}>", ToolCallsBlock) for bar in "｜|"),
    *(Opener(f"<{bar}tool▁call▁begin{bar}>", CallBlock) for bar in "｜|"),
]
