"""`Idempotency-Key`: a POST sent again with the same key and body answers the first answer again and
creates nothing (a client whose answer was lost in a timeout retries without fear).

After the IETF draft "The Idempotency-Key HTTP Header Field" and Stripe's practice: the key is the
client's, per user; the same key with another request (path or body) is refused (422); only a
successful answer is kept — an error created nothing, so the retry may simply try again. The record
and its kept answer are written in one transaction, and a second request with the key waits on a
lock until the first has finished, so two racing retries cannot both create. Kept seven days.

A kept answer is given again only as the caller's rights are now (`noch_erlaubt`: the Akte still
visible, the role still allowed, the record still there); else the same error as a new request.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.http import HttpRequest
from django.utils import timezone

from akten.models import IdempotenzAntwort
from config.errors import DomainError

AUFBEWAHRUNG = timedelta(days=7)
SCHLUESSEL_MAX = 255


class SchluesselFehler(DomainError):
    status, code = 422, "idempotency_key"


def _anfrage(request: HttpRequest) -> str:
    """Method, path and the body's checksum; a JSON body is compared by content, not by spacing."""
    roh = request.body
    try:
        inhalt = json.dumps(json.loads(roh or b"null"), sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, UnicodeDecodeError):
        inhalt = roh
    return f"{request.method} {request.path[:500]} {hashlib.sha256(inhalt).hexdigest()}"


def _pruefe_schluessel(schluessel: str) -> str:
    schluessel = schluessel.strip()
    if not 1 <= len(schluessel) <= SCHLUESSEL_MAX or not schluessel.isascii() or not schluessel.isprintable():
        raise SchluesselFehler(f"Der Idempotency-Key muss 1 bis {SCHLUESSEL_MAX} druckbare ASCII-Zeichen "
                               "lang sein, z. B. eine UUID.")
    return schluessel


def einmalig(request: HttpRequest, *, schluessel: str | None,
             erzeugen: Callable[[], tuple[int, dict[str, Any]]],
             noch_erlaubt: Callable[[dict[str, Any]], None]) -> tuple[int, dict[str, Any], bool]:
    """(status, answer, replayed): `erzeugen` runs once per user and key; its JSON answer is kept.
    `noch_erlaubt(answer)` raises (NotFound, Forbidden) when the kept answer may not be given again."""
    if schluessel is None:
        status, antwort = erzeugen()
        return status, antwort, False
    schluessel = _pruefe_schluessel(schluessel)
    user = request.auth  # type: ignore[attr-defined]
    anfrage = _anfrage(request)
    # outside the transaction below: old keys of everyone are no lock a new request waits on
    IdempotenzAntwort.objects.filter(angelegt_am__lt=timezone.now() - AUFBEWAHRUNG).delete()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                           [f"idempotenz:{user.pk}:{schluessel}"])
        vorhanden = IdempotenzAntwort.objects.filter(user=user, schluessel=schluessel).first()
        if vorhanden is not None:
            if vorhanden.anfrage != anfrage:
                raise SchluesselFehler("Dieser Idempotency-Key gehört zu einer anderen Anfrage (anderer "
                                       "Pfad oder anderer Inhalt). Nimm für jede neue Anfrage einen neuen "
                                       "Schlüssel.")
            noch_erlaubt(vorhanden.antwort)
            return vorhanden.status, vorhanden.antwort, True
        status, antwort = erzeugen()
        IdempotenzAntwort.objects.create(user=user, schluessel=schluessel, anfrage=anfrage, status=status,
                                         antwort=antwort)
    return status, antwort, False
