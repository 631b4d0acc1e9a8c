"""`ungelesene_hinweise` for the bell in the navigation and `hinweis_kurzmeldungen` for its pop-ups
(the user's choice on /konto/); lazy, so pages without them pay nothing."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from akten.accounts.konto.selectors import popups_for
from akten.selectors import alerts_for


def unread_alerts(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"ungelesene_hinweise": SimpleLazyObject(
                lambda: alerts_for(user=user, nur_ungelesen=True).count()),
            "hinweis_kurzmeldungen": SimpleLazyObject(lambda: popups_for(user=user))}
