"""Writes of the second factor: set up an authenticator app (confirmed with a current code before it
counts), check a code after the password, recovery codes (each usable once), remove it (with a code or
the password) and the admin's reset for a lost phone.

Every code is checked by django-otp on the device under a row lock, with its throttle: after each
wrong code the device refuses for 1, 2, 4, 8 … seconds (OTP_TOTP_THROTTLE_FACTOR), across sessions,
but never longer than HOECHSTE_WARTEZEIT (django-otp's own limit is a hundred years: twenty wrong
codes, perhaps someone else's, would lock the user out for six days).
A refusal is a DomainError with a German sentence; the failed attempt stays counted (it is written
before the error is raised, outside any transaction that could roll it back).
"""

from __future__ import annotations

import math
import re
from base64 import b32encode
from typing import Any

from django.db import transaction
from django.utils import timezone
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from akten.accounts.sitzungen import ueberall_abmelden
from akten.accounts.zweitfaktor.regeln import geraet, hat_zweiten_faktor
from akten.models import User
from config.errors import DomainError

ANZAHL_CODES = 10
HOECHSTE_WARTEZEIT = 15 * 60  # seconds: the longest wait after wrong codes
GERAET_NAME = "Authenticator-App"
CODES_NAME = "Wiederherstellungscodes"


class CodeFalsch(DomainError):
    status, code, default_message = 422, "code_falsch", "Der Code stimmt nicht."


class NichtEingerichtet(DomainError):
    status, code, default_message = 409, "nicht_eingerichtet", "Du hast keinen zweiten Faktor eingerichtet."


class ZuVieleVersuche(DomainError):
    status, code = 429, "zu_viele_versuche"


def _normal(code: str) -> str:
    """What the user typed, without spaces and dashes (codes are shown grouped), lower case."""
    return re.sub(r"[\s\-]", "", code or "").lower()[:40]


def _ziffern(code: str, anzahl: int | None = None) -> bool:
    """Only 0–9 (Python's isdigit() would take other scripts' digits, too)."""
    return code.isascii() and code.isdigit() and (anzahl is None or len(code) == anzahl)


def _gesperrt(device: Device) -> None:
    erlaubt, info = device.verify_is_allowed()
    if erlaubt:
        return
    bis = (info or {}).get("locked_until")
    sekunden = max(1, math.ceil((bis - timezone.now()).total_seconds())) if bis else 1
    if sekunden >= 120:
        minuten = math.ceil(sekunden / 60)
        dauer = f"{minuten} Minuten"
    else:
        dauer = f"{sekunden} Sekunde{'' if sekunden == 1 else 'n'}"
    raise ZuVieleVersuche(f"Zu viele falsche Versuche. Bitte warte {dauer} und versuch es dann noch einmal.",
                          retry_after=sekunden)


def _wartezeit_deckeln(device: Device) -> None:
    """After a wrong code: if django-otp's doubling now asks for more than HOECHSTE_WARTEZEIT, keep the
    failure count where it first passes it and move the failure's time back, so the wait ends exactly
    HOECHSTE_WARTEZEIT after this failure (django-otp computes it from count and time alone)."""
    anzahl = getattr(device, "throttling_failure_count", 0)
    zeitpunkt = getattr(device, "throttling_failure_timestamp", None)
    if not anzahl or zeitpunkt is None:
        return
    faktor = device.get_throttle_factor()
    if faktor <= 0 or faktor * 2 ** (anzahl - 1) <= HOECHSTE_WARTEZEIT:
        return
    gedeckelt = 1
    while faktor * 2 ** (gedeckelt - 1) < HOECHSTE_WARTEZEIT:
        gedeckelt += 1
    zurueck = faktor * 2 ** (gedeckelt - 1) - HOECHSTE_WARTEZEIT
    type(device).objects.filter(pk=device.pk).update(
        throttling_failure_count=gedeckelt,
        throttling_failure_timestamp=zeitpunkt - timezone.timedelta(seconds=zurueck))


def _pruefe(device: Device, code: str, *, falsch: str) -> Device:
    """The device if `code` is one of its codes now (each TOTP code and each recovery code counts once);
    else the throttle grows and CodeFalsch says `falsch`."""
    _gesperrt(device)
    with transaction.atomic():  # one check at a time per device: a code cannot count twice
        locked = type(device).objects.select_for_update().filter(pk=device.pk).first()
        ok = locked is not None and locked.verify_token(code)
    if not ok or locked is None:
        if locked is not None:
            _wartezeit_deckeln(locked)
        raise CodeFalsch(falsch, field="code")
    return locked


def geheimnis(device: TOTPDevice) -> str:
    """The key as an authenticator app takes it by hand (Base32), in groups of four."""
    text = b32encode(device.bin_key).decode().rstrip("=")
    return " ".join(text[i:i + 4] for i in range(0, len(text), 4))


def einrichtung_beginnen(*, user: User, offen_pk: int | None = None) -> TOTPDevice:
    """The unconfirmed device this session shows as QR code: it counts only after a current code.
    `offen_pk` is the one this session started (kept in the session): a reload keeps it, the user may
    have scanned it. A setup started anywhere else gets a fresh key, and every other unconfirmed device
    of the user goes, so a key is never shown to a session that did not make it (someone with only the
    password must not learn the key the real user then confirms)."""
    if hat_zweiten_faktor(user):
        raise DomainError("Du hast schon einen zweiten Faktor eingerichtet. Entferne ihn zuerst, wenn du "
                          "ein neues Handy einrichten willst.", status=409, code="schon_eingerichtet")
    if offen_pk is not None:
        vorhanden = TOTPDevice.objects.filter(pk=offen_pk, user=user, confirmed=False).first()
        if vorhanden is not None:
            return vorhanden
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user, confirmed=False).delete()
        return TOTPDevice.objects.create(user=user, name=GERAET_NAME, confirmed=False)


def einrichtung_abschliessen(*, user: User, offen_pk: int | None, code: str) -> tuple[TOTPDevice, list[str]]:
    """Confirm the device this session showed (`offen_pk`, none other) with a current code; then it
    counts, and the first recovery codes (in clear only in this answer) are made."""
    device = (TOTPDevice.objects.filter(pk=offen_pk, user=user, confirmed=False).first()
              if offen_pk is not None else None)
    if device is None:
        raise DomainError("Die Einrichtung ist nicht mehr offen. Bitte fang noch einmal an.", status=409,
                          code="nicht_offen")
    code = _normal(code)
    if not _ziffern(code):
        raise CodeFalsch("Bitte gib den sechsstelligen Code aus deiner App ein.", field="code")
    device = _pruefe(device, code, falsch="Der Code stimmt nicht. Prüfe, ob die Uhr deines Handys "
                                          "stimmt, und gib den aktuellen Code aus der App ein.")
    with transaction.atomic():
        TOTPDevice.objects.filter(pk=device.pk).update(confirmed=True)
        TOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
        device.confirmed = True
        codes = neue_codes(user=user)
    return device, codes


def anmeldung_bestaetigen(*, user: User, code: str) -> Device:
    """The device that took the code after the password: six digits are the app's code, anything else
    a recovery code (used up with it)."""
    code = _normal(code)
    if not code:
        raise CodeFalsch("Bitte gib den Code aus deiner App oder einen Wiederherstellungscode ein.",
                         field="code")
    app = geraet(user)
    if app is None:
        raise NichtEingerichtet()
    if _ziffern(code, app.digits):
        return _pruefe(app, code, falsch="Der Code stimmt nicht. Gib den aktuellen Code aus deiner App ein.")
    codes = StaticDevice.objects.filter(user=user, confirmed=True).first()
    if codes is None:
        _pruefe(app, code, falsch="Der Code stimmt nicht.")  # counted against the app's throttle
    return _pruefe(codes, code, falsch="Dieser Wiederherstellungscode stimmt nicht oder ist schon benutzt.")


def neue_codes(*, user: User) -> list[str]:
    """Ten new recovery codes (the earlier ones stop working), in clear only in this answer; the device
    that holds them stays, so a session verified with one of them stays verified."""
    with transaction.atomic():
        device = StaticDevice.objects.filter(user=user).order_by("pk").first()
        if device is None:
            device = StaticDevice.objects.create(user=user, name=CODES_NAME)
        device.token_set.all().delete()
        codes = [StaticToken.random_token() for _ in range(ANZAHL_CODES)]
        StaticToken.objects.bulk_create(StaticToken(device=device, token=code) for code in codes)
    return [f"{code[:4]}-{code[4:]}" for code in codes]


def entfernen(*, user: User, code_oder_passwort: str) -> None:
    """Remove the second factor; asked again for a current code or the password (a session left open
    must not be enough). A wrong answer counts against the app's throttle."""
    app = geraet(user)
    if app is None:
        raise NichtEingerichtet()
    _gesperrt(app)
    eingabe = (code_oder_passwort or "").strip()
    if not (eingabe and user.check_password(eingabe)):
        code = _normal(eingabe)
        if not _ziffern(code, app.digits):
            app.throttle_increment()
            _wartezeit_deckeln(app)
            raise CodeFalsch("Weder Code noch Passwort stimmen.", field="code_oder_passwort")
        _pruefe(app, code, falsch="Weder Code noch Passwort stimmen.")
    _geraete_loeschen(user=user)  # the user's own sessions stay: they asked for it with a code/password


def _geraete_loeschen(*, user: Any) -> int:
    with transaction.atomic():
        geloescht = TOTPDevice.objects.filter(user=user).delete()[0]
        geloescht += StaticDevice.objects.filter(user=user).delete()[0]
    return geloescht


def zuruecksetzen(*, user: Any) -> int:
    """Remove every device and recovery code of the user (the admin's reset for a lost phone) and end
    every session and websocket of the user: whoever holds the lost phone and a session must not keep
    it; the user logs in again and sets up a new one, if they must."""
    geloescht = _geraete_loeschen(user=user)
    ueberall_abmelden(user=user)
    return geloescht
