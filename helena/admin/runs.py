"""Conversations, runs and the tool audit in the admin, read-only: an audit log that can be edited is
none."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from config.admin_base import ReadOnlyAdminMixin
from helena.models import (
    AgentRun,
    Conversation,
    Message,
    RunEvent,
    ToolCallLog,
)


@admin.register(ToolCallLog)
class ToolCallLogAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "tool", "ok", "error_code", "user", "akte", "duration_ms", "summary")
    list_filter = ("tool", "ok", "error_code", "user")
    search_fields = ("tool", "summary", "error", "run_id", "user__username", "akte__aktenzeichen")
    list_select_related = ("user", "akte")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in ToolCallLog._meta.fields]


# --- settings ------------------------------------------------------------------------------


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
