"""Llama 3.1 / 3.2 / 3.3 / 4: calls written as JSON with "parameters", or as a Python call list.

    {"name": "get_weather", "parameters": {"city": "Berlin"}}
    <|python_tag|>{"type": "function", "name": "…", "parameters": {…}}; {"name": …}
    [get_weather(city="Berlin"), get_time(zone="CET")]

A bare "{" or "[" is held only while it can still become a call of an offered tool: the first key
must be one a call starts with, and the name must fit a tool; otherwise it is prose at once. A "["
goes to _fallback first (it may be a bracket token such as [BEGIN FINAL RESPONSE]), which hands a
call list to ListBlock.
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
from helena.llm.dialects._calls import calls_from, python_calls
from helena.llm.dialects._scan import (
    Verdict,
    json_call,
    python_call_list,
    python_list_end,
    skip_separators,
    value_sequence,
)

_END_TOKENS = ("<|eom_id|>", "<|eot_id|>")
_PY_CALL_RE = re.compile(r"[A-Za-z_][\w.]*\s*\(")
_PY_NAME_RE = re.compile(r"[A-Za-z_][\w.]*\s*")


def verdict_outcome(verdict: Verdict, text: str, final: bool) -> Outcome:
    """A verdict as the block's answer; a complete call also takes a ';' that glues the next one."""
    if verdict.kind == "wait":
        return None
    if verdict.kind == "no":
        return REJECT
    if verdict.kind == "malformed":
        truncated = verdict.reason == "Aufruf abgeschnitten"
        return Emit(consumed=verdict.end, events=[Malformed(verdict.reason, text[:verdict.end], truncated)])
    after = verdict.end
    while after < len(text) and text[after] in " \t":
        after += 1
    if after == len(text) and not final:
        return None  # a ';' may follow that belongs to the calls
    if after < len(text) and text[after] == ";":
        verdict.end = after + 1
    return Emit(consumed=verdict.end, events=[Call(call) for call in verdict.calls])


class _Watching(Block):
    """Re-reads the held text only when a closing bracket arrived: a value can end only there.

    A value that is no call is passed on as prose up to its closing bracket (see Passthrough).
    """

    closers = "}]"

    def __init__(self, ctx: Ctx, opener: str) -> None:
        super().__init__(ctx, opener)
        self._seen = 0
        self._decided_early = False
        self._prose: Passthrough | None = None

    def step(self, text: str, final: bool) -> Outcome:
        if self._prose is not None:
            return self._prose.step(text, final)
        fresh = text[self._seen:]
        self._seen = len(text)
        if not final and not any(char in fresh for char in self.closers) and self._decided_early:
            return None
        self._decided_early = True
        outcome = verdict_outcome(self.verdict(text, final), text, final)
        if outcome is REJECT:
            self._prose = Passthrough(fence=False)
            return self._prose.step(text, final)
        return outcome

    def verdict(self, text: str, final: bool) -> Verdict:
        raise NotImplementedError


class JsonBlock(_Watching):
    def verdict(self, text: str, final: bool) -> Verdict:
        return json_call(text, 0, self.ctx.names, final=final, truncated=self.ctx.truncated)

    def step(self, text: str, final: bool) -> Outcome:
        # The early checks (first key, name) need every new piece until they pass.
        self._decided_early = self._decided_early and _past_name(text)
        return super().step(text, final)


class ListBlock(_Watching):
    closers = "]"

    def verdict(self, text: str, final: bool) -> Verdict:
        start = skip_separators(text, 1)
        if start >= len(text):
            return Verdict("wait") if not final else Verdict("no")
        if text[start] == "{":
            return json_call(text, 0, self.ctx.names, final=final, truncated=self.ctx.truncated)
        return python_call_list(text, 0, self.ctx.names, final=final, truncated=self.ctx.truncated)

    def step(self, text: str, final: bool) -> Outcome:
        self._decided_early = self._decided_early and _past_name(text)
        return super().step(text, final)


def _past_name(text: str) -> bool:
    """Whether the tool name is fully written (so only a closing bracket can change the verdict)."""
    return bool(re.search(r"[\"']\s*,|\(", text))


class PythonTagBlock(Block):
    """<|python_tag|> then JSON calls (separated by ';') or a Python call, up to the end token."""

    def step(self, text: str, final: bool) -> Outcome:
        start = skip_separators(text, len(self.opener))
        if start >= len(text):
            return Emit(consumed=len(text)) if final else None
        if text[start] in "{[":
            sequence = value_sequence(text, start, final=final, stops=_END_TOKENS)
            if sequence.status == "wait":
                return None
            if sequence.status == "invalid":
                if final and self.ctx.truncated:
                    return Emit(consumed=len(text), events=[Malformed("Aufruf abgeschnitten", text, True)])
                if not final:
                    return None
                return Emit(consumed=len(text), events=[Malformed("Aufruf unlesbar", text)])
            events: list[Fragment] = []
            for value in sequence.values:
                calls = calls_from(value, self.ctx.names, any_name=True)
                if calls is None:
                    raw = text[:sequence.end]
                    return Emit(consumed=sequence.end, events=[Malformed("Aufruf unlesbar", raw)])
                events.extend(Call(call) for call in calls)
            return Emit(consumed=sequence.end, events=events)
        match = _PY_CALL_RE.match(text, start)
        if match is None:
            if not final and _PY_NAME_RE.fullmatch(text, start):
                return None  # a call's name is still being written
            return Emit(consumed=start)  # prose after the tag: only the tag goes
        end = python_list_end(text, match.end() - 1)
        if end is None:
            if not final:
                return None
            reason = "Aufruf abgeschnitten" if self.ctx.truncated else "Aufruf unlesbar"
            return Emit(consumed=len(text), events=[Malformed(reason, text, self.ctx.truncated)])
        calls = python_calls(text[start:end], self.ctx.names | _builtin_names(text[start:end]))
        if not calls:
            return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
        return Emit(consumed=end, events=[Call(call) for call in calls])


def _builtin_names(source: str) -> frozenset[str]:
    """Llama's built-in tools (brave_search.call(…)) are calls too; the executor refuses unknown ones."""
    match = re.match(r"\s*([A-Za-z_]\w*)\.call\(", source)
    return frozenset({match.group(1)}) if match else frozenset()


OPENERS = [
    Opener("{", JsonBlock, needs_tools=True),
    Opener("<|python_tag|>", PythonTagBlock),
]
