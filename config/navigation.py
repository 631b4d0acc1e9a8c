"""Where a page sends the user next, and whether the browser asked for a fragment: one rule for every
app (no open redirects: a `next` must point into this site)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def is_fetch(request: HttpRequest | None) -> bool:
    """True for requests of static/helena/drafts.js, which want the bare card back."""
    return request is not None and request.headers.get("X-Requested-With") == "fetch"


def safe_next(request: HttpRequest, url: str | None) -> str:
    """`url` if it points into this site (no open redirects), else ''."""
    if url and url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()},
                                               require_https=request.is_secure()):
        return url
    return ""
