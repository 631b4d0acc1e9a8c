"""JSON as models write it: strict first, then a lenient superset, and whether a prefix is still open.

Small models write Python dicts ({'a': True, 'b': None}), trailing commas, single or German quotes,
raw newlines inside strings, and cut objects off. The streaming parser needs one more answer than
"valid or not": whether the text so far can still become a value (`Incomplete`) — then it waits —
or can never be one (`Invalid`) — then it releases the text as prose.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

import json_repair

__all__ = ["Incomplete", "Invalid", "decode_at", "repair_arguments", "scan_value"]

_DECODER = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside strings are fine

_CLOSERS = {'"': '"', "'": "'", "„": "“”", "“": "”“", "”": "”", "‘": "’‘", "‚": "‘’", "’": "’"}
_NUMBER_RE = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_IDENT_RE = re.compile(r"[^\W\d][\w\-]*")
_HEX4_RE = re.compile(r"[0-9a-fA-F]{4}")
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None, "True": True, "False": False,
                             "None": None}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\", '"': '"', "'": "'"}
_FENCE_RE = re.compile(r"\A```[\w+\-]*[ \t]*\n?(?P<body>.*?)\n?[ \t]*```\s*\Z", re.S)
_FENCE_OPEN_RE = re.compile(r"\A```[\w+\-]*[ \t]*\n?")
_MAX_DEPTH = 3  # how often a JSON string may wrap another JSON document (Granite double-encodes)


class Incomplete(Exception):
    """The text ends before the value does: more text may complete it."""


class Invalid(Exception):
    """No continuation of this text is a value."""


@dataclass
class _Parser:
    """A JSON superset for model output: single/smart quotes, unquoted keys, Python literals,
    trailing commas, // comments and unescaped inner quotes.

    A closing quote ends a string only when a structural character (: , } ]) follows, so
    apostrophes and German quotes inside values survive. Raises Incomplete at the end of the text
    (never guesses how a cut-off value would have ended) and Invalid otherwise.
    """

    text: str
    pos: int = 0

    def value(self, depth: int = 0) -> Any:
        if depth > 64:
            raise Invalid("too deep")
        self._skip_ws()
        char = self._peek()
        if char == "{":
            return self._object(depth)
        if char == "[":
            return self._array(depth)
        if char in _CLOSERS:
            return self._string()
        match = _NUMBER_RE.match(self.text, self.pos)
        if match and (match.end() < len(self.text) or char != "-"):
            if match.end() == len(self.text):
                raise Incomplete("number may go on")
            self.pos = match.end()
            number = match.group()
            try:
                return float(number) if any(c in number for c in ".eE") else int(number)
            except ValueError as exc:  # more digits than Python converts (a model repeating itself)
                raise Invalid("number too long") from exc
        match = _IDENT_RE.match(self.text, self.pos)
        if match:
            word = match.group()
            if match.end() == len(self.text) and any(lit.startswith(word) for lit in _LITERALS):
                raise Incomplete("literal may go on")
            if word in _LITERALS:
                self.pos = match.end()
                return _LITERALS[word]
        elif char == "-":
            raise Incomplete("number may follow")
        raise Invalid("value expected")

    def _peek(self) -> str:
        if self.pos >= len(self.text):
            raise Incomplete("end of text")
        return self.text[self.pos]

    def _object(self, depth: int) -> dict[str, Any]:
        self.pos += 1
        result: dict[str, Any] = {}
        while True:
            self._skip_ws()
            char = self._peek()
            if char == "}":
                self.pos += 1
                return result
            if char in _CLOSERS:
                key = self._string()
            else:
                match = _IDENT_RE.match(self.text, self.pos)
                if not match:
                    raise Invalid("key expected")
                if match.end() == len(self.text):
                    raise Incomplete("key may go on")
                key = match.group()
                self.pos = match.end()
            self._skip_ws()
            if self._peek() != ":":
                raise Invalid("colon expected")
            self.pos += 1
            result[key] = self.value(depth + 1)
            self._skip_ws()
            char = self._peek()
            self.pos += 1
            if char == "}":
                return result
            if char != ",":
                raise Invalid("comma expected")

    def _array(self, depth: int) -> list[Any]:
        self.pos += 1
        result: list[Any] = []
        while True:
            self._skip_ws()
            if self._peek() == "]":
                self.pos += 1
                return result
            result.append(self.value(depth + 1))
            self._skip_ws()
            char = self._peek()
            self.pos += 1
            if char == "]":
                return result
            if char != ",":
                raise Invalid("comma expected")

    def _string(self) -> str:
        closers = _CLOSERS[self.text[self.pos]]
        self.pos += 1
        out: list[str] = []
        end = len(self.text)
        while self.pos < end:
            char = self.text[self.pos]
            if char == "\\":
                if self.pos + 1 >= end:
                    break
                nxt = self.text[self.pos + 1]
                if nxt == "u":
                    if self.pos + 6 > end:
                        break
                    if _HEX4_RE.fullmatch(self.text, self.pos + 2, self.pos + 6):
                        out.append(chr(int(self.text[self.pos + 2: self.pos + 6], 16)))
                        self.pos += 6
                        continue
                out.append(_ESCAPES.get(nxt, "\\" + nxt))
                self.pos += 2
                continue
            if char in closers:
                follows = self._structural_follows(self.pos + 1)
                if follows is None:
                    break  # the quote may close the string or be part of it: wait for more
                if follows:
                    self.pos += 1
                    joined = "".join(out)
                    try:  # combine \uD83D\uDE00-style surrogate pairs
                        return joined.encode("utf-16", "surrogatepass").decode("utf-16")
                    except UnicodeError:
                        return joined
            out.append(char)
            self.pos += 1
        raise Incomplete("unterminated string")

    def _structural_follows(self, index: int) -> bool | None:
        """True if a structural character follows; None if the text ends before anything does."""
        end = len(self.text)
        while index < end and self.text[index] in " \t\r\n":
            index += 1
        if index >= end:
            return None
        return self.text[index] in ":,}]"

    def _skip_ws(self) -> None:
        end = len(self.text)
        while self.pos < end:
            char = self.text[self.pos]
            if char in " \t\r\n\ufeff\u00a0":
                self.pos += 1
            elif self.text.startswith("//", self.pos):
                newline = self.text.find("\n", self.pos)
                if newline < 0:
                    raise Incomplete("comment")
                self.pos = newline + 1
            elif char == "/" and self.pos + 1 == end:
                raise Incomplete("comment may start")
            else:
                return


def scan_value(text: str, pos: int = 0) -> tuple[Any, int]:
    """Read one value starting at pos: (value, end). Raises Incomplete or Invalid.

    Strict JSON first (fast, exact); the lenient parser only when that fails.
    """
    try:
        return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        # Valid JSON that merely has not ended yet: the lenient parser (a superset) would say the
        # same, only a hundred times slower; streaming re-reads a growing call many times.
        if exc.pos >= len(text) or exc.msg.startswith("Unterminated string"):
            raise Incomplete("strict JSON not ended") from None
    except ValueError:
        pass
    except RecursionError as exc:
        raise Invalid("too deep") from exc
    parser = _Parser(text, pos)
    try:
        value = parser.value()
    except RecursionError as exc:
        raise Invalid("too deep") from exc
    return value, parser.pos


def decode_at(text: str, pos: int = 0) -> tuple[Any, int] | None:
    """scan_value for complete texts: None when there is no value at pos."""
    try:
        return scan_value(text, pos)
    except (Incomplete, Invalid):
        return None


# --------------------------------------------------------------------------- argument repair


def repair_arguments(raw: str | dict[str, Any] | None, *, lenient: bool = True) -> dict[str, Any] | None:
    """A call's arguments as a dict, or None if they cannot be repaired.

    Valid JSON is never rewritten; the repairs go from mild (code fences) to aggressive (Python
    literals, the lenient parser, json-repair). A JSON string that holds JSON (Granite writes
    arguments double-encoded) is decoded again. With `lenient=False` only the repairs that cannot
    change what was meant (fences, prose around one object, double encoding): the tool executor's
    policy for arguments a server already delivered as a call, where a broken one goes back to the
    model to be written again rather than guessed.
    """
    try:
        return _repair(raw, 0, lenient)
    except Exception:  # a repair must never take the run down
        return None


def _repair(raw: Any, depth: int, lenient: bool = True) -> dict[str, Any] | None:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str) or depth > _MAX_DEPTH:
        return None
    text = raw.strip().lstrip("\ufeff")
    if not text:
        return {}  # Ollama and some servers send "" for tools without parameters
    value = _strict(text)
    if value is _MISSING:
        text = _strip_fences(text)
        value = _strict(text)
    if value is _MISSING:
        value = _lenient(text) if lenient else _outermost_object(text)
    if isinstance(value, str) and value.strip()[:1] in ("{", '"'):
        return _repair(value, depth + 1, lenient)
    if isinstance(value, dict):
        return _jsonable(value)
    return None


_MISSING = object()
_MAX_START_ATTEMPTS = 64  # '{' positions tried when an object is surrounded by prose


def _outermost_object(text: str) -> Any:
    """The strict repair: the text from its first '{' to its last '}', if that is valid JSON."""
    start, end = text.find("{"), text.rfind("}")
    return _strict(text[start:end + 1]) if 0 <= start < end else _MISSING


def _lenient(text: str) -> Any:
    """The repairs, mild to aggressive: Python literals, lenient parse, closing, json-repair, prose."""
    value = _python_literal(text)
    if value is _MISSING and text[:1] == "{":
        decoded = decode_at(text)
        if decoded is not None and not text[decoded[1]:].strip():
            value = decoded[0]
    if value is _MISSING and text[:1] == "{":
        value = close_open(text)
    if value is _MISSING and text[:1] == "{" and text.rstrip().endswith("}"):
        value = _faithful_repair(text)
    if value is _MISSING:
        value = _first_object(text)
    return value


def close_open(text: str) -> Any:
    """An object cut off after a complete member, closed: '{"a": 1, "b": [2' → {"a": 1, "b": [2]}.

    Never inside a string (a cut-off value would be taken as the whole value) and never a lone '{'.
    """
    stack: list[str] = []
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and (not stack or stack.pop() != char):
            return _MISSING
        index += 1
    if quote or not stack:
        return _MISSING
    trimmed = text.rstrip().rstrip(",")
    if trimmed.endswith((":", "{", "[")):
        return _MISSING
    decoded = decode_at(trimmed + "".join(reversed(stack)))
    return decoded[0] if decoded is not None and decoded[0] else _MISSING


def _faithful_repair(text: str) -> Any:
    """json-repair's reading of a closed but broken object, if it invents nothing.

    json-repair turns almost anything into JSON; a call's arguments must come from the model, so
    every key and string value of the result must be written in the text (none made up empty).
    """
    try:
        value = json_repair.loads(text)
    except Exception:  # json-repair gives up in its own ways
        return _MISSING

    def faithful(item: Any) -> bool:
        if isinstance(item, dict):
            return all(isinstance(k, str) and k and k in text and faithful(v) for k, v in item.items())
        if isinstance(item, list):
            return all(faithful(v) for v in item)
        if isinstance(item, str):
            return bool(item) and item in text
        return True

    return value if isinstance(value, dict) and faithful(value) else _MISSING


def _first_object(text: str) -> Any:
    """The first '{' that starts an object, ignoring prose before and after it."""
    for attempt, match in enumerate(re.finditer(r"\{", text)):
        if attempt >= _MAX_START_ATTEMPTS:
            break
        decoded = decode_at(text, match.start())
        if decoded is not None and isinstance(decoded[0], dict):
            return decoded[0]
    return _MISSING


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
    """Python-dict text ({'a': True, 'b': None}) is common; ast reads it exactly."""
    if text[:1] not in ("{", "'", '"') or "\\" in text:
        return _MISSING  # Python escapes (\2024 is octal!) differ from JSON's: the lenient parser decides
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _jsonable(value: dict[Any, Any]) -> dict[str, Any] | None:
    """Normalise literal_eval results (tuples, int keys) so the dict survives json.dumps."""
    try:
        result = json.loads(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        return None
    return result if isinstance(result, dict) else None
