"""Data protection requests (akten/datenschutz/): a Beteiligter marked for deletion (Art. 17 DSGVO)
until the Handakten's retention under § 50 Abs. 1 Satz 2, 3 BRAO has ended, and the record of each
deletion done.

The Löschprotokoll must prove that and when the firm deleted, without keeping what it deleted: it
names record types, ids, the Aktenzeichen, the date of the request and who entered it, never a name,
an address or a text. The Vormerkung's history (marked, withdrawn: when, by whom, on this row or ticked
from another, why withdrawn) leaves its Begründung out — it may say who wrote what — so that it may
outlive the deletion without personal data; the page of the Beteiligter shows it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from akten.models.akte import Beteiligter
from akten.models.verlauf import verlauf


class Loeschvormerkung(models.Model):
    """A Beteiligter to be deleted as soon as the Handakten may go (akten/datenschutz/loeschung.py)."""

    beteiligter = models.OneToOneField(Beteiligter, on_delete=models.CASCADE, related_name="loeschvormerkung",
                                       verbose_name="Beteiligte/r")
    antrag_am = models.DateField("Antrag vom", help_text="Tag, an dem die Person die Löschung verlangt hat.")
    begruendung = models.TextField("Begründung", blank=True,
                                   help_text="Wie der Antrag kam und was die Kanzlei entschieden hat.")
    vorgemerkt_von = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                       blank=True, related_name="+", verbose_name="vorgemerkt von")
    vorgemerkt_am = models.DateTimeField("vorgemerkt am", auto_now_add=True)
    direkt = models.BooleanField(
        "auf diesem Eintrag beantragt", default=True,
        help_text="Nein: mit dem Antrag zu einem anderen Eintrag derselben Person angekreuzt. Dann wird nur "
                  "dieser Eintrag gelöscht, nie die ganze Akte.")
    history = verlauf("Verlauf der Löschvormerkungen", excluded_fields=["begruendung"])

    class Meta:
        verbose_name = "Löschvormerkung"
        verbose_name_plural = "Löschvormerkungen"
        ordering = ["-vorgemerkt_am"]

    def __str__(self) -> str:
        return f"Löschvormerkung vom {self.antrag_am:%d.%m.%Y} (Beteiligte/r {self.beteiligter_id})"


class Loeschprotokoll(models.Model):
    """One deletion done: what by type and id, when, on whose request, on which legal basis."""

    class Art(models.TextChoices):
        AKTE = "akte", "Akte mit allen Einträgen (Mandant/in)"
        BETEILIGTER = "beteiligter", "Beteiligte/r"

    art = models.CharField("Art der Löschung", max_length=12, choices=Art.choices)
    akte_id = models.BigIntegerField("Akte (Nummer)")
    aktenzeichen = models.CharField("Aktenzeichen", max_length=31)
    beteiligter_id = models.BigIntegerField("Beteiligte/r (Nummer)")
    rolle = models.CharField("Rolle", max_length=20, choices=Beteiligter.Rolle.choices)
    # {"Beteiligte": [ids], "Dokumente": [ids], "Dateien": n, "Verlaufseinträge": n, …}: no contents
    geloescht = models.JSONField("gelöscht (Art und Nummern)", default=dict)
    antrag_am = models.DateField("Antrag vom")
    vorgemerkt_von = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                       blank=True, related_name="+", verbose_name="Antrag erfasst von")
    vorgemerkt_am = models.DateTimeField("vorgemerkt am")
    mandat_beendet_am = models.DateField("Mandat beendet am")
    aufbewahrung_bis = models.DateField("Aufbewahrung bis")
    rechtsgrundlage = models.TextField("Rechtsgrundlage")
    geloescht_am = models.DateTimeField("gelöscht am", auto_now_add=True)

    class Meta:
        verbose_name = "Löschprotokoll"
        verbose_name_plural = "Löschprotokoll"
        ordering = ["-geloescht_am"]

    def __str__(self) -> str:
        return f"{self.get_art_display()}: {self.aktenzeichen} ({self.geloescht_am:%d.%m.%Y})"
