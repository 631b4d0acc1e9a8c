"""Writes to the firm's records that are not Helena drafts: access grants and API tokens."""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from akten.models import Akte, AktenZugriff, ApiToken, User

TOKEN_PREFIX = "hel_"


def hash_token(raw: str) -> str:
    """Tokens are 256-bit random, so a plain SHA-256 is enough to store them safely."""
    return hashlib.sha256(raw.encode()).hexdigest()


def create_api_token(*, user: User, name: str = "") -> str:
    """Create a token and return it in clear once; only its hash is kept."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    ApiToken.objects.create(user=user, name=name, prefix=raw[:12], key_hash=hash_token(raw))
    return raw


def user_for_token(*, raw: str) -> User | None:
    """The active user a valid, unrevoked token belongs to, else None."""
    if not raw or len(raw) > 200:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=hash_token(raw), widerrufen=False, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.zuletzt_benutzt is None or (now - token.zuletzt_benutzt).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(zuletzt_benutzt=now)
    return token.user


@transaction.atomic
def grant_access(*, akte: Akte, user: User, granted_by: User | None = None) -> AktenZugriff:
    """Give a user access to an Akte (idempotent)."""
    grant, _ = AktenZugriff.objects.get_or_create(
        akte=akte, user=user, defaults={"gewaehrt_von": granted_by}
    )
    return grant


def revoke_access(*, akte: Akte, user: User) -> None:
    AktenZugriff.objects.filter(akte=akte, user=user).delete()
