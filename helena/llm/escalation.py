"""A run's model that can step up a tier when the run stalls (1 → 2 → 3, the cloud only with the
firm's opt-in): the run asks `escalate()` and goes on with the stronger model. Which tier is next,
resolving it, booking its calls and closing every model used are here, so the run's loop only says
when (helena/runs/execute.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from helena.infra.db import db
from helena.llm import router
from helena.llm.base import ChatModel
from helena.llm.providers.http import aclose_model
from helena.llm.wrappers.base import WrapperModel


class EscalatingModel(WrapperModel):
    """Wraps the resolved model of the current tier, as `book` wraps it (the run's usage booking)."""

    def __init__(self, resolved: router.Resolved, *, book: Callable[[router.Resolved], ChatModel],
                 opt_in: bool, cloud_allowed: bool, configs: dict[int, Any], privacy: Any = None) -> None:
        super().__init__(book(resolved))
        self.resolved = resolved
        self._book = book
        self._opt_in = opt_in  # the firm's cloud opt-in: no call reaches a cloud without it
        self._cloud_allowed = cloud_allowed  # tier 3 may serve (configured, and internal or opted in)
        self._configured = router.usable_tiers(configs, cloud_allowed=opt_in)
        self._privacy = privacy
        self.used: list[ChatModel] = [resolved.model]  # every provider model, closed at the end
        self.booked: list[ChatModel] = [self.inner]  # every booking wrapper, settled at the end

    @property
    def tier(self) -> int:
        return self.resolved.tier

    def next_tier(self) -> int | None:
        """The tier a stall would step up to, or None when this is the strongest the run may use."""
        return router.escalate(self.tier, cloud_allowed=self._cloud_allowed, configured=self._configured)

    async def escalate(self) -> bool:
        """Go on with the next tier's model; False (nothing changes) when there is none."""
        step_up = self.next_tier()
        if step_up is None:
            return False
        self.resolved = await router.resolve(tier=step_up, cloud_allowed=self._opt_in, privacy=self._privacy)
        self.used.append(self.resolved.model)
        self.inner = self._book(self.resolved)
        self.booked.append(self.inner)
        self._configured = router.usable_tiers(await db(router.tier_configs), cloud_allowed=self._opt_in)
        return True

    async def settle(self) -> None:
        """Wait for the usage rows of every tier's calls (deferred booking)."""
        for booking in self.booked:
            settle = getattr(booking, "settle", None)
            if settle is not None:
                await settle()

    async def aclose(self) -> None:
        for model in self.used:
            await aclose_model(model)
