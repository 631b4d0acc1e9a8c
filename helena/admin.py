"""Admin for Helena: settings the office manager changes, and read-only records (audit, runs, usage).

Records are read-only because an audit log or a usage ledger that can be edited is none.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone

from akten.models import Role
from config.admin_base import ReadOnlyAdminMixin
from helena.admin_tiers import effective_tiers, rate_limit_default
from helena.llm import locality, router
from helena.llm.accounting import usage_per_user_month
from helena.models import (
    AgentRun,
    Conversation,
    HelenaSettings,
    LLMCall,
    Message,
    ModelTier,
    RateLimit,
    RunEvent,
    TaskRoute,
    ToolCallLog,
)
from helena.tools.web import search_url


@admin.register(ToolCallLog)
class ToolCallLogAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "tool", "ok", "error_code", "user", "akte", "duration_ms", "summary")
    list_filter = ("tool", "ok", "error_code", "user")
    search_fields = ("tool", "summary", "error", "run_id", "user__username", "akte__aktenzeichen")
    list_select_related = ("user", "akte")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in ToolCallLog._meta.fields]


# --- settings ------------------------------------------------------------------------------


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


class HelenaSettingsForm(forms.ModelForm):
    class Meta:
        model = HelenaSettings
        # cloud_confirmed_by/_at are set in save_model, never typed in.
        fields = ("cloud_allowed", "cloud_confirmation", "llm_classifier", "inline_max_steps",
                  "background_max_steps", "inline_timeout_s", "background_timeout_s",
                  "max_tool_calls_per_turn", "max_concurrent_runs_per_user")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("cloud_allowed") and not (data.get("cloud_confirmation") or "").strip():
            self.add_error(
                "cloud_confirmation",
                "Die Cloud kann nur freigegeben werden, wenn hier bestätigt wird, dass die Verträge nach "
                "§ 43e BRAO und Art. 28 DSGVO geschlossen sind (wer bestätigt, auf welcher Grundlage).",
            )
        return data


@admin.register(HelenaSettings)
class HelenaSettingsAdmin(admin.ModelAdmin):
    """One row (pk 1, the one HelenaSettings.load() reads); the cloud switch records who confirmed it."""

    form = HelenaSettingsForm
    readonly_fields = ("cloud_confirmed_by", "cloud_confirmed_at", "was_das_haus_verlaesst")
    fieldsets = (
        ("Cloud", {"fields": ("cloud_allowed", "cloud_confirmation", "cloud_confirmed_by",
                              "cloud_confirmed_at", "was_das_haus_verlaesst")}),
        ("Einstufung", {"fields": ("llm_classifier",)}),
        ("Grenzen", {"fields": ("inline_max_steps", "background_max_steps", "inline_timeout_s",
                                "background_timeout_s", "max_tool_calls_per_turn",
                                "max_concurrent_runs_per_user")}),
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and not HelenaSettings.objects.exists()

    @admin.display(description="Was die Kanzlei verlässt")
    def was_das_haus_verlaesst(self, obj: HelenaSettings | None) -> str:
        """Every path on which text leaves the house, so the admin confirms knowingly."""
        clouds = [f"Stufe {c.tier} ({c.name}, {c.host})" for c in router.tier_configs().values() if c.cloud]
        lines = [
            ("Cloud-Modelle: " + ", ".join(clouds) if clouds else "Cloud-Modelle: keine eingerichtet")
            + ". Sie erhalten nur nach der Freigabe Daten, und nur pseudonymisiert: Namen, Anschriften, "
            "Aktenzeichen, E-Mail-Adressen, Telefonnummern, IBANs und Geburtsdaten aller Akten, die ein "
            "Lauf berührt, werden durch Platzhalter ersetzt – im Gespräch, in Werkzeugergebnissen, in "
            "Zusammenfassungen, bei der Einstufung und bei Planprüfungen.",
        ]
        url = search_url()
        lines.append(
            f"Websuche: {url} erhält die Suchanfragen, die Helena formuliert, pseudonymisiert wie oben "
            "(ein SearxNG gibt sie an öffentliche Suchmaschinen weiter)." if url
            else "Websuche: nicht eingerichtet (HELENA_SEARCH_URL), nichts verlässt die Kanzlei."
        )
        return " ".join(lines)

    def has_delete_permission(self, request: HttpRequest, obj: HelenaSettings | None = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        """A list of one row is a detour: go straight to the row."""
        only = HelenaSettings.objects.order_by("pk").first()
        if only is not None and self.has_view_or_change_permission(request, only):
            return HttpResponseRedirect(reverse("admin:helena_helenasettings_change", args=[only.pk]))
        return super().changelist_view(request, extra_context)

    def save_model(self, request: HttpRequest, obj: HelenaSettings, form: forms.ModelForm,
                   change: bool) -> None:
        if not change:
            obj.pk = 1
        confirmation_changed = {"cloud_allowed", "cloud_confirmation"} & set(form.changed_data)
        if obj.cloud_allowed and (confirmation_changed or obj.cloud_confirmed_by_id is None):
            obj.cloud_confirmed_by = request.user
            obj.cloud_confirmed_at = timezone.now()
        super().save_model(request, obj, form, change)


class RateLimitForm(forms.ModelForm):
    role = forms.ChoiceField(label="Rolle", choices=[("", "—"), *Role.choices], required=False,
                             help_text=RateLimit._meta.get_field("role").help_text)

    class Meta:
        model = RateLimit
        fields = ("role", "user", "runs_per_hour")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        role, user = data.get("role"), data.get("user")
        if not role and not user:
            # On the field, so the model's check constraint is not reported a second time.
            self.add_error("role", "Bitte eine Rolle oder einen Benutzer angeben.")
        elif role and user:
            self.add_error("role", "Bitte entweder eine Rolle oder einen Benutzer angeben, nicht beides.")
        elif role and RateLimit.objects.filter(user__isnull=True, role=role).exclude(
            pk=self.instance.pk
        ).exists():
            self.add_error("role", "Für diese Rolle gibt es bereits ein Limit.")
        return data


@admin.register(RateLimit)
class RateLimitAdmin(admin.ModelAdmin):
    form = RateLimitForm
    list_display = ("__str__", "role", "user", "runs_per_hour")
    list_filter = ("role",)
    search_fields = ("role", "user__username")
    list_select_related = ("user",)

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        return super().changelist_view(request, {**(extra_context or {}), "standard": rate_limit_default()})


# --- conversations and runs ---------------------------------------------------------------------


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("created_at", "role", "text", "run")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    """View only; deleting stays possible (data protection requests)."""

    list_display = ("__str__", "user", "context_type", "akte", "archiviert", "geloescht_am", "updated_at")
    list_filter = ("context_type", "archiviert", ("geloescht_am", admin.EmptyFieldListFilter), "user")
    search_fields = ("title", "user__username", "akte__aktenzeichen")
    list_select_related = ("user", "akte")
    date_hierarchy = "updated_at"
    readonly_fields = [f.name for f in Conversation._meta.fields]
    inlines = [MessageInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Conversation | None = None) -> bool:
        return False


class RunEventInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = RunEvent
    fields = ("seq", "type", "payload", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(AgentRun)
class AgentRunAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "user", "status", "mode", "tier", "model", "finish_reason",
                    "prompt_tokens", "completion_tokens", "cost")
    list_filter = ("status", "mode", "tier", "provider", "finish_reason", "task_type", "user")
    search_fields = ("user__username", "model", "task_type", "text")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in AgentRun._meta.fields]
    inlines = [RunEventInline]


# --- usage ledger ------------------------------------------------------------------------------------


@admin.register(LLMCall)
class LLMCallAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "user", "provider", "model", "tier", "operation", "context_type",
                    "prompt_tokens", "completion_tokens", "latency_ms", "cost", "error")
    list_filter = ("provider", "model", "operation", "tier", "user")
    search_fields = ("model", "operation", "user__username", "error")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in LLMCall._meta.fields]

    def get_urls(self) -> list[URLPattern]:
        usage = path("usage/", self.admin_site.admin_view(self.usage_view), name="helena_llmcall_usage")
        return [usage, *super().get_urls()]  # before the catch-all object URLs

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        extra_context = {**(extra_context or {}), "usage_url": reverse("admin:helena_llmcall_usage")}
        return super().changelist_view(request, extra_context)

    def usage_view(self, request: HttpRequest) -> HttpResponse:
        """Calls, tokens and cost per user and month: what the firm spends, and on whom."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        rows = usage_per_user_month()
        totals = {
            "calls": sum(r.calls for r in rows),
            "prompt_tokens": sum(r.prompt_tokens for r in rows),
            "completion_tokens": sum(r.completion_tokens for r in rows),
            "cost": sum((r.cost for r in rows), Decimal("0")),
        }
        context = {
            **self.admin_site.each_context(request),
            "title": "Nutzung je Benutzer und Monat",
            "opts": self.opts,
            "rows": rows,
            "totals": totals,
            "changelist_url": reverse("admin:helena_llmcall_changelist"),
        }
        return TemplateResponse(request, "admin/helena/llm_usage.html", context)


from helena import admin_errors, admin_plans  # noqa: E402, F401  (register the error log, plans, questions)
