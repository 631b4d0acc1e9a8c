"""Admin for drafts: a read-only ledger with filters; decisions happen on the cards and the API,
where the role and Akte checks and the row lock live (an admin edit would bypass them)."""

from __future__ import annotations

from django.contrib import admin

from config.admin_base import ReadOnlyAdminMixin
from drafts.models import Draft, DraftEvent


class DraftEventInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = DraftEvent
    extra = 0
    fields = ("at", "action", "user", "details")
    readonly_fields = fields


@admin.register(Draft)
class DraftAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "kind", "draft_title", "status", "akte", "requested_by", "decided_by",
                    "decided_at")
    list_filter = ("status", "kind", "akte", "created_at", "decided_at", "requested_by", "decided_by")
    search_fields = ("akte__aktenzeichen", "akte__kurzrubrum", "requested_by__username", "rejection_reason",
                     "id")
    list_select_related = ("akte", "requested_by", "decided_by")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in Draft._meta.fields]
    inlines = [DraftEventInline]

    @admin.display(description="Titel")
    def draft_title(self, obj: Draft) -> str:
        return obj.title


@admin.register(DraftEvent)
class DraftEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("at", "action", "draft", "user")
    list_filter = ("action", "at", "user")
    search_fields = ("draft__id", "user__username")
    list_select_related = ("draft", "user")
    date_hierarchy = "at"
    readonly_fields = [f.name for f in DraftEvent._meta.fields]
