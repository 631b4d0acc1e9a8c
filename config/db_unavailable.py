"""While the database is away (a restart, a failover, our connections terminated), pages and API
answer 503 with a German message and Retry-After, and websockets close with 4503; never a traceback.

Recovery needs nothing from here: Django drops a connection that failed at the end of the request
(close_if_unusable_or_obsolete), a connection from the pool is checked before Django uses it and the
first dead one clears out the others (config/postgres/), a persistent one is checked before its first
query (CONN_HEALTH_CHECKS, config/settings.py), so the next request after the outage connects anew.

Django turns an exception into a 500 response in the layer where it was raised: every middleware is
wrapped by its handler. A view's error reaches `process_exception`; one raised in a middleware below
(the session read by SitzungsMiddleware, the user loaded for axes or the second factor, the session
saved afterwards) only sends `got_request_exception` before its 500 travels up. So the signal marks
the request and the middleware, placed above every middleware that touches the database, answers
503 instead. Django's „Internal Server Error“ record of such an error is dropped by
`OhneDatenbankTraceback` on the log handler: one line per outage is written here, and one when the
database answers again.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.debug import ExceptionReporter

log = logging.getLogger(__name__)

API_PREFIX = "/api/"
RETRY_AFTER_SECONDS = 5
CLOSE_DATENBANK_WEG = 4503  # websocket close code: the client tries again with its backoff
MELDUNG = ("Die Datenbank ist gerade nicht erreichbar. Helena versucht es von selbst wieder – "
           "lade die Seite in ein paar Sekunden neu.")
API_MELDUNG = "Die Datenbank ist gerade nicht erreichbar. Bitte versuche es in ein paar Sekunden noch einmal."
# SQLSTATEs that mean "no server to talk to": connection exceptions (class 08), the server shutting
# down or terminating us (57P01 pg_terminate_backend, 57P02 crash, 57P03 still starting), too many
# connections. A statement timeout or a deadlock is an OperationalError too, but no outage.
_OUTAGE_STATES = ("57P01", "57P02", "57P03", "53300")
_MARK = "_helena_datenbank_weg"

SEITE = (
    "<!doctype html><html lang=\"de\"><head><meta charset=\"utf-8\">"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    "<title>Datenbank nicht erreichbar – Helena</title>"
    "<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;"
    "line-height:1.5;color:#222}h1{font-size:1.4rem}</style></head><body>"
    "<h1>Einen Moment bitte</h1>"
    f"<p>{MELDUNG}</p>"
    "<p>Es ist nichts verloren gegangen, was schon gespeichert war. Hast du gerade etwas abgeschickt, "
    "prüfe nach dem Neuladen, ob es angekommen ist.</p>"
    "</body></html>"
)


def ist_ausfall(exc: BaseException | None) -> bool:
    """Whether `exc` — or what caused it — says the database cannot be reached (rather than that a
    query was wrong): Django's errors and psycopg's own (a run's event connection raises those)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, InterfaceError | psycopg.InterfaceError):  # "connection already closed"
            return True
        if isinstance(exc, OperationalError | psycopg.OperationalError):
            cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
            sqlstate = getattr(cause, "sqlstate", None)
            # libpq's own failures (refused, closed unexpectedly, the pool's timeout) have no SQLSTATE
            return sqlstate is None or sqlstate.startswith("08") or sqlstate in _OUTAGE_STATES
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


class _Ausfall:
    """One warning when an outage begins, one line when it ends: not a record per request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seit: float | None = None

    def gemeldet(self, exc: BaseException, *, wo: str) -> None:
        with self._lock:
            if self.seit is not None:
                return
            self.seit = time.monotonic()
        cause = exc.__cause__ or exc
        text = " ".join(str(cause).split())[:300]
        log.warning("Datenbank nicht erreichbar (%s: %s): Seiten und API antworten 503, bis sie wieder "
                    "antwortet (%s)", type(cause).__name__, text, wo)

    def erholt(self) -> None:
        if self.seit is None:
            return
        with self._lock:
            seit, self.seit = self.seit, None
        if seit is not None:
            log.warning("Datenbank wieder erreichbar (nach %.1f s)", time.monotonic() - seit)


ausfall = _Ausfall()


def antwort(request: HttpRequest) -> HttpResponse:
    """The 503: JSON for the API ({detail, code} as its other errors), a short page for the rest."""
    if request.path.startswith(API_PREFIX):
        response: HttpResponse = JsonResponse(
            {"detail": API_MELDUNG, "code": "database_unavailable"}, status=503,
            json_dumps_params={"ensure_ascii": False})
    else:
        response = HttpResponse(SEITE, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def melden(request: HttpRequest, exc: BaseException) -> None:
    """This request met the outage: logged once per outage, and its 503 not once more by Django."""
    setattr(request, _MARK, exc)
    ausfall.gemeldet(exc, wo=request.path)


def _markieren(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """got_request_exception, sent inside Django's except block: remember an outage on the request."""
    exc = sys.exc_info()[1]
    if request is not None and exc is not None and ist_ausfall(exc):
        melden(request, exc)


class DatabaseUnavailableMiddleware:
    """Turns a database outage anywhere below it (views, middlewares, the session's save) into 503."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        got_request_exception.connect(_markieren, dispatch_uid="helena-datenbank-weg")

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(request, _MARK, None) is not None:
            # a 500 of a middleware's error, or the API's own 503 (config/api.py), which stays
            return response if response.status_code == 503 else antwort(request)
        if ausfall.seit is not None and _verbunden():
            ausfall.erholt()
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not ist_ausfall(exception):
            return None
        melden(request, exception)
        return antwort(request)


def _verbunden() -> bool:
    """This request holds a working connection (it reached the database): the outage is over."""
    conn = connections["default"]
    return conn.connection is not None and not conn.errors_occurred


class Fehlerbericht(ExceptionReporter):
    """DEBUG's error page (settings.DEFAULT_EXCEPTION_REPORTER) of an outage is never shown (the
    middleware answers 503), but rendering it asked the database for the lazy user again and again,
    each time waiting DB_POOL_TIMEOUT: the 503 came minutes late. Here it is not rendered."""

    def get_traceback_html(self) -> str:
        return MELDUNG if ist_ausfall(self.exc_value) else super().get_traceback_html()

    def get_traceback_text(self) -> str:
        return MELDUNG if ist_ausfall(self.exc_value) else super().get_traceback_text()


class OhneDatenbankTraceback(logging.Filter):
    """Drops Django's records of a request that met the outage — „Internal Server Error“ with its
    traceback, „Service Unavailable“ for the 503 —: one line per outage is written here instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name != "django.request":
            return True
        if record.exc_info and ist_ausfall(record.exc_info[1]):
            return False
        return getattr(getattr(record, "request", None), _MARK, None) is None


FRAME_SEND = "helena.frame_send"  # scope key: the server's own send, for text frames of an accepted socket


class DatabaseUnavailableWebsocket:
    """ASGI middleware around the websocket stack: an outage while a socket connects (the session,
    the user, the token, the consumer's first reading) or while it is open closes it with 4503
    (accepted first, or the browser sees a bare HTTP 403 without the code)."""

    def __init__(self, inner: Callable[..., Awaitable[Any]]) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        state = {"received": False, "accepted": False, "closed": False}

        async def receive_tracked() -> dict[str, Any]:
            message = await receive()
            state["received"] = True
            if message.get("type") == "websocket.disconnect":
                state["closed"] = True
            return message

        async def send_tracked(message: dict[str, Any]) -> None:
            kind = message.get("type")
            if kind == "websocket.accept":
                state["accepted"] = True
            elif kind == "websocket.close":
                state["closed"] = True
            await send(message)

        try:
            # A socket's run events are text frames of an accepted socket: they change none of the
            # state tracked here nor the session, so the chat sends them with daphne's send directly
            # (helena/realtime/chat.py); every other message goes through the stack.
            await self.inner({**scope, FRAME_SEND: send}, receive_tracked, send_tracked)
        except (OperationalError, InterfaceError) as exc:
            if not ist_ausfall(exc):
                raise
            ausfall.gemeldet(exc, wo=scope.get("path", "websocket"))
            if state["closed"]:
                return
            if not state["received"]:
                await receive()  # the websocket.connect that nobody read yet
            if not state["accepted"]:
                await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CLOSE_DATENBANK_WEG})
