"""The usage ledger in the admin, read-only: every model call with tokens and cost, and the page
"Nutzung je Benutzer und Monat" (what the firm spends, and on whom)."""

from __future__ import annotations

from decimal import Decimal

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from config.admin_base import ReadOnlyAdminMixin
from helena.llm.wrappers.accounting import usage_per_user_month
from helena.models import (
    LLMCall,
)


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
