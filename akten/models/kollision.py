"""Each Kollisionsprüfung and what the person decided (§ 43a Abs. 4 BRAO, § 3 BORA): the firm must
be able to show that it checked, what it found and who went on anyway."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.db import models

from akten.models.akte import Akte, Beteiligter


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


class FruehererBeteiligter(models.Model):
    """A party deleted after § 50 Abs. 1 BRAO's retention, kept for the Kollisionsprüfung only.

    § 43a Abs. 4 BRAO and § 3 BORA forbid representing the other side in the same matter without any
    time limit, so the beat's deletion (akten/datenschutz/loeschung.py) keeps this much of each party
    it deletes, and nothing more (no address, e-mail, notes): Art. 17 Abs. 3 lit. b DSGVO (a legal
    duty of the firm) and lit. e (defence against claims of a breach of it). No link to the Akte: it
    is gone, or this row of it is."""

    class Umfang(models.TextChoices):
        AKTE = "akte", "ganze Akte gelöscht"
        BETEILIGTER = "beteiligter", "nur diese/r Beteiligte gelöscht"

    name = models.CharField("Name (wie erfasst)", max_length=200)
    name_schluessel = models.CharField("Suchschlüssel", max_length=200)
    rolle = models.CharField("Rolle", max_length=20, choices=Beteiligter.Rolle.choices)
    aktenzeichen = models.CharField("Aktenzeichen", max_length=31)
    mandat_von = models.PositiveSmallIntegerField("Mandat von (Jahr)")
    mandat_bis = models.PositiveSmallIntegerField("Mandat bis (Jahr)")
    umfang = models.CharField("gelöscht wurde", max_length=12, choices=Umfang.choices)
    geloescht_am = models.DateField("gelöscht am")

    class Meta:
        verbose_name = "Kollisionsvermerk (gelöschte Akte)"
        verbose_name_plural = "Kollisionsvermerke (gelöschte Akten)"
        ordering = ["-geloescht_am", "aktenzeichen"]
        indexes = [GinIndex(fields=["name_schluessel"], opclasses=["gin_trgm_ops"],
                            name="frueherer_schluessel_trgm")]

    def __str__(self) -> str:
        return f"{self.aktenzeichen}: {self.get_rolle_display()} (Mandat {self.mandat_von}–{self.mandat_bis})"
