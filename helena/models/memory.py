"""Helena's memory of an Akte: what she keeps current about it between conversations. Its German name
is "Was Helena über die Akte weiß" — "Erinnerung" is a legal remedy and a reminder letter to a lawyer."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AktenGedaechtnis(models.Model):
    akte = models.OneToOneField("akten.Akte", on_delete=models.CASCADE, related_name="gedaechtnis",
                                verbose_name="Akte")
    zusammenfassung = models.TextField("Zusammenfassung", blank=True)
    risiken = models.JSONField("Risiken", default=list, blank=True)
    naechste_schritte = models.JSONField("nächste Schritte", default=list, blank=True)
    offene_fragen = models.JSONField("offene Fragen", default=list, blank=True)
    stand = models.DateTimeField("Stand", null=True, blank=True)
    geschrieben_von = models.CharField("geschrieben von", max_length=200, blank=True,
                                       help_text="Das Modell, das es zuletzt aufgeschrieben hat.")
    llm_call = models.ForeignKey("helena.LLMCall", on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="+", verbose_name="Modellaufruf")
    korrigiert_von = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                       blank=True, related_name="+", verbose_name="korrigiert von")
    korrigiert_am = models.DateTimeField("korrigiert am", null=True, blank=True)
    angefordert_am = models.DateTimeField(
        "Auffrischung angefordert", null=True, blank=True,
        help_text="Die Akte hat sich geändert; Helena schreibt es kurz danach neu auf.")
    fehler = models.TextField("letzter Fehler", blank=True)

    class Meta:
        verbose_name = "Was Helena über eine Akte weiß"
        verbose_name_plural = "Was Helena über die Akten weiß"

    def __str__(self) -> str:
        return f"Was Helena über {self.akte} weiß"

    def as_dict(self) -> dict:
        return {"zusammenfassung": self.zusammenfassung, "risiken": self.risiken,
                "naechste_schritte": self.naechste_schritte, "offene_fragen": self.offene_fragen,
                "stand": self.stand, "run_id": None}
