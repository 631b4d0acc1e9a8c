"""The Verwaltung's view of data protection requests: the Löschprotokoll (read only: the proof of what
was deleted, when, on whose request and why, and Helena's records left „zur Prüfung“ with links to
them) and the Löschvormerkungen still waiting (read only: marked and taken back on the Akte page, where
the role rule applies). Only the Administration (role ADMIN) sees either, whatever Django permissions
a staff account has: both name who asked for what. The same for what the deletions kept for the
Kollisionsprüfung (names of persons whose data were otherwise erased: read only, never edited)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from akten.accounts.users import role_of
from akten.datenschutz.loeschung import frueheste_loeschung
from akten.models import FruehererBeteiligter, Loeschprotokoll, Loeschvormerkung
from config.admin_base import ReadOnlyAdminMixin

# kinds of „zur Prüfung“ → the admin's change page of one of them (helena registers these models)
_ADMIN_SEITE = {"Helena-Unterhaltungen": "admin:helena_conversation_change",
                "Werkzeugaufrufe": "admin:helena_toolcalllog_change"}


class NurAdministration:
    """Module and view for role ADMIN (and superusers) only."""

    def _darf(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and (user.is_superuser or role_of(user) == "ADMIN"))

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._darf(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._darf(request)


@admin.register(Loeschprotokoll)
class LoeschprotokollAdmin(NurAdministration, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("geloescht_am", "art", "aktenzeichen", "rolle", "antrag_am", "vorgemerkt_von",
                    "aufbewahrung_bis")
    list_filter = ("art",)
    search_fields = ("aktenzeichen",)
    date_hierarchy = "geloescht_am"
    list_select_related = ("vorgemerkt_von",)
    fields = ("geloescht_am", "art", "akte_id", "aktenzeichen", "beteiligter_id", "rolle", "geloescht",
              "antrag_am", "vorgemerkt_von", "vorgemerkt_am", "mandat_beendet_am", "aufbewahrung_bis",
              "rechtsgrundlage", "zur_pruefung")
    readonly_fields = fields

    @admin.display(description="zur Prüfung")
    def zur_pruefung(self, obj: Loeschprotokoll) -> SafeString | str:
        """Helena's records outside the Akte that name the person: each a link, to read and decide."""
        zeilen = []
        for art, ids in (obj.geloescht or {}).get("zur Prüfung", {}).items():
            links = []
            for pk in ids:
                try:
                    ziel = reverse(_ADMIN_SEITE[art], args=[pk])
                    links.append(format_html('<a href="{}">{}</a>', ziel, pk))
                except (KeyError, NoReverseMatch):
                    links.append(format_html("{}", pk))
            zeilen.append((art, SafeString(", ".join(links))))
        if not zeilen:
            return "nichts gefunden"
        return format_html_join(SafeString("<br>"), "{}: {}", zeilen)


@admin.register(Loeschvormerkung)
class LoeschvormerkungAdmin(NurAdministration, ReadOnlyAdminMixin, admin.ModelAdmin):
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


@admin.register(FruehererBeteiligter)
class FruehererBeteiligterAdmin(NurAdministration, ReadOnlyAdminMixin, admin.ModelAdmin):
    """What the deletions kept for the Kollisionsprüfung; read only: a record changed or removed by
    hand would let a conflict slip through (§ 43a Abs. 4 BRAO)."""

    list_display = ("geloescht_am", "aktenzeichen", "name", "rolle", "mandat_von", "mandat_bis", "umfang")
    list_filter = ("rolle", "umfang")
    search_fields = ("aktenzeichen", "name", "name_schluessel")
    date_hierarchy = "geloescht_am"
    fields = ("name", "rolle", "aktenzeichen", "mandat_von", "mandat_bis", "umfang", "geloescht_am")
    readonly_fields = fields
