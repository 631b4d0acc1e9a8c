"""What else happens when a run has ended, asked of those above the runs without knowing them.

A run ends in runs (execute, finish_without_loop), but what hangs on its end lives higher up: an
Auftrag given to Helena takes its run's outcome and tells the requester
(helena.proactive.auftraege.auftraege_abschliessen, registered in HelenaConfig.ready). The hooks run in the
caller's thread, synchronously, as the calls they replace did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Hook = Callable[..., Any]
_HOOKS: list[Hook] = []


def on_run_end(hook: Hook) -> None:
    """Register `hook(run_pk=…)` for every run's end (once, however often this is called)."""
    if hook not in _HOOKS:
        _HOOKS.append(hook)


def run_ended(*, run_pk: Any) -> None:
    for hook in _HOOKS:
        hook(run_pk=run_pk)
