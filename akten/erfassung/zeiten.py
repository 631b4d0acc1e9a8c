"""Zeiterfassung entered by hand: the time someone spent on an Akte."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import nur_bekannte, speichere
from akten.models import User, Zeiterfassung
from akten.selectors import get_akte

FELDER = ("datum", "dauer_minuten", "taetigkeit", "abrechenbar", "extern_id")


@transaction.atomic
def zeit_erfassen(*, user: User, akte_id: int | str, daten: dict[str, Any],
                  fuer: User | None = None, grund: str = "") -> Zeiterfassung:
    """Time on a visible Akte, for the user (or `fuer`: who asked Helena, for an approved draft)."""
    akte = get_akte(user=user, akte_id=akte_id)
    pruefe(user, "zeiterfassung")
    nur_bekannte(daten, FELDER, was="bei Zeiten")
    daten = {k: v for k, v in daten.items() if v is not None}
    return speichere(Zeiterfassung(akte=akte, user=fuer or user, **daten), user=user, grund=grund)
