"""What counts as a tool call once a dialect has found its text: JSON shapes, Python calls, names.

Only calls of known tools count: JSON that merely has "name"/"arguments" keys but names no offered
tool is data, and stays text. An object whose single key is an offered tool is a call of it
({"get_fristen": {"akte_id": 3}}, as Apertus writes its calls).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import uuid
from collections.abc import Collection
from typing import Any

from helena.llm.base import ToolCall
from helena.llm.dialects._jsonish import repair_arguments

# Keys models use for the tool name and its arguments when they write a call as text.
NAME_KEYS = ("name", "tool", "tool_name", "function", "action")
ARG_KEYS = ("arguments", "parameters", "args", "input", "action_input", "tool_input", "params")
META_KEYS = frozenset({"type", "id", "call_id", "tool_call_id", "index"})
# Keys a call object may start with: the streaming parser decides "no call" from any other first key.
FIRST_KEYS = frozenset({*NAME_KEYS, *ARG_KEYS, *META_KEYS, "tool_calls"})
NAME_PREFIXES = ("functions.", "function.", "tools.", "default_api.")


def new_id() -> str:
    return "call_" + uuid.uuid4().hex[:12]


def known_name(raw: Any, names: Collection[str]) -> str | None:
    """The offered tool a model meant, tolerating whitespace and 'functions.' prefixes."""
    if not isinstance(raw, str):
        return None
    name = raw.strip()
    if name in names:
        return name
    for prefix in NAME_PREFIXES:
        if name.startswith(prefix) and name[len(prefix):] in names:
            return name[len(prefix):]
    return None


def may_become_name(partial: str, names: Collection[str]) -> bool:
    """Whether a name still being written can become a known tool's name."""
    partial = partial.lstrip()
    for prefix in ("", *NAME_PREFIXES):
        if len(partial) <= len(prefix):
            if prefix.startswith(partial):
                return True
            continue
        if not partial.startswith(prefix):
            continue
        rest = partial[len(prefix):]
        if any(name.startswith(rest) for name in names):
            return True
    return False


def coerce_args(args: Any) -> dict[str, Any] | str:
    """Arguments as the loop wants them: a dict, or the raw string for an 'invalid arguments' reply."""
    if args is None:
        return {}
    if isinstance(args, dict):
        return args
    if isinstance(args, str):
        repaired = repair_arguments(args)
        return repaired if repaired is not None else args
    return json.dumps(args, ensure_ascii=False)


def _looks_like_schema(args: Any) -> bool:
    # A model listing its tools writes {"name": ..., "parameters": {"type": "object", ...}}: no call.
    return isinstance(args, dict) and args.get("type") == "object" and "properties" in args


def as_call(obj: Any, names: Collection[str], *, any_name: bool = False) -> ToolCall | None:
    """One call object as a ToolCall, or None if it is not a call of a known tool.

    A call object starts with one of FIRST_KEYS (the streaming parser decides on that before the
    object is complete). `any_name`: the object sits inside a dialect's call markup, so an unknown
    name is still a call (the executor tells the model the tool does not exist).
    """
    if not isinstance(obj, dict) or not obj:
        return None
    keyed = _keyed_by_name(obj, names, any_name=any_name)
    if keyed is not None:
        return keyed
    if next(iter(obj)) not in FIRST_KEYS:
        return None
    function = obj.get("function")
    if isinstance(function, dict):  # OpenAI shape: {"type": "function", "function": {...}}
        if set(obj) - {"function"} <= META_KEYS:
            return as_call(function, names, any_name=any_name)
        return None
    name_key = next((key for key in NAME_KEYS if isinstance(obj.get(key), str)), None)
    if name_key is None:
        return None
    name = known_name(obj[name_key], names)
    if name is None and any_name and obj[name_key].strip():
        name = obj[name_key].strip()
    if name is None:
        return None
    rest = {key: value for key, value in obj.items() if key != name_key and key not in META_KEYS}
    arg_key = next((key for key in ARG_KEYS if key in rest), None)
    if arg_key is not None:
        if set(rest) != {arg_key} or _looks_like_schema(rest[arg_key]):
            return None
        args = rest[arg_key]
    elif "description" in rest:
        return None
    else:
        args = rest  # flat form: {"name": "search_gesetze", "query": "..."}
    return ToolCall(id=new_id(), name=name, arguments=coerce_args(args))


def _keyed_by_name(obj: dict[str, Any], names: Collection[str], *, any_name: bool) -> ToolCall | None:
    """{"tool": {arguments}}: one key, the tool's name (in markup: any name but a call object's keys)."""
    if len(obj) != 1:
        return None
    key, value = next(iter(obj.items()))
    name = known_name(key, names)
    if name is None and any_name and key not in FIRST_KEYS and re.fullmatch(r"[A-Za-z_][\w.\-]*", key):
        name = key
    if name is None or not isinstance(value, dict) or _looks_like_schema(value):
        return None
    return ToolCall(id=new_id(), name=name, arguments=value)


def calls_from(value: Any, names: Collection[str], *, any_name: bool = False) -> list[ToolCall] | None:
    """All calls in a parsed value (object, list of objects, {"tool_calls": [...]}) or None."""
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        if set(value) - {"tool_calls", "content", "role"}:
            return None
        value = value["tool_calls"]
    if isinstance(value, dict):
        call = as_call(value, names, any_name=any_name)
        return [call] if call else None
    if isinstance(value, list) and value:
        calls = [as_call(item, names, any_name=any_name) for item in value]
        if all(calls):
            return [call for call in calls if call]
    return None


# --------------------------------------------------------------------------- Python-style calls


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _python_call(node: ast.expr, names: Collection[str], any_name: bool = False) -> ToolCall | None:
    if isinstance(node, ast.Call) and _dotted(node.func) == "print" and len(node.args) == 1:
        node = node.args[0]  # Gemma writes print(default_api.tool(...)) in tool_code
    if not isinstance(node, ast.Call) or node.args:
        return None
    dotted = _dotted(node.func)
    if dotted is None:
        return None
    if dotted.endswith(".call"):  # Llama's built-in form: brave_search.call(query="…")
        dotted = dotted[: -len(".call")]
    name = known_name(dotted, names) or (dotted if any_name else None)
    if name is None:
        return None
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return None
        try:
            arguments[keyword.arg] = ast.literal_eval(_json_literals(keyword.value))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    try:
        arguments = json.loads(json.dumps(arguments, ensure_ascii=False))
    except (TypeError, ValueError):
        return None
    return ToolCall(id=new_id(), name=name, arguments=arguments)


_JSON_LITERALS = {"true": True, "false": False, "null": None}


class _JsonLiterals(ast.NodeTransformer):
    """true/false/null written in a Python call (Olmo 3, LFM2) as the constants they mean."""

    def visit_Name(self, name: ast.Name) -> ast.AST:
        if name.id in _JSON_LITERALS:
            return ast.copy_location(ast.Constant(_JSON_LITERALS[name.id]), name)
        return name


def _json_literals(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Constant) or not any(isinstance(n, ast.Name) for n in ast.walk(node)):
        return node
    return _JsonLiterals().visit(node)


def python_calls(source: str, names: Collection[str], *, any_name: bool = False) -> list[ToolCall] | None:
    """`[f(a="x"), g(b=1)]`, `f(a="x")` or one call a line: the calls, or None if not only calls.

    Gemma's tool_code may assign the result and print it (`r = f(a="x")` then `print(r)`): the
    assignment is the call, printing a name is nothing.
    """
    source = source.strip()
    if not source:
        return None
    try:
        tree = ast.parse(source, mode="exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    nodes: list[ast.expr] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
            nodes.append(statement.value)
            continue
        if not isinstance(statement, ast.Expr):
            return None
        value = statement.value
        if (isinstance(value, ast.Call) and _dotted(value.func) == "print" and len(value.args) == 1
                and isinstance(value.args[0], ast.Name)):
            continue
        nodes.extend(value.elts if isinstance(value, ast.List | ast.Tuple) else [value])
    calls = [_python_call(node, names, any_name) for node in nodes]
    if not calls or not all(calls):
        return None
    return [call for call in calls if call]


def tool_types(tools: list[dict[str, Any]] | None) -> dict[str, dict[str, str]]:
    """tool -> parameter -> JSON schema type, from OpenAI-style tool schemas."""
    types: dict[str, dict[str, str]] = {}
    for tool in tools or []:
        function = tool.get("function") or {}
        properties = (function.get("parameters") or {}).get("properties") or {}
        types[function.get("name", "")] = {
            key: schema["type"] for key, schema in properties.items()
            if isinstance(schema, dict) and isinstance(schema.get("type"), str)
        }
    return types


# --------------------------------------------------------------------------- structured calls


def normalize_call(call: ToolCall, names: Collection[str]) -> ToolCall:
    """A server's structured call, repaired: known name, dict arguments (or the raw string)."""
    name = known_name(call.name, names) or call.name.strip()
    raw = call.arguments
    if isinstance(raw, dict):
        arguments: dict[str, Any] | str = raw
    elif isinstance(raw, str):
        repaired = repair_arguments(raw)
        arguments = repaired if repaired is not None else raw
    else:
        arguments = {} if raw is None else json.dumps(raw, ensure_ascii=False, default=str)
    arguments = _unwrap_nested_call(arguments, name, names)
    return dataclasses.replace(call, name=name, arguments=arguments)


def _unwrap_nested_call(arguments: dict[str, Any] | str, name: str, names: Collection[str]) -> Any:
    """Some models put the whole call into arguments: {"name": same tool, "arguments": {...}}."""
    if not isinstance(arguments, dict) or len(arguments) != 2 or "name" not in arguments:
        return arguments
    arg_key = next((key for key in ("arguments", "parameters") if key in arguments), None)
    if arg_key is None or known_name(arguments["name"], names) != name:
        return arguments
    return coerce_args(arguments[arg_key])
