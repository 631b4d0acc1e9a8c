"""The Verwaltung's view of data protection requests: the Löschprotokoll (read only: the proof of what
was deleted, when, on whose request and why) and the Löschvormerkungen still waiting (read only: marked
and taken back on the Akte page, where the role rule applies)."""

from __future__ import annotations

from django.contrib import admin

from akten.datenschutz.loeschung import frueheste_loeschung
from akten.models import Loeschprotokoll, Loeschvormerkung
from config.admin_base import ReadOnlyAdminMixin


@admin.register(Loeschprotokoll)
class LoeschprotokollAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("geloescht_am", "art", "aktenzeichen", "rolle", "antrag_am", "vorgemerkt_von",
                    "aufbewahrung_bis")
    list_filter = ("art",)
    search_fields = ("aktenzeichen",)
    date_hierarchy = "geloescht_am"
    list_select_related = ("vorgemerkt_von",)
    fields = ("geloescht_am", "art", "akte_id", "aktenzeichen", "beteiligter_id", "rolle", "geloescht",
              "antrag_am", "vorgemerkt_von", "vorgemerkt_am", "mandat_beendet_am", "aufbewahrung_bis",
              "rechtsgrundlage")
    readonly_fields = fields


@admin.register(Loeschvormerkung)
class LoeschvormerkungAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("vorgemerkt_am", "akte", "rolle", "antrag_am", "vorgemerkt_von", "loeschung_ab")
    list_select_related = ("beteiligter__akte", "vorgemerkt_von")
    search_fields = ("beteiligter__akte__aktenzeichen",)
    fields = ("beteiligter", "antrag_am", "begruendung", "vorgemerkt_von", "vorgemerkt_am", "loeschung_ab")
    readonly_fields = fields

    @admin.display(description="Akte")
    def akte(self, obj: Loeschvormerkung) -> str:
        return obj.beteiligter.akte.aktenzeichen

    @admin.display(description="Rolle")
    def rolle(self, obj: Loeschvormerkung) -> str:
        return obj.beteiligter.get_rolle_display()

    @admin.display(description="Löschung ab")
    def loeschung_ab(self, obj: Loeschvormerkung) -> str:
        tag = frueheste_loeschung(obj.beteiligter.akte)
        return f"{tag:%d.%m.%Y}" if tag else "6 Jahre nach Ende des Mandats (Akte offen)"
