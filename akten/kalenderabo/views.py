"""The feed itself (thin): /kalender/<key>.ics, without login — calendar programs cannot log in, the
secret key in the address is the authorisation. An unknown, replaced or revoked key, or one of a
deactivated person, is a plain 404 (the same for all, so nothing tells which keys once existed).

Never cached by anyone in between (Cache-Control: private, no-store): the feed is one person's and
holds what they may see at the moment of the request.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.http.request import split_domain_port
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from akten.accounts.users import anzeigename
from akten.kalenderabo import ics, selectors, services
from akten.models import KalenderAbo


def feed_url(request: HttpRequest, raw: str) -> str:
    """The address to subscribe to, absolute, on the host the person reached Helena by."""
    return request.build_absolute_uri(reverse("kalender:feed", args=[raw]))


def webcal_url(url: str) -> str:
    """The same address as webcal://, which opens the calendar program's subscribe dialog."""
    return "webcal://" + url.split("://", 1)[-1]


@require_safe
def feed(request: HttpRequest, schluessel: str) -> HttpResponse:
    abo = selectors.abo_zum_schluessel(raw=schluessel)
    if abo is None:
        raise Http404
    services.abruf_vermerken(abo=abo)
    heute = timezone.localdate()
    alle = abo.umfang == KalenderAbo.Umfang.ALLE
    rahmen = ics.Rahmen(
        host=split_domain_port(request.get_host())[0] or "helena",
        basis_url=request.build_absolute_uri("/").rstrip("/"),
        titel=f"Helena – {'Fristen aller Akten' if alle else 'Fristen'} ({anzeigename(abo.user)})",
        mit_kurzrubrum=selectors.kurzrubrum_erlaubt(),
    )
    body = ics.kalender(eintraege=selectors.eintraege_fuer(user=abo.user, umfang=abo.umfang, heute=heute),
                        rahmen=rahmen, heute=heute)
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="helena-fristen.ics"'
    response["Cache-Control"] = "private, no-store, max-age=0"
    response["Pragma"] = "no-cache"
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    return response
