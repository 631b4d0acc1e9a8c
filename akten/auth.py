"""API authentication: a bearer token (hashed in the database) or the Django session."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja.security import HttpBearer, SessionAuth

from akten.services import user_for_token


class BearerTokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Any:
        user = user_for_token(raw=token)
        if user is not None:
            request.user = user
        return user


class ActiveSessionAuth(SessionAuth):
    """Session login (with CSRF on writes, as ninja does); inactive users are refused."""

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        user = super().authenticate(request, key)
        return user if user is not None and user.is_active else None


api_auth = [BearerTokenAuth(), ActiveSessionAuth()]
