"""The address a request came from, in one place: the login throttle (django-axes), the API tokens'
brake and the websockets all count by it.

By default it is REMOTE_ADDR (what daphne saw): a client cannot fake it. Behind a reverse proxy that
is the proxy's address for everyone, so the firm names the header its proxy writes
(HELENA_PROXY_IP_HEADER, e.g. X-Forwarded-For) and Helena takes the right-most address in it: the one
the proxy itself appended. Addresses further left come from the client and are never trusted.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest


def _header_meta_key() -> str:
    name = str(getattr(settings, "HELENA_PROXY_IP_HEADER", "") or "").strip()
    return "HTTP_" + name.upper().replace("-", "_") if name else ""


def _valid(value: str) -> str | None:
    value = value.strip()
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def _from(remote: str | None, proxied: str | None) -> str:
    if _header_meta_key() and proxied:
        for part in reversed(proxied.split(",")):
            if address := _valid(part):
                return address
    return _valid(remote or "") or "0.0.0.0"


def client_ip(request: HttpRequest) -> str:
    """The client's address of an HTTP request (also django-axes' AXES_CLIENT_IP_CALLABLE)."""
    meta: Mapping[str, Any] = request.META
    key = _header_meta_key()
    return _from(meta.get("REMOTE_ADDR"), meta.get(key) if key else None)


def scope_ip(scope: Mapping[str, Any]) -> str:
    """The same for an ASGI scope (a websocket)."""
    client = scope.get("client") or (None, None)
    key = _header_meta_key()
    proxied = None
    if key:
        wanted = key[5:].lower().replace("_", "-").encode()
        headers: Iterable[tuple[bytes, bytes]] = scope.get("headers", ())
        proxied = next((value.decode("latin-1") for name, value in headers if name.lower() == wanted), None)
    return _from(client[0] if client else None, proxied)
