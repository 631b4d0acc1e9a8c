"""Who needs a second factor, and what a session still owes: read on every request of a logged-in
user who has not given it, so each answer is one small query.

A confirmed TOTP device is always asked for, whoever its owner (they chose it); without one, the
roles the admin named in the Kanzleieinstellung (and, for /admin/, everyone) must set one up first.
Only `User.ohne_zweiten_faktor` (the demo users; visible in the admin) lifts that duty.
"""

from __future__ import annotations

from typing import Any, Literal

from django.db.models import Exists, OuterRef, Subquery
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from akten.accounts.users import role_of
from akten.models import Kanzleieinstellung, User
from akten.models.kanzlei import zweiter_faktor_rollen_standard

Offen = Literal["bestaetigen", "einrichten"]
BESTAETIGEN: Offen = "bestaetigen"
EINRICHTEN: Offen = "einrichten"


def rollen_mit_pflicht() -> frozenset[str]:
    """The roles the admin requires it of (the defaults while the firm's row does not exist yet)."""
    rollen = (Kanzleieinstellung.objects.order_by("pk")
              .values_list("zweiter_faktor_rollen", flat=True).first())
    return frozenset(zweiter_faktor_rollen_standard() if rollen is None else rollen)


def pflicht_fuer(user: Any, *, verwaltung: bool = False) -> bool:
    """Whether the user must have a second factor (for the Verwaltung, `verwaltung`, anyone must)."""
    if getattr(user, "ohne_zweiten_faktor", False):
        return False
    return verwaltung or role_of(user) in rollen_mit_pflicht()


def geraet(user: Any) -> TOTPDevice | None:
    """The user's confirmed authenticator (TOTP) device, if any."""
    return TOTPDevice.objects.filter(user=user, confirmed=True).order_by("pk").first()


def hat_zweiten_faktor(user: Any) -> bool:
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def codes_uebrig(*, user: Any) -> int:
    """How many of the user's recovery codes are still unused."""
    return StaticToken.objects.filter(device__user=user).count()


def stand(*, user: Any) -> dict[str, Any]:
    """What /konto/ shows: set up since when, last used, recovery codes left, whether the role needs it."""
    app = geraet(user)
    return {"geraet": app, "codes_uebrig": codes_uebrig(user=user) if app is not None else 0,
            "pflicht": pflicht_fuer(user), "ausgenommen": bool(getattr(user, "ohne_zweiten_faktor", False))}


def offen(user: Any, *, verifiziert: bool, verwaltung: bool = False) -> Offen | None:
    """What the session still owes before anything else: give the code (a device exists), set one up
    (the user must and has none), or nothing. One query: whether a device exists and the roles."""
    if not getattr(user, "is_authenticated", False) or verifiziert:
        return None
    hat, rollen = (User.objects.filter(pk=user.pk).annotate(
        hat=Exists(TOTPDevice.objects.filter(user=OuterRef("pk"), confirmed=True)),
        rollen=Subquery(Kanzleieinstellung.objects.order_by("pk").values("zweiter_faktor_rollen")[:1]),
    ).values_list("hat", "rollen").first() or (False, None))
    if hat:
        return BESTAETIGEN
    if getattr(user, "ohne_zweiten_faktor", False):
        return None
    pflicht = zweiter_faktor_rollen_standard() if rollen is None else rollen
    return EINRICHTEN if verwaltung or role_of(user) in pflicht else None


def session_verifiziert(user: Any, session: Any) -> bool:
    """Whether the session gave a second factor of this user (what django-otp's OTPMiddleware sets as
    `request.user.otp_device`; the websocket has no request to ask)."""
    device_id = session.get(DEVICE_ID_SESSION_KEY) if session is not None else None
    device = Device.from_persistent_id(device_id) if device_id else None
    return device is not None and device.user_id == getattr(user, "pk", None) and device.confirmed


def verifiziert(request: Any) -> bool:
    """The request's session gave its second factor (OTPMiddleware's answer where it ran)."""
    is_verified = getattr(request.user, "is_verified", None)
    if callable(is_verified):
        return bool(is_verified())
    return session_verifiziert(request.user, getattr(request, "session", None))


def offen_fuer(request: Any, *, verwaltung: bool = False) -> Offen | None:
    return offen(request.user, verifiziert=verifiziert(request), verwaltung=verwaltung)
