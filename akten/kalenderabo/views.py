"""The feed itself (thin): /kalender/<key>.ics, without login — calendar programs cannot log in, the
secret key in the address is the authorisation. An unknown, replaced or revoked key, one of a
deactivated person, or one made with an API token that no longer counts, is a plain 404 (the same
for all, so nothing tells which keys once existed).

Never kept by anyone in between (Cache-Control: private), and the person's own program asks again
every time (no-cache): the feed holds what they may see at the moment of the request. An unchanged
feed answers 304 to the program's If-None-Match (its strong ETag is a fingerprint of one aggregate
query: selectors.fingerabdruck), without building the calendar. Answers without the feed (404, 405)
are no-store.

The address handed out is built from HELENA_BASE_URL when the firm set it (the address it is reached
by, https behind its reverse proxy), else from the request — whose scheme is https behind a proxy only
if SECURE_PROXY_SSL_HEADER is set (config/settings.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from akten.accounts.users import anzeigename
from akten.kalenderabo import ics, selectors, services
from akten.models import KalenderAbo

# A new version of how the feed is written changes every ETag, so no program keeps an old rendering.
ICS_VERSION = hashlib.sha256(Path(ics.__file__).read_bytes()).hexdigest()[:16]
LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def basis_url(request: HttpRequest) -> str:
    """Scheme and host of the addresses Helena hands out: HELENA_BASE_URL, else this request's."""
    return (settings.HELENA_BASE_URL or request.build_absolute_uri("/")).rstrip("/")


def feed_url(request: HttpRequest, raw: str) -> str:
    """The address to subscribe to, absolute (see basis_url)."""
    return basis_url(request) + reverse("kalender:feed", args=[raw])


def webcal_url(url: str) -> str:
    """The same address as webcal://, which opens the calendar program's subscribe dialog."""
    return "webcal://" + url.split("://", 1)[-1]


def unverschluesselt(url: str) -> bool:
    """Whether the address would travel unencrypted beyond this machine: http:// to another host."""
    teile = urlsplit(url)
    host = (teile.hostname or "").lower()
    return teile.scheme == "http" and host not in LOOPBACK and not host.startswith("127.")


def _ohne_speichern(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Every answer of the address: never indexed, no referrer; an answer without the feed (404, 405)
    kept nowhere."""

    def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if response.status_code == 405:  # a text of its own, so it keeps these headers (config.middleware)
            response.content = "Diese Adresse liefert nur den Kalender zum Abrufen."
            response["Content-Type"] = "text/plain; charset=utf-8"
        if response.status_code not in (200, 304):
            response["Cache-Control"] = "private, no-store, max-age=0"
        response["X-Robots-Tag"] = "noindex, nofollow"
        response["Referrer-Policy"] = "no-referrer"
        return response

    return wrapper


@csrf_exempt  # nothing but GET/HEAD is served: another method is 405 (no-store), not a CSRF page
@_ohne_speichern
@require_safe
def feed(request: HttpRequest, schluessel: str) -> HttpResponse:
    abo = selectors.abo_zum_schluessel(raw=schluessel)
    if abo is None:
        return HttpResponseNotFound("Nicht gefunden.", content_type="text/plain; charset=utf-8")
    services.abruf_vermerken(abo=abo)
    heute = timezone.localdate()
    alle = abo.umfang == KalenderAbo.Umfang.ALLE
    basis = basis_url(request)
    rahmen = ics.Rahmen(
        host=urlsplit(basis).hostname or "helena",
        basis_url=basis,
        titel=f"Helena – {'Fristen aller Akten' if alle else 'Fristen'} ({anzeigename(abo.user)})",
        mit_kurzrubrum=selectors.kurzrubrum_erlaubt(),
        heute=heute,
    )
    anzahl, abdruck = selectors.fingerabdruck(user=abo.user, umfang=abo.umfang, heute=heute)
    inhalt = repr((ICS_VERSION, rahmen, abo.umfang, anzahl, abdruck)).encode()
    etag = f'"{hashlib.sha256(inhalt).hexdigest()[:32]}"'
    response = get_conditional_response(request, etag=etag)
    if response is None:
        body = ics.kalender(eintraege=selectors.eintraege_fuer(user=abo.user, umfang=abo.umfang, heute=heute),
                            rahmen=rahmen)
        response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
        response["Content-Disposition"] = 'inline; filename="helena-fristen.ics"'
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response
