"""Sessions that end: after a time without activity (idle), at the latest a fixed time after the login
(absolute), both in the firm's settings (Kanzleieinstellung); „Überall abmelden“ on /konto/; and the
websockets of a session that ended are told to close.

Cheap on every request: the session carries two stamps (login, last activity); the middleware reads
them from the session it loads anyway and writes the activity stamp at most once a minute, so a
session is saved once a minute at most, not on every request. The limits are read once per process
and again after TOUCH seconds or a change in this process.

„Überall abmelden“ needs no list of sessions: the moment is part of the session's hash
(User._get_session_auth_hash), so Django itself ends every older session at its next request, and a
websocket's session check (sitzung_gueltig) sees it too. Open websockets join a Channels group per
user and one per session; a message to the group closes them at once (helena/realtime/).
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any

import redis
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, logout
from django.db import transaction
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from akten.models import ApiToken, Kanzleieinstellung, User
from config.redis_client import sync_redis

log = logging.getLogger(__name__)

BEGINN = "_helena_angemeldet"  # epoch seconds of the login
AKTIV = "_helena_aktiv"  # epoch seconds of the last activity, written at most every TOUCH seconds
HINWEIS = "helena_sitzung_ende"  # why the last session ended, for the login page (once)
TOUCH = 60
GRUND_TEXT: dict[str, str] = {
    "leerlauf": "Du warst eine Weile nicht aktiv und wurdest deshalb abgemeldet. Bitte melde dich neu an.",
    "hoechstdauer": "Deine Anmeldung ist nach der in der Kanzlei eingestellten Höchstdauer abgelaufen. "
                    "Bitte melde dich neu an.",
    "passwort": "Du hast beim Passwortwechsel zu oft ein falsches bisheriges Passwort eingegeben und wurdest "
                "deshalb abgemeldet. Bitte melde dich neu an; den Passwortwechsel kannst du in 15 Minuten "
                "wieder versuchen.",
    "ueberall": "Du bist jetzt überall abgemeldet: in allen Browsern und auf allen Geräten. "
                "Deine API-Tokens gelten weiter, bis du sie widerrufst.",
}
SOCKET_MESSAGE = "sitzung.beendet"  # handled by the consumers' sitzung_beendet


@dataclass(frozen=True)
class Grenzen:
    leerlauf_sekunden: int
    hoechstdauer_sekunden: int


_lock = threading.Lock()
_grenzen: tuple[float, Grenzen] | None = None


def grenzen() -> Grenzen:
    """The firm's limits, read once per process and again after TOUCH seconds (another process's
    change) or at once after a change in this one (vergessen)."""
    global _grenzen
    jetzt = time.monotonic()
    with _lock:
        if _grenzen is not None and jetzt - _grenzen[0] < TOUCH:
            return _grenzen[1]
    row = (Kanzleieinstellung.objects.order_by("pk")
           .values("sitzung_leerlauf_minuten", "sitzung_hoechstdauer_stunden").first())
    werte = Grenzen(leerlauf_sekunden=60 * (row["sitzung_leerlauf_minuten"] if row else 480),
                    hoechstdauer_sekunden=3600 * (row["sitzung_hoechstdauer_stunden"] if row else 24))
    with _lock:
        _grenzen = (jetzt, werte)
    return werte


def vergessen(**_kwargs: Any) -> None:
    """The settings changed (post_save), or a test rolled them back: read them again."""
    global _grenzen
    with _lock:
        _grenzen = None


def ablaufgrund(session: Mapping[str, Any], *, jetzt: float | None = None) -> str | None:
    """Why this session has ended ("hoechstdauer", "leerlauf"), or None while it is alive. A session
    from before these stamps existed counts from its first request after the update."""
    beginn = session.get(BEGINN)
    if not isinstance(beginn, (int, float)):
        return None
    jetzt = time.time() if jetzt is None else jetzt
    aktiv = session.get(AKTIV, beginn)
    g = grenzen()
    if jetzt - beginn > g.hoechstdauer_sekunden:
        return "hoechstdauer"
    if jetzt - float(aktiv) > g.leerlauf_sekunden:
        return "leerlauf"
    return None


def beim_anmelden(sender: Any, request: HttpRequest, user: User, **_kwargs: Any) -> None:
    """user_logged_in: the stamps, and the cookie ends with the firm's absolute lifetime."""
    jetzt = time.time()
    request.session[BEGINN] = request.session[AKTIV] = int(jetzt)
    ende = timezone.now() + timezone.timedelta(seconds=grenzen().hoechstdauer_sekunden)
    request.session.set_expiry(ende)  # a datetime: a later save does not push it further


def beim_abmelden(sender: Any, request: HttpRequest, user: User | None, **_kwargs: Any) -> None:
    """user_logged_out: the websockets opened with this session close (one PUBLISH)."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        sockets_schliessen(gruppe_sitzung(key))


class SitzungsMiddleware:
    """After AuthenticationMiddleware: an expired session is logged out (the login page says why);
    a living one gets its activity stamp, at most once a minute."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        if session is not None and session.get(SESSION_KEY) is not None:
            jetzt = time.time()
            grund = ablaufgrund(session, jetzt=jetzt)
            if grund is not None:
                logout(request)
                request.session[HINWEIS] = grund
            elif BEGINN not in session:
                session[BEGINN] = session[AKTIV] = int(jetzt)
            elif jetzt - float(session.get(AKTIV, 0)) >= TOUCH:
                session[AKTIV] = int(jetzt)
        return self.get_response(request)


def hinweis_lesen(request: HttpRequest) -> str:
    """The login page's sentence why the last session ended (shown once)."""
    session = getattr(request, "session", None)
    grund = session.pop(HINWEIS, None) if session is not None else None
    return GRUND_TEXT.get(grund or "", "")


def ueberall_abmelden(*, user: User, request: HttpRequest | None = None) -> None:
    """End every session of the user (this one too, when given) and close their open websockets."""
    User.objects.filter(pk=user.pk).update(sitzungen_beendet_am=timezone.now())
    if request is not None:
        logout(request)
        request.session[HINWEIS] = "ueberall"
    sockets_schliessen(gruppe_benutzer(user.pk))
    log.info("Benutzer %s: überall abgemeldet", user.pk)


# --- websockets ---------------------------------------------------------------------------------

def gruppe_benutzer(user_id: int) -> str:
    return f"helena.benutzer.{user_id}"


def gruppe_sitzung(session_key: str) -> str:
    """A group per session, named by a hash: the session key itself never leaves the database."""
    return "helena.sitzung." + hashlib.sha256(session_key.encode()).hexdigest()[:40]


def sockets_schliessen(gruppe: str) -> None:
    """Tell every socket in the group to close: one PUBLISH on the channel the pub/sub layer
    subscribed the group to. A Redis failure is logged: a logout never fails for it (the sockets'
    own session check closes them within a minute)."""
    layer = get_channel_layer()
    if layer is None:
        return
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
    try:
        sync_redis(timeout=2).publish(f"{prefix}__group__{gruppe}", layer.serialize({"type": SOCKET_MESSAGE}))
    except redis.RedisError:
        log.warning("Websockets der Gruppe %s konnten nicht geschlossen werden", gruppe, exc_info=True)


def gruppe_token(token_id: int) -> str:
    """A group per API token: its sockets close when it is revoked."""
    return f"helena.token.{token_id}"


def beim_speichern_benutzer(sender: Any, instance: User, created: bool = False, **_kwargs: Any) -> None:
    """post_save of a User: a deactivated user's sockets (session and token) close at once, after the
    commit (their own check would close them within a minute)."""
    if not created and not instance.is_active:
        user_id = instance.pk
        transaction.on_commit(lambda: sockets_schliessen(gruppe_benutzer(user_id)))


def token_gueltig(*, token_id: int, user_id: int) -> bool:
    """Whether a websocket's API token still stands: not revoked, not expired, its user active."""
    return ApiToken.objects.filter(Q(gueltig_bis__isnull=True) | Q(gueltig_bis__gt=timezone.now()),
                                   pk=token_id, user_id=user_id, widerrufen=False,
                                   user__is_active=True).exists()


def _session_store(session_key: str) -> Any:
    return import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)


def sitzung_gueltig(*, session_key: str, user_id: int,
                    auch: Callable[[User, Mapping[str, Any]], bool] | None = None) -> bool:
    """Whether a websocket's session still stands: it exists, belongs to the user, its hash is the
    user's current one (password, „Überall abmelden“), the user is active and it has not expired;
    and `auch(user, session)` if given (the second factor: helena/realtime/sitzung.py, as
    akten.accounts.zweitfaktor may import this module but not the other way round)."""
    daten = _session_store(session_key).load()
    if str(daten.get(SESSION_KEY, "")) != str(user_id) or BACKEND_SESSION_KEY not in daten:
        return False
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return False
    if not constant_time_compare(daten.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash()):
        return False
    return ablaufgrund(daten) is None and (auch is None or auch(user, daten))

