"""Gemma 3 (and any small model) writing calls in a code fence: ```tool_code, ```json, ```python.

    ```tool_code
    get_weather(city="Berlin")
    ```

A fence is held only while its language and first characters can still be a call of an offered
tool; any other code block is prose at once.
"""

from __future__ import annotations

import re

from helena.llm.dialects._base import (
    REJECT,
    Block,
    Call,
    Ctx,
    Emit,
    Fragment,
    Malformed,
    Opener,
    Outcome,
    Passthrough,
)
from helena.llm.dialects._calls import calls_from, may_become_name, python_calls
from helena.llm.dialects._scan import json_call, skip_separators, value_sequence

CALL_LANGUAGES = frozenset({"", "json", "tool_code", "tool_call", "tool_calls", "python", "py"})
_CODE = Emit(consumed=0)  # marker: an ordinary code block, passed on as prose
_CODE_LANGUAGES = frozenset({"tool_code", "python", "py"})
_IDENT_RE = re.compile(r"[A-Za-z_][\w.]*")
_FENCE = "```"


class FenceBlock(Block):
    def __init__(self, ctx: Ctx, opener: str) -> None:
        super().__init__(ctx, opener)
        self._prose: Passthrough | None = None

    def step(self, text: str, final: bool) -> Outcome:
        if self._prose is not None:
            return self._prose.step(text, final)
        outcome = self._decide(text, final)
        if outcome is _CODE:  # an ordinary code block: prose up to its own closing fence
            self._prose = Passthrough(fence=True, nested=self.ctx.nested)
            return self._prose.step(text, final)
        return outcome

    def _decide(self, text: str, final: bool) -> Outcome:
        newline = text.find("\n", len(_FENCE))
        if newline < 0:
            info = text[len(_FENCE):]
            if not final and len(info) < 20 and re.fullmatch(r"[\w\-]*[ \t]*", info):
                return None
            return REJECT
        if text[len(_FENCE):newline].strip().lower() not in CALL_LANGUAGES:
            return _CODE
        start = skip_separators(text, newline + 1)
        if start >= len(text):
            return _CODE if final else None
        close = text.find(_FENCE, start)
        body_end = close if close >= 0 else len(text)
        if text[start] in "{[":
            return self._json(text, start, close, final)
        language = text[len(_FENCE):newline].strip().lower()
        ident = _IDENT_RE.match(text, start)
        if ident is None:
            return _CODE
        if language not in _CODE_LANGUAGES:  # e.g. ``` with a call: its name must fit a tool
            name = ident.group().removeprefix("print")
            if ident.end() == len(text):
                return None if not final and may_become_name(name, self.ctx.names) else _CODE
            if text[ident.end()] != "(" or not may_become_name(name, self.ctx.names):
                return _CODE
        if close < 0 and not final:
            return None  # a code block for calls (tool_code, python) is read whole
        if close < 0 and self.ctx.truncated and language == "tool_code":
            return Emit(consumed=len(text), events=[Malformed("Aufruf abgeschnitten", text, True)])
        calls = python_calls(text[start:body_end], self.ctx.names)
        if not calls:
            if language == "tool_code":  # written for calls, so never shown: a broken call
                end = self._end(text, close)
                return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
            return _CODE
        return Emit(consumed=self._end(text, close), events=[Call(call) for call in calls])

    def _json(self, text: str, start: int, close: int, final: bool) -> Outcome:
        verdict = json_call(text, start, self.ctx.names, final=final or close >= 0,
                            truncated=self.ctx.truncated)
        if verdict.kind == "no":
            return _CODE
        if verdict.kind == "wait" or (close < 0 and not final):
            return None
        if verdict.kind == "malformed":
            end = self._end(text, close)
            cut = verdict.reason.endswith("abgeschnitten")
            return Emit(consumed=end, events=[Malformed(verdict.reason, text[:end], cut)])
        sequence = value_sequence(text[: close if close >= 0 else len(text)], start, final=True)
        events: list[Fragment] = []
        for value in sequence.values:
            calls = calls_from(value, self.ctx.names)
            if calls is None:
                return _CODE
            events.extend(Call(call) for call in calls)
        body_end = close if close >= 0 else len(text)
        if text[sequence.end:body_end].strip(" \t\r\n,;"):
            return _CODE
        return Emit(consumed=self._end(text, close), events=events)

    @staticmethod
    def _end(text: str, close: int) -> int:
        return close + len(_FENCE) if close >= 0 else len(text)


OPENERS = [Opener(_FENCE, FenceBlock, needs_tools=True)]
