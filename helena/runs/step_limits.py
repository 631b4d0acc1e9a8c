"""The loop's limits of a run (steps, timeout, tool calls per turn) from the admin settings, and the
deadline after which the sweep declares a run dead."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from helena.agent.loop import Limits
from helena.models import HelenaSettings

DEADLINE_GRACE = timedelta(seconds=60)  # after timeout + grace, the sweep declares a run dead


def limits_for(mode: str, helena: HelenaSettings | None = None) -> Limits:
    """Loop limits from the admin settings (environment defaults until someone changes them);
    pass `helena` when it has just been loaded anyway."""
    s = helena or HelenaSettings.cached()
    if mode == "background":
        return Limits(
            max_steps=s.background_max_steps,
            timeout=float(s.background_timeout_s),
            max_tool_calls_per_turn=s.max_tool_calls_per_turn,
        )
    return Limits(
        max_steps=s.inline_max_steps,
        timeout=float(s.inline_timeout_s),
        max_tool_calls_per_turn=s.max_tool_calls_per_turn,
    )


def deadline_for(mode: str, helena: HelenaSettings | None = None) -> Any:
    return timezone.now() + timedelta(seconds=limits_for(mode, helena).timeout) + DEADLINE_GRACE
