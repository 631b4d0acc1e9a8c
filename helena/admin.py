"""Admin for Helena's audit trail: read-only, because an audit log that can be edited is none."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from helena.models import ToolCallLog


@admin.register(ToolCallLog)
class ToolCallLogAdmin(admin.ModelAdmin):
    list_display = ("created_at", "tool", "ok", "error_code", "user", "akte", "duration_ms", "summary")
    list_filter = ("tool", "ok", "error_code", "user")
    search_fields = ("tool", "summary", "error", "run_id", "user__username", "akte__aktenzeichen")
    list_select_related = ("user", "akte")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in ToolCallLog._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ToolCallLog | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ToolCallLog | None = None) -> bool:
        return False
