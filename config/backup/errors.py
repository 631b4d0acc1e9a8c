"""The one error of backup and restore: a German message for the operator, nothing changed."""

from __future__ import annotations

from config.errors import DomainError


class SicherungFehler(DomainError):
    """A backup or a restore refused or failed; the message says why and what to do."""

    status, code, default_message = 409, "sicherung", "Die Sicherung ist fehlgeschlagen."
