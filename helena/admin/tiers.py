"""What the admin sees above the model tiers and rate limits: the configuration in effect.

Without a row a tier comes from the server configuration (HELENA_TIER1_MODEL …, OLLAMA_HOST),
which the list of rows alone would hide ("0 Modellstufen" while qwen3:4b answers every run). So
the list shows each tier as the router reads it right now, where it comes from, whether it runs
in the house or in the cloud, and whether its server answers; the rate limits show their default.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django import forms
from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from helena.llm import locality, router
from helena.llm.providers import health
from helena.models import HelenaSettings, ModelTier, TaskRoute

NAMES = {1: "Stufe 1 – klein, schnell", 2: "Stufe 2 – groß, lokal", 3: "Stufe 3 – Cloud"}


def _reachable(config: router.TierConfig) -> str:
    if not config.health_checked:
        return "wird beim ersten Aufruf geprüft"
    return "ja" if async_to_sync(health.is_healthy)(config.host) else "nein – der Server antwortet nicht"


def effective_tiers() -> list[dict[str, Any]]:
    """One row per tier: in effect (from a row or the environment), switched off, or not set up."""
    configs = router.tier_configs()
    rows = {row.tier: row for row in ModelTier.objects.all()}
    out = []
    for tier in router.TIERS:
        config, row = configs.get(tier), rows.get(tier)
        if config is None:
            out.append({"stufe": NAMES.get(tier, tier), "modell": "–", "schnittstelle": "–", "adresse": "–",
                        "herkunft": "Eintrag unten, ausgeschaltet" if row else "nicht eingerichtet",
                        "standort": "–", "erreichbar": "–"})
            continue
        out.append({
            "stufe": NAMES.get(tier, tier),
            "modell": config.name,
            "schnittstelle": "Ollama" if config.provider == "ollama" else "OpenAI-kompatibel",
            "adresse": config.host,
            "herkunft": "Eintrag unten" if config.source == "admin" else "Server-Konfiguration (Umgebung)",
            "standort": locality.describe(url=config.host, tier=tier, standort=config.standort),
            "erreichbar": _reachable(config),
        })
    return out


def rate_limit_default() -> int:
    return settings.HELENA_RATE_LIMIT_PER_HOUR



class ModelTierForm(forms.ModelForm):
    class Meta:
        model = ModelTier
        fields = ("tier", "provider", "model_name", "base_url", "context_window", "dialect",
                  "standort", "enabled", "price_input_per_1k", "price_output_per_1k")

    def clean(self) -> dict[str, Any]:
        """A cloud model cannot be switched on before the firm's opt-in: the router would never call
        it, and an admin who thinks it serves would be misled."""
        data = super().clean()
        if not data.get("enabled") or self.errors:
            return data
        row = ModelTier(**{name: data.get(name) for name in ("tier", "provider", "base_url", "standort")})
        if router.row_is_cloud(row) and not HelenaSettings.load().cloud_allowed:
            where = locality.describe(url=router.row_host(row), tier=row.tier,
                                      standort=row.standort or "auto")
            raise forms.ValidationError(
                f"Dieses Modell läuft außerhalb der Kanzlei ({where}). Aktivieren lässt es sich erst, "
                "wenn die Cloud unter „Helena-Einstellungen“ mit Bestätigung der Verträge nach § 43e BRAO "
                "und Art. 28 DSGVO freigegeben ist. Läuft es auf einem Server der Kanzlei (nicht bei "
                "einem Anbieter), stelle „Standort“ auf „intern“.",
                code="cloud_not_allowed",
            )
        return data


@admin.register(ModelTier)
class ModelTierAdmin(admin.ModelAdmin):
    form = ModelTierForm
    list_display = ("tier", "provider", "model_name", "standort_erkannt", "dialect", "enabled",
                    "price_input_per_1k", "price_output_per_1k")
    list_filter = ("provider", "enabled", "standort")
    ordering = ("tier",)
    readonly_fields = ("standort_erkannt", "erkennung")

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        return super().changelist_view(request, {**(extra_context or {}), "wirksam": effective_tiers()})

    @admin.display(description="Läuft")
    def standort_erkannt(self, obj: ModelTier) -> str:
        """Local or cloud, and why: the admin sees what the router will treat as cloud."""
        if obj is None or not obj.pk:
            return "– (nach dem Speichern)"
        return locality.describe(url=router.row_host(obj), tier=obj.tier, standort=obj.standort or "auto")

    @admin.display(description="Erkannt")
    def erkennung(self, obj: ModelTier) -> str:
        """The dialect Helena uses for this model and what the server reports about it."""
        if obj is None or not obj.pk or not obj.model_name:
            return "– (nach dem Speichern)"
        config = router.tier_configs().get(obj.tier) if obj.enabled else None
        if config is None:
            return "– (Stufe nicht aktiv)"
        found = router.detected_dialect(config, cloud_allowed=HelenaSettings.load().cloud_allowed)
        profile = found["profile"]
        parts = [f"Format: {profile.label}"]
        if found["reachable"] is False:
            parts.append("Server nicht erreichbar – Erkennung nur am Namen")
        elif found["capabilities"] is not None:
            parts.append("Fähigkeiten laut /api/show: " + (", ".join(found["capabilities"]) or "keine"))
        parts.append("Werkzeuge: " + ("über die Schnittstelle (tools-Parameter)" if profile.native_tools
                                      else "im Prompt beschrieben (Server nimmt keine Werkzeuge an)"))
        if profile.reasoning_prefilled:
            parts.append("Überlegung beginnt ohne <think> (Vorlage belegt es vor)")
        return " · ".join(parts)


@admin.register(TaskRoute)
class TaskRouteAdmin(admin.ModelAdmin):
    list_display = ("task_type", "tier")
    list_filter = ("tier",)
    search_fields = ("task_type",)
