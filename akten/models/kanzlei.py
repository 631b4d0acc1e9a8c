"""How the firm keeps its records (one row, in the admin): its Aktenzeichen scheme, whether a
Notfrist needs a second person before it counts as erledigt, what an e-mail about a Hinweis may
say (§ 203 StGB), what the calendar feeds may name, how long the read log is kept, when a login
ends by itself and whose login needs a second factor."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from akten.aktenzeichen import MusterFehler, pruefe_muster
from akten.models.accounts import Role


def zweiter_faktor_rollen_standard() -> list[str]:
    """Those who see most need a second factor unless the admin decides otherwise."""
    return [Role.ADMIN, Role.ANWALT]


class RollenField(ArrayField):
    """A list of roles, edited as checkboxes (ArrayField's own form field is a comma-separated text)."""

    def formfield(self, **kwargs: Any) -> forms.Field:
        return forms.TypedMultipleChoiceField(
            choices=Role.choices, required=False, widget=forms.CheckboxSelectMultiple,
            label=self.verbose_name, help_text=self.help_text)

ZUGRIFFE_AUFBEWAHREN_STANDARD = 12


class Kanzleieinstellung(models.Model):
    aktenzeichen_muster = models.CharField(
        "Aktenzeichen-Schema", max_length=40, default="{nr}/{jj}",
        help_text="Wie ein neues Aktenzeichen gebildet wird: {nr} laufende Nummer im Jahr, {nr:03} "
                  "dreistellig mit Nullen, {jj} Jahr zweistellig, {jjjj} vierstellig, {kuerzel} das "
                  "Kürzel der Anwältin/des Anwalts. Beispiele: „{nr}/{jj}“ → 123/26, "
                  "„{jjjj}-{nr:04}“ → 2026-0123.")
    vier_augen_notfrist = models.BooleanField(
        "Vier-Augen-Prinzip bei Notfristen", default=True,
        help_text="Eine erledigte Notfrist zählt erst, wenn eine zweite Person mit dem Recht, Fristen "
                  "zu bearbeiten, die Erledigung bestätigt.")

    class MailInhalt(models.TextChoices):
        KNAPP = "knapp", "nur die Art des Hinweises, das Datum und der Link"
        AKTENZEICHEN = "aktenzeichen", "Aktenzeichen und Bezeichnung der Frist (Standard)"
        KURZRUBRUM = "kurzrubrum", "zusätzlich das Kurzrubrum (nennt meist Mandanten)"

    mail_inhalt = models.CharField(
        "Inhalt der Hinweis-E-Mails (§ 203 StGB)", max_length=20, choices=MailInhalt.choices,
        default=MailInhalt.AKTENZEICHEN,
        help_text="Was eine E-Mail über einen Hinweis nennen darf; sie verlinkt immer auf die Frist in "
                  "Helena und enthält nie Dokumente, Notizen oder Ergebnisse. Standard: Aktenzeichen und "
                  "Bezeichnung der Frist. Mit dem Kurzrubrum verlassen Namen von Mandanten die Kanzlei – "
                  "nur, wenn der Mailweg dafür geeignet ist.")

    # § 203 StGB: a subscribed calendar is read by the calendar program's provider (Microsoft, Google,
    # Apple); the Kurzrubrum names the client, the Aktenzeichen and the Frist's title do not.
    kalender_mit_kurzrubrum = models.BooleanField(
        "Kurzrubrum im Kalender-Abo", default=False,
        help_text="Zeigt in den Kalender-Abos der Mitarbeitenden neben Aktenzeichen und Bezeichnung auch "
                  "das Kurzrubrum mit den Namen der Parteien. Aus (Standard): keine Namen von Mandanten "
                  "im Kalender – er liegt oft beim Anbieter der Kalender-App (§ 203 StGB).")
    # DSGVO Art. 5 (1) e (Speicherbegrenzung) against the firm's need to answer „who read this file?“
    # (a client's complaint, a suspected breach of § 203 StGB) — which mostly comes up within the year.
    zugriffe_aufbewahren_monate = models.PositiveSmallIntegerField(
        "Zugriffe aufbewahren (Monate)", default=ZUGRIFFE_AUFBEWAHREN_STANDARD,
        validators=[MinValueValidator(1), MaxValueValidator(120)],
        help_text="So lange bleibt im Zugriffsprotokoll stehen, wer eine Akte oder ein Dokument gelesen hat "
                  "(Seite, API, Helena); ältere Einträge löscht Helena von selbst. Standard: 12 Monate – "
                  "lang genug, um eine Beschwerde oder einen Verdachtsfall zu klären, kurz genug für die "
                  "Speicherbegrenzung der DSGVO. 1 bis 120 Monate.")
    # Sessions (akten/accounts/sitzungen.py): a forgotten browser in the office or at home ends by itself.
    sitzung_leerlauf_minuten = models.PositiveIntegerField(
        "Abmeldung nach Untätigkeit (Minuten)", default=480,
        validators=[MinValueValidator(5), MaxValueValidator(7 * 24 * 60)],
        help_text="Wer so lange nichts in Helena getan hat, muss sich neu anmelden. Standard: 480 "
                  "(8 Stunden); 5 bis 10080 (eine Woche).")
    sitzung_hoechstdauer_stunden = models.PositiveIntegerField(
        "Höchstdauer einer Anmeldung (Stunden)", default=24,
        validators=[MinValueValidator(1), MaxValueValidator(30 * 24)],
        help_text="So lange nach der Anmeldung endet jede Sitzung, auch wenn gearbeitet wird. Standard: 24; "
                  "1 bis 720 (30 Tage). Eine kürzere Dauer gilt sofort für alle Sitzungen, eine längere für "
                  "Anmeldungen ab dem Speichern.")
    # akten/accounts/zweitfaktor/: whose login needs a second factor (TOTP) after the password.
    zweiter_faktor_rollen = RollenField(
        models.CharField(max_length=20, choices=Role.choices), default=zweiter_faktor_rollen_standard,
        blank=True, verbose_name="Zweiter Faktor Pflicht für",
        help_text="Wer eine dieser Rollen hat, muss nach dem Passwort einen Code aus einer App "
                  "(Zwei-Faktor-Anmeldung) eingeben und ihn vorher einrichten; bis dahin geht nichts "
                  "anderes. Standard: Administrator und Rechtsanwalt/Rechtsanwältin. Die Verwaltung "
                  "(/admin/) verlangt ihn von jedem. Gilt ab der nächsten Seite, die jemand öffnet.")
    geaendert_am = models.DateTimeField("geändert am", auto_now=True)

    class Meta:
        verbose_name = "Kanzleieinstellung"
        verbose_name_plural = "Kanzleieinstellungen"

    def __str__(self) -> str:
        return "Kanzleieinstellungen"

    def clean(self) -> None:
        try:
            pruefe_muster(self.aktenzeichen_muster)
        except MusterFehler as exc:
            raise ValidationError({"aktenzeichen_muster": str(exc)}) from None

    @classmethod
    def aktuell(cls) -> Kanzleieinstellung:
        """The one row (made with the defaults the first time it is asked for)."""
        return cls.objects.order_by("pk").first() or cls.objects.create()
