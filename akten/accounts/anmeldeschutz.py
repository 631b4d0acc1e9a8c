"""Login throttling (django-axes): too many wrong passwords for one username, or from one address,
and the login is refused — also with the right password — until the pause has passed or the
Verwaltung lifts the lock (admin „Zugriffsversuche“ → „Sperre aufheben“).

Two limits with their own thresholds (settings HELENA_ANMELDUNG_*): per username (default 5), per
address (default 20, higher because a whole office may share one address behind its router). axes
compares one number with one limit, so the handler reports the username's count, or the limit
itself once the address is over its own.

A lock lasts AXES_COOLOFF_TIME after the failure that caused it; attempts during the lock are not
counted (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False), so nobody can keep a colleague
locked by trying on: after the pause the next failures count from zero. axes keeps no password
(its form data are masked); our log lines name the username and the address only.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from akten.accounts.konto.forms import AnmeldeForm
from config.client_ip import client_ip

log = logging.getLogger(__name__)


def sperrdauer() -> timedelta:
    return settings.AXES_COOLOFF_TIME


def limit_benutzer() -> int:
    return int(settings.AXES_FAILURE_LIMIT)


def limit_adresse() -> int:
    return int(settings.HELENA_ANMELDUNG_LIMIT_ADRESSE)


def _versuche(**filter_: Any) -> list[tuple[datetime, int]]:
    """(last failure, failures) of the rows still inside the pause, oldest first."""
    seit = timezone.now() - sperrdauer()
    return list(AccessAttempt.objects.filter(attempt_time__gte=seit, **filter_)
                .order_by("attempt_time").values_list("attempt_time", "failures_since_start"))


def _gesperrt_bis(zeilen: list[tuple[datetime, int]], limit: int) -> datetime | None:
    """When the count falls below the limit: axes drops a row once its last failure is older than
    the pause, so the oldest rows leave first."""
    summe = sum(n for _, n in zeilen)
    if summe < limit:
        return None
    for zeit, anzahl in zeilen:
        summe -= anzahl
        if summe < limit:
            return zeit + sperrdauer()
    return None  # not reached: the sum of all rows falls to 0


def sperre_bis(*, username: str | None, adresse: str | None) -> datetime | None:
    """Until when a login for this username from this address is refused (None: it is not)."""
    enden = []
    if username:
        enden.append(_gesperrt_bis(_versuche(username=username), limit_benutzer()))
    if adresse:
        enden.append(_gesperrt_bis(_versuche(ip_address=adresse), limit_adresse()))
    return max((ende for ende in enden if ende is not None), default=None)


class AnmeldeSchutzHandler(AxesDatabaseHandler):
    """axes' database handler with a second threshold per address and a reset for the username only
    after a successful login (axes' own reset would also clear the address's count, which a person
    with a valid login could use to reset an attacker's counter beside them)."""

    def get_failures(self, request: HttpRequest, credentials: dict | None = None) -> int:
        username = get_client_username(request, credentials)
        benutzer = sum(n for _, n in _versuche(username=username)) if username else 0
        adresse = getattr(request, "axes_ip_address", None)
        if adresse and sum(n for _, n in _versuche(ip_address=adresse)) >= limit_adresse():
            return max(benutzer, limit_benutzer())
        return benutzer

    def user_logged_in(self, sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
        super().user_logged_in(sender, request, user, **kwargs)
        AccessAttempt.objects.filter(username=user.get_username()).delete()


def meldung(bis: datetime | None) -> str:
    if bis is None:
        return ("Zu viele falsche Anmeldeversuche. Die Anmeldung ist vorübergehend gesperrt – auch mit dem "
                "richtigen Passwort. Bitte versuche es später noch einmal oder bitte die Verwaltung der "
                "Kanzlei, die Sperre aufzuheben.")
    uhrzeit = timezone.localtime(bis).strftime("%H:%M")
    return (f"Zu viele falsche Anmeldeversuche. Die Anmeldung ist bis {uhrzeit} Uhr gesperrt – auch mit "
            "dem richtigen Passwort. Bitte versuche es danach noch einmal oder bitte die Verwaltung der "
            "Kanzlei, die Sperre aufzuheben.")


def gesperrt(request: HttpRequest, *_args: Any) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page again (429) with the German reason and until when; the
    admin's login likewise. (axes' async path passes its arguments shifted: only `request` is read.)"""
    username = (request.POST.get("username") or "").strip()[:150] or None
    adresse = getattr(request, "axes_ip_address", None) or client_ip(request)
    bis = sperre_bis(username=username, adresse=adresse)
    log.warning("Anmeldung gesperrt: Benutzername %r von %s bis %s", username, adresse, bis)
    text = meldung(bis)
    if request.path.startswith("/admin/"):
        context = {**admin.site.each_context(request), "title": "Anmelden",
                   "app_path": request.get_full_path(),
                   "username": username or "", "form": AdminAuthenticationForm(request),
                   "gesperrt": text, "next": request.POST.get("next", "")}
        return render(request, "admin/login.html", context, status=429)
    context = {"form": AnmeldeForm(request, initial={"username": username}), "gesperrt": text,
               "next": request.POST.get("next", "")}
    return render(request, "registration/login.html", context, status=429)
