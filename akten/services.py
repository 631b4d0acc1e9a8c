"""Writes to the firm's records that are not Helena drafts: access to Akten (tokens: akten/users.py)."""

from __future__ import annotations

from django.db import transaction

from akten.models import Akte, AktenZugriff, User


@transaction.atomic
def grant_access(*, akte: Akte, user: User, granted_by: User | None = None) -> AktenZugriff:
    """Give a user access to an Akte (idempotent)."""
    grant, _ = AktenZugriff.objects.get_or_create(
        akte=akte, user=user, defaults={"gewaehrt_von": granted_by}
    )
    return grant


def revoke_access(*, akte: Akte, user: User) -> None:
    AktenZugriff.objects.filter(akte=akte, user=user).delete()
