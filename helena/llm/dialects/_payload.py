"""A call's inside, read whatever wraps it: the shapes open models write a call's payload in.

Family modules read their own payload first; markup the parser knows only by its words
(<minimax:tool_call>, <|tool_calls_section_begin|>, <TOOLCALL>, a <user> tag around a call …) and a
Hermes tag whose body is not JSON hand it here. A payload is a sequence of calls, each one of

    {"name": "x", "arguments": {…}}, [{…}, …], {"x": {…}}          JSON (Hermes, Nemotron, Cohere, Apertus)
    x(a=1), one a line or in a list                                 Python (Olmo 3, LFM2, Llama 3.2)
    <invoke name="x"><parameter name="k">v</parameter></invoke>    XML, any namespace (MiniMax-M2, Step3,
                                                                    DeepSeek V3.2 DSML, Claude-style)
    <function=x>…</function>, <function name="x">{…}</function>    Qwen3-Coder, Seed-OSS, llama.cpp's Hermes
    x <arg_key>k</arg_key><arg_value>v</arg_value>                 GLM 4.5–4.7, Poolside Laguna
    functions.x:0 <|tool_call_argument_begin|> {…}, x\\n{…}         Kimi K2, Laguna
    call:x{k:<|"|>v<|"|>}                                          Gemma 4

separated by whitespace, commas, code fences and markup tokens. Anything else makes the whole
payload unreadable (None): the caller reports it, so the model is asked again and no call is lost.
"""

from __future__ import annotations

import re
from typing import Any

from helena.llm.base import ToolCall
from helena.llm.dialects import _markers, gemma4
from helena.llm.dialects._base import Ctx
from helena.llm.dialects._calls import calls_from, coerce_args, known_name, new_id, python_calls
from helena.llm.dialects._jsonish import Incomplete, Invalid, scan_value
from helena.llm.dialects._scan import python_list_end
from helena.llm.dialects.qwen3_coder import typed_value, xml_calls

_NS = r"(?P<ns>[|｜][\w.\-]{1,24}[|｜]|[\w.\-]{1,24}:)?"
_INVOKE_RE = re.compile(rf"<{_NS}(?P<tag>invoke|function)\s+name\s*=\s*[\"'](?P<name>[^\"'<>]+)[\"'][^<>]*>")
_PARAM_RE = re.compile(rf"<{_NS}parameter\s+name\s*=\s*[\"'](?P<key>[^\"'<>]+)[\"'][^<>]*>(?P<value>.*?)"
                       r"</(?:[|｜][\w.\-]{1,24}[|｜]|[\w.\-]{1,24}:)?parameter>", re.S)
_QWEN_PARAM_RE = re.compile(r"<parameter=")
_ARG_RE = re.compile(r"\s*<arg_key>(?P<key>.*?)</arg_key>\s*<arg_value>(?P<value>.*?)</arg_value>", re.S)
_IDENT_RE = re.compile(r"(?P<name>[A-Za-z_][\w.\-]*)(?::\d+)?")
_FENCE_RE = re.compile(r"```[\w+\-]*")
_ELEMENTS = frozenset({"invoke", "function", "parameter", "arg_key", "arg_value"})


def read_calls(body: str, ctx: Ctx, *, any_name: bool) -> list[ToolCall] | None:
    """The calls a payload holds ([] if it holds nothing), or None if any part of it is no call.

    `any_name`: the payload sits in call markup, so an unknown name is still a call (the executor
    answers "unknown tool"); outside call markup only offered tools count.
    """
    calls: list[ToolCall] = []
    pos = _skip(body, 0)
    while pos < len(body):
        read = _one(body, pos, ctx, any_name)
        if read is None:
            return None
        found, pos = read
        calls.extend(found)
        pos = _skip(body, pos)
    return calls


def _skip(body: str, pos: int) -> int:
    """Past whitespace, separators, code fences and markup that only frames calls."""
    end = len(body)
    while pos < end:
        char = body[pos]
        if char.isspace() or char in ",;":
            pos += 1
        elif body.startswith("```", pos):
            pos = _FENCE_RE.match(body, pos).end()  # type: ignore[union-attr]
        elif char in "<[◁":
            marker = _markers.read(body[pos:pos + 512])
            if not isinstance(marker, _markers.Marker) or _element(marker):
                return pos
            pos += len(marker.text)
        else:
            return pos
    return pos


def _element(marker: _markers.Marker) -> bool:
    """Whether a marker starts a part of a call this module reads (not a frame to skip)."""
    match = _markers.XML_RE.match(marker.text)
    if match is None or match.group("slash"):
        return False
    local = re.split(r"[:|｜]", match.group("name"))[-1]
    return local in _ELEMENTS


def _name(raw: str, ctx: Ctx, any_name: bool) -> str | None:
    return known_name(raw, ctx.names) or (raw.strip() if any_name and raw.strip() else None)


def _one(body: str, pos: int, ctx: Ctx, any_name: bool) -> tuple[list[ToolCall], int] | None:
    char = body[pos]
    if char == "<":
        return _xml(body, pos, ctx, any_name)
    if char in "{[":
        try:
            value, end = scan_value(body, pos)
        except (Incomplete, Invalid):
            return _python(body, pos, ctx, any_name) if char == "[" else None
        calls = calls_from(value, ctx.names, any_name=any_name)
        return (calls, end) if calls else None
    if body.startswith("call:", pos) or body.startswith(":call:", pos):
        read = gemma4.call_at(body, pos, ctx.names, any_name=any_name)
        return ([read[0]], read[1]) if isinstance(read, tuple) else None
    ident = _IDENT_RE.match(body, pos)
    if ident is None:
        return None
    if body.startswith("(", ident.end()):
        return _python(body, pos, ctx, any_name)
    name = _name(ident.group("name"), ctx, any_name)
    if name is None:
        return None
    return _named(body, ident.end(), name, ctx)


def _python(body: str, pos: int, ctx: Ctx, any_name: bool) -> tuple[list[ToolCall], int] | None:
    end = python_list_end(body, body.index("(", pos) if body[pos] != "[" else pos)
    if end is None:
        return None
    calls = python_calls(body[pos:end], ctx.names, any_name=any_name)
    return (calls, end) if calls else None


def _named(body: str, pos: int, name: str, ctx: Ctx) -> tuple[list[ToolCall], int] | None:
    """The arguments after a call's name: a JSON object, GLM's key/value pairs, or none at all."""
    start = _skip(body, pos)
    if start >= len(body):
        return [ToolCall(id=new_id(), name=name, arguments={})], start
    if body[start] == "{":
        try:
            value, end = scan_value(body, start)
        except (Incomplete, Invalid):
            return None
        return ([ToolCall(id=new_id(), name=name, arguments=value)], end) if isinstance(value, dict) else None
    arguments: dict[str, Any] = {}
    kinds = ctx.types.get(name, {})
    end = pos
    for match in _ARG_RE.finditer(body, pos):
        if match.start() != end and body[end:match.start()].strip():
            break
        key = match.group("key").strip()
        arguments[key] = typed_value(match.group("value"), kinds.get(key))
        end = match.end()
    if not arguments:
        return None
    return [ToolCall(id=new_id(), name=name, arguments=arguments)], end


def _xml(body: str, pos: int, ctx: Ctx, any_name: bool) -> tuple[list[ToolCall], int] | None:
    if body.startswith("<function=", pos):
        close = body.find("</function>", pos)
        end = close + len("</function>") if close >= 0 else len(body)
        calls = xml_calls(body[pos:end], ctx.names, ctx.types)
        if not calls:
            return None
        return [call for call in calls if any_name or known_name(call.name, ctx.names)] or None, end
    match = _INVOKE_RE.match(body, pos)
    if match is None:
        return None
    name = _name(match.group("name"), ctx, any_name)
    if name is None:
        return None
    closer = re.compile(rf"</(?:[|｜][\w.\-]{{1,24}}[|｜]|[\w.\-]{{1,24}}:)?{match.group('tag')}>")
    close = closer.search(body, match.end())
    inner = body[match.end():close.start() if close else len(body)]
    end = close.end() if close else len(body)
    return [ToolCall(id=new_id(), name=name, arguments=_arguments(inner, name, ctx))], end


def _arguments(inner: str, name: str, ctx: Ctx) -> dict[str, Any] | str:
    """An invoke's arguments: <parameter name="k">v</parameter>s, Qwen's <parameter=k>, or JSON."""
    kinds = ctx.types.get(name, {})
    params = list(_PARAM_RE.finditer(inner))
    if params:
        return {p.group("key").strip(): typed_value(p.group("value"), kinds.get(p.group("key").strip()))
                for p in params}
    if _QWEN_PARAM_RE.search(inner):
        calls = xml_calls(f"<function={name}>{inner}</function>", {name}, ctx.types)
        return calls[0].arguments if calls else inner
    return coerce_args(inner.strip()) if inner.strip() else {}
