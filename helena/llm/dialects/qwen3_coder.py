"""Qwen3-Coder / Qwen3.5 XML calls, and Llama 3.1's <function=NAME>{json}</function>.

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Berlin
    </parameter>
    </function>
    </tool_call>

Parameter values are text; a value that is a JSON object or list is decoded (like vLLM's
qwen3coder parser without the schema), scalars stay strings and the tool's parameter model
converts them ("14" → 14).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from typing import Any

from helena.llm.base import ToolCall
from helena.llm.dialects._base import Block, Call, Ctx, Emit, Malformed, Opener, Outcome
from helena.llm.dialects._calls import coerce_args, known_name, new_id

_FUNCTION_RE = re.compile(r"<function=(?P<name>[^>\n]+)>(?P<body>.*?)(?:</function>|\Z)", re.S)
_PARAMETER_RE = re.compile(
    r"<parameter=(?P<key>[^>\n]+)>(?P<value>.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.S
)


def typed_value(raw: str, kind: str | None) -> Any:
    """A parameter's text as the value its schema type asks for (like vLLM's qwen3coder parser)."""
    text = raw.strip("\n")
    stripped = text.strip()
    try:
        if kind == "integer" and re.fullmatch(r"-?\d+", stripped):
            return int(stripped)
        if kind == "number" and re.fullmatch(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", stripped):
            return float(stripped) if any(c in stripped for c in ".eE") else int(stripped)
        if kind == "boolean" and stripped.lower() in ("true", "false"):
            return stripped.lower() == "true"
        if stripped[:1] in ("{", "[") and kind in (None, "object", "array"):
            try:
                return json.loads(stripped)
            except ValueError:
                return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    return text


def xml_calls(body: str, names: Collection[str], types: dict[str, dict[str, str]] | None = None,
              ) -> list[ToolCall] | None:
    """The calls in a body of <function=…> elements, or None if it holds anything else."""
    calls: list[ToolCall] = []
    rest = body
    for match in _FUNCTION_RE.finditer(body):
        name = known_name(match.group("name"), names) or match.group("name").strip()
        inner = match.group("body")
        if "<parameter=" in inner:
            kinds = (types or {}).get(name, {})
            arguments: dict[str, Any] | str = {
                p.group("key").strip(): typed_value(p.group("value"), kinds.get(p.group("key").strip()))
                for p in _PARAMETER_RE.finditer(inner)
            }
        else:  # Llama 3.1's custom format: <function=name>{"a": 1}</function>
            arguments = coerce_args(inner.strip()) if inner.strip() else {}
        calls.append(ToolCall(id=new_id(), name=name, arguments=arguments))
        rest = rest.replace(match.group(0), "", 1)
    if not calls or rest.strip():
        return None
    return calls


class FunctionBlock(Block):
    """A <function=…> element without the <tool_call> around it."""

    def step(self, text: str, final: bool) -> Outcome:
        close = text.find("</function>")
        if close < 0 and not final:
            head_end = text.find(">")
            if head_end < 0 and ("\n" in text or len(text) > 120):
                return Emit(consumed=len(text), events=[Malformed("Funktionskopf unlesbar", text)])
            return None
        end = close + len("</function>") if close >= 0 else len(text)
        if close < 0 and self.ctx.truncated:
            return Emit(consumed=end, events=[Malformed("Aufruf abgeschnitten", text, truncated=True)])
        calls = xml_calls(text[:end], self.ctx.names, self.ctx.types)
        if not calls:
            return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
        return Emit(consumed=end, events=[Call(call) for call in calls])


OPENERS = [Opener("<function=", FunctionBlock)]


def make(ctx: Ctx, opener: str) -> FunctionBlock:
    return FunctionBlock(ctx, opener)
