"""Helena's limits in the admin: the settings of every run (steps, timeouts, tool calls, budget)
and the rate limits per role."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone

from akten.models import Role
from helena.admin.tiers import rate_limit_default
from helena.llm import router
from helena.models import (
    HelenaSettings,
    RateLimit,
)
from helena.tools.handlers.web import search_url


class HelenaSettingsForm(forms.ModelForm):
    class Meta:
        model = HelenaSettings
        # cloud_confirmed_by/_at are set in save_model, never typed in.
        fields = ("cloud_allowed", "cloud_confirmation", "llm_classifier", "antwort_in_sprache_der_frage",
                  "inline_max_steps", "background_max_steps", "inline_timeout_s", "background_timeout_s",
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
        ("Sprache", {"fields": ("antwort_in_sprache_der_frage",)}),
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

