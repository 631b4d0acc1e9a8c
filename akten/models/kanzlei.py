"""How the firm keeps its records (one row, in the admin): its Aktenzeichen scheme and whether a
Notfrist needs a second person before it counts as erledigt."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models

from akten.aktenzeichen import MusterFehler, pruefe_muster


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
