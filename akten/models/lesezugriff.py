"""The read log: who read which Akte (and which of its Dokumente or records), when, and by which way —
the page, the API, Helena on the user's behalf, a file taken out (services: akten/lesezugriffe/).

Not `AktenZugriff` (akte.py): that is who MAY see an Akte; this is who DID read it. A row outlives
the person and the Akte it names (SET_NULL, the name and the Aktenzeichen kept), so the firm can still
answer who read what after someone left or a file was deleted, until the retention period ends
(Kanzleieinstellung.zugriffe_aufbewahren_monate).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.utils import timezone


class Lesezugriff(models.Model):
    class Weg(models.TextChoices):
        SEITE = "seite", "Seite (Browser)"
        API = "api", "API (anderes System)"
        HELENA = "helena", "Helena (im Auftrag)"
        EXPORT = "export", "Datei heruntergeladen"

    class Bereich(models.TextChoices):
        AKTE = "akte", "die Akte"
        BETEILIGTE = "beteiligte", "Beteiligte der Akte"
        BETEILIGTER = "beteiligter", "ein Beteiligter"
        FRISTEN = "fristen", "Fristen der Akte"
        FRIST = "frist", "eine Frist"
        DOKUMENTE = "dokumente", "Dokumentliste"
        DOKUMENT = "dokument", "ein Dokument"
        NOTIZEN = "notizen", "Notizen der Akte"
        NOTIZ = "notiz", "eine Notiz"
        ZEITEN = "zeiten", "Zeiten der Akte"
        AKTIVITAET = "aktivitaet", "Aktivität der Akte"
        GEDAECHTNIS = "gedaechtnis", "Helenas Wissen über die Akte"
        HELENA = "helena", "Reiter „Helena“"
        GESPRAECH = "gespraech", "Gespräch mit Helena über die Akte"
        ENTWURF = "entwurf", "Entwurf Helenas zur Akte"
        # a search's hit quoting a few words of the text (the search box, Helena's search_alle_akten)
        AKTE_AUSZUG = "akte_auszug", "Auszug der Akte (Suchtreffer)"
        DOKUMENT_AUSZUG = "dokument_auszug", "Auszug eines Dokuments (Suchtreffer)"
        NOTIZ_AUSZUG = "notiz_auszug", "Auszug einer Notiz (Suchtreffer)"

    zeitpunkt = models.DateTimeField("Zeitpunkt", default=timezone.now)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+", verbose_name="Benutzer")
    person = models.CharField("Person", max_length=200, help_text="Name beim Lesen (bleibt, wenn der "
                                                                  "Benutzer gelöscht wird)")
    akte = models.ForeignKey("akten.Akte", on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="lesezugriffe", verbose_name="Akte")
    aktenzeichen = models.CharField("Aktenzeichen", max_length=31)
    weg = models.CharField("Weg", max_length=10, choices=Weg.choices)
    bereich = models.CharField("Was", max_length=20, choices=Bereich.choices, default=Bereich.AKTE)
    objekt_id = models.PositiveBigIntegerField("ID des Eintrags", null=True, blank=True)
    dokument = models.ForeignKey("akten.Dokument", on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="+", verbose_name="Dokument")
    dokument_titel = models.CharField("Dokument (Titel)", max_length=300, blank=True)
    format = models.CharField("Format", max_length=10, blank=True,
                              help_text="bei einer heruntergeladenen Datei: original, docx oder pdf")
    run_id = models.UUIDField("Helena-Lauf", null=True, blank=True)

    class Meta:
        verbose_name = "Lesezugriff"
        verbose_name_plural = "Zugriffsprotokoll (wer hat gelesen)"
        ordering = ("-zeitpunkt", "-pk")
        indexes = [
            # the Akte's log, newest first: GET /akten/{id}/zugriffe and the page
            models.Index(fields=["akte", "-zeitpunkt"], name="lesezugriff_akte_zeit"),
            # the retention sweep by time: rows are written in time order, a BRIN index is tiny and
            # costs the INSERT on the page's path next to nothing
            BrinIndex(fields=["zeitpunkt"], name="lesezugriff_zeit_brin"),
        ]

    def __str__(self) -> str:
        return f"{self.person} · {self.aktenzeichen} · {self.get_weg_display()}"
