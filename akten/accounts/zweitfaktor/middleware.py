"""Pages: a logged-in user who still owes the second factor (regeln.offen) is sent to give it or to set
it up, whatever page they ask for, until they have; the pages of the second factor, the logout and
static files stay reachable. The JSON API (its session auth answers 403 JSON) and the websocket (the
socket is refused) ask regeln themselves: akten/accounts/auth.py. Bearer tokens are not touched."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from akten.accounts.zweitfaktor.regeln import EINRICHTEN, offen_fuer

API_PREFIX = "/api/"


def _frei(path: str) -> bool:
    """Addresses someone who still owes the second factor may open: giving it, setting it up, the
    recovery codes shown once, login and logout. Not removing it or new codes: those need it given."""
    seiten = {reverse(name) for name in ("zweitfaktor:bestaetigen", "zweitfaktor:einrichten",
                                         "zweitfaktor:codes", "login", "logout")}
    return path in seiten or path.startswith(("/" + settings.STATIC_URL.lstrip("/"), "/favicon.ico",
                                              API_PREFIX))


class ZweitfaktorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.user.is_authenticated and not _frei(request.path):
            offen = offen_fuer(request, verwaltung=request.path.startswith(reverse("admin:index")))
            if offen is not None:
                ziel = reverse("zweitfaktor:einrichten" if offen == EINRICHTEN else "zweitfaktor:bestaetigen")
                if request.method == "GET":
                    ziel += "?" + urlencode({"next": request.get_full_path()})
                return HttpResponseRedirect(ziel)
        return self.get_response(request)
