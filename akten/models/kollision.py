"""Each Kollisionsprüfung and what the person decided (§ 43a Abs. 4 BRAO, § 3 BORA): the firm must
be able to show that it checked, what it found and who went on anyway."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from akten.models.akte import Akte


class Kollisionspruefung(models.Model):
    class Anlass(models.TextChoices):
        HAND = "hand", "Eingabe von Hand"
        IMPORT = "import", "Import"
        API = "api", "API"
        ENTWURF = "entwurf", "Entwurf von Helena"
        ABFRAGE = "abfrage", "Abfrage"

    class Entscheidung(models.TextChoices):
        KEINE_TREFFER = "keine_treffer", "keine Treffer"
        FORTGESETZT = "fortgesetzt", "trotz Treffer fortgesetzt"
        ABGEBROCHEN = "abgebrochen", "abgebrochen"
        OFFEN = "offen", "noch nicht entschieden"

    akte = models.ForeignKey(Akte, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="kollisionspruefungen", verbose_name="Akte")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+", verbose_name="geprüft von")
    anlass = models.CharField("Anlass", max_length=10, choices=Anlass.choices)
    namen = models.JSONField("geprüfte Namen", default=list)
    # Every hit in full (also those in Akten the person may not see): the record is for the firm.
    treffer = models.JSONField("Treffer", default=list)
    entscheidung = models.CharField("Entscheidung", max_length=15, choices=Entscheidung.choices,
                                    default=Entscheidung.OFFEN)
    begruendung = models.TextField("Begründung", blank=True)
    angelegt_am = models.DateTimeField("geprüft am", auto_now_add=True)

    class Meta:
        verbose_name = "Kollisionsprüfung"
        verbose_name_plural = "Kollisionsprüfungen"
        ordering = ["-angelegt_am"]

    def __str__(self) -> str:
        return f"{', '.join(self.namen)[:80]} ({self.get_entscheidung_display()})"
