"""What hangs off an Akte: Fristen, Zeiterfassung, Notizen and Hinweise (Alert, and which of them a
person wants: HinweisEinstellung); Dokumente are in dokument.py."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from akten.models.akte import Akte, Bundesland
from akten.models.integration import extern_id_eindeutig, extern_id_feld
from akten.models.verlauf import verlauf


class Frist(models.Model):
    class Typ(models.TextChoices):
        FRIST = "frist", "Frist"
        TERMIN = "termin", "Termin"
        WIEDERVORLAGE = "wiedervorlage", "Wiedervorlage"

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="fristen", verbose_name="Akte")
    typ = models.CharField("Typ", max_length=20, choices=Typ.choices, default=Typ.FRIST)
    bezeichnung = models.CharField("Bezeichnung", max_length=300)
    datum = models.DateField("Datum (Fristende/Termin)")
    uhrzeit = models.TimeField("Uhrzeit (bei Terminen)", null=True, blank=True)
    vorfrist = models.DateField("Vorfrist", null=True, blank=True)
    ist_notfrist = models.BooleanField("Notfrist", default=False)
    erledigt = models.BooleanField("erledigt", default=False)
    erledigt_am = models.DateTimeField("erledigt am", null=True, blank=True)
    # What was done to meet it („Berufung per beA eingelegt am …“): required to mark a Frist erledigt.
    erledigt_vermerk = models.TextField("Erledigungsvermerk", blank=True)
    erledigt_von = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="Erledigung durch", on_delete=models.SET_NULL, null=True,
        blank=True, related_name="+")
    # Vier-Augen-Prinzip for a Notfrist (Kanzleieinstellung.vier_augen_notfrist): the first person's
    # Erledigt waits here until a second person with the right to decide Fristen confirms it.
    erledigung_beantragt_von = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="Erledigung eingetragen von", on_delete=models.SET_NULL,
        null=True, blank=True, related_name="+")
    erledigung_beantragt_am = models.DateTimeField("Erledigung eingetragen am", null=True, blank=True)
    bestaetigt_von = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="Erledigung bestätigt von", on_delete=models.SET_NULL,
        null=True, blank=True, related_name="+")
    # The Fristenrechner's result the Frist was entered with (start, Dauer or preset, the shifts):
    # shown on the Frist, so whoever checks it sees how the date came about.
    berechnung = models.JSONField("Berechnung", null=True, blank=True)
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
    extern_id = extern_id_feld()
    history = verlauf("Verlauf der Fristen")

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
            extern_id_eindeutig("frist"),
        ]

    def __str__(self) -> str:
        return f"{self.datum:%d.%m.%Y} {self.bezeichnung}"

    def save(self, *args, **kwargs) -> None:
        if self.erledigt and self.erledigt_am is None:
            self.erledigt_am = timezone.now()
        if not self.erledigt:
            self.erledigt_am = None
        super().save(*args, **kwargs)

    @property
    def wartet_auf_bestaetigung(self) -> bool:
        """Erledigt by one person, not yet confirmed by the second (Vier-Augen-Prinzip)."""
        return not self.erledigt and self.erledigung_beantragt_von_id is not None

    def clean(self) -> None:
        if self.typ != self.Typ.FRIST and self.ist_notfrist:
            raise ValidationError({"ist_notfrist": "Nur eine Frist kann eine Notfrist sein."})
        if self.vorfrist and self.datum and self.vorfrist > self.datum:
            raise ValidationError({"vorfrist": "Die Vorfrist muss vor dem Fristende liegen."})

    @property
    def effektives_bundesland(self) -> str:
        return self.bundesland or self.akte.bundesland


class Zeiterfassung(models.Model):
    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, related_name="zeiterfassungen",
                             verbose_name="Akte")
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
    extern_id = extern_id_feld()
    history = verlauf("Verlauf der Zeiterfassung")

    class Meta:
        verbose_name = "Zeiterfassung"
        verbose_name_plural = "Zeiterfassungen"
        ordering = ["-datum", "-angelegt_am"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(dauer_minuten__gte=1, dauer_minuten__lte=1440),
                name="zeiterfassung_dauer_plausibel",
                violation_error_message="Die Dauer muss zwischen 1 und 1440 Minuten liegen.",
            ),
            extern_id_eindeutig("zeiterfassung"),
        ]

    def __str__(self) -> str:
        return f"{self.datum:%d.%m.%Y} {self.dauer_minuten} min {self.taetigkeit}"

    @property
    def dauer(self) -> timedelta:
        return timedelta(minutes=self.dauer_minuten)


class Notiz(models.Model):
    """A note; with an Akte it is visible to whoever sees the Akte, without only to its author."""

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, null=True, blank=True, related_name="notizen",
                             verbose_name="Akte")
    titel = models.CharField("Titel", max_length=300, blank=True)
    inhalt = models.TextField("Inhalt")
    verfasst_von = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="verfasst von", on_delete=models.SET_NULL,
        null=True, blank=True, related_name="notizen",
    )
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    extern_id = extern_id_feld()
    history = verlauf("Verlauf der Notizen")

    class Meta:
        verbose_name = "Notiz"
        verbose_name_plural = "Notizen"
        ordering = ["-angelegt_am"]
        constraints = [extern_id_eindeutig("notiz")]

    def __str__(self) -> str:
        return self.titel or self.inhalt[:60]


class Alert(models.Model):
    """A hint for a person; with an Akte it is visible to whoever sees the Akte."""

    class Severity(models.TextChoices):
        INFO = "info", "Info"
        WARNING = "warning", "Warnung"
        CRITICAL = "critical", "Kritisch"

    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, null=True, blank=True, related_name="alerts",
                             verbose_name="Akte")
    empfaenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="Empfänger/in", on_delete=models.CASCADE,
        null=True, blank=True, related_name="alerts",
        help_text="Leer bei Akten-Hinweisen: dann sieht ihn jede/r mit Zugriff auf die Akte.",
    )
    class Art(models.TextChoices):
        MANUELL = "", "Hinweis"
        VORFRIST = "vorfrist", "Vorfrist erreicht"
        BALD = "bald", "Frist in den nächsten Werktagen"
        HEUTE = "heute", "Frist endet heute"
        UEBERFAELLIG = "ueberfaellig", "Frist überfällig"
        NIEMAND = "niemand_verantwortlich", "Niemand ist verantwortlich"
        BESTAETIGUNG = "bestaetigung", "Notfrist wartet auf Bestätigung"
        AUFGABE = "aufgabe", "Auftrag an Helena"

    message = models.TextField("Meldung")
    severity = models.CharField(
        "Dringlichkeit", max_length=10, choices=Severity.choices, default=Severity.INFO
    )
    frist = models.ForeignKey(Frist, on_delete=models.CASCADE, null=True, blank=True, related_name="alerts",
                              verbose_name="Frist")
    art = models.CharField("Art", max_length=30, choices=Art.choices, default=Art.MANUELL, blank=True)
    schluessel = models.CharField(
        "Schlüssel", max_length=120, null=True, blank=True, unique=True, editable=False,
        help_text="Woran der Fristen-Scan erkennt, dass er diesen Hinweis schon gegeben hat.",
    )
    gelesen = models.BooleanField("gelesen", default=False)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    # The e-mail that told the person (akten/mail/): set once, so a Hinweis is mailed at most once.
    mail = models.ForeignKey("akten.HinweisMail", on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="hinweise", verbose_name="E-Mail", editable=False)
    # Looked at by the collector and not mailed (kind switched off, Akte not visible): never looked at
    # again, so it neither costs each round nor arrives late when the kind is switched back on.
    ohne_mail = models.BooleanField("nicht per E-Mail", default=False, editable=False)

    class Meta:
        verbose_name = "Hinweis"
        verbose_name_plural = "Hinweise"
        ordering = ["gelesen", "-angelegt_am"]
        # The e-mail collector's query every 5 minutes: only the few Hinweise still to decide on.
        indexes = [models.Index(fields=["angelegt_am"], name="alert_mail_offen",
                                condition=models.Q(mail__isnull=True, gelesen=False, ohne_mail=False))]

    def __str__(self) -> str:
        return f"[{self.get_severity_display()}] {self.message[:60]}"




class HinweisEinstellung(models.Model):
    """Which kinds of Hinweise a person wants and whether new ones pop up on the page (/konto/).

    Hidden kinds disappear everywhere the person reads Hinweise (akten.selectors.alerts_for: the bell,
    the Hinweise page, GET /api/v1/alerts); colleagues of the same Akte still get theirs. A Frist
    that ends today or is overdue cannot be hidden: a missed Frist is the Kanzlei's liability.
    """

    PFLICHT_ARTEN = frozenset({Alert.Art.HEUTE, Alert.Art.UEBERFAELLIG})

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="hinweis_einstellung", verbose_name="Benutzer")
    ausgeblendet = ArrayField(
        models.CharField(max_length=30, choices=Alert.Art.choices), default=list, blank=True,
        verbose_name="ausgeblendete Arten",
        help_text="Hinweise dieser Arten sieht die Person nicht (Glocke, Hinweise, API). „Frist endet "
                  "heute“ und „Frist überfällig“ lassen sich nicht ausblenden.")
    kurzmeldungen = models.BooleanField(
        "Kurzmeldungen im Browser", default=True,
        help_text="Ein neuer Hinweis erscheint für einige Sekunden unten auf jeder Seite.")
    mail_aus = ArrayField(
        models.CharField(max_length=30, choices=Alert.Art.choices), default=list, blank=True,
        verbose_name="nicht per E-Mail",
        help_text="Hinweise dieser Arten kommen nicht per E-Mail. Kritische (Notfrist heute oder "
                  "überfällig, niemand verantwortlich, Vier-Augen-Bestätigung) kommen immer.")
    geaendert_am = models.DateTimeField("geändert am", auto_now=True)

    class Meta:
        verbose_name = "Hinweis-Einstellung"
        verbose_name_plural = "Hinweis-Einstellungen"

    def __str__(self) -> str:
        return f"Hinweise für {self.user}"
