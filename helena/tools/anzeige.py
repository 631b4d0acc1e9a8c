"""How a tool call and its sources read to a person: the one argument beside the tool's label and a
source as one line. The chat (helena.presenter, chat.js) and the transcripts (helena.protokoll)
show them the same way."""

from __future__ import annotations

import json
from typing import Any

_ARGUMENT_CHARS = 80
# The argument that says most about a call, in this order; static/helena/chat.js uses the same list.
_MAIN_ARGUMENTS = ("query", "question", "objective", "bezeichnung", "titel", "taetigkeit", "message",
                   "inhalt", "start", "akte_id", "dokument_id", "gegenstandswert", "status")


def main_argument(arguments: Any) -> str:
    """The one argument shown next to a tool's label ("Durchsuche Gesetze: Kündigungsfrist")."""
    if not isinstance(arguments, dict):
        return ""
    for key in (*_MAIN_ARGUMENTS, *arguments):
        value = arguments.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value).strip():
            text = " ".join(str(value).split())
            return text if len(text) <= _ARGUMENT_CHARS else text[: _ARGUMENT_CHARS - 1] + "…"
    return ""


def shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def source_text(source: Any) -> str:
    """One source of a tool result as a line: the citation, else title or table and id."""
    if not isinstance(source, dict):
        return shown(source)
    for key in ("citation", "title", "url"):
        if source.get(key):
            return str(source[key])
    return " ".join(str(source[k]) for k in ("corpus", "table", "id") if source.get(k))
