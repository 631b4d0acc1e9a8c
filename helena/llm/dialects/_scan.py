"""Deciding early whether held text is a call: JSON objects, lists and Python call lists.

Each function looks at text from a position and answers with a Verdict: wait (it may still become
a call), no (it never will: release it as prose), calls (complete, with the end) or malformed.
The early "no" only uses facts every continuation shares (the first key, a name that fits no tool),
so a verdict never depends on where the stream was split.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from helena.llm.base import ToolCall
from helena.llm.dialects._calls import (
    FIRST_KEYS,
    NAME_KEYS,
    calls_from,
    known_name,
    may_become_name,
    python_calls,
)
from helena.llm.dialects._jsonish import Incomplete, Invalid, close_open, scan_value

_FIRST_KEY_RE = re.compile(
    r"\{\s*(?:(?P<q>[\"'„“”‘’])(?P<qkey>[^\"'„“”‘’\\]*)(?P<qend>[\"'“”‘’]?)|(?P<key>[A-Za-z_]\w*))"
)
_NAME_VALUE_RE = re.compile(
    r"[\"']?(?:" + "|".join(NAME_KEYS) + r")[\"']?\s*:\s*(?P<q>[\"'])(?P<value>[^\"'\\]*)(?P<end>[\"']?)"
)
_IDENT_RE = re.compile(r"[A-Za-z_][\w.]*")
_SEPARATORS_RE = re.compile(r"[\s,;]*")


@dataclass
class Verdict:
    kind: Literal["wait", "no", "calls", "malformed"]
    end: int = 0
    calls: list[ToolCall] = field(default_factory=list)
    reason: str = ""


WAIT = Verdict("wait")
NO = Verdict("no")


def _early_object(text: str, pos: int, names: Collection[str]) -> Verdict:
    """Decide an unfinished object by its first key and its tool name, as far as they are written."""
    match = _FIRST_KEY_RE.match(text, pos)
    if match is None:
        rest = text[pos + 1:].lstrip()
        return WAIT if not rest else NO
    if match.group("key") is not None:
        key = match.group("key")
        if match.end() == len(text):
            return WAIT if _may_be_first_key(key, names) else NO
    else:
        key = match.group("qkey")
        if not match.group("qend"):
            return WAIT if _may_be_first_key(key, names) else NO
    if key not in FIRST_KEYS:
        return WAIT if known_name(key, names) is not None else NO  # {"tool": {arguments}}
    named = _NAME_VALUE_RE.match(text, skip_separators(text, pos + 1))  # only a first key's value
    if named is not None:
        value = named.group("value")
        if named.group("end") and known_name(value, names) is None:
            return NO
        if not may_become_name(value, names):
            return NO
    return WAIT


def _may_be_first_key(key: str, names: Collection[str]) -> bool:
    return any(k.startswith(key) for k in FIRST_KEYS) or may_become_name(key, names)


def json_call(text: str, pos: int, names: Collection[str], *, final: bool, truncated: bool = False,
              any_name: bool = False) -> Verdict:
    """A call object or list of call objects written as JSON, starting at text[pos] ('{' or '[')."""
    try:
        value, end = scan_value(text, pos)
    except Invalid:
        return _broken(text, pos, names, final=final) if not any_name else Verdict(
            "malformed", end=python_list_end(text, pos) or len(text), reason="Aufruf unlesbar")
    except Incomplete:
        early = WAIT if any_name else _early_object(text, pos, names) if text[pos] == "{" else _early_list(
            text, pos, names)
        if early.kind == "no" or not final:
            return early
        if truncated:
            return Verdict("malformed", end=len(text), reason="Aufruf abgeschnitten")
        repaired = repair_value(text[pos:])
        calls = calls_from(repaired, names, any_name=any_name) if repaired is not None else None
        if calls:
            return Verdict("calls", end=len(text), calls=calls)
        return Verdict("malformed", end=len(text), reason="Aufruf unvollständig")
    calls = calls_from(value, names, any_name=any_name)
    if not calls:
        return NO
    return Verdict("calls", end=end, calls=calls)


def _broken(text: str, pos: int, names: Collection[str], *, final: bool) -> Verdict:
    """Unparseable JSON that begins like a call of a known tool is a broken call, not prose."""
    key_start = skip_separators(text, pos + 1)
    named = _NAME_VALUE_RE.match(text, key_start)
    if named is None or not named.group("end") or known_name(named.group("value"), names) is None:
        return NO
    end = python_list_end(text, pos)
    if end is None and not final:
        return WAIT
    return Verdict("malformed", end=end or len(text), reason="Aufruf unlesbar")


def repair_value(text: str) -> Any:
    """A call cut off after a complete member, closed (None if it is cut inside a value)."""
    value = close_open(text.strip())
    return value if isinstance(value, dict | list) and value else None


def _early_list(text: str, pos: int, names: Collection[str]) -> Verdict:
    rest = text[pos + 1:].lstrip()
    if not rest:
        return WAIT
    if rest[0] == "{":
        return _early_object(text, len(text) - len(rest), names)
    return NO


def python_list_end(text: str, pos: int) -> int | None:
    """The index after the bracket that closes text[pos] ('[' or '('), minding Python strings."""
    depth = 0
    quote = ""
    index = pos
    end = len(text)
    while index < end:
        char = text[index]
        if quote:
            if char == "\\":
                index += 2
                continue
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return None


def python_call_list(text: str, pos: int, names: Collection[str], *, final: bool,
                     truncated: bool = False) -> Verdict:
    """`[get_weather(city="Berlin"), …]` at text[pos]: the Llama 3.2/4 and Gemma pythonic form."""
    start = pos + 1 if text[pos] == "[" else pos
    body = text[start:]
    stripped = body.lstrip()
    if not stripped:
        return WAIT if not final else NO
    ident = _IDENT_RE.match(stripped)
    if ident is None:
        return NO
    if ident.end() == len(stripped):
        fits = may_become_name(ident.group(), names) or "print".startswith(ident.group())
        return WAIT if not final and fits else NO
    if stripped[ident.end()] != "(" or not _known_call_name(ident.group(), names):
        return NO
    if text[pos] != "[":
        return NO
    end = python_list_end(text, pos)
    if end is None:
        if not final:
            return WAIT
        reason = "Aufruf abgeschnitten" if truncated else "Aufruf unvollständig"
        return Verdict("malformed", end=len(text), reason=reason)
    calls = python_calls(text[pos:end], names)
    if not calls:
        return NO
    return Verdict("calls", end=end, calls=calls)


def _known_call_name(dotted: str, names: Collection[str]) -> bool:
    if dotted.endswith(".call"):
        dotted = dotted[: -len(".call")]
    return known_name(dotted, names) is not None or dotted == "print"


def skip_separators(text: str, pos: int) -> int:
    """Past whitespace, commas and semicolons (between calls of a sequence)."""
    match = _SEPARATORS_RE.match(text, pos)
    return match.end() if match else pos


@dataclass
class Sequence:
    """Consecutive JSON values (separated by whitespace, commas or semicolons)."""

    status: Literal["wait", "done", "invalid"]
    values: list[Any] = field(default_factory=list)
    end: int = 0


def value_sequence(text: str, pos: int, *, final: bool, stops: tuple[str, ...] = ()) -> Sequence:
    """Read values from pos until something else follows; `stops` end the sequence as well.

    Done needs the first character after the last value (or the end of the stream): only then is
    it sure that no further value follows.
    """
    values: list[Any] = []
    cursor = skip_separators(text, pos)
    end = pos
    while True:
        if cursor >= len(text):
            return Sequence("done" if final and values else "wait" if not final else "invalid", values, end)
        if text[cursor] not in "{[":
            if any(stop.startswith(text[cursor:]) for stop in stops) and not final:
                return Sequence("wait", values, end)
            return Sequence("done" if values else "invalid", values, end)
        try:
            value, value_end = scan_value(text, cursor)
        except Incomplete:
            return Sequence("wait" if not final else "invalid", values, end)
        except Invalid:
            return Sequence("done" if values else "invalid", values, end)
        values.append(value)
        end = value_end
        cursor = skip_separators(text, value_end)
