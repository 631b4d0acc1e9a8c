"""Writes of the calendar feed: a new secret address, a revoked one, what the feed shows, when it was
last read.

Only a hash of the address's key is kept (akten.accounts.users.hash_token, as for API tokens): the
address is shown to its owner once. A new address replaces the old one in the same row, so the old
one stops working at once (404); revoking clears it, and so does deactivating the person (signals.py):
reactivated, they make a new one. An address made through the API with a token ends with that token.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from akten.accounts.users import hash_token
from akten.kalenderabo.selectors import SCHLUESSEL_PRAEFIX
from akten.models import ApiToken, KalenderAbo, User
from config.errors import DomainError


@dataclass(frozen=True)
class NeueAdresse:
    abo: KalenderAbo
    raw: str  # the key in clear: in this answer only, never stored


def _pruefe_umfang(umfang: object) -> str:
    if not isinstance(umfang, str) or umfang not in KalenderAbo.Umfang.values:
        raise DomainError("Unbekannter Umfang: erlaubt sind „meine“ und „alle“.", field="umfang")
    return umfang


@transaction.atomic
def adresse_erneuern(*, user: User, umfang: object = None,
                     erzeugt_mit: ApiToken | None = None) -> NeueAdresse:
    """A new secret address for the person's feed; an earlier one stops working at once. `umfang`
    (meine/alle) changes what the feed shows; without it the person's earlier choice stays. Made with
    an API token (`erzeugt_mit`), the address works only as long as that token does (the project's
    rule for what a token makes: it lives at most as long as the token and is revoked with it)."""
    if not user.is_active:
        raise DomainError("Dieser Zugang ist gesperrt.", code="forbidden", status=403)
    raw = SCHLUESSEL_PRAEFIX + secrets.token_urlsafe(32)
    abo, _ = KalenderAbo.objects.select_for_update().get_or_create(user=user)
    abo.key_hash, abo.prefix, abo.erzeugt_mit = hash_token(raw), raw[:12], erzeugt_mit
    abo.angelegt_am, abo.zuletzt_abgerufen = timezone.now(), None
    if umfang is not None:
        abo.umfang = _pruefe_umfang(umfang)
    abo.save()
    return NeueAdresse(abo=abo, raw=raw)


def abo_widerrufen(*, user: User) -> None:
    """The person's address stops working at once (idempotent: without one nothing happens); their
    choice of what the feed shows stays for a new address."""
    KalenderAbo.objects.filter(user=user, key_hash__isnull=False).update(
        key_hash=None, prefix="", angelegt_am=None, zuletzt_abgerufen=None, erzeugt_mit=None)


def umfang_setzen(*, user: User, umfang: str) -> KalenderAbo:
    """What the person's feed shows from its next refresh on; the address stays the same."""
    abo, _ = KalenderAbo.objects.update_or_create(user=user, defaults={"umfang": _pruefe_umfang(umfang)})
    return abo


def abruf_vermerken(*, abo: KalenderAbo) -> None:
    """When a calendar program last read the feed (shown on /konto/: is the subscription working?);
    written at most once a minute, calendar programs ask often."""
    jetzt = timezone.now()
    if abo.zuletzt_abgerufen is None or (jetzt - abo.zuletzt_abgerufen).total_seconds() > 60:
        KalenderAbo.objects.filter(pk=abo.pk).update(zuletzt_abgerufen=jetzt)
