"""The errors of backup and restore: a German message for the operator; nothing changed, or (the
second) exactly what is missing after the database was restored."""

from __future__ import annotations

from config.errors import DomainError


class SicherungFehler(DomainError):
    """A backup or a restore refused or failed; the message says why and what to do."""

    status, code, default_message = 409, "sicherung", "Die Sicherung ist fehlgeschlagen."


class HalbWiederhergestellt(SicherungFehler):
    """The database is restored, but something after it failed (files, key, migrations): the message
    says what is missing and where the unpacked files were kept."""

    status, code, default_message = 500, "halb_wiederhergestellt", "Die Wiederherstellung ist unvollständig."
