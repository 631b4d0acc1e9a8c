"""A request body larger than any upload may be is refused before Django reads it.

Django's ASGI handler spools the whole body to disk before any middleware or view runs, and its
multipart parser reads it once more. Here a declared Content-Length above the limit is answered
with 413 at once (JSON under /api/, a German page elsewhere), and a body sent without a length is
cut off once it passes the limit (the app sees the client disconnect). daphne (Twisted) has taken
the body in before any ASGI code runs: the limit in front of it belongs in the reverse proxy
(nginx `client_max_body_size`), see docs/dokumente.md.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def body_limit() -> int:
    """A form may carry several files: four of the largest, plus room for the form itself."""
    return (4 * settings.HELENA_UPLOAD_MAX_MB + 1) * 1024 * 1024


def _declared_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(scope: Scope, send: Send, limit: int) -> None:
    mb = limit // (1024 * 1024)
    text = f"Die Anfrage ist zu groß (höchstens {mb} MB, je Datei {settings.HELENA_UPLOAD_MAX_MB} MB)."
    if scope.get("path", "").startswith("/api/"):
        answer = json.dumps({"detail": text, "code": "zu_gross"}, ensure_ascii=False)
        body, kind = answer.encode(), b"application/json"
    else:
        page = f"<!doctype html><html lang=de><title>Zu groß</title><p>{text}</p>"
        body, kind = page.encode(), b"text/html"
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", kind + b"; charset=utf-8"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit()
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await _refuse(scope, send, limit)
            return
        seen = 0

        async def bounded() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            return {"type": "http.disconnect"} if seen > limit else message

        await self.app(scope, bounded, send)
