"""What the firm's admin sets in the Django admin: model tiers, task routes, Helena's settings, rate
limits."""

from __future__ import annotations

import copy
from decimal import Decimal

from django.conf import settings
from django.db import models

from akten.models import Role
from helena.infra import settings_cache
from helena.llm.dialects import profiles as dialect_profiles

DIALECT_CHOICES = dialect_profiles.CHOICES
TIER_CHOICES = [(1, "1 – klein"), (2, "2 – groß"), (3, "3 – Cloud")]


class ModelTier(models.Model):
    """Which model serves tier 1 (small), 2 (large) or 3 (usually cloud). Local or cloud is a matter of
    where it runs (`standort`, helena.llm.locality), not of the wire format."""

    class Provider(models.TextChoices):
        OLLAMA = "ollama", "Ollama"
        OPENAI = "openai", "OpenAI-kompatibel (vLLM, llama.cpp, LiteLLM, Cloud …)"

    tier = models.PositiveSmallIntegerField(
        "Stufe", unique=True, choices=TIER_CHOICES,
        help_text="Welche Aufgaben dieses Modell übernimmt: Stufe 1 kurze Nachschlagefragen, Stufe 2 "
                  "alles andere (Entwürfe, Schriftsätze, Recherche), Stufe 3 ein großes Modell, meist in der "
                  "Cloud. Je Stufe gibt es einen Eintrag. Ohne Eintrag gilt für die Stufe die "
                  "Server-Konfiguration.",
    )
    provider = models.CharField(
        "Schnittstelle", max_length=10, choices=Provider.choices,
        help_text="Wie Helena mit dem Modell-Server spricht: „Ollama“ für einen Ollama-Server, "
                  "„OpenAI-kompatibel“ für vLLM, llama.cpp, LiteLLM oder einen Cloud-Anbieter. Kein "
                  "Standard: wähle, was dein Server anbietet.",
    )
    model_name = models.CharField(
        "Modell", max_length=200,
        help_text="Der Name des Modells, wie der Server ihn kennt, z. B. „qwen3:14b“. Kein Standard.",
    )
    base_url = models.CharField(
        "Adresse", max_length=300, blank=True,
        help_text="Adresse des Modell-Servers, z. B. http://127.0.0.1:11434. Standard: leer – dann gilt die "
                  "Adresse aus der Server-Konfiguration (OLLAMA_HOST bzw. OPENAI_BASE_URL).",
    )
    context_window = models.PositiveIntegerField(
        "Kontextfenster (überschreibt)", null=True, blank=True,
        help_text="Wie viele Tokens das Modell auf einmal lesen darf. Standard: leer – dann gilt, was der "
                  "Ollama-Server meldet, bei OpenAI-kompatiblen Servern 128.000. Trag nur eine Zahl ein, "
                  "wenn du das Fenster begrenzen oder festlegen willst.",
    )
    dialect = models.CharField(
        "Format der Werkzeugaufrufe", max_length=30, default="auto", choices=DIALECT_CHOICES,
        help_text="Wie das Modell Werkzeugaufrufe und Überlegungen schreibt. „automatisch“ erkennt es am "
                  "Modellnamen und an Ollamas /api/show; ein festes Format nur für Modelle, die die "
                  "Erkennung verfehlt. Standard: automatisch erkennen.",
    )
    standort = models.CharField(
        "Standort", max_length=10, default="auto",
        choices=[("auto", "automatisch (nach Adresse)"), ("intern", "intern (im Haus)"),
                 ("extern", "extern (Cloud)")],
        help_text="Wo das Modell läuft. „automatisch“: eine Adresse auf diesem Rechner oder im privaten "
                  "Netz (127.0.0.1, 10.x, 192.168.x, Rechnername ohne Domain, .local/.internal/.lan) ist "
                  "intern, jede andere Cloud; Stufe 3 gilt als Cloud, solange sie nicht als intern markiert "
                  "ist. Ein Cloud-Modell wird erst nach der Cloud-Freigabe genutzt und erhält nur "
                  "pseudonymisierte Daten. Standard: automatisch.",
    )
    enabled = models.BooleanField(
        "aktiv", default=True,
        help_text="Aus: Helena nutzt diese Stufe nicht (auch nicht das Modell aus der Server-Konfiguration) "
                  "und weicht auf eine andere Stufe aus. Ein Cloud-Modell lässt sich erst nach der "
                  "Cloud-Freigabe einschalten. Standard: an.",
    )
    price_input_per_1k = models.DecimalField(
        "Preis je 1.000 Eingabe-Tokens (EUR)", max_digits=10, decimal_places=6, default=Decimal("0"),
        help_text="Was der Anbieter für 1.000 Tokens berechnet, die Helena an das Modell schickt; daraus "
                  "rechnet Helena die Kosten unter „Modellaufrufe“. Standard: 0 (eigener Server).",
    )
    price_output_per_1k = models.DecimalField(
        "Preis je 1.000 Ausgabe-Tokens (EUR)", max_digits=10, decimal_places=6, default=Decimal("0"),
        help_text="Was der Anbieter für 1.000 Tokens berechnet, die das Modell zurückschreibt. "
                  "Standard: 0 (eigener Server).",
    )

    class Meta:
        verbose_name = "Modellstufe"
        verbose_name_plural = "Modellstufen"
        ordering = ["tier"]

    def __str__(self) -> str:
        return f"Stufe {self.tier}: {self.model_name} ({self.provider})"


class TaskRoute(models.Model):
    """A task type (e.g. schriftsatz) that should run on a given tier."""

    task_type = models.CharField(
        "Aufgabentyp", max_length=40, unique=True,
        help_text="Der Aufgabentyp, den Helenas Einstufung vergibt: „frage“, „recherche“, „entwurf“ oder "
                  "„schriftsatz“ (siehe „Aufgabentyp“ bei den Agenten-Läufen). Kein Standard.",
    )
    tier = models.PositiveSmallIntegerField(
        "bevorzugte Stufe", choices=TIER_CHOICES,
        help_text="Auf welcher Stufe Aufgaben dieses Typs laufen. Ohne Eintrag gilt Helenas eigene "
                  "Einstufung (kurze Nachschlagefragen Stufe 1, sonst Stufe 2). Stufe 3 gilt erst nach der "
                  "Cloud-Freigabe, bis dahin Stufe 2.",
    )

    class Meta:
        verbose_name = "Aufgaben-Routing"
        verbose_name_plural = "Aufgaben-Routing"

    def __str__(self) -> str:
        return f"{self.task_type} → Stufe {self.tier}"


class HelenaSettings(models.Model):
    """Firm-wide switches (one row): cloud opt-in with its legal confirmation, loop limits."""

    cloud_allowed = models.BooleanField(
        "Cloud freigegeben", default=False,
        help_text="Erst wenn du das einschaltest, nutzt Helena Modelle außerhalb der Kanzlei (Stufe 3 oder "
                  "als „extern“ markierte Modelle), und auch dann nur mit pseudonymisierten Daten. Dafür "
                  "brauchst du die Bestätigung darunter. Standard: aus.",
    )
    cloud_confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name="bestätigt von",
        help_text="Trägt Helena beim Freigeben selbst ein: wer die Cloud freigegeben hat. Standard: leer.",
    )
    cloud_confirmed_at = models.DateTimeField(
        "bestätigt am", null=True, blank=True,
        help_text="Trägt Helena beim Freigeben selbst ein: wann die Cloud freigegeben wurde. Standard: leer.",
    )
    cloud_confirmation = models.TextField(
        "Bestätigung", blank=True,
        help_text="Trag hier ein, wer bestätigt, dass die Verträge nach § 43e BRAO und Art. 28 DSGVO "
                  "geschlossen sind, und auf welcher Grundlage. Pflicht, wenn die Cloud freigegeben ist. "
                  "Standard: leer.",
    )
    llm_classifier = models.BooleanField(
        "LLM-Klassifikator (Stufe 1) verwenden", default=False,
        help_text="An: Zusätzlich zu den festen Regeln schätzt das kleine Modell (Stufe 1) jede Anfrage ein "
                  "– im Chat oder im Hintergrund, welche Stufe. Das kostet vor jeder Antwort etwas Zeit. "
                  "Aus: nur die festen Regeln entscheiden. Standard: aus.",
    )
    antwort_in_sprache_der_frage = models.BooleanField(
        "In der Sprache der Frage antworten", default=False,
        help_text="Aus: Helena antwortet immer auf Deutsch, auch auf eine englische Frage (Seed 001). "
                  "An: Eine Frage in einer anderen Sprache (z. B. eines ausländischen Mandanten) beantwortet "
                  "sie in dieser Sprache. Standard: aus.",
    )
    inline_max_steps = models.PositiveSmallIntegerField(
        "Schritte im Chat (höchstens)", default=5,
        help_text="Wie viele Schritte (je ein Modellaufruf mit seinen Werkzeugen) Helena für eine Anfrage im "
                  "Chat höchstens macht; danach antwortet sie mit dem, was sie bis dahin hat, und bietet an, "
                  "im Hintergrund weiterzumachen. Standard: 5.",
    )
    background_max_steps = models.PositiveSmallIntegerField(
        "Schritte im Hintergrund (höchstens)", default=20,
        help_text="Wie viele Schritte Helena für einen Auftrag im Hintergrund (Entwürfe, Recherche) "
                  "höchstens macht. Standard: 20.",
    )
    inline_timeout_s = models.PositiveIntegerField(
        "Zeitlimit im Chat (Sekunden)", default=30,
        help_text="Wie lange Helena an einer Anfrage im Chat höchstens arbeitet, bevor sie abbricht und "
                  "Bescheid gibt. Standard: 30 Sekunden.",
    )
    background_timeout_s = models.PositiveIntegerField(
        "Zeitlimit im Hintergrund (Sekunden)", default=180,
        help_text="Wie lange ein Auftrag im Hintergrund höchstens läuft. Standard: 180 Sekunden (3 Minuten).",
    )
    max_tool_calls_per_turn = models.PositiveSmallIntegerField(
        "Werkzeugaufrufe je Schritt (höchstens)", default=8,
        help_text="Wie viele Werkzeuge (z. B. Aktensuche, Fristberechnung) Helena in einem Schritt höchstens "
                  "aufruft; weitere Aufrufe dieses Schritts lässt sie weg. Standard: 8.",
    )
    max_concurrent_runs_per_user = models.PositiveSmallIntegerField(
        "gleichzeitige Läufe je Benutzer (höchstens)", default=3,
        help_text="Wie viele Anfragen eine Person gleichzeitig an Helena laufen lassen darf; eine weitere "
                  "lehnt Helena ab, bis eine fertig ist. 0 sperrt Helena für alle. Standard: 3.",
    )

    class Meta:
        verbose_name = "Helena-Einstellungen"
        verbose_name_plural = "Helena-Einstellungen"

    def __str__(self) -> str:
        return "Helena-Einstellungen"

    @classmethod
    def load(cls) -> HelenaSettings:
        """The row from the database (to change it)."""
        obj, _ = cls.objects.get_or_create(pk=1)
        return obj

    @classmethod
    def cached(cls) -> HelenaSettings:
        """The row as last read in this process (helena/infra/settings_cache.py), a copy of its own to
        read."""
        return copy.copy(settings_cache.cached("helena_settings", cls.load))


class RateLimit(models.Model):
    """Runs per hour: for a role, or for one user (the user row wins)."""

    role = models.CharField(
        "Rolle", max_length=20, blank=True, choices=Role.choices,
        help_text="Das Limit gilt für alle Benutzer dieser Rolle. Gib entweder eine Rolle oder einen "
                  "Benutzer an, nicht beides. Standard: leer.",
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="rate_limit",
        verbose_name="Benutzer",
        help_text="Das Limit gilt nur für diese Person und geht dem ihrer Rolle vor. Standard: leer.",
    )
    runs_per_hour = models.PositiveIntegerField(
        "Läufe je Stunde",
        help_text="Wie viele Anfragen an Helena in einer Stunde erlaubt sind; 0 sperrt Helena. Ohne "
                  "passenden Eintrag gilt der Wert aus der Server-Konfiguration "
                  "(HELENA_RATE_LIMIT_PER_HOUR, Standard: 60).",
    )

    class Meta:
        verbose_name = "Ratenlimit"
        verbose_name_plural = "Ratenlimits"
        constraints = [
            models.CheckConstraint(condition=~models.Q(role="") | models.Q(user__isnull=False),
                                   name="ratelimit_role_or_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user or self.get_role_display()}: {self.runs_per_hour} je Stunde"


