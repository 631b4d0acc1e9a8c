"""One import of the old Kanzlei software's export (akten/importe): the file, the dry run's report
per line, then the real run's progress and result, kept for whoever has to answer for it later."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ImportLauf(models.Model):
    class Status(models.TextChoices):
        WARTET = "wartet", "wartet"
        LAEUFT = "laeuft", "läuft"
        FERTIG = "fertig", "fertig"
        FEHLER = "fehler", "fehlgeschlagen"

    datei = models.FileField("Datei", upload_to="importe/%Y/%m/")
    dateiname = models.CharField("Dateiname", max_length=255)
    probelauf = models.BooleanField("Probelauf", default=True,
                                    help_text="Ein Probelauf prüft jede Zeile und schreibt nichts.")
    status = models.CharField("Status", max_length=10, choices=Status.choices, default=Status.WARTET)
    zeilen_gesamt = models.PositiveIntegerField("Zeilen", default=0)
    zeilen_fertig = models.PositiveIntegerField("Zeilen bearbeitet", default=0)
    # {"zeilen": [{"zeile": n, "status": "neu|vorhanden|fehler", "meldung": str, "aktenzeichen": str,
    #   "kollisionen": [...]}], "unbekannte_spalten": [...], "zusammenfassung": {...}}
    bericht = models.JSONField("Bericht", default=dict, blank=True)
    meldung = models.TextField("Meldung", blank=True)
    angelegt_von = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                     blank=True, related_name="+", verbose_name="angelegt von")
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    fertig_am = models.DateTimeField("fertig am", null=True, blank=True)

    class Meta:
        verbose_name = "Import"
        verbose_name_plural = "Importe"
        ordering = ["-angelegt_am"]

    def __str__(self) -> str:
        art = "Probelauf" if self.probelauf else "Import"
        return f"{art} {self.dateiname} ({self.get_status_display()})"
