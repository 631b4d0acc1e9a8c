"""Garbage collector settings for the long-running processes (daphne, Celery workers).

A run allocates many short-lived objects (messages, JSON, pydantic models). With CPython's default
thresholds that meant ~10 young collections per run and, every hundred or so, a full collection
that walked all ~200,000 objects of Django, pydantic and the model clients: 80–150 ms in which no
thread of the process moved, about a quarter of a run's CPU at 100 runs at once
(bench/agent_overhead.py). So, once the process has loaded what runs need: freeze what exists
(startup objects are never collected again, and are no longer walked), and collect the youngest
generation every 10,000 allocations instead of every 700.
"""

from __future__ import annotations

import gc
import importlib
import logging

from django.utils.module_loading import import_string

log = logging.getLogger(__name__)

YOUNG_THRESHOLD = 10_000
# Loaded lazily by the first run otherwise; loading them before the freeze keeps their many
# objects (the openai client alone defines thousands of classes) out of every later collection.
PRELOAD = (
    "helena.runs.dispatch",
    "helena.llm.router",
    "helena.llm.wrappers.accounting",
    "helena.llm.pii.redactor",
    "helena.tools.registry",
    "helena.runs.events.broadcast",
    "channels_redis.pubsub",
)
# Called after the preload (by name: config imports no app): the registry imports every tool module
# and builds their schemas.
WARM_UP = ("helena.tools.registry.warm_up",)

_tuned = False


def tune() -> None:
    """Preload, freeze and raise the young threshold; once per process (call after Django setup)."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # a module that cannot load here is loaded (and reported) by its first use
            log.debug("preloading %s failed", name, exc_info=True)
    for path in WARM_UP:
        try:
            import_string(path)()
        except Exception:
            log.debug("warming up with %s failed", path, exc_info=True)
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
