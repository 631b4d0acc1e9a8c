"""Writes to the firm's records that are not Helena drafts: access to Akten, what staff keep by
hand — a Frist erledigt or corrected, a Hinweis read (tokens: akten/users.py)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from akten.models import Akte, AktenZugriff, Alert, Frist, User
from akten.selectors import get_alert, get_frist
from akten.users import may_edit_fristen
from config.errors import DomainError, Forbidden

FRIST_FIELDS = ("bezeichnung", "typ", "datum", "uhrzeit", "vorfrist", "ist_notfrist", "verantwortlich",
                "notiz")


@transaction.atomic
def grant_access(*, akte: Akte, user: User, granted_by: User | None = None) -> AktenZugriff:
    """Give a user access to an Akte (idempotent)."""
    grant, _ = AktenZugriff.objects.get_or_create(
        akte=akte, user=user, defaults={"gewaehrt_von": granted_by}
    )
    return grant


def revoke_access(*, akte: Akte, user: User) -> None:
    AktenZugriff.objects.filter(akte=akte, user=user).delete()


def editable_frist(*, user: User, akte_id: int | str, frist_id: int | str) -> Frist:
    """The Frist if the user may change it: NotFound for a foreign Akte, Forbidden for the role."""
    frist = get_frist(user=user, akte_id=akte_id, frist_id=frist_id)  # NotFound for a foreign Akte
    if not may_edit_fristen(user):
        raise Forbidden("Fristen ändern dürfen Anwältinnen und Anwälte, die Sachbearbeitung und die "
                        "Administration.")
    return frist


@transaction.atomic
def set_frist_erledigt(*, user: User, akte_id: int | str, frist_id: int | str, erledigt: bool) -> Frist:
    """Mark a Frist erledigt (or open again); the time is recorded by the model."""
    frist = editable_frist(user=user, akte_id=akte_id, frist_id=frist_id)
    frist.erledigt = erledigt
    frist.save(update_fields=["erledigt", "erledigt_am"])
    if erledigt:  # its Hinweise are answered: the scan gives no more, the open ones count as read
        Alert.objects.filter(frist=frist, gelesen=False).update(gelesen=True)
    return frist


@transaction.atomic
def update_frist(*, user: User, akte_id: int | str, frist_id: int | str, changes: dict[str, Any]) -> Frist:
    """Correct a Frist's fields; a change the record refuses (Vorfrist after the end …) changes nothing."""
    frist = editable_frist(user=user, akte_id=akte_id, frist_id=frist_id)
    for name in FRIST_FIELDS:
        if name in changes:
            setattr(frist, name, changes[name])
    try:
        frist.full_clean()
    except ValidationError as exc:
        raise DomainError(" ".join(exc.messages)) from None
    frist.save()
    return frist


def mark_alert_read(*, user: User, alert_id: int | str) -> Alert:
    """A Hinweis the user may see, marked read (for everyone it is addressed to)."""
    alert = get_alert(user=user, alert_id=alert_id)
    if not alert.gelesen:
        alert.gelesen = True
        alert.save(update_fields=["gelesen"])
    return alert
