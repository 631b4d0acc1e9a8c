"""Saving a record the one way: validated with German messages, its history told who and why."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

from akten.models import User
from config.errors import DomainError


class EingabeFehler(DomainError):
    """The record refuses the input; `fields` maps each field to its German problem (HTTP 422)."""

    status, code = 422, "invalid_input"

    def __init__(self, message: str, felder: dict[str, str] | None = None) -> None:
        super().__init__(message, fields=felder or {})
        self.felder = felder or {}


def eingabe_fehler(exc: ValidationError, modell: type[models.Model]) -> EingabeFehler:
    """A Django ValidationError as one German message naming the fields, and per field."""
    felder: dict[str, str] = {}
    saetze: list[str] = []
    for name, meldungen in getattr(exc, "message_dict", {"__all__": exc.messages}).items():
        text = " ".join(meldungen)
        if name == "__all__":
            saetze.append(text)
            continue
        try:
            label = str(modell._meta.get_field(name).verbose_name)
        except Exception:
            label = name
        felder[name] = text
        saetze.append(f"{label}: {text}")
    return EingabeFehler(" ".join(saetze) or "Ungültige Eingabe.", felder)


def nur_bekannte(daten: dict[str, Any], felder: Iterable[str], *, was: str) -> None:
    """EingabeFehler naming the fields a record of this kind does not have (`was`: „bei Fristen“)."""
    unbekannt = set(daten) - set(felder)
    if unbekannt:
        raise EingabeFehler(f"Diese Angaben gibt es {was} nicht: " + ", ".join(sorted(unbekannt)) + ".")


def pruefe_eingabe(record: models.Model, *, exclude: list[str] | None = None) -> None:
    """EingabeFehler with the record's German messages unless full_clean accepts it."""
    try:
        record.full_clean(exclude=exclude)
    except ValidationError as exc:
        raise eingabe_fehler(exc, type(record)) from None


def speichere(record: models.Model, *, user: User | None, grund: str = "",
              exclude: list[str] | None = None, **save: Any) -> models.Model:
    """full_clean, then save with the history's user and reason (simple_history reads both)."""
    pruefe_eingabe(record, exclude=exclude)
    record._history_user = user  # type: ignore[attr-defined]
    if grund:
        record._change_reason = grund[:2000]  # type: ignore[attr-defined]
    record.save(**save)
    return record
