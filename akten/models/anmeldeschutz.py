"""django-axes' records under German names for the Verwaltung (proxy models: axes keeps its tables).

Zugriffsversuch: failed logins per username and address (AccessAttempt), Anmeldung: successful ones
(AccessLog); the admin is akten/accounts/anmeldeschutz_admin.py."""

from __future__ import annotations

from axes.models import AccessAttempt, AccessLog


class Zugriffsversuch(AccessAttempt):
    class Meta:
        proxy = True
        verbose_name = "Fehlgeschlagene Anmeldung"
        verbose_name_plural = "Fehlgeschlagene Anmeldungen (Anmeldeschutz)"

    def __str__(self) -> str:
        return f"{self.username or '—'} von {self.ip_address or '—'}"


class Anmeldung(AccessLog):
    class Meta:
        proxy = True
        verbose_name = "Anmeldung"
        verbose_name_plural = "Anmeldungen"

    def __str__(self) -> str:
        return f"{self.username or '—'} von {self.ip_address or '—'}"
