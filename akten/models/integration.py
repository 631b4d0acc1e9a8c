"""What the firm's other systems need of our records (the write API, akten/integration/).

They name our records by their own ids (`extern_id`). One field and one rule for every record type
the API writes: empty means none, and a non-empty id is unique per record type (a second Akte with
the accounting's "K-4711" is refused), so an import that is run again or a retried call finds the
record it made instead of making a second one.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

EXTERN_ID_MAX = 100


def extern_id_feld() -> models.CharField:
    return models.CharField(
        "externe ID", max_length=EXTERN_ID_MAX, blank=True, default="",
        help_text="Die ID dieses Eintrags im anderen System der Kanzlei (Buchhaltung, beA-Software, "
                  "alte Kanzleisoftware); je Eintragsart eindeutig.")


def extern_id_eindeutig(modell: str) -> models.UniqueConstraint:
    """Unique among the records of one type that have one (empty is no id)."""
    return models.UniqueConstraint(
        fields=["extern_id"], condition=~models.Q(extern_id=""), name=f"{modell}_extern_id_eindeutig",
        violation_error_message="Diese externe ID ist schon vergeben.")


class IdempotenzAntwort(models.Model):
    """The first answer to a POST sent with an `Idempotency-Key`: a retried call (a timeout, a lost
    answer) gets it again instead of creating the record twice. Kept per user and key; the request's
    method, path and body hash must match, else the key was reused for something else."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                             verbose_name="Benutzer")
    schluessel = models.CharField("Schlüssel", max_length=255)
    anfrage = models.CharField("Anfrage (Methode, Pfad, Prüfsumme)", max_length=600)
    status = models.PositiveSmallIntegerField("HTTP-Status")
    antwort = models.JSONField("Antwort")
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = "Antwort zu einem Idempotency-Key"
        verbose_name_plural = "Antworten zu Idempotency-Keys"
        constraints = [models.UniqueConstraint(fields=["user", "schluessel"], name="idempotenz_je_user")]

    def __str__(self) -> str:
        return f"{self.schluessel} ({self.anfrage.split(' ', 2)[1] if ' ' in self.anfrage else ''})"
