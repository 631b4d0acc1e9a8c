"""The Dokument of an Akte: written here (Markdown, a Helena draft approved) or uploaded (PDF, DOCX,
e-mail, text, a scan), with the text read from it; and the Kanzlei's letterhead for what goes out.

`inhalt` is the document's text for everyone who reads it (search, Helena, memory): Markdown for a
written Dokument, the extracted text of an upload with its pages separated by a form feed
(akten/dokumente/seiten.py), so a citation can name "S. 3".
"""

from __future__ import annotations

import re

from django.conf import settings
from django.db import models

from akten.dokumente.seiten import Seite, seiten_von
from akten.models.akte import Akte, Beteiligter

# „Aktenvermerk: …“, „Vermerk zur Fristberechnung“, „Telefonnotiz“, „Interner Vermerk“ …
_VERMERK = re.compile(r"^\W*(?:interner\s+)?(?:akten|telefon|gesprächs|besprechungs)?(?:vermerk|notiz)\b",
                      re.IGNORECASE)

# Whom a Dokument is addressed to: a role of the Akte's Beteiligte, whose name and address the
# DOCX/PDF print in the address field (akten/dokumente/ausgabe/kontext.py). Empty: not stated – the
# court, an Aktenvermerk nobody (what every Dokument got before it was stated); „niemand“: a form or
# note without an addressee. The same choices name a Muster's addressee (helena.knowledge.models.Muster).
NIEMAND = "niemand"
EMPFAENGER_CHOICES: list[tuple[str, str]] = [
    ("", "nicht angegeben (Gericht; Aktenvermerk: niemand)"),
    *Beteiligter.Rolle.choices,
    (NIEMAND, "niemand (Vermerk, Formular)"),
]


class Dokument(models.Model):
    class Status(models.TextChoices):
        ENTWURF = "entwurf", "in Bearbeitung"  # not „Entwurf“: that is a proposal of Helena (/entwuerfe/)
        FREIGEGEBEN = "freigegeben", "freigegeben"

    class ErstelltDurch(models.TextChoices):
        MENSCH = "mensch", "Mensch"
        HELENA = "helena", "Helena"

    class Dateityp(models.TextChoices):
        PDF = "pdf", "PDF"
        DOCX = "docx", "Word (DOCX)"
        EMAIL = "eml", "E-Mail"
        TEXT = "txt", "Text"
        BILD = "bild", "Bild"

    class Extraktion(models.TextChoices):
        KEINE = "", "—"  # a written Dokument: its text is `inhalt`
        AUSSTEHEND = "ausstehend", "wartet auf Texterkennung"
        LAEUFT = "laeuft", "Text wird gelesen"
        FERTIG = "fertig", "Text gelesen"
        TEILWEISE = "teilweise", "Text teilweise gelesen"
        OCR_FEHLT = "ocr_fehlt", "Text nicht lesbar – OCR nicht verfügbar"
        LEER = "leer", "kein Text gefunden"
        FEHLER = "fehler", "Datei nicht lesbar"

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="dokumente", verbose_name="Akte")
    titel = models.CharField("Titel", max_length=300)
    inhalt = models.TextField("Inhalt (Markdown/Text)", blank=True)
    empfaenger = models.CharField(
        "Empfänger", max_length=20, choices=EMPFAENGER_CHOICES, blank=True,
        help_text="An wen das Dokument geht: Name und Anschrift der Beteiligten dieser Rolle stehen im "
                  "Anschriftfeld der DOCX/PDF-Fassung.")
    datei = models.FileField("Datei", upload_to="dokumente/%Y/%m/", blank=True, max_length=300)
    dateiname = models.CharField("ursprünglicher Dateiname", max_length=255, blank=True)
    dateityp = models.CharField("Dateityp", max_length=10, choices=Dateityp.choices, blank=True)
    mime = models.CharField("Inhaltstyp", max_length=100, blank=True)
    groesse = models.PositiveBigIntegerField("Größe (Bytes)", null=True, blank=True)
    seiten = models.PositiveIntegerField("Seiten", null=True, blank=True)
    extraktion = models.CharField("Texterkennung", max_length=12, choices=Extraktion.choices, blank=True,
                                  default=Extraktion.KEINE)
    extraktion_fortschritt = models.PositiveSmallIntegerField("Fortschritt (%)", default=0)
    extraktion_hinweis = models.CharField("Hinweis zur Texterkennung", max_length=500, blank=True)
    ocr_seiten = models.PositiveIntegerField("Seiten per OCR gelesen", default=0)
    extraktion_versuche = models.PositiveSmallIntegerField("Leseversuche", default=0)
    quelle = models.ForeignKey(
        "self", verbose_name="Anhang von", on_delete=models.CASCADE, null=True, blank=True,
        related_name="anhaenge",
    )
    status = models.CharField("Status", max_length=20, choices=Status.choices, default=Status.ENTWURF)
    erstellt_durch = models.CharField(
        "erstellt durch", max_length=10, choices=ErstelltDurch.choices, default=ErstelltDurch.MENSCH
    )
    erstellt_von = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="angelegt von",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    freigegeben_von = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="freigegeben von",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    freigegeben_am = models.DateTimeField("freigegeben am", null=True, blank=True)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    aktualisiert_am = models.DateTimeField("aktualisiert am", auto_now=True)

    class Meta:
        verbose_name = "Dokument"
        verbose_name_plural = "Dokumente"
        ordering = ["-angelegt_am"]

    def __str__(self) -> str:
        return self.titel

    @property
    def hochgeladen(self) -> bool:
        return bool(self.dateityp)

    @property
    def ist_vermerk(self) -> bool:
        """An internal note for the file (by its title: „Aktenvermerk: …“, „Telefonnotiz …“, also what
        „Als Aktenvermerk speichern“ makes): addressed to nobody, so its DOCX/PDF has no court block."""
        return bool(_VERMERK.match(self.titel))

    @property
    def text_wird_gelesen(self) -> bool:
        return self.extraktion in (self.Extraktion.AUSSTEHEND, self.Extraktion.LAEUFT)

    def seiten_text(self) -> list[Seite]:
        """The text page by page (one unnumbered page for a written Dokument)."""
        return seiten_von(inhalt=self.inhalt, dateityp=self.dateityp)

    def vorschau(self, zeichen: int = 20_000) -> tuple[list[Seite], bool]:
        """The first pages up to `zeichen` characters for the Akte page, and whether more follow."""
        out: list[Seite] = []
        used = 0
        for seite in self.seiten_text():
            if used + len(seite.text) > zeichen:
                if not out:
                    out.append(Seite(seite.nummer, seite.text[:zeichen]))
                return out, True
            out.append(seite)
            used += len(seite.text)
        return out, False


class Briefkopf(models.Model):
    """The Kanzlei's letterhead (one row): the fields every Schriftsatz carries, and optionally a
    Word template of its own (docxtpl tags, see akten/dokumente/ausgabe/vorlage.py)."""

    kanzlei = models.CharField("Kanzlei", max_length=200, default="Kanzlei")
    anschrift = models.TextField("Anschrift", blank=True,
                                 help_text="Straße und PLZ Ort, je auf einer Zeile")
    ort = models.CharField("Ort (für „Ort, Datum“)", max_length=100, blank=True)
    telefon = models.CharField("Telefon", max_length=50, blank=True)
    email = models.EmailField("E-Mail", blank=True)
    kontakt = models.TextField("weitere Kontaktangaben", blank=True,
                               help_text="Fax, Web … – eine Angabe je Zeile (unter Telefon und E-Mail)")
    unterschrift = models.CharField("Zeile unter der Unterschrift", max_length=100,
                                    default="Rechtsanwältin / Rechtsanwalt")
    fusszeile = models.TextField("Fußzeile", blank=True, help_text="Bankverbindung, Steuernummer …")
    vorlage = models.FileField(
        "Word-Vorlage (DOCX)", upload_to="briefkopf/", blank=True, max_length=300,
        help_text="Leer lassen für die eingebaute Vorlage. Eine eigene Vorlage nutzt Platzhalter wie "
                  "{{ kanzlei }}, {{ aktenzeichen }}, {{ datum }} und {{p inhalt }} für den Text.",
    )
    aktualisiert_am = models.DateTimeField("aktualisiert am", auto_now=True)

    class Meta:
        verbose_name = "Briefkopf"
        verbose_name_plural = "Briefkopf"

    def __str__(self) -> str:
        return self.kanzlei

    def kontaktzeilen(self) -> list[str]:
        """Telefon, E-Mail and the further lines, as the letterhead prints them."""
        zeilen = [f"Tel. {self.telefon.strip()}" if self.telefon.strip() else "", self.email,
                  *self.kontakt.splitlines()]
        return [zeile.strip() for zeile in zeilen if zeile.strip()]

    @classmethod
    def current(cls) -> Briefkopf:
        """The letterhead in force (an unsaved default until the admin fills one in)."""
        return cls.objects.order_by("pk").first() or cls()
