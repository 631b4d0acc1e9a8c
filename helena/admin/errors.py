"""The error log in the admin: what broke, filterable, with a daily count above the list.

Read-only like every log. A row links to the run, the tool audit row and the ledger row it belongs
to, so the details are one click away and nothing is copied. A row that stands for repeated
failures says how often and when last ("×16, zuletzt 14:32"); times are local, like the admin's.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html

from helena.infra.errorlog import errors_per_day
from helena.models import ErrorLog


def _link(view: str, pk: Any, label: str) -> str:
    if pk is None:
        return "–"
    return format_html('<a href="{}">{}</a>', reverse(view, args=[pk]), label)


@admin.register(ErrorLog)
class ErrorLogAdmin(admin.ModelAdmin):
    list_display = ("created_at", "wie_oft", "kind", "code", "kurz", "tool", "model", "context_type", "mode",
                    "user", "lauf", "werkzeugaufruf", "modellaufruf")
    list_filter = ("kind", "code", "context_type", "mode", "tool", "model", "created_at")
    search_fields = ("code", "message", "tool", "model", "user__username")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    readonly_fields = ("created_at", "anzahl", "zuletzt_am", "kind", "code", "message", "context_type",
                       "mode", "tool", "model", "user", "lauf", "werkzeugaufruf", "modellaufruf")
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="Häufigkeit", ordering="anzahl")
    def wie_oft(self, obj: ErrorLog) -> str:
        return obj.haeufigkeit

    @admin.display(description="Meldung")
    def kurz(self, obj: ErrorLog) -> str:
        return obj.message if len(obj.message) <= 120 else obj.message[:119] + "…"

    @admin.display(description="Lauf")
    def lauf(self, obj: ErrorLog) -> str:
        return _link("admin:helena_agentrun_change", obj.run_id, "Lauf")

    @admin.display(description="Werkzeugaufruf")
    def werkzeugaufruf(self, obj: ErrorLog) -> str:
        return _link("admin:helena_toolcalllog_change", obj.tool_call_id, f"#{obj.tool_call_id}")

    @admin.display(description="Modellaufruf")
    def modellaufruf(self, obj: ErrorLog) -> str:
        return _link("admin:helena_llmcall_change", obj.llm_call_id, f"#{obj.llm_call_id}")

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        extra_context = {**(extra_context or {}), "per_day": errors_per_day(),
                         "kind_labels": [label for _, label in ErrorLog.Kind.choices]}
        return super().changelist_view(request, extra_context)
