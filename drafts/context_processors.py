"""Template context for every page: the number of drafts waiting for this user's decision."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from drafts.selectors import decidable_drafts_for


def pending_drafts(request: HttpRequest) -> dict[str, Any]:
    """`offene_entwuerfe` for the navigation badge; lazy, so pages that don't show it (admin,
    API) pay no query, and one COUNT for those that do."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def count() -> int:
        return decidable_drafts_for(user=user).count()

    return {"offene_entwuerfe": SimpleLazyObject(count)}
