"""Authentication for the API and the websockets: a bearer token (hashed in the database) or the
Django session. A session whose user still owes the second factor (akten/accounts/zweitfaktor/) is
refused on both: the API answers 403 with a German `detail`, the socket is anonymous (closed with
4403). A bearer token is a credential of its own and needs none."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.http.request import validate_host
from ninja.security import HttpBearer, SessionAuth

from akten.accounts.sitzungen import ablaufgrund
from akten.accounts.tokenbremse import falscher_token
from akten.accounts.users import valid_token
from akten.accounts.zweitfaktor import regeln as zweitfaktor
from config.client_ip import client_ip, scope_ip
from config.errors import Forbidden


class BearerTokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Any:
        found = valid_token(raw=token)
        if found is None:
            if (zu_viele := falscher_token(adresse=client_ip(request))) is not None:
                raise zu_viele  # 429 with Retry-After (akten/accounts/tokenbremse.py)
            return None
        request.user = found.user
        request.api_token = found  # type: ignore[attr-defined]  # a token made with it descends from it
        return found.user


class ZweiterFaktorFehlt(Forbidden):
    code = "zweiter_faktor_fehlt"


class ActiveSessionAuth(SessionAuth):
    """Session login (with CSRF on writes, as ninja does); inactive users are refused, and so is a
    session that has not given the second factor its user owes (403, German)."""

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        user = super().authenticate(request, key)
        if user is None or not user.is_active:
            return None
        offen = zweitfaktor.offen_fuer(request)
        if offen == zweitfaktor.EINRICHTEN:
            raise ZweiterFaktorFehlt(
                "Deine Rolle verlangt einen zweiten Faktor. Richte ihn zuerst unter "
                "/konto/zweiter-faktor/einrichten/ ein; bis dahin ist die API mit dieser Sitzung gesperrt "
                "(API-Tokens gelten weiter).")
        if offen == zweitfaktor.BESTAETIGEN:
            raise ZweiterFaktorFehlt(
                "Bitte bestätige deine Anmeldung zuerst mit dem Code aus deiner App "
                "(/konto/zweiter-faktor/); bis dahin ist die API mit dieser Sitzung gesperrt.")
        return user


api_auth = [BearerTokenAuth(), ActiveSessionAuth()]


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class WebsocketTokenOrSessionAuth:
    """Websocket auth after channels' AuthMiddlewareStack resolved the session user.

    A Bearer token wins (and an invalid one means anonymous, never the session). A session is
    only trusted when the browser's Origin is one of ALLOWED_HOSTS: a foreign page must not
    open a socket with the user's cookie (cross-site websocket hijacking). Clients that send
    no Origin are not browsers and cannot be tricked into sending the cookie.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        authorization = _header(scope, b"authorization")
        if authorization is not None:
            scheme, _, token = authorization.partition(" ")
            user, token_id = None, None
            if scheme.lower() == "bearer" and token.strip():
                gefunden = await database_sync_to_async(valid_token)(raw=token.strip())
                if gefunden is not None:
                    user, token_id = gefunden.user, gefunden.pk
            if user is None:  # a wrong token counts; over the limit the socket is refused with 4429
                zu_viele = await database_sync_to_async(falscher_token)(adresse=scope_ip(scope))
                scope = {**scope, "token_gebremst": zu_viele is not None}
            scope = {**scope, "user": user or AnonymousUser(), "per_token": True, "api_token_id": token_id}
        else:
            origin = _header(scope, b"origin")
            if origin is not None:
                host = urlparse(origin).hostname or ""
                allowed = settings.ALLOWED_HOSTS
                if not validate_host(host, allowed) and not validate_host(f"[{host}]", allowed):
                    scope = {**scope, "user": AnonymousUser()}
            if await database_sync_to_async(_abgelaufen)(scope):  # idle / absolute end: close with 4401
                scope = {**scope, "user": AnonymousUser(), "sitzung_abgelaufen": True}
            elif await database_sync_to_async(_zweiter_faktor_offen)(scope):
                scope = {**scope, "user": AnonymousUser()}
        return await self.inner(scope, receive, send)


def _abgelaufen(scope: dict[str, Any]) -> bool:
    """The session's user is logged in, but the session has passed its idle or absolute limit (the
    SitzungsMiddleware would log it out at its next page)."""
    user = scope.get("user")
    session = scope.get("session")
    if user is None or not getattr(user, "is_authenticated", False) or session is None:
        return False
    return ablaufgrund(session) is not None


def _zweiter_faktor_offen(scope: dict[str, Any]) -> bool:
    """The session's user still owes the second factor (then the socket is anonymous)."""
    user = scope.get("user")
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    verifiziert = zweitfaktor.session_verifiziert(user, scope.get("session"))
    return zweitfaktor.offen(user, verifiziert=verifiziert) is not None
