"""What the admin sees above the model tiers and rate limits: the configuration in effect.

Without a row a tier comes from the server configuration (HELENA_TIER1_MODEL …, OLLAMA_HOST),
which the list of rows alone would hide ("0 Modellstufen" while qwen3:4b answers every run). So
the list shows each tier as the router reads it right now, where it comes from, whether it runs
in the house or in the cloud, and whether its server answers; the rate limits show their default.
Beside each tier: its last model check (helena/model_check/) and the button that starts the next one
in the Celery worker, so the admin learns whether a model will do before the lawyers find out.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.defaultfilters import date as date_filter
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from config.errors import DomainError
from config.navigation import safe_next
from helena.llm import learned, locality, router
from helena.llm.dialects import profiles
from helena.llm.providers import health
from helena.model_check import services as model_check
from helena.models import HelenaSettings, ModelCheck, ModelTier, TaskRoute

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


def check_summary(check: ModelCheck | None, *, model_name: str = "") -> str:
    """A tier's last model check in one line: when, and what came out (or how far it is)."""
    if check is None:
        return "noch nicht geprüft"
    when = date_filter(timezone.localtime(check.finished_at or check.created_at), "d.m.Y H:i")
    if check.status in (ModelCheck.Status.WARTET, ModelCheck.Status.LAEUFT):
        if check.created_at < timezone.now() - model_check.STALE:  # its worker died; a new start may run
            return f"{when}: {model_check.LOST}"
        done = sum(1 for line in check.lines if line[:3].strip().rstrip(".").isdigit())
        return f"läuft seit {when} ({done} Aufgaben fertig)"
    text = f"{when}: {check.verdict or check.get_status_display()}"
    if model_name and check.model_name and check.model_name != model_name:
        text += f" (geprüft wurde {check.model_name})"
    return text


def learned_rows() -> list[dict[str, Any]]:
    """What Helena learned about models from their servers' answers, newest first, for the list."""
    return [{"modell": fact.model, "server": fact.host, "was": fact.label,
             "seit": timezone.localtime(fact.since), "woran": fact.why,
             "felder": {"provider": fact.provider, "host": fact.host, "model": fact.model, "fact": fact.fact}}
            for fact in learned.learned_facts()]


def check_rows() -> list[dict[str, Any]]:
    """One row per configured tier for the list's „Modellprüfung“: its model and last check."""
    latest = model_check.latest_checks()
    return [{"stufe": NAMES.get(tier, tier), "tier": tier, "modell": config.name,
             "ergebnis": check_summary(latest.get(tier), model_name=config.name),
             "url": reverse("admin:helena_modeltier_modellpruefung", args=[tier])}
            for tier, config in sorted(router.tier_configs().items())]


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
                    "price_input_per_1k", "price_output_per_1k", "pruefung_kurz")
    list_filter = ("provider", "enabled", "standort")
    ordering = ("tier",)
    readonly_fields = ("standort_erkannt", "erkennung", "modellpruefung")
    change_list_template = "admin/helena/modeltier/modellpruefung_liste.html"
    change_form_template = "admin/helena/modeltier/modellpruefung_formular.html"

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        return super().changelist_view(request, {
            **(extra_context or {}), "wirksam": effective_tiers(), "pruefungen": check_rows(),
            "gelernt": learned_rows(), "vergessen_url": reverse("admin:helena_modeltier_vergessen")})

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict | None = None) -> HttpResponse:
        row = ModelTier.objects.filter(pk=object_id).first() if str(object_id).isdigit() else None
        url = reverse("admin:helena_modeltier_modellpruefung", args=[row.tier]) if row else ""
        return super().change_view(request, object_id, form_url,
                                   {**(extra_context or {}), "pruefung_url": url})

    def get_urls(self) -> list[URLPattern]:
        return [path("modellpruefung/<int:tier>/", self.admin_site.admin_view(self.modellpruefung_view),
                     name="helena_modeltier_modellpruefung"),
                path("gelernt/vergessen/", self.admin_site.admin_view(self.vergessen_view),
                     name="helena_modeltier_vergessen"), *super().get_urls()]

    def vergessen_view(self, request: HttpRequest) -> HttpResponse:
        """„Vergessen“: what Helena learned about a model (or about all) is dropped in every process;
        the next call tries the model as new (offers tools again, guesses no pre-fill)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        teile = {name: request.POST.get(name) or None for name in ("provider", "host", "model", "fact")}
        anzahl = learned.forget(**teile)  # nothing given: everything
        messages.success(request, f"{anzahl} gelernte Angabe(n) vergessen. Beim nächsten Aufruf prüft Helena "
                                  "das Modell neu.")
        return HttpResponseRedirect(reverse("admin:helena_modeltier_changelist"))

    def modellpruefung_view(self, request: HttpRequest, tier: int) -> HttpResponse:
        """„Modell prüfen“: the check runs in the Celery worker; its result appears beside the tier."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        try:
            check, new = model_check.start_check(tier=tier, requested_by=request.user)
        except DomainError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, (
                f"Die Modellprüfung für Stufe {tier} ({check.model_name}) läuft im Hintergrund, meist "
                "einige Minuten. Lade die Seite später neu: Das Ergebnis steht dann bei der Stufe."
                if new else f"Für Stufe {tier} läuft schon eine Modellprüfung; ihr Ergebnis steht bald "
                            "bei der Stufe."))
        back = safe_next(request, request.POST.get("next")) or reverse("admin:helena_modeltier_changelist")
        return HttpResponseRedirect(back)

    def _last_check(self, obj: ModelTier) -> ModelCheck | None:
        return ModelCheck.objects.filter(tier=obj.tier).order_by("-created_at").first()

    @admin.display(description="Modellprüfung")
    def pruefung_kurz(self, obj: ModelTier) -> str:
        return check_summary(self._last_check(obj), model_name=obj.model_name)

    @admin.display(description="Modellprüfung")
    def modellpruefung(self, obj: ModelTier) -> str:
        """The last check with its report, line by line (the button above starts the next one)."""
        if obj is None or not obj.pk:
            return "– (nach dem Speichern)"
        check = self._last_check(obj)
        summary = check_summary(check, model_name=obj.model_name)
        if check is None or not check.lines:
            return summary
        return format_html("<p><strong>{}</strong></p><pre style=\"white-space: pre-wrap\">{}</pre>",
                           summary, format_html_join("\n", "{}", ((line,) for line in check.lines)))

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
            quelle = profiles.PREFILL_SOURCES.get(profile.prefill_source, "")
            vermutet = "" if profile.prefill_known else " – vermutet: wird zurückgehalten, bis </think> kommt"
            parts.append(f"Überlegung beginnt ohne <think> ({quelle}){vermutet}" if quelle
                         else f"Überlegung beginnt ohne <think>{vermutet}")
        for fact in found.get("learned") or ():
            seit = timezone.localtime(fact.since).strftime("%d.%m.%Y %H:%M")
            parts.append(f"Gelernt: {fact.label} (seit {seit}, {fact.why})")
        return " · ".join(parts)


@admin.register(TaskRoute)
class TaskRouteAdmin(admin.ModelAdmin):
    list_display = ("task_type", "tier")
    list_filter = ("tier",)
    search_fields = ("task_type",)
