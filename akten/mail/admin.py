"""„Hinweis-E-Mails“ in the Verwaltung, read only: to whom, which Hinweise, what it said, how often it
was tried and the last error in German — the answer to „warum kam keine E-Mail?“. Nobody edits or
deletes one (that would let a Hinweis be mailed again)."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html_join

from akten.models import HinweisMail
from config.admin_base import ReadOnlyAdminMixin


@admin.register(HinweisMail)
class HinweisMailAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("angelegt_am", "empfaenger", "adresse", "status", "betreff", "versuche", "gesendet_am")
    list_filter = ("status",)
    search_fields = ("empfaenger__username", "adresse", "betreff")
    date_hierarchy = "angelegt_am"
    list_select_related = ("empfaenger",)
    fields = ("empfaenger", "adresse", "status", "grund", "versuche", "letzter_fehler", "angelegt_am",
              "letzter_versuch_am", "gesendet_am", "betreff", "text", "hinweis_liste")
    readonly_fields = fields

    @admin.display(description="Hinweise dieser E-Mail")
    def hinweis_liste(self, obj: HinweisMail) -> str:
        hinweise = obj.hinweise.select_related("akte").order_by("pk")
        zeilen = ((h.get_art_display(), h.message) for h in hinweise)
        return format_html_join("", "<p>{} – {}</p>", zeilen) or "—"
