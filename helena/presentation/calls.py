"""How a tool call reads to a person: the one argument shown beside the tool's label, and a value as
text (tools.sources.shown). The chat history, chat.js and the transcripts show calls alike."""

from __future__ import annotations

from typing import Any

_ARGUMENT_CHARS = 80
# The argument that says most about a call, in this order; static/helena/chat.js uses the same list.
# An id ("akte_id", "dokument_id" …) says nothing to a person and is never shown.
_MAIN_ARGUMENTS = ("query", "question", "objective", "bezeichnung", "titel", "taetigkeit", "message",
                   "inhalt", "start", "gegenstandswert", "status")


def main_argument(arguments: Any) -> str:
    """The one argument shown next to a tool's label ("Durchsuche Gesetze: Kündigungsfrist")."""
    if not isinstance(arguments, dict):
        return ""
    for key in (*_MAIN_ARGUMENTS, *arguments):
        if str(key).endswith("_id"):  # an id says nothing to a person
            continue
        value = arguments.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value).strip():
            text = " ".join(str(value).split())
            return text if len(text) <= _ARGUMENT_CHARS else text[: _ARGUMENT_CHARS - 1] + "…"
    return ""
