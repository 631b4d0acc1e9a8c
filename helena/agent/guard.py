"""Guard for local-model turns: repair broken tool calls before the agent loop acts on them.

Small models served by Ollama often send almost-JSON arguments or write a tool call as plain text
instead of a structured tool_call. The loop passes every local turn through guard_turn() so that
such answers still become proper ToolCalls instead of leaking raw JSON to the user.

Everything here is conservative: strict JSON is always tried first, repairs only kick in when it
fails, and text is only treated as a tool call when it names one of the offered tools.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import uuid
from typing import Any

from helena.llm.base import ToolCall, Turn

__all__ = ["PARSE_ERROR_HINT", "guard_turn", "repair_arguments", "scan_content"]

PARSE_ERROR_HINT = (
    "Dein letzter Werkzeugaufruf konnte nicht gelesen werden. Rufe das Werkzeug bitte erneut über das "
    "Tool-Calling-Format auf: genau ein Werkzeugname, die Argumente als gültiges JSON-Objekt mit doppelten "
    "Anführungszeichen, ohne abschließende Kommas, ohne Markdown-Codeblöcke und ohne Fließtext im Aufruf. "
    "Your last tool call could not be parsed. Call the tool again using the tool-calling format with valid "
    "JSON arguments (double quotes, no trailing commas, no code fences) and no prose inside the call."
)

_MAX_DEPTH = 3  # how often a JSON string may wrap another JSON document
_MAX_START_ATTEMPTS = 64  # '{' positions tried when an object is surrounded by prose
_LENIENT_BUDGET = 200_000  # characters failed lenient attempts may scan per call: no quadratic stalls
_MISSING = object()

# Keys models use for the tool name and its arguments when they write a call as text.
_NAME_KEYS = ("name", "tool", "tool_name", "function", "action")
_ARG_KEYS = ("arguments", "parameters", "args", "input", "action_input", "tool_input", "params")
_META_KEYS = frozenset({"type", "id", "call_id", "index"})
_NAME_PREFIXES = ("functions.", "function.", "tools.")

_DECODER = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside strings are fine

_FENCE_RE = re.compile(r"\A```[\w+\-]*[ \t]*\n?(?P<body>.*?)\n?[ \t]*```\s*\Z", re.S)
_FENCE_OPEN_RE = re.compile(r"\A```[\w+\-]*[ \t]*\n?")

# Tagged formats. Bodies run to the closing tag, the next opening tag or the end of the text.
_XML_TAG_RE = re.compile(
    r"<(?P<tag>tool_call|tool_calls|function_call)>(?P<body>.*?)(?P<close></(?P=tag)>|(?=<(?P=tag)>)|\Z)",
    re.S,
)
_PIPE_TAG_RE = re.compile(
    r"<\|tool_call\|>(?P<body>.*?)(?P<close><\|/tool_call\|>|(?=<\|tool_call\|>)|\Z)", re.S
)
_FUNCTION_TAG_RE = re.compile(r"<function=(?P<name>[\w.\-]+)>(?P<body>.*?)(?P<close></function>|\Z)", re.S)
_MISTRAL_RE = re.compile(r"\[TOOL_CALLS\](?P<body>.*?)(?P<close>)(?=\[TOOL_CALLS\]|\Z)", re.S)
_MISTRAL_NAMED_RE = re.compile(r"\s*(?P<name>[\w.\-]+)\s*(?:\[CALL_ID\]\s*[\w\-]+\s*)?(?:\[ARGS\])?\s*")

# Skipped between values inside a tag body: whitespace, separators, code fences.
_BODY_GAP_RE = re.compile(r"(?:\s+|[,;]|```[\w+\-]*)*")
# Markers glued to a call written as bare JSON; removed together with the call.
_LEFT_MARKER_RE = re.compile(
    r"(?P<marker><\|python_tag\|>|\[TOOL_CALLS\]|<tool_call>|<\|tool_call\|>|functools|```[\w+\-]*)\s*\Z"
)
_EMPTY_FENCE_RE = re.compile(r"```[\w+\-]*\s*```")
_RIGHT_MARKER_RE = re.compile(  # used with .match(text, pos): anchored at pos
    r"\s*(?P<marker></tool_call>|<\|/tool_call\|>|<\|eom_id\|>|<\|eot_id\|>|```|;)"
)

_CLOSERS = {'"': '"', "'": "'", "„": "“”", "“": "”“", "”": "”", "‘": "’‘", "‚": "‘’", "’": "’"}
_NUMBER_RE = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_IDENT_RE = re.compile(r"[^\W\d][\w\-]*")
_HEX4_RE = re.compile(r"[0-9a-fA-F]{4}")
_LITERALS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\", '"': '"', "'": "'"}


# --------------------------------------------------------------------------- lenient parser


class _Fail(Exception):
    """The lenient parser gave up; callers treat it as 'not repairable here'."""


class _LenientParser:
    """A JSON superset for model output: single/smart quotes, unquoted keys, Python literals,
    trailing commas, // comments, unescaped inner quotes, and objects cut off at the end.

    A closing quote only ends a string when a structural character (: , } ]) or the end follows,
    so apostrophes and German quotes inside values survive. Raises _Fail rather than guessing.
    """

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos
        self.end = len(text)

    def value(self, depth: int = 0) -> Any:
        if depth > 64:
            raise _Fail("too deep")
        self._skip_ws()
        if self.pos >= self.end:
            raise _Fail("value expected")
        char = self.text[self.pos]
        if char == "{":
            return self._object(depth)
        if char == "[":
            return self._array(depth)
        if char in _CLOSERS:
            return self._string()
        match = _NUMBER_RE.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            number = match.group()
            return float(number) if any(c in number for c in ".eE") else int(number)
        match = _IDENT_RE.match(self.text, self.pos)
        if match and match.group() in _LITERALS:
            self.pos = match.end()
            return _LITERALS[match.group()]
        raise _Fail("value expected")

    def _object(self, depth: int) -> dict[str, Any]:
        self.pos += 1
        result: dict[str, Any] = {}
        while True:
            self._skip_ws()
            if self.pos >= self.end:
                return self._close_truncated(result)
            char = self.text[self.pos]
            if char == "}":
                self.pos += 1
                return result
            if char in _CLOSERS:
                key = self._string()
            else:
                match = _IDENT_RE.match(self.text, self.pos)
                if not match:
                    raise _Fail("key expected")
                key = match.group()
                self.pos = match.end()
            self._skip_ws()
            if self.pos >= self.end or self.text[self.pos] != ":":
                raise _Fail("colon expected")
            self.pos += 1
            result[key] = self.value(depth + 1)
            self._skip_ws()
            if self.pos >= self.end:
                return self._close_truncated(result)
            char = self.text[self.pos]
            self.pos += 1
            if char == "}":
                return result
            if char != ",":
                raise _Fail("comma expected")

    def _array(self, depth: int) -> list[Any]:
        self.pos += 1
        result: list[Any] = []
        while True:
            self._skip_ws()
            if self.pos >= self.end:
                return self._close_truncated(result)
            if self.text[self.pos] == "]":
                self.pos += 1
                return result
            result.append(self.value(depth + 1))
            self._skip_ws()
            if self.pos >= self.end:
                return self._close_truncated(result)
            char = self.text[self.pos]
            self.pos += 1
            if char == "]":
                return result
            if char != ",":
                raise _Fail("comma expected")

    @staticmethod
    def _close_truncated(container: Any) -> Any:
        # Output cut off after a complete member: close it. A lone "{" is no object, though.
        if not container:
            raise _Fail("empty truncated container")
        return container

    def _string(self) -> str:
        closers = _CLOSERS[self.text[self.pos]]
        self.pos += 1
        out: list[str] = []
        while self.pos < self.end:
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < self.end:
                nxt = self.text[self.pos + 1]
                if nxt == "u" and _HEX4_RE.match(self.text, self.pos + 2):
                    out.append(chr(int(self.text[self.pos + 2 : self.pos + 6], 16)))
                    self.pos += 6
                else:
                    out.append(_ESCAPES.get(nxt, "\\" + nxt))
                    self.pos += 2
                continue
            if char in closers and self._structural_follows(self.pos + 1):
                self.pos += 1
                joined = "".join(out)
                try:  # combine \uD83D\uDE00-style surrogate pairs
                    return joined.encode("utf-16", "surrogatepass").decode("utf-16")
                except UnicodeError:
                    return joined
            out.append(char)
            self.pos += 1
        raise _Fail("unterminated string")

    def _structural_follows(self, index: int) -> bool:
        while index < self.end and self.text[index] in " \t\r\n":
            index += 1
        return index >= self.end or self.text[index] in ":,}]"

    def _skip_ws(self) -> None:
        while self.pos < self.end:
            char = self.text[self.pos]
            if char in " \t\r\n\ufeff\u00a0":
                self.pos += 1
            elif self.text.startswith("//", self.pos):
                newline = self.text.find("\n", self.pos)
                self.pos = self.end if newline < 0 else newline + 1
            else:
                return


@dataclasses.dataclass
class _Budget:
    """Characters that failed lenient parses may still scan; prose full of '{"' must not stall."""

    remaining: int = _LENIENT_BUDGET


def _decode_at(text: str, pos: int, budget: _Budget | None = None) -> tuple[Any, int] | None:
    """Decode one value starting exactly at pos: strict JSON first, then the lenient parser."""
    try:
        return _DECODER.raw_decode(text, pos)
    except ValueError:
        pass
    if budget is not None and budget.remaining <= 0:
        return None
    parser = _LenientParser(text, pos)
    try:
        value = parser.value()
    except (_Fail, RecursionError):
        if budget is not None:
            budget.remaining -= max(parser.pos - pos, 1)
        return None
    return value, parser.pos


# --------------------------------------------------------------------------- argument repair


def repair_arguments(raw: str | dict[str, Any]) -> dict[str, Any] | None:
    """Turn a model's tool-call arguments into a dict, or None if they cannot be repaired.

    Valid JSON is never rewritten; only when strict parsing fails do the repairs start, from mild
    (code fences, prose around the object) to aggressive (Python literals, lenient parsing).
    """
    try:
        return _repair(raw, 0)
    except Exception:  # a guard must never take the loop down
        return None


def _repair(raw: Any, depth: int) -> dict[str, Any] | None:
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str) or depth > _MAX_DEPTH:
        return None
    text = raw.strip().lstrip("\ufeff")
    if not text:
        return {}  # Ollama sends "" for tools without parameters
    value = _strict(text)
    if value is _MISSING:
        text = _strip_fences(text)
        value = _strict(text)
    if value is _MISSING:
        value = _python_literal(text)
    if value is _MISSING:
        value = _first_object(text)
    if isinstance(value, str):  # a JSON document encoded as a string (again)
        return _repair(value, depth + 1)
    if isinstance(value, dict):
        return _jsonable(value)
    return None


def _strict(text: str) -> Any:
    try:
        return _DECODER.decode(text)
    except ValueError:
        return _MISSING


def _strip_fences(text: str) -> str:
    match = _FENCE_RE.match(text)
    if match:
        return match.group("body").strip()
    return _FENCE_OPEN_RE.sub("", text, count=1).strip() if text.startswith("```") else text


def _python_literal(text: str) -> Any:
    """Python-dict-looking text ({'a': True, 'b': None}) is common; ast knows it exactly."""
    if text[:1] not in ("{", "'", '"') or "\\" in text:
        return _MISSING  # Python escapes (\2024 is octal!) differ from JSON's: the lenient parser decides
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _first_object(text: str) -> Any:
    """The first '{' that starts a parseable object, ignoring prose before and after it."""
    budget = _Budget()
    for attempt, match in enumerate(re.finditer(r"\{", text)):
        if attempt >= _MAX_START_ATTEMPTS or budget.remaining <= 0:
            break
        decoded = _decode_at(text, match.start(), budget)
        if decoded is not None and isinstance(decoded[0], dict):
            return decoded[0]
    return _MISSING


def _jsonable(value: dict[Any, Any]) -> dict[str, Any] | None:
    """Normalise literal_eval results (tuples, int keys) so the dict survives json.dumps."""
    try:
        result = json.loads(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        return None
    return result if isinstance(result, dict) else None


# --------------------------------------------------------------------------- call recognition


def _new_id() -> str:
    return "call_" + uuid.uuid4().hex[:12]


def _known_name(raw: Any, known_tools: set[str]) -> str | None:
    """The offered tool a model meant, tolerating whitespace and 'functions.' prefixes."""
    if not isinstance(raw, str):
        return None
    name = raw.strip()
    if name in known_tools:
        return name
    for prefix in _NAME_PREFIXES:
        if name.startswith(prefix) and name[len(prefix) :] in known_tools:
            return name[len(prefix) :]
    return None


def _coerce_args(args: Any) -> dict[str, Any] | str:
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


def _as_call(obj: Any, known_tools: set[str]) -> ToolCall | None:
    """One text-written call object as a ToolCall, or None if it is not a call of a known tool."""
    if not isinstance(obj, dict):
        return None
    function = obj.get("function")
    if isinstance(function, dict):  # OpenAI shape: {"type": "function", "function": {...}}
        return _as_call(function, known_tools) if set(obj) - {"function"} <= _META_KEYS else None
    name_key = next((key for key in _NAME_KEYS if isinstance(obj.get(key), str)), None)
    if name_key is None:
        return None
    name = _known_name(obj[name_key], known_tools)
    if name is None:
        return None
    rest = {key: value for key, value in obj.items() if key != name_key and key not in _META_KEYS}
    arg_key = next((key for key in _ARG_KEYS if key in rest), None)
    if arg_key is not None:
        if set(rest) != {arg_key} or _looks_like_schema(rest[arg_key]):
            return None
        args = rest[arg_key]
    elif "description" in rest:
        return None
    else:
        args = rest  # flat form: {"name": "search_gesetze", "query": "..."}
    return ToolCall(id=_new_id(), name=name, arguments=_coerce_args(args))


def _calls_from(value: Any, known_tools: set[str]) -> list[ToolCall] | None:
    """All calls in a parsed value (object, list of objects, {"tool_calls": [...]}) or None."""
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        if set(value) - {"tool_calls", "content", "role"}:
            return None
        value = value["tool_calls"]
    if isinstance(value, dict):
        call = _as_call(value, known_tools)
        return [call] if call else None
    if isinstance(value, list) and value:
        calls = [_as_call(item, known_tools) for item in value]
        if all(calls):
            return [call for call in calls if call]
    return None


# --------------------------------------------------------------------------- content scanning

_Found = tuple[int, int, list[ToolCall]]  # span start, span end, calls


def _gap_end(body: str, pos: int) -> int:
    """Where the whitespace, separators and fences after pos end."""
    gap = _BODY_GAP_RE.match(body, pos)
    return gap.end() if gap else pos


def _parse_body(body: str) -> tuple[list[Any], int]:
    """Consecutive values at the start of a tag body, and how far they reach."""
    values: list[Any] = []
    pos = _gap_end(body, 0)
    consumed = 0
    while pos < len(body) and body[pos] in "{[":
        decoded = _decode_at(body, pos)
        if decoded is None:
            break
        values.append(decoded[0])
        pos = _gap_end(body, decoded[1])
        consumed = pos
    return values, consumed


def _tag_calls(match: re.Match[str], known_tools: set[str]) -> _Found | None:
    """<tool_call>…</tool_call>, <|tool_call|>…, [TOOL_CALLS] […]: the calls inside and their span."""
    body = match.group("body")
    values, consumed = _parse_body(body)
    calls: list[ToolCall] = []
    for value in values:
        found = _calls_from(value, known_tools)
        if found is None:
            return None
        calls.extend(found)
    if not calls:
        return None
    if match.group("close"):
        if body[consumed:].strip():
            return None  # a closed tag with more than calls inside: leave it to the reader
        return match.start(), match.end(), calls
    return match.start(), match.start("body") + consumed, calls


def _function_tag_call(match: re.Match[str], known_tools: set[str]) -> _Found | None:
    """Llama/Functionary <function=name>{...}</function>."""
    name = _known_name(match.group("name"), known_tools)
    if name is None:
        return None
    body = match.group("body")
    values, consumed = _parse_body(body)
    if len(values) > 1 or (match.group("close") and body[consumed:].strip()):
        return None
    args = values[0] if values else {}
    end = match.end() if match.group("close") else match.start("body") + consumed
    return match.start(), end, [ToolCall(id=_new_id(), name=name, arguments=_coerce_args(args))]


def _mistral_calls(match: re.Match[str], known_tools: set[str]) -> _Found | None:
    """[TOOL_CALLS] [{...}] (older Mistral) or [TOOL_CALLS]name[ARGS]{...} (newer tokenizers)."""
    body = match.group("body")
    if body.lstrip()[:1] in ("[", "{"):
        return _tag_calls(match, known_tools)
    named = _MISTRAL_NAMED_RE.match(body)
    name = _known_name(named.group("name"), known_tools) if named else None
    if named is None or name is None or named.end() >= len(body) or body[named.end()] != "{":
        return None
    decoded = _decode_at(body, named.end())
    if decoded is None or not isinstance(decoded[0], dict):
        return None
    end = match.start("body") + _gap_end(body, decoded[1])
    return match.start(), end, [ToolCall(id=_new_id(), name=name, arguments=decoded[0])]


def _overlaps(start: int, end: int, spans: list[_Found]) -> bool:
    return any(start < other_end and other_start < end for other_start, other_end, _ in spans)


def _bare_calls(text: str, start: int, end: int, known_tools: set[str], budget: _Budget) -> list[_Found]:
    """Calls written as plain JSON in text[start:end], with markers/fences glued to them."""
    segment = text[start:end]
    last_name = max((segment.rfind(name) for name in known_tools), default=-1)
    found: list[_Found] = []
    cursor = 0
    for match in re.finditer(r"[{\[]", segment):
        pos = match.start()
        if pos > last_name or budget.remaining <= 0:
            break  # no tool name can follow, or enough time spent on this text
        if pos < cursor:
            continue  # inside an already parsed value
        decoded = _decode_at(segment, pos, budget)
        if decoded is None:
            continue
        value, value_end = decoded
        cursor = value_end  # never look inside a parsed value: nested examples stay put
        calls = _calls_from(value, known_tools)
        if calls:
            floor = found[-1][1] - start if found else 0
            span_start, span_end = _expand_markers(segment, pos, value_end, floor)
            found.append((start + span_start, start + span_end, calls))
            cursor = max(cursor, span_end)
    return found


def _expand_markers(segment: str, start: int, end: int, floor: int) -> tuple[int, int]:
    """Widen a bare call's span over <|python_tag|>, [TOOL_CALLS], tags and a surrounding fence."""
    for _ in range(4):
        left = _LEFT_MARKER_RE.search(segment, floor, start)  # never reach into the previous call
        right = _RIGHT_MARKER_RE.match(segment, end)
        left_fence = bool(left and left.group("marker").startswith("```"))
        if left and left_fence and segment.count("```", 0, left.start()) % 2:
            left = None  # that fence closes an earlier code block; it is not ours
        right_fence = bool(right and right.group("marker") == "```")
        new_start, new_end = start, end
        if left and (not left_fence or right_fence or not segment[end:].strip()):
            new_start = left.start()
        if right and (not right_fence or left_fence):
            new_end = right.end()
        if (new_start, new_end) == (start, end):
            break
        start, end = new_start, new_end
    return start, end


def _remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """Cut spans out of text and join the rest with the whitespace that was around them."""
    pieces: list[str] = []
    cursor = 0
    for start, end in spans:
        pieces.append(text[cursor:start])
        cursor = end
    pieces.append(text[cursor:])
    result = pieces[0]
    for piece in pieces[1:]:
        result = _join(result, piece)
    return result


def _join(left: str, right: str) -> str:
    """Join two pieces where something was removed: keep paragraph breaks, drop doubled spaces."""
    stripped_left = left.rstrip()
    stripped_right = right.lstrip()
    if not stripped_left:
        return right
    if not stripped_right:
        return left + right  # whitespace piece between two calls: let the next join judge the gap
    left_gap = left[len(stripped_left) :]
    right_gap = right[: len(right) - len(stripped_right)]
    gap = left_gap + right_gap
    newlines = max(left_gap.count("\n"), right_gap.count("\n"))  # a call on its own line leaves no blank
    separator = "\n\n" if newlines >= 2 else "\n" if newlines else " " if gap else ""
    return stripped_left + separator + stripped_right


def scan_content(text: str, *, known_tools: set[str]) -> tuple[list[ToolCall], str]:
    """Find tool calls a model wrote as text; return (calls, text without them, stripped).

    Recognised: bare JSON call objects or lists ("arguments"/"parameters"/"args", OpenAI
    "function" wrapper, flat arguments), Qwen/Hermes <tool_call>, <|tool_call|>, <function=…>,
    Mistral [TOOL_CALLS], Llama <|python_tag|> and ```json fences around any of them. Only calls
    of known tools count. Without calls the text comes back unchanged.
    """
    if not text or not known_tools or not any(name in text for name in known_tools):
        return [], text
    try:
        found = _scan(text, known_tools)
    except Exception:  # a guard must never take the loop down
        return [], text
    if not found:
        return [], text
    found.sort(key=lambda item: item[0])
    calls = [call for _, _, group in found for call in group]
    remaining = _remove_spans(text, [(start, end) for start, end, _ in found])
    if not _EMPTY_FENCE_RE.search(text):  # a fence that held several calls is now empty
        remaining = _EMPTY_FENCE_RE.sub("", remaining)
    return calls, remaining.strip()


def _scan(text: str, known_tools: set[str]) -> list[_Found]:
    found: list[_Found] = []
    taggers = (
        (_XML_TAG_RE, _tag_calls),
        (_PIPE_TAG_RE, _tag_calls),
        (_FUNCTION_TAG_RE, _function_tag_call),
        (_MISTRAL_RE, _mistral_calls),
    )
    for pattern, handler in taggers:
        for match in pattern.finditer(text):
            result = handler(match, known_tools)
            if result and not _overlaps(result[0], result[1], found):
                found.append(result)
    # Everything outside the tags may still hold calls written as bare JSON.
    cursor = 0
    bare: list[_Found] = []
    budget = _Budget()
    for start, end, _ in sorted(found, key=lambda item: item[0]):
        bare.extend(_bare_calls(text, cursor, start, known_tools, budget))
        cursor = max(cursor, end)
    bare.extend(_bare_calls(text, cursor, len(text), known_tools, budget))
    return found + bare


# --------------------------------------------------------------------------- the loop's entry point


def _guard_call(call: ToolCall, known_tools: set[str]) -> ToolCall:
    """Repair one structured call; unrepairable arguments stay the raw string for the loop to report."""
    name = _known_name(call.name, known_tools) or call.name
    raw = call.arguments
    if isinstance(raw, dict):
        arguments: dict[str, Any] | str = raw
    else:
        repaired = repair_arguments(raw) if isinstance(raw, str) else None
        if repaired is not None:
            arguments = repaired
        elif isinstance(raw, str):
            arguments = raw
        else:
            arguments = {} if raw is None else json.dumps(raw, ensure_ascii=False, default=str)
    arguments = _unwrap_nested_call(arguments, name, known_tools)
    return dataclasses.replace(call, name=name, arguments=arguments)


def _unwrap_nested_call(arguments: dict[str, Any] | str, name: str, known_tools: set[str]) -> Any:
    """Some models put the whole call into arguments: {"name": same tool, "arguments": {...}}."""
    if not isinstance(arguments, dict) or len(arguments) != 2 or "name" not in arguments:
        return arguments
    arg_key = next((key for key in ("arguments", "parameters") if key in arguments), None)
    if arg_key is None or _known_name(arguments["name"], known_tools) != name:
        return arguments
    return _coerce_args(arguments[arg_key])


def guard_turn(turn: Turn, *, known_tools: set[str]) -> Turn:
    """Repair a local model's turn: fix arguments of real tool calls, or lift text-written calls.

    Returns a new Turn; the input is not modified.
    """
    if turn.tool_calls:
        calls = [_guard_call(call, known_tools) for call in turn.tool_calls]
        return dataclasses.replace(turn, tool_calls=calls)
    calls, text = scan_content(turn.text, known_tools=known_tools)
    if not calls:
        return dataclasses.replace(turn, tool_calls=[])
    finish = "tool_calls" if turn.finish_reason in (None, "stop") else turn.finish_reason
    return dataclasses.replace(turn, text=text, tool_calls=calls, finish_reason=finish)
