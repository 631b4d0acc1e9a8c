"""What the firm's admin sets in the Django admin: model tiers, task routes, Helena's settings, rate
limits."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models

from helena.llm.dialects import profiles as dialect_profiles

DIALECT_CHOICES = dialect_profiles.CHOICES


class ModelTier(models.Model):
    """Which model serves tier 1 (small), 2 (large) or 3 (usually cloud). Local or cloud is a matter of
    where it runs (`standort`, helena.llm.locality), not of the wire format."""

    class Provider(models.TextChoices):
        OLLAMA = "ollama", "Ollama"
        OPENAI = "openai", "OpenAI-kompatibel (vLLM, llama.cpp, LiteLLM, Cloud …)"

    tier = models.PositiveSmallIntegerField("Stufe", unique=True, choices=[(1, "1 – klein"), (2, "2 – groß"),
                                                                          (3, "3 – Cloud")])
    provider = models.CharField(max_length=10, choices=Provider.choices)
    model_name = models.CharField("Modell", max_length=200)
    base_url = models.CharField("Adresse", max_length=300, blank=True,
                                help_text="Leer: OLLAMA_HOST bzw. OPENAI_BASE_URL aus der Umgebung.")
    context_window = models.PositiveIntegerField("Kontextfenster (überschreibt)", null=True, blank=True)
    dialect = models.CharField(
        "Format der Werkzeugaufrufe", max_length=30, default="auto", choices=DIALECT_CHOICES,
        help_text="Wie das Modell Werkzeugaufrufe und Überlegungen schreibt. „automatisch“ erkennt es am "
                  "Modellnamen und an Ollamas /api/show; ein festes Format nur für Modelle, die die "
                  "Erkennung verfehlt.",
    )
    standort = models.CharField(
        "Standort", max_length=10, default="auto",
        choices=[("auto", "automatisch (nach Adresse)"), ("intern", "intern (im Haus)"),
                 ("extern", "extern (Cloud)")],
        help_text="Wo das Modell läuft. „automatisch“: eine Adresse auf diesem Rechner oder im privaten "
                  "Netz (127.0.0.1, 10.x, 192.168.x, Rechnername ohne Domain, .local/.internal/.lan) ist "
                  "intern, jede andere Cloud; Stufe 3 gilt als Cloud, solange sie nicht als intern markiert "
                  "ist. Ein Cloud-Modell wird erst nach der Cloud-Freigabe genutzt und erhält nur "
                  "pseudonymisierte Daten.",
    )
    enabled = models.BooleanField("aktiv", default=True)
    price_input_per_1k = models.DecimalField("Preis je 1.000 Eingabe-Tokens (EUR)", max_digits=10,
                                             decimal_places=6, default=Decimal("0"))
    price_output_per_1k = models.DecimalField("Preis je 1.000 Ausgabe-Tokens (EUR)", max_digits=10,
                                              decimal_places=6, default=Decimal("0"))

    class Meta:
        verbose_name = "Modellstufe"
        verbose_name_plural = "Modellstufen"
        ordering = ["tier"]

    def __str__(self) -> str:
        return f"Stufe {self.tier}: {self.model_name} ({self.provider})"


class TaskRoute(models.Model):
    """A task type (e.g. schriftsatz) that should run on a given tier."""

    task_type = models.CharField("Aufgabentyp", max_length=40, unique=True)
    tier = models.PositiveSmallIntegerField("bevorzugte Stufe",
                                            choices=[(1, "1"), (2, "2"), (3, "3 – Cloud")])

    class Meta:
        verbose_name = "Aufgaben-Routing"
        verbose_name_plural = "Aufgaben-Routing"

    def __str__(self) -> str:
        return f"{self.task_type} → Stufe {self.tier}"


class HelenaSettings(models.Model):
    """Firm-wide switches (one row): cloud opt-in with its legal confirmation, loop limits."""

    cloud_allowed = models.BooleanField("Cloud freigegeben", default=False)
    cloud_confirmed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                           blank=True, related_name="+", verbose_name="bestätigt von")
    cloud_confirmed_at = models.DateTimeField("bestätigt am", null=True, blank=True)
    cloud_confirmation = models.TextField(
        "Bestätigung", blank=True,
        help_text="Wer bestätigt, dass die Verträge nach § 43e BRAO und Art. 28 DSGVO geschlossen sind.",
    )
    llm_classifier = models.BooleanField("LLM-Klassifikator (Stufe 1) verwenden", default=False)
    inline_max_steps = models.PositiveSmallIntegerField(default=5)
    background_max_steps = models.PositiveSmallIntegerField(default=20)
    inline_timeout_s = models.PositiveIntegerField(default=30)
    background_timeout_s = models.PositiveIntegerField(default=180)
    max_tool_calls_per_turn = models.PositiveSmallIntegerField(default=8)
    max_concurrent_runs_per_user = models.PositiveSmallIntegerField(default=3)

    class Meta:
        verbose_name = "Helena-Einstellungen"
        verbose_name_plural = "Helena-Einstellungen"

    def __str__(self) -> str:
        return "Helena-Einstellungen"

    @classmethod
    def load(cls) -> HelenaSettings:
        obj, _ = cls.objects.get_or_create(pk=1)
        return obj


class RateLimit(models.Model):
    """Runs per hour: for a role, or for one user (the user row wins)."""

    role = models.CharField("Rolle", max_length=20, blank=True)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                                related_name="rate_limit")
    runs_per_hour = models.PositiveIntegerField("Läufe je Stunde")

    class Meta:
        verbose_name = "Ratenlimit"
        verbose_name_plural = "Ratenlimits"
        constraints = [
            models.CheckConstraint(condition=~models.Q(role="") | models.Q(user__isnull=False),
                                   name="ratelimit_role_or_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user or self.role}: {self.runs_per_hour}/h"


