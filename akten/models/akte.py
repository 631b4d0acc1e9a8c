"""The Akte: its Bundesland for the Fristen, who may see it (AktenZugriff), its Beteiligte."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.utils import timezone

from akten.models.integration import extern_id_eindeutig, extern_id_feld
from akten.models.verlauf import verlauf
from akten.namen import name_schluessel

_EPOCHE = datetime(2000, 1, 1, tzinfo=UTC)


class Bundesland(models.TextChoices):
    """ISO 3166-2:DE codes; they are also the subdivisions of the `holidays` package."""

    BW = "BW", "Baden-Württemberg"
    BY = "BY", "Bayern"
    BE = "BE", "Berlin"
    BB = "BB", "Brandenburg"
    HB = "HB", "Bremen"
    HH = "HH", "Hamburg"
    HE = "HE", "Hessen"
    MV = "MV", "Mecklenburg-Vorpommern"
    NI = "NI", "Niedersachsen"
    NW = "NW", "Nordrhein-Westfalen"
    RP = "RP", "Rheinland-Pfalz"
    SL = "SL", "Saarland"
    SN = "SN", "Sachsen"
    ST = "ST", "Sachsen-Anhalt"
    SH = "SH", "Schleswig-Holstein"
    TH = "TH", "Thüringen"


aktenzeichen_validator = RegexValidator(
    r"^[0-9A-Za-zÄÖÜäöüß][0-9A-Za-zÄÖÜäöüß/.\- ]{0,30}$",
    "Aktenzeichen: Buchstaben, Ziffern, „/“, „-“ und „.“, höchstens 31 Zeichen (z. B. 123/26).",
)


class Akte(models.Model):
    class Status(models.TextChoices):
        OFFEN = "offen", "offen"
        RUHEND = "ruhend", "ruhend"
        # "abgeschlossen" and "abgelegt" are what a Kanzlei calls them; the values stay as the API and
        # update_akte_rag have always named them (akten/erfassung/akten.py reads both words)
        ARCHIVIERT = "archiviert", "abgelegt"
        GESCHLOSSEN = "geschlossen", "abgeschlossen"

    class Rechtsgebiet(models.TextChoices):
        ARBEITSRECHT = "arbeitsrecht", "Arbeitsrecht"
        MIETRECHT = "mietrecht", "Mietrecht"
        VERKEHRSRECHT = "verkehrsrecht", "Verkehrsrecht"
        KAUFRECHT = "kaufrecht", "Kaufrecht"
        ERBRECHT = "erbrecht", "Erbrecht"
        FAMILIENRECHT = "familienrecht", "Familienrecht"
        VERTRAGSRECHT = "vertragsrecht", "Vertragsrecht"
        GESELLSCHAFTSRECHT = "gesellschaftsrecht", "Gesellschaftsrecht"
        STRAFRECHT = "strafrecht", "Strafrecht"
        VERWALTUNGSRECHT = "verwaltungsrecht", "Verwaltungsrecht"
        SOZIALRECHT = "sozialrecht", "Sozialrecht"
        INSOLVENZRECHT = "insolvenzrecht", "Insolvenzrecht"
        URHEBERRECHT = "urheberrecht", "Urheber- und Medienrecht"
        WETTBEWERBSRECHT = "wettbewerbsrecht", "Wettbewerbsrecht"
        SONSTIGES = "sonstiges", "Sonstiges"

    aktenzeichen = models.CharField(
        "Aktenzeichen", max_length=31, unique=True, validators=[aktenzeichen_validator]
    )
    kurzrubrum = models.CharField("Kurzrubrum", max_length=200)
    wegen = models.CharField("wegen", max_length=300, blank=True)
    rechtsgebiet = models.CharField(
        "Rechtsgebiet", max_length=30, choices=Rechtsgebiet.choices, default=Rechtsgebiet.SONSTIGES
    )
    status = models.CharField("Status", max_length=20, choices=Status.choices, default=Status.OFFEN)
    gegenstandswert = models.DecimalField(
        "Gegenstandswert (EUR)",
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    auftragsdatum = models.DateField(
        "Auftragsdatum", null=True, blank=True,
        help_text="Tag des Auftrags: wählt die Gebührentabelle (§ 60 RVG; vor dem 01.06.2025 die "
                  "Tabelle 2021).",
    )
    bundesland = models.CharField(
        "Bundesland (für Fristen)",
        max_length=2,
        choices=Bundesland.choices,
        default=Bundesland.NW,
        help_text="Dessen Feiertage gelten bei der Fristberechnung (Gerichtsort).",
    )
    anwalt = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="verantwortliche/r Anwalt/Anwältin",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="akten_als_anwalt",
    )
    sachbearbeiter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="Sachbearbeitung",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="akten_als_sachbearbeiter",
    )
    tags = ArrayField(models.CharField(max_length=50), verbose_name="Schlagworte", default=list, blank=True)
    summary = models.TextField(
        "Zusammenfassung (Helena)", blank=True, help_text="Kurzfassung der Akte, die Helena pflegt."
    )
    summary_aktualisiert_am = models.DateTimeField("Zusammenfassung aktualisiert am", null=True, blank=True)
    zugriff = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="AktenZugriff",
        through_fields=("akte", "user"),
        related_name="freigegebene_akten",
        blank=True,
        verbose_name="Zugriff",
    )
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    aktualisiert_am = models.DateTimeField("aktualisiert am", auto_now=True)
    # When the Mandat ended: set when the status becomes abgeschlossen or abgelegt, cleared when the Akte
    # is opened again (akten/erfassung/akten.py). § 50 Abs. 1 BRAO counts the Handakten's six years
    # from the end of its calendar year (akten/datenschutz/loeschung.py).
    abgeschlossen_am = models.DateTimeField(
        "abgeschlossen am", null=True, blank=True, editable=False,
        help_text="Ende des Mandats: ab dem Ende dieses Kalenderjahres läuft die Aufbewahrung der "
                  "Handakten (§ 50 Abs. 1 BRAO, sechs Jahre).")
    extern_id = extern_id_feld()
    history = verlauf("Verlauf der Akte", excluded_fields=["aktualisiert_am", "summary_aktualisiert_am"])

    class Meta:
        verbose_name = "Akte"
        verbose_name_plural = "Akten"
        ordering = ["-angelegt_am"]
        indexes = [GinIndex(fields=["tags"], name="akte_tags_gin")]
        constraints = [extern_id_eindeutig("akte")]

    def __str__(self) -> str:
        return f"{self.aktenzeichen} {self.kurzrubrum}"

    MANDAT_BEENDET = frozenset({Status.GESCHLOSSEN, Status.ARCHIVIERT})

    def save(self, *args, **kwargs) -> None:
        """The Mandat's end follows the status, whoever saves (page, API, import, Helena's draft): set
        once when the Akte is closed or filed away, kept when a closed one is filed, cleared when it
        is opened again."""
        vorher = self.abgeschlossen_am
        if self.status in self.MANDAT_BEENDET:
            self.abgeschlossen_am = self.abgeschlossen_am or timezone.now()
        else:
            self.abgeschlossen_am = None
        felder = kwargs.get("update_fields")
        if felder is not None and self.abgeschlossen_am != vorher:
            kwargs["update_fields"] = {*felder, "abgeschlossen_am"}
        super().save(*args, **kwargs)

    @property
    def mandat_beendet_am(self) -> date | None:
        """The day the Mandat ended (abgeschlossen_am's day in Köln): what § 50 BRAO's six years count
        from. Set by hand (akten/erfassung/akten.py) for an Akte that ended before it was closed here."""
        return timezone.localdate(self.abgeschlossen_am) if self.abgeschlossen_am else None

    @mandat_beendet_am.setter
    def mandat_beendet_am(self, tag: date | None) -> None:
        self.abgeschlossen_am = timezone.make_aware(datetime.combine(tag, time(12))) if tag else None

    @property
    def version(self) -> str:
        """Changes with every save of the Akte: the write API's ETag, so a PATCH made on what a
        client read before someone else's change is refused instead of overwriting it."""
        mikro = (self.aktualisiert_am - _EPOCHE) // timedelta(microseconds=1)
        return format(mikro, "x")


class AktenZugriff(models.Model):
    """Grants one user access to one Akte (ADMIN needs none)."""

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="zugriffe", verbose_name="Akte")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="akten_zugriffe",
        verbose_name="Benutzer",
    )
    gewaehrt_von = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="gewährt von",
    )
    gewaehrt_am = models.DateTimeField("gewährt am", auto_now_add=True)
    history = verlauf("Verlauf der Aktenzugriffe")

    class Meta:
        verbose_name = "Aktenzugriff"
        verbose_name_plural = "Aktenzugriffe"
        constraints = [models.UniqueConstraint(fields=["akte", "user"], name="unique_akten_zugriff")]

    def __str__(self) -> str:
        return f"{self.user} → {self.akte.aktenzeichen}"


class Beteiligter(models.Model):
    class Rolle(models.TextChoices):
        MANDANT = "mandant", "Mandant/in"
        GEGNER = "gegner", "Gegner/in"
        GEGNERVERTRETER = "gegnervertreter", "Gegnervertreter/in"
        GERICHT = "gericht", "Gericht"
        ZEUGE = "zeuge", "Zeuge/Zeugin"
        SACHVERSTAENDIGER = "sachverstaendiger", "Sachverständige/r"
        VERSICHERUNG = "versicherung", "Versicherung"
        BEHOERDE = "behoerde", "Behörde"
        SONSTIGER = "sonstiger", "Sonstige/r"

    class Anrede(models.TextChoices):
        """What the letters and Muster say of the person: „Herrn Müller“, „der Frau Hoffmann“, „der
        Bauer Logistik GmbH“ (akten/dokumente/anrede.py). Empty: not known (a court, an authority)."""

        HERR = "herr", "Herr"
        FRAU = "frau", "Frau"
        DIVERS = "divers", "divers (ohne Anrede)"
        FIRMA = "firma", "Firma"

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="beteiligte", verbose_name="Akte")
    rolle = models.CharField("Rolle", max_length=20, choices=Rolle.choices)
    anrede = models.CharField(
        "Anrede", max_length=10, choices=Anrede.choices, blank=True,
        help_text="Für Briefanrede und Muster („des Herrn …“, „der Frau …“, „der … GmbH“); leer bei "
                  "Gericht und Behörde.",
    )
    name = models.CharField("Name / Firma", max_length=200)
    anschrift = models.TextField("Anschrift", blank=True)
    telefon = models.CharField("Telefon", max_length=50, blank=True)
    email = models.EmailField("E-Mail", blank=True)
    aktenzeichen_extern = models.CharField(
        "Aktenzeichen/Zeichen der Gegenseite oder des Gerichts", max_length=100, blank=True
    )
    notiz = models.TextField("Notiz", blank=True)
    # The name as the Kollisionsprüfung compares it (akten/namen.py): lower case, ä → ae, ß → ss,
    # legal forms and titles dropped, words sorted — "Müller, Hans" and "Hans Mueller" are one key.
    name_schluessel = models.CharField("Suchschlüssel", max_length=200, editable=False, default="")
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True, null=True)
    extern_id = extern_id_feld()
    history = verlauf("Verlauf der Beteiligten", excluded_fields=["name_schluessel"])

    class Meta:
        verbose_name = "Beteiligter"
        verbose_name_plural = "Beteiligte"
        ordering = ["akte", "rolle", "name"]
        indexes = [GinIndex(fields=["name_schluessel"], opclasses=["gin_trgm_ops"],
                            name="beteiligter_schluessel_trgm")]
        constraints = [extern_id_eindeutig("beteiligter")]

    def __str__(self) -> str:
        return f"{self.get_rolle_display()}: {self.name}"

    def save(self, *args, **kwargs) -> None:
        self.name_schluessel = name_schluessel(self.name)
        if kwargs.get("update_fields") is not None and "name" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "name_schluessel"}
        super().save(*args, **kwargs)


