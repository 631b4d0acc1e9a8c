"""A person deactivated (is_active off, in the Verwaltung or anywhere else that saves the User) loses
their calendar address for good: the key is cleared, so reactivating them does not bring an old address
back to life — it may be on a phone they no longer have. They make a new one on /konto/."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save

from akten.kalenderabo.services import abo_widerrufen
from akten.models import User


def _gesperrt(sender: type, instance: User, **kwargs: Any) -> None:
    if not instance.is_active:
        abo_widerrufen(user=instance)


def connect() -> None:
    post_save.connect(_gesperrt, sender=User, weak=False, dispatch_uid="akten.kalender_gesperrt")
