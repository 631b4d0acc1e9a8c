"""The firm's records: users with roles, Akten with per-user access, and what hangs off an Akte.

Nothing outside the admin reads these models unscoped: use `akten.selectors`.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils import timezone


class Role(models.TextChoices):
    ADMIN = "ADMIN", "Administrator"
    ANWALT = "ANWALT", "Rechtsanwalt/Rechtsanwältin"
    SACHBEARBEITER = "SACHBEARBEITER", "Sachbearbeitung"
    SEKRETARIAT = "SEKRETARIAT", "Sekretariat"
    PRAKTIKANT = "PRAKTIKANT", "Praktikant/in"


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


class User(AbstractUser):
    """A Kanzlei member; the role decides which tools and drafts are theirs."""

    role = models.CharField(
        "Rolle", max_length=20, choices=Role.choices, default=Role.SACHBEARBEITER
    )

    class Meta:
        verbose_name = "Benutzer"
        verbose_name_plural = "Benutzer"

    @property
    def sees_all_akten(self) -> bool:
        """ADMIN (and Django superusers, who administer the system) see every Akte."""
        return self.role == Role.ADMIN or self.is_superuser


aktenzeichen_validator = RegexValidator(
    r"^[0-9A-Za-zÄÖÜäöüß][0-9A-Za-zÄÖÜäöüß/.\- ]{0,30}$",
    "Aktenzeichen: Buchstaben, Ziffern, „/“, „-“ und „.“, höchstens 31 Zeichen (z. B. 123/26).",
)


class Akte(models.Model):
    class Status(models.TextChoices):
        OFFEN = "offen", "offen"
        RUHEND = "ruhend", "ruhend"
        ARCHIVIERT = "archiviert", "archiviert"
        GESCHLOSSEN = "geschlossen", "geschlossen"

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
    )
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    aktualisiert_am = models.DateTimeField("aktualisiert am", auto_now=True)

    class Meta:
        verbose_name = "Akte"
        verbose_name_plural = "Akten"
        ordering = ["-angelegt_am"]
        indexes = [GinIndex(fields=["tags"], name="akte_tags_gin")]

    def __str__(self) -> str:
        return f"{self.aktenzeichen} {self.kurzrubrum}"


class AktenZugriff(models.Model):
    """Grants one user access to one Akte (ADMIN needs none)."""

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="zugriffe")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="akten_zugriffe"
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

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="beteiligte")
    rolle = models.CharField("Rolle", max_length=20, choices=Rolle.choices)
    name = models.CharField("Name / Firma", max_length=200)
    anschrift = models.TextField("Anschrift", blank=True)
    telefon = models.CharField("Telefon", max_length=50, blank=True)
    email = models.EmailField("E-Mail", blank=True)
    aktenzeichen_extern = models.CharField(
        "Aktenzeichen/Zeichen der Gegenseite oder des Gerichts", max_length=100, blank=True
    )
    notiz = models.TextField("Notiz", blank=True)

    class Meta:
        verbose_name = "Beteiligter"
        verbose_name_plural = "Beteiligte"
        ordering = ["akte", "rolle", "name"]

    def __str__(self) -> str:
        return f"{self.get_rolle_display()}: {self.name}"


class Frist(models.Model):
    class Typ(models.TextChoices):
        FRIST = "frist", "Frist"
        TERMIN = "termin", "Termin"
        WIEDERVORLAGE = "wiedervorlage", "Wiedervorlage"

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="fristen")
    typ = models.CharField("Typ", max_length=20, choices=Typ.choices, default=Typ.FRIST)
    bezeichnung = models.CharField("Bezeichnung", max_length=300)
    datum = models.DateField("Datum (Fristende/Termin)")
    uhrzeit = models.TimeField("Uhrzeit (bei Terminen)", null=True, blank=True)
    vorfrist = models.DateField("Vorfrist", null=True, blank=True)
    ist_notfrist = models.BooleanField("Notfrist", default=False)
    erledigt = models.BooleanField("erledigt", default=False)
    erledigt_am = models.DateTimeField("erledigt am", null=True, blank=True)
    verantwortlich = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="verantwortlich",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="fristen",
    )
    bundesland = models.CharField(
        "Bundesland", max_length=2, choices=Bundesland.choices, blank=True,
        help_text="Leer: das Bundesland der Akte.",
    )
    notiz = models.TextField("Notiz", blank=True)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)

    class Meta:
        verbose_name = "Frist"
        verbose_name_plural = "Fristen"
        ordering = ["datum", "uhrzeit"]
        indexes = [models.Index(fields=["erledigt", "datum"], name="frist_offen_datum")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(vorfrist__isnull=True) | models.Q(vorfrist__lte=models.F("datum")),
                name="frist_vorfrist_vor_datum",
                violation_error_message="Die Vorfrist muss vor dem Fristende liegen.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.datum:%d.%m.%Y} {self.bezeichnung}"

    def save(self, *args, **kwargs) -> None:
        if self.erledigt and self.erledigt_am is None:
            self.erledigt_am = timezone.now()
        if not self.erledigt:
            self.erledigt_am = None
        super().save(*args, **kwargs)

    def clean(self) -> None:
        if self.typ != self.Typ.FRIST and self.ist_notfrist:
            raise ValidationError({"ist_notfrist": "Nur eine Frist kann eine Notfrist sein."})
        if self.vorfrist and self.datum and self.vorfrist > self.datum:
            raise ValidationError({"vorfrist": "Die Vorfrist muss vor dem Fristende liegen."})

    @property
    def effektives_bundesland(self) -> str:
        return self.bundesland or self.akte.bundesland


class Dokument(models.Model):
    class Status(models.TextChoices):
        ENTWURF = "entwurf", "Entwurf"
        FREIGEGEBEN = "freigegeben", "freigegeben"

    class ErstelltDurch(models.TextChoices):
        MENSCH = "mensch", "Mensch"
        HELENA = "helena", "Helena"

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="dokumente")
    titel = models.CharField("Titel", max_length=300)
    inhalt = models.TextField("Inhalt (Markdown/Text)", blank=True)
    datei = models.FileField("Datei", upload_to="dokumente/%Y/%m/", blank=True)
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


class Zeiterfassung(models.Model):
    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="zeiterfassungen")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="Mitarbeiter/in", on_delete=models.PROTECT,
        related_name="zeiterfassungen",
    )
    datum = models.DateField("Datum", default=timezone.localdate)
    dauer_minuten = models.PositiveIntegerField(
        "Dauer (Minuten)", validators=[MinValueValidator(1), MaxValueValidator(24 * 60)]
    )
    taetigkeit = models.CharField("Tätigkeit", max_length=500)
    abrechenbar = models.BooleanField("abrechenbar", default=True)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)

    class Meta:
        verbose_name = "Zeiterfassung"
        verbose_name_plural = "Zeiterfassungen"
        ordering = ["-datum", "-angelegt_am"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(dauer_minuten__gte=1, dauer_minuten__lte=1440),
                name="zeiterfassung_dauer_plausibel",
                violation_error_message="Die Dauer muss zwischen 1 und 1440 Minuten liegen.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.datum:%d.%m.%Y} {self.dauer_minuten} min {self.taetigkeit}"

    @property
    def dauer(self) -> timedelta:
        return timedelta(minutes=self.dauer_minuten)


class Notiz(models.Model):
    """A note; with an Akte it is visible to whoever sees the Akte, without only to its author."""

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, null=True, blank=True, related_name="notizen")
    titel = models.CharField("Titel", max_length=300, blank=True)
    inhalt = models.TextField("Inhalt")
    verfasst_von = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="verfasst von", on_delete=models.SET_NULL,
        null=True, blank=True, related_name="notizen",
    )
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)

    class Meta:
        verbose_name = "Notiz"
        verbose_name_plural = "Notizen"
        ordering = ["-angelegt_am"]

    def __str__(self) -> str:
        return self.titel or self.inhalt[:60]


class Alert(models.Model):
    """A hint for a person; with an Akte it is visible to whoever sees the Akte."""

    class Severity(models.TextChoices):
        INFO = "info", "Info"
        WARNING = "warning", "Warnung"
        CRITICAL = "critical", "Kritisch"

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, null=True, blank=True, related_name="alerts")
    empfaenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="Empfänger/in", on_delete=models.CASCADE,
        null=True, blank=True, related_name="alerts",
        help_text="Leer bei Akten-Hinweisen: dann sieht ihn jede/r mit Zugriff auf die Akte.",
    )
    message = models.TextField("Meldung")
    severity = models.CharField(
        "Dringlichkeit", max_length=10, choices=Severity.choices, default=Severity.INFO
    )
    gelesen = models.BooleanField("gelesen", default=False)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)

    class Meta:
        verbose_name = "Hinweis (Alert)"
        verbose_name_plural = "Hinweise (Alerts)"
        ordering = ["gelesen", "-angelegt_am"]

    def __str__(self) -> str:
        return f"[{self.severity}] {self.message[:60]}"


class ApiToken(models.Model):
    """A bearer token for the JSON API and websockets; only its SHA-256 is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField("Bezeichnung", max_length=100, blank=True)
    prefix = models.CharField("Anfang", max_length=12, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    zuletzt_benutzt = models.DateTimeField("zuletzt benutzt", null=True, blank=True)
    widerrufen = models.BooleanField("widerrufen", default=False)

    class Meta:
        verbose_name = "API-Token"
        verbose_name_plural = "API-Tokens"

    def __str__(self) -> str:
        return f"{self.user} {self.prefix}…"
