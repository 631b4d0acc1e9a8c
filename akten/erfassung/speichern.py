"""Saving a record the one way: validated with German messages, its history told who and why."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models

from akten.models import Akte, User
from akten.selectors import akten_for
from config.errors import DomainError


class EingabeFehler(DomainError):
    """The record refuses the input; `fields` maps each field to its German problem (HTTP 422)."""

    status, code = 422, "invalid_input"

    def __init__(self, message: str, felder: dict[str, str] | None = None) -> None:
        super().__init__(message, fields=felder or {})
        self.felder = felder or {}


class ExternIdVergeben(DomainError):
    """Another record of this type already carries the other system's id (HTTP 409). Its `id` is
    named only where the caller may see it."""

    status, code = 409, "extern_id_vergeben"


def _sichtbar(record: models.Model, user: User | None) -> bool:
    if user is None:
        return False
    if isinstance(record, Akte):
        return akten_for(user=user).filter(pk=record.pk).exists()
    akte_id = getattr(record, "akte_id", None)
    if akte_id is None:  # a Notiz without an Akte is its author's alone
        return getattr(record, "verfasst_von_id", None) == user.pk
    return akten_for(user=user).filter(pk=akte_id).exists()


def pruefe_extern_id(record: models.Model, *, user: User | None) -> None:
    """ExternIdVergeben unless the record's `extern_id` is empty or its own (one per record type)."""
    extern = (getattr(record, "extern_id", "") or "").strip()
    if not extern:
        return
    andere = type(record)._default_manager.filter(extern_id=extern).exclude(pk=record.pk).first()
    if andere is not None:
        raise _vergeben(type(record), extern, andere if _sichtbar(andere, user) else None)


def _vergeben(modell: type[models.Model], extern: str, andere: models.Model | None) -> ExternIdVergeben:
    was = modell._meta.verbose_name
    return ExternIdVergeben(f"Die externe ID „{extern[:100]}“ hat schon ein anderer Eintrag der Art "
                            f"„{was}“. Je Art gibt es sie nur einmal.", extern_id=extern,
                            id=None if andere is None else str(andere.pk))


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


def pruefe_eingabe(record: models.Model, *, exclude: list[str] | None = None,
                   user: User | None = None) -> None:
    """EingabeFehler with the record's German messages unless full_clean accepts it; an `extern_id`
    another record of the type has is ExternIdVergeben (409) first, naming it only to who may see it."""
    if hasattr(record, "extern_id"):
        record.extern_id = (record.extern_id or "").strip()
        pruefe_extern_id(record, user=user)
    try:
        record.full_clean(exclude=exclude)
    except ValidationError as exc:
        raise eingabe_fehler(exc, type(record)) from None


def speichere(record: models.Model, *, user: User | None, grund: str = "",
              exclude: list[str] | None = None, **save: Any) -> models.Model:
    """full_clean, then save with the history's user and reason (simple_history reads both). An
    `extern_id` another record of the type has is a 409 (ExternIdVergeben), also when two saves race
    (the database's unique constraint decides then)."""
    pruefe_eingabe(record, exclude=exclude, user=user)
    record._history_user = user  # type: ignore[attr-defined]
    if grund:
        record._change_reason = grund[:2000]  # type: ignore[attr-defined]
    try:
        record.save(**save)
    except IntegrityError as exc:
        if "extern_id_eindeutig" not in str(exc):
            raise
        raise _vergeben(type(record), record.extern_id, None) from None  # the caller's transaction ends
    return record
