"""One check for every text that enters Helena (API, websocket, forms): no NUL characters and no lone
surrogates. PostgreSQL cannot store the first, UTF-8 cannot encode the second; both used to end in
a 500 or a crashed socket deep inside a handler. The edges call this once and refuse with a German
message that never echoes the input.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64  # nesting an edge walks before it calls the input too deep
TOO_DEEP = "Die Eingabe ist zu tief verschachtelt."


def text_problem(value: str) -> str | None:
    """Why a text cannot be accepted (German, without the text), or None when it is fine."""
    if "\x00" in value:
        return "enthält ein Nullzeichen (\\u0000)"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "enthält ungültige Unicode-Zeichen (einzelne Surrogate)"
    return None


def find_bad_text(value: Any, *, where: str = "", depth: int = 0) -> str | None:
    """The first problem in a parsed value (strings, dict keys and values, lists), as a German
    message naming the field ("„text“ enthält …"), or None."""
    if depth > MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, str):
        problem = text_problem(value)
        return f"{_label(where)} {problem}." if problem else None
    if isinstance(value, dict):
        for key, item in value.items():
            key_text = key if isinstance(key, str) else str(key)
            problem = text_problem(key_text)
            if problem:
                return f"Ein Feldname {problem}."
            found = find_bad_text(item, where=key_text, depth=depth + 1)
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for item in value:
            found = find_bad_text(item, where=where, depth=depth + 1)
            if found:
                return found
    return None


def _label(where: str) -> str:
    return f"„{where}“" if where else "Die Eingabe"


def parse_json(text: str | bytes) -> Any:
    """JSON from outside, bounded and checked: raises BadInput (German, never echoing the input) for
    invalid JSON, nesting deeper than MAX_DEPTH, NUL characters and lone surrogates.

    The parser itself stops a nesting of thousands of levels with a RecursionError (caught here: it
    used to crash the socket); find_bad_text refuses anything deeper than MAX_DEPTH. No pre-scan in
    Python: a scan per character cost a second of CPU on a 2 MB body, a regex one was quadratic."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput("Die Eingabe ist kein gültiges UTF-8.", malformed=True) from None
    try:
        value = json.loads(text)  # C speed; each nesting level counts against the recursion limit
    except RecursionError:
        raise BadInput(TOO_DEEP) from None
    except ValueError:
        raise BadInput("Die Eingabe ist kein gültiges JSON.", malformed=True) from None
    problem = find_bad_text(value)
    if problem:
        raise BadInput(problem)
    return value


class BadInput(ValueError):
    """Input an edge refuses; the message is German and safe to show (it quotes no input).
    `malformed`: not even JSON (the API answers 400 as for any unreadable body, else 422)."""

    def __init__(self, message: str, *, malformed: bool = False) -> None:
        super().__init__(message)
        self.malformed = malformed
