"""A run's redaction: one Redactor for every model call of the run, taught each Akte the run touches
(the Learner reads them where the ORM is: helena.llm.pii.touched). The wrapper that applies it on
the way to a cloud is helena.llm.wrappers.redacting.RedactingModel."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

from helena.llm.pii.redactor import Redactor


class Learner(Protocol):
    """Teaches a Redactor the Akten a run has touched (implemented where the ORM is:
    helena.llm.pii.touched)."""

    def pending(self) -> bool:
        """Whether there is anything new to learn (cheap, no I/O)."""

    def __call__(self, redactor: Redactor) -> None:
        """Learn what is new (may read the database; runs off the event loop)."""


async def _in_thread(function: Callable[[], None]) -> None:
    await asyncio.to_thread(function)


class Privacy:
    """The redaction of one run (or one side call): a single Redactor for every model call it makes,
    so a value keeps its placeholder across the main loop, the summary, the plan reviewer and the
    acceptance checks, and a Learner that adds each Akte the run touches before the next call."""

    def __init__(
        self,
        *,
        learner: Learner | None = None,
        offload: Callable[[Callable[[], None]], Awaitable[None]] = _in_thread,
    ) -> None:
        self.redactor = Redactor()
        self.learner = learner
        self._offload = offload
        self._learning = asyncio.Lock()  # two calls at once (two web searches) wait for one learning

    def refresh_sync(self) -> None:
        """Learn what is new, from synchronous code (the history summary)."""
        if self.learner is not None and self.learner.pending():
            self.learner(self.redactor)

    async def refresh(self) -> None:
        """Learn what is new before a model call; free when nothing is."""
        learner = self.learner
        if learner is None or not learner.pending():
            return
        async with self._learning:
            if learner.pending():
                await self._offload(lambda: learner(self.redactor))

    def redact(self, text: str) -> str:
        """Redact a text that leaves the house outside a model call (a web search query)."""
        return self.redactor.redact_text(text)
