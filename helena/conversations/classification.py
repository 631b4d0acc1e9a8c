"""The admin's optional second opinion on a message (HelenaSettings.llm_classifier): the rules of
helena.agent.classifier decide first, then the tier-1 model may refine their decision."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync

from akten.models import User
from helena.agent.classifier import classify_with_model
from helena.llm.pii.touched import privacy_for
from helena.llm.providers.http import aclose_model
from helena.llm.router import get_model_for_tier
from helena.llm.wrappers.accounting import RecordingModel
from helena.models import Conversation

# --- conversations and runs ------------------------------------------------------------------


def classify_with_tier1(*, user: User, conversation: Conversation, text: str, mode: str,
                        routes: dict[str, int], cloud: bool, fallback: Any) -> Any:
    """The admin's optional LLM classifier on the tier-1 model (recorded as usage); the rules'
    decision stands on any failure."""

    privacy = privacy_for(user=user, conversation_id=conversation.pk, akte_id=conversation.akte_id, text=text)
    found = get_model_for_tier(1, privacy=privacy)
    if found is None:
        return fallback
    model, config = found
    if config.cloud:
        privacy.refresh_sync()  # learned here: the call itself runs on another loop
    recorded = RecordingModel(model, user_id=user.pk, tier=1, operation="classifier",
                              price_in=config.price_in, price_out=config.price_out)

    async def classify() -> Any:
        try:
            return await classify_with_model(model=recorded, text=text, fallback=fallback, mode=mode,
                                            routes=routes, cloud_allowed=cloud, timeout=5.0)
        finally:
            await aclose_model(model)  # its connection belongs to this call's event loop

    return async_to_sync(classify)()
