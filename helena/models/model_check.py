"""The model check's result, kept beside its tier (helena/model_check/): whether the model serving a
tier is suitable, when that was found, and the report's lines the admin reads on the tier's page.

Keyed by the tier's number, not by a ModelTier row: a tier served from the environment has no row,
and its check belongs beside it just the same. `model_name` says which model was checked, so a later
change of the tier's model shows as such.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from helena.models.admin_settings import TIER_CHOICES


class ModelCheck(models.Model):
    class Status(models.TextChoices):
        WARTET = "wartet", "wartet auf den Worker"
        LAEUFT = "laeuft", "läuft"
        FERTIG = "fertig", "fertig"
        FEHLER = "fehler", "abgebrochen"

    tier = models.PositiveSmallIntegerField("Stufe", choices=TIER_CHOICES, db_index=True)
    model_name = models.CharField("Modell", max_length=200, blank=True)
    provider = models.CharField("Schnittstelle", max_length=20, blank=True)
    host = models.CharField("Adresse", max_length=300, blank=True)
    status = models.CharField("Status", max_length=10, choices=Status.choices, default=Status.WARTET)
    suitable = models.BooleanField("geeignet", null=True, blank=True,
                                   help_text="Leer, solange die Prüfung läuft oder wenn sie nicht lief.")
    verdict = models.CharField("Ergebnis", max_length=500, blank=True)
    exit_code = models.PositiveSmallIntegerField(
        "Exit-Code", null=True, blank=True,
        help_text="Wie beim Befehl modellpruefung: 0 geeignet, 1 nicht geeignet, 2 Server nicht erreichbar.")
    lines = models.JSONField("Bericht", default=list, blank=True)
    details = models.JSONField("Messwerte", default=dict, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                     blank=True, related_name="+", verbose_name="gestartet von")
    created_at = models.DateTimeField("gestartet am", auto_now_add=True)
    finished_at = models.DateTimeField("fertig am", null=True, blank=True)

    class Meta:
        verbose_name = "Modellprüfung"
        verbose_name_plural = "Modellprüfungen"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Modellprüfung Stufe {self.tier} ({self.model_name or 'ohne Modell'})"
