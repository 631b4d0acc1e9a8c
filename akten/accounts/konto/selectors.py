"""Reads of the user's own account: their tokens, their Hinweis settings. Another user's token is
NotFound, exactly like one that does not exist."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from akten.models import ApiToken, HinweisEinstellung, User
from config.errors import not_found


def tokens_for(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens, the revoked ones last, newest first."""
    return ApiToken.objects.filter(user=user).order_by("widerrufen", "-angelegt_am", "-pk")


def get_token(*, user: User, token_id: int | str) -> ApiToken:
    """One of the user's own tokens, or NotFound (also for ids that are not numbers)."""
    try:
        return tokens_for(user=user).get(pk=int(token_id))
    except (TypeError, ValueError, OverflowError, ApiToken.DoesNotExist):
        raise not_found("Token") from None


def hinweis_settings_for(*, user: User) -> HinweisEinstellung:
    """The user's settings; unsaved defaults (everything on) when they never changed them."""
    found = HinweisEinstellung.objects.filter(user=user).first()
    return found if found is not None else HinweisEinstellung(user=user)


def hidden_arten_for(*, user: Any) -> list[str]:
    """The kinds of Hinweise the user switched off; never those that must always show."""
    if not getattr(user, "is_authenticated", False):
        return []
    hidden = HinweisEinstellung.objects.filter(user=user).values_list("ausgeblendet", flat=True).first()
    return [art for art in hidden or () if art not in HinweisEinstellung.PFLICHT_ARTEN]


def popups_for(*, user: Any) -> bool:
    """Whether a new Hinweis pops up on the user's pages (the bell's script reads it)."""
    if not getattr(user, "is_authenticated", False):
        return False
    found = HinweisEinstellung.objects.filter(user=user).values_list("kurzmeldungen", flat=True).first()
    return True if found is None else found
