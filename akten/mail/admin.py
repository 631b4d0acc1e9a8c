"""„Hinweis-E-Mails“ in the Verwaltung, read only: to whom, which Hinweise, what it said, how often it
was tried and the last error in German — the answer to „warum kam keine E-Mail?“. Nobody edits or
deletes one (that would let a Hinweis be mailed again). „Erneut senden“ starts a failed one again
(once the address, the sender or the server is put right); a bad HELENA_MAIL_FROM is said on top."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html_join

from akten.mail.services import absender_fehler, mails_erneut_senden
from akten.models import HinweisMail
from akten.tasks import mails_verschicken
from config.admin_base import ReadOnlyAdminMixin


@admin.register(HinweisMail)
class HinweisMailAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("angelegt_am", "empfaenger", "adresse", "status", "betreff", "versuche", "gesendet_am")
    list_filter = ("status",)
    search_fields = ("empfaenger__username", "adresse", "betreff")
    date_hierarchy = "angelegt_am"
    list_select_related = ("empfaenger",)
    fields = ("empfaenger", "adresse", "status", "grund", "versuche", "letzter_fehler", "angelegt_am",
              "eingereiht_am", "letzter_versuch_am", "gesendet_am", "betreff", "text", "hinweis_liste")
    readonly_fields = fields
    actions = ["erneut_senden"]

    def changelist_view(self, request: HttpRequest,
                        extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "GET" and (fehler := absender_fehler()):
            messages.error(request, fehler)
        return super().changelist_view(request, extra_context)

    @admin.action(description="Erneut senden (nur gescheiterte E-Mails)")
    def erneut_senden(self, request: HttpRequest, queryset: QuerySet[HinweisMail]) -> None:
        ids = mails_erneut_senden(mail_ids=list(queryset.values_list("pk", flat=True)))
        mails_verschicken(ids)
        andere = queryset.count() - len(ids)
        messages.success(request, f"{len(ids)} E-Mail(s) erneut zum Versand gegeben."
                         + (f" {andere} nicht, weil sie nicht gescheitert sind." if andere else ""))

    @admin.display(description="Hinweise dieser E-Mail")
    def hinweis_liste(self, obj: HinweisMail) -> str:
        hinweise = obj.hinweise.select_related("akte").order_by("pk")
        zeilen = ((h.get_art_display(), h.message) for h in hinweise)
        return format_html_join("", "<p>{} – {}</p>", zeilen) or "—"
