"""Users, their roles and their API tokens: who someone is to Helena.

The role decides which tools and drafts are someone's (docs/protocol.md "Roles and tools"); a bearer
token lets another system act as a user until it is revoked or expires (users manage their own on
/konto/: akten/accounts/konto/). Access to single Akten is in akten/services.py.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from akten.models import ApiToken, Role, User

ALL_ROLES: frozenset[str] = frozenset(Role.values)
TOKEN_PREFIX = "hel_"


def role_of(user: Any) -> str:
    """The role the role filters apply: superusers count as ADMIN (they see every Akte)."""
    return "ADMIN" if getattr(user, "sees_all_akten", False) else str(getattr(user, "role", ""))


# Who keeps the Fristenkalender by hand (mark erledigt, correct a Frist): the roles that may decide
# Helena's Frist drafts (docs/protocol.md "Roles and tools"; tests check both stay the same).
FRIST_ROLES: frozenset[str] = frozenset({"ADMIN", "ANWALT", "SACHBEARBEITER"})


def may_edit_fristen(user: Any) -> bool:
    return role_of(user) in FRIST_ROLES


# Who files Dokumente into an Akte (upload, a Muster filled in): everyone but the Praktikant, who reads.
DOKUMENT_ROLES: frozenset[str] = ALL_ROLES - {"PRAKTIKANT"}


def may_file_dokumente(user: Any) -> bool:
    return role_of(user) in DOKUMENT_ROLES


def hash_token(raw: str) -> str:
    """Tokens are 256-bit random, so a plain SHA-256 is enough to store them safely."""
    return hashlib.sha256(raw.encode()).hexdigest()


def new_api_token(*, user: User, name: str = "", gueltig_bis: datetime | None = None,
                  erzeugt_von: ApiToken | None = None) -> tuple[ApiToken, str]:
    """Create a token: the row and the token in clear, which exists only in this answer (the row keeps
    its hash and the first characters, by which its owner recognises it)."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=raw[:12], key_hash=hash_token(raw),
                                    gueltig_bis=gueltig_bis, erzeugt_von=erzeugt_von)
    return token, raw


def create_api_token(*, user: User, name: str = "", gueltig_bis: datetime | None = None) -> str:
    """Create a token and return it in clear once; only its hash is kept."""
    return new_api_token(user=user, name=name, gueltig_bis=gueltig_bis)[1]


def user_for_token(*, raw: str) -> User | None:
    """The active user a valid token belongs to (not revoked, not expired), else None."""
    token = valid_token(raw=raw)
    return token.user if token is not None else None


def valid_token(*, raw: str) -> ApiToken | None:
    """The token (with its user) if it is valid: not revoked, not expired, its user active."""
    if not raw or len(raw) > 200:
        return None
    now = timezone.now()
    token = (
        ApiToken.objects.select_related("user")
        .filter(Q(gueltig_bis__isnull=True) | Q(gueltig_bis__gt=now),
                key_hash=hash_token(raw), widerrufen=False, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    if token.zuletzt_benutzt is None or (now - token.zuletzt_benutzt).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(zuletzt_benutzt=now)
    return token


def anzeigename(user: User | None, *, niemand: str = "") -> str:
    """How a colleague is named on a page: the full name, else the username; `niemand` without one."""
    if user is None:
        return niemand
    return user.get_full_name() or user.username
