"""„Zugriffsprotokoll (wer hat gelesen)“ in the Verwaltung, read only: nobody edits or deletes a row by
hand (the hourly task deletes what is older than the Kanzleieinstellung's period)."""

from __future__ import annotations

from django.contrib import admin

from akten.models import Lesezugriff
from config.admin_base import ReadOnlyAdminMixin


@admin.register(Lesezugriff)
class LesezugriffAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("zeitpunkt", "person", "aktenzeichen", "weg", "bereich", "dokument_titel", "format")
    list_filter = ("weg", "bereich")
    search_fields = ("person", "user__username", "aktenzeichen", "dokument_titel")
    date_hierarchy = "zeitpunkt"
    fields = ("zeitpunkt", "user", "person", "akte", "aktenzeichen", "weg", "bereich", "objekt_id",
              "dokument", "dokument_titel", "format", "run_id")
    readonly_fields = fields
    show_full_result_count = False  # a large log: no COUNT(*) over all of it on every page
