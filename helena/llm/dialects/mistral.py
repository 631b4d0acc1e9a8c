"""Mistral: [TOOL_CALLS][{…}] (tokenizers before v11) and [TOOL_CALLS]name[ARGS]{…} (v11 on).

Each [TOOL_CALLS] starts one block; v11 writes one per call. [CALL_ID]id may sit between name and
[ARGS]; a closing [/TOOL_CALLS] (as Ollama's template shows it) is dropped with the tokens.
"""

from __future__ import annotations

import re

from helena.llm.base import ToolCall
from helena.llm.dialects._base import Block, Call, Emit, Malformed, Opener, Outcome
from helena.llm.dialects._calls import calls_from, coerce_args, known_name, new_id
from helena.llm.dialects._jsonish import Incomplete, Invalid, scan_value
from helena.llm.dialects._scan import python_list_end, repair_value, skip_separators

_NAMED_RE = re.compile(r"(?P<name>[\w.\-]+)\s*(?:\[CALL_ID\]\s*(?P<id>[\w\-]+)\s*)?(?:\[ARGS\])?\s*")
_TOKENS = ("[ARGS]", "[CALL_ID]")


class ToolCallsBlock(Block):
    def step(self, text: str, final: bool) -> Outcome:
        start = skip_separators(text, len(self.opener))
        if start >= len(text):
            return Emit(consumed=len(text)) if final else None
        if text[start] in "{[" and not text.startswith(_TOKENS, start):
            return self._value(text, start, final, name=None)
        named = _NAMED_RE.match(text, start)
        if named is None:
            return Emit(consumed=start)  # prose after the marker: only the marker goes
        at = named.end()
        rest = text[at:]
        if not final and (not rest or (rest[0] == "[" and any(
                token.startswith(rest) and len(rest) <= len(token) for token in _TOKENS))):
            return None  # the name, [CALL_ID] or [ARGS] is still being written
        if not rest or rest[0] != "{":
            return Emit(consumed=at, events=[Malformed("Aufruf unlesbar", text[:at], self.ctx.truncated)])
        return self._value(text, at, final, name=named.group("name"), call_id=named.group("id"))

    def _value(self, text: str, pos: int, final: bool, *, name: str | None,
               call_id: str | None = None) -> Outcome:
        try:
            value, end = scan_value(text, pos)
        except Incomplete:
            if not final:
                return None
            if self.ctx.truncated:
                return Emit(consumed=len(text), events=[Malformed("Aufruf abgeschnitten", text, True)])
            value, end = repair_value(text[pos:]), len(text)
            if value is None:
                return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text)])
        except Invalid:
            end = python_list_end(text, pos)
            if end is None and not final:
                return None
            end = end or len(text)
            return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
        if name is not None:
            call = ToolCall(id=call_id or new_id(), name=known_name(name, self.ctx.names) or name,
                            arguments=coerce_args(value))
            return Emit(consumed=end, events=[Call(call)])
        calls = calls_from(value, self.ctx.names, any_name=True)
        if not calls:
            return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
        return Emit(consumed=end, events=[Call(c) for c in calls])


OPENERS = [Opener("[TOOL_CALLS]", ToolCallsBlock)]
