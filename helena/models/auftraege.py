"""A task given to Helena from anywhere (@Helena): the API, a form on the Akte page, or a Notiz
that begins with „@Helena“. It runs as a normal background run in the requester's name."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from helena.models.conversations import AgentRun


class HelenaTask(models.Model):
    class Status(models.TextChoices):
        LAEUFT = "running", "läuft"
        ERLEDIGT = "finished", "erledigt"
        FEHLGESCHLAGEN = "failed", "fehlgeschlagen"
        ABGEBROCHEN = "cancelled", "abgebrochen"

    class Quelle(models.TextChoices):
        API = "api", "Schnittstelle"
        AKTE = "akte", "Formular in der Akte"
        NOTIZ = "notiz", "Notiz mit @Helena"

    auftrag = models.TextField("Auftrag")
    akte = models.ForeignKey("akten.Akte", on_delete=models.CASCADE, null=True, blank=True,
                             related_name="helena_auftraege", verbose_name="Akte")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                     related_name="helena_auftraege", verbose_name="Auftraggeber/in")
    quelle = models.CharField("Quelle", max_length=10, choices=Quelle.choices, default=Quelle.API)
    status = models.CharField("Status", max_length=10, choices=Status.choices, default=Status.LAEUFT)
    run = models.OneToOneField(AgentRun, on_delete=models.SET_NULL, null=True, blank=True,
                               related_name="auftrag", verbose_name="Lauf")
    result = models.TextField("Ergebnis", blank=True)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    beendet_am = models.DateTimeField("beendet am", null=True, blank=True)

    class Meta:
        verbose_name = "Auftrag an Helena"
        verbose_name_plural = "Aufträge an Helena"
        ordering = ["-angelegt_am"]

    def __str__(self) -> str:
        return self.auftrag[:60]
