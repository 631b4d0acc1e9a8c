"""Small writes that are no record of their own: access granted by the system (seed, import), a
Hinweis given or read. The records themselves are written in akten/erfassung/ (tokens:
akten/accounts/users.py)."""

from __future__ import annotations

from django.db import transaction

from akten.models import Akte, AktenZugriff, Alert, User
from akten.selectors import get_alert


@transaction.atomic
def grant_access(*, akte: Akte, user: User, granted_by: User | None = None) -> AktenZugriff:
    """Give a user access to an Akte (idempotent)."""
    grant, _ = AktenZugriff.objects.get_or_create(
        akte=akte, user=user, defaults={"gewaehrt_von": granted_by}
    )
    return grant


def revoke_access(*, akte: Akte, user: User) -> None:
    AktenZugriff.objects.filter(akte=akte, user=user).delete()


def mark_alert_read(*, user: User, alert_id: int | str) -> Alert:
    """A Hinweis the user may see, marked read (for everyone it is addressed to)."""
    alert = get_alert(user=user, alert_id=alert_id)
    if not alert.gelesen:
        alert.gelesen = True
        alert.save(update_fields=["gelesen"])
    return alert


def hinweis_geben(*, akte: Akte | None, message: str, severity: str, empfaenger: User | None) -> Alert:
    """A Hinweis for everyone who sees the Akte, or for one person (`empfaenger`) without one."""
    return Alert.objects.create(akte=akte, message=message, severity=severity, empfaenger=empfaenger)
