"""What Helena can look up: statutes (Gesetz, Norm), court decisions (Urteil), templates (Muster).

Search vectors are generated columns (config 'german', title weighted above text), so every
write path – importer, admin, seed – keeps them current without extra code.
"""

from __future__ import annotations

import re

from django.contrib.postgres.indexes import GinIndex, OpClass
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models.functions import Upper
from django.utils import timezone

from akten.models.dokument import EMPFAENGER_CHOICES

PLATZHALTER_RE = re.compile(r"\{\{\s*([A-ZÄÖÜ0-9_]+)\s*\}\}")


def _vector(*weighted: tuple[str, str]) -> SearchVector:
    vector = None
    for field, weight in weighted:
        part = SearchVector(field, config="german", weight=weight)
        vector = part if vector is None else vector + part
    return vector


class Gesetz(models.Model):
    class Quelle(models.TextChoices):
        MARKDOWN = "markdown", "bundestag/gesetze (Markdown, gebündelt)"
        GII_XML = "gii_xml", "gesetze-im-internet.de (XML)"

    abk = models.CharField("Abkürzung", max_length=40, unique=True, help_text="z. B. BGB, ZPO")
    titel = models.CharField("Titel", max_length=500)
    stand = models.CharField(
        "Stand", max_length=500, blank=True, help_text="z. B. „Zuletzt geändert durch Art. 4 G v. 7.5.2021“"
    )
    stand_datum = models.DateField("Stand (Datum)", null=True, blank=True)
    quelle = models.CharField("Quelle", max_length=20, choices=Quelle.choices)
    importiert_am = models.DateTimeField("importiert am", auto_now=True)
    # Since when Helena has this law: a citation older than that cannot be checked against its updates.
    geladen_seit = models.DateTimeField("in Helena geladen seit", default=timezone.now, editable=False)

    class Meta:
        verbose_name = "Gesetz"
        verbose_name_plural = "Gesetze"
        ordering = ["abk"]

    def __str__(self) -> str:
        return f"{self.abk} – {self.titel}"

    @property
    def source_label(self) -> str:
        """What every answer from this law must say about its currency (corpus README)."""
        stand = self.stand or (self.stand_datum.strftime("%d.%m.%Y") if self.stand_datum else "unbekannt")
        return f"nicht amtliche Fassung, Stand: {stand}"


class Norm(models.Model):
    gesetz = models.ForeignKey(Gesetz, on_delete=models.CASCADE, related_name="normen", verbose_name="Gesetz")
    bezeichnung = models.CharField("Bezeichnung", max_length=60, help_text="„§ 517“, „Art. 3“")
    nummer = models.CharField(
        "Nummer", max_length=30, db_index=True, help_text="normalisiert für Zitate: „517“, „43a“, „3“"
    )
    titel = models.CharField("Überschrift", max_length=1000, blank=True)
    text = models.TextField("Text", blank=True)
    fussnoten = models.TextField(
        "Fußnoten", blank=True,
        help_text="Die amtlichen Fußnoten (Geltung, Übergangsrecht): gezeigt, nicht durchsucht.")
    order = models.PositiveIntegerField("Reihenfolge")
    gliederung = models.CharField("Gliederung", max_length=1000, blank=True, help_text="Buch 3 › Abschnitt 1")
    stichworte = models.TextField(
        "Stichworte (Sachregister)",
        blank=True,
        help_text="Alltags- und Praxisbegriffe zu dieser Norm, aus corpus/sachregister/ (Suchgewicht D).",
    )
    # The norm's sentence vector (helena/knowledge/embeddings.py, float16): semantic search.
    vektor = models.BinaryField("Vektor", null=True, blank=True, editable=False)
    search = models.GeneratedField(
        expression=_vector(
            ("bezeichnung", "A"), ("titel", "A"), ("gliederung", "C"), ("text", "B"), ("stichworte", "D")
        ),
        output_field=SearchVectorField(),
        db_persist=True,
        verbose_name="Suchindex",
    )

    class Meta:
        verbose_name = "Norm"
        verbose_name_plural = "Normen"
        ordering = ["gesetz", "order"]
        indexes = [
            GinIndex(fields=["search"], name="norm_search_gin"),
            models.Index(fields=["gesetz", "nummer"], name="norm_zitat"),
            GinIndex(OpClass(Upper("titel"), name="gin_trgm_ops"), name="norm_titel_trgm"),
        ]

    def __str__(self) -> str:
        return self.citation

    @property
    def citation(self) -> str:
        return f"{self.bezeichnung} {self.gesetz.abk}"

    @property
    def gliederung_im_gesetz(self) -> str:
        """Where the norm stands inside its law ("Buch 3 › Abschnitt 1"). The stored path begins with
        the law's title so that the search finds a law's norms by its name (services.py); a page
        that names the law already must not say it twice."""
        titel = self.gesetz.titel
        return "" if self.gliederung == titel else self.gliederung.removeprefix(f"{titel} › ")


class NormAenderung(models.Model):
    """A norm that an update of its law (manage.py load_gesetze) made new, changed or repealed, with
    the wording before: so that a lawyer sees on the statute page that a norm she cited has changed
    since, and a repealed norm's page still shows its last text.

    Plain fields, no foreign key: a repealed norm's row is gone, its record stays."""

    class Art(models.TextChoices):
        NEU = "neu", "Neu aufgenommen"
        GEAENDERT = "geaendert", "Text geändert"
        AUFGEHOBEN = "aufgehoben", "Aufgehoben (weggefallen)"

    gesetz_abk = models.CharField("Gesetz", max_length=40)
    nummer = models.CharField("Nummer", max_length=30)
    bezeichnung = models.CharField("Bezeichnung", max_length=60)
    art = models.CharField("Art", max_length=12, choices=Art.choices)
    titel_vorher = models.CharField("Überschrift vorher", max_length=1000, blank=True)
    text_vorher = models.TextField("Text vorher", blank=True)
    gliederung_vorher = models.CharField("Gliederung vorher", max_length=1000, blank=True)
    stand_vorher = models.CharField("Stand vorher", max_length=500, blank=True)
    stand_nachher = models.CharField("Stand nachher", max_length=500, blank=True)
    geaendert_am = models.DateTimeField("aktualisiert am")

    class Meta:
        verbose_name = "Änderung einer Norm"
        verbose_name_plural = "Änderungen der Normen"
        ordering = ["-geaendert_am", "gesetz_abk", "id"]
        indexes = [models.Index(fields=["gesetz_abk", "nummer"], name="normaenderung_norm")]

    def __str__(self) -> str:
        return f"{self.bezeichnung} {self.gesetz_abk}: {self.get_art_display()}"


class Urteil(models.Model):
    gericht = models.CharField("Gericht", max_length=300, db_index=True)
    datum = models.DateField("Datum", null=True, blank=True)
    aktenzeichen = models.CharField("Aktenzeichen", max_length=200, blank=True)
    typ = models.CharField("Typ", max_length=100, blank=True, help_text="Urteil, Beschluss, …")
    leitsatz = models.TextField("Leitsatz", blank=True)
    text = models.TextField("Text", blank=True)
    ecli = models.CharField("ECLI", max_length=200, blank=True)
    quelle = models.CharField("Quelle", max_length=300, blank=True)
    search = models.GeneratedField(
        expression=_vector(("aktenzeichen", "A"), ("leitsatz", "A"), ("gericht", "C"), ("text", "B")),
        output_field=SearchVectorField(),
        db_persist=True,
        verbose_name="Suchindex",
    )

    class Meta:
        verbose_name = "Entscheidung"
        verbose_name_plural = "Entscheidungen"
        ordering = ["-datum"]
        indexes = [GinIndex(fields=["search"], name="urteil_search_gin")]
        constraints = [
            models.UniqueConstraint(
                fields=["ecli"], condition=~models.Q(ecli=""), name="urteil_ecli_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.citation

    @property
    def citation(self) -> str:
        datum = f", {self.datum:%d.%m.%Y}" if self.datum else ""
        return f"{self.gericht}{datum} – {self.aktenzeichen}".strip(" –")


class Muster(models.Model):
    class Quelle(models.TextChoices):
        KANZLEI = "kanzlei", "Kanzleimuster"
        AMTLICH = "amtlich", "amtliches Formular"

    titel = models.CharField("Titel", max_length=300, unique=True)
    kategorie = models.CharField("Kategorie", max_length=100, db_index=True)
    text = models.TextField(
        "Text", help_text="Platzhalter in der Form {{MANDANT_NAME}}. Briefkopf, Anschrift des Empfängers, "
                          "Ort und Datum, unser Zeichen und die Unterschrift setzt die DOCX/PDF-Fassung "
                          "selbst: der Text beginnt mit der Anrede bzw. dem Antrag.")
    empfaenger = models.CharField(
        "Empfänger", max_length=20, choices=EMPFAENGER_CHOICES, blank=True,
        help_text="An wen ein Dokument aus diesem Muster geht (Mandant/in, Gericht, Gegner/in …): dessen "
                  "Name und Anschrift aus der Akte stehen im Anschriftfeld der DOCX/PDF-Fassung.")
    quelle = models.CharField("Quelle", max_length=10, choices=Quelle.choices, default=Quelle.KANZLEI)
    aktualisiert_am = models.DateTimeField("aktualisiert am", auto_now=True)
    search = models.GeneratedField(
        expression=_vector(("titel", "A"), ("kategorie", "B"), ("text", "B")),
        output_field=SearchVectorField(),
        db_persist=True,
        verbose_name="Suchindex",
    )

    class Meta:
        verbose_name = "Muster"
        verbose_name_plural = "Muster"
        ordering = ["kategorie", "titel"]
        indexes = [GinIndex(fields=["search"], name="muster_search_gin")]

    def __str__(self) -> str:
        return self.titel

    @property
    def platzhalter(self) -> list[str]:
        """The {{FIELDS}} to fill, in order of first appearance."""
        return list(dict.fromkeys(PLATZHALTER_RE.findall(self.text)))


class Lexem(models.Model):
    """Every stemmed word of the knowledge base, for typo and compound recovery via pg_trgm."""

    wort = models.CharField(max_length=200, unique=True)
    ndoc = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = "Suchwort"
        verbose_name_plural = "Suchwörter"
        indexes = [GinIndex(OpClass("wort", name="gin_trgm_ops"), name="lexem_wort_trgm")]

    def __str__(self) -> str:
        return self.wort


class AktenPassage(models.Model):
    """A piece of a firm's own file with its sentence vector, for semantic search over the Akten.

    Rows are derived data (helena/knowledge/aktensuche/): rebuilt from the Akte, its Dokumente and
    Notizen whenever one changes; a passage whose text is unchanged keeps its vector (schluessel).
    Scoping is by `akte`: a passage is only ever ranked among the Akten the user may see.
    """

    class Quelle(models.TextChoices):
        AKTE = "akte", "Akte"
        DOKUMENT = "dokument", "Dokument"
        NOTIZ = "notiz", "Notiz"

    akte = models.ForeignKey("akten.Akte", on_delete=models.CASCADE, related_name="+")
    quelle = models.CharField(max_length=10, choices=Quelle.choices)
    quelle_id = models.BigIntegerField()
    teil = models.PositiveIntegerField(default=0)
    seite = models.PositiveIntegerField(null=True, blank=True)  # the Dokument's page, where it has pages
    text = models.TextField()
    schluessel = models.CharField(max_length=20)
    vektor = models.BinaryField(editable=False)

    class Meta:
        verbose_name = "Akten-Passage"
        verbose_name_plural = "Akten-Passagen"
        indexes = [models.Index(fields=["akte"]), models.Index(fields=["quelle", "quelle_id"])]

    def __str__(self) -> str:
        return f"{self.get_quelle_display()} {self.quelle_id} Teil {self.teil + 1}"


class AktenIndexAuftrag(models.Model):
    """An Akte whose passages must be refreshed: written in the same transaction as the change
    (so no change is lost when Redis or the worker is down), taken by the one draining task.

    A plain id, not a foreign key: a Dokument deleted along with its Akte asks for that Akte while
    the Akte is being deleted too; the drain finds it gone and has nothing to do."""

    akte_id = models.BigIntegerField(unique=True)
    angefordert_am = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "Auftrag: Akte neu einbetten"
        verbose_name_plural = "Aufträge: Akten neu einbetten"

    def __str__(self) -> str:
        return f"Akte {self.akte_id}"
