"""Stall detection: the model going round in circles instead of answering."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

STALL_MESSAGE = (
    "Du wiederholst dich. Gib jetzt deine beste Antwort mit dem, was du bisher weisst. "
    "Fasse zusammen und antworte dem Nutzer."
)


def canonical(value: Any) -> str:
    """Order-independent JSON, so {"a":1,"b":2} and {"b":2,"a":1} count as the same call."""
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


@dataclass
class StallDetector:
    """Stalled when a call repeats with the same parameters, or three results in a row are
    identical, or three failures in a row are identical."""

    repeat_window: int = 3
    _calls: set[tuple[str, str]] = field(default_factory=set)
    _results: list[str] = field(default_factory=list)
    _failures: list[str] = field(default_factory=list)
    reason: str | None = None

    def record_call(self, tool: str, arguments: Any) -> bool:
        key = (tool, canonical(arguments))
        if key in self._calls:
            self.reason = f"{tool} wurde zweimal mit denselben Parametern aufgerufen"
            return True
        self._calls.add(key)
        return False

    def record_result(self, tool: str, ok: bool, observation: Any) -> bool:
        fingerprint = canonical([tool, observation])
        if ok:
            self._failures.clear()
            self._results.append(fingerprint)
            recent = self._results[-self.repeat_window:]
            if len(recent) == self.repeat_window and len(set(recent)) == 1:
                self.reason = "dreimal dasselbe Ergebnis"
                return True
        else:
            self._failures.append(fingerprint)
            recent = self._failures[-self.repeat_window:]
            if len(recent) == self.repeat_window and len(set(recent)) == 1:
                self.reason = "dreimal derselbe Fehler"
                return True
        return False

    @property
    def stalled(self) -> bool:
        return self.reason is not None
