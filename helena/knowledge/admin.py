"""Admin for the knowledge base: browse and search statutes, decisions and templates; what the
updates of the laws changed (read-only: the record of load_gesetze)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from helena.knowledge import selectors
from helena.knowledge.models import Gesetz, Muster, Norm, NormAenderung, Urteil


@admin.register(Gesetz)
class GesetzAdmin(admin.ModelAdmin):
    list_display = ("abk", "titel", "stand", "quelle", "anzahl_normen", "importiert_am")
    list_filter = ("quelle",)
    search_fields = ("abk", "titel")
    readonly_fields = ("importiert_am",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Gesetz]:
        return super().get_queryset(request).annotate(_normen=Count("normen"))

    @admin.display(description="Normen", ordering="_normen")
    def anzahl_normen(self, obj: Gesetz) -> int:
        return obj._normen


@admin.register(Norm)
class NormAdmin(admin.ModelAdmin):
    list_display = ("__str__", "titel", "gliederung")
    list_filter = ("gesetz",)
    search_fields = ("titel",)  # see get_search_results
    list_select_related = ("gesetz",)
    readonly_fields = ("search",)
    show_full_result_count = False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Norm], search_term: str
    ) -> tuple[QuerySet[Norm], bool]:
        """The same search Helena uses: citations and natural questions, not a slow ILIKE."""
        if not search_term.strip():
            return queryset, False
        try:
            hits = selectors.search(query=search_term, kind="gesetz", limit=selectors.MAX_LIMIT)
        except selectors.SucheError:
            return queryset.none(), False
        return queryset.filter(pk__in=[hit.id for hit in hits]), False


@admin.register(NormAenderung)
class NormAenderungAdmin(admin.ModelAdmin):
    """Written by `manage.py load_gesetze` only; nobody edits what an update changed."""

    list_display = ("geaendert_am", "gesetz_abk", "bezeichnung", "art", "stand_vorher", "stand_nachher")
    list_filter = ("art", "gesetz_abk")
    search_fields = ("gesetz_abk", "bezeichnung", "nummer", "titel_vorher")
    date_hierarchy = "geaendert_am"
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: NormAenderung | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: NormAenderung | None = None) -> bool:
        return False


@admin.register(Urteil)
class UrteilAdmin(admin.ModelAdmin):
    list_display = ("gericht", "datum", "aktenzeichen", "typ", "ecli")
    list_filter = ("typ",)
    search_fields = ("gericht", "aktenzeichen", "ecli", "leitsatz")
    date_hierarchy = "datum"
    readonly_fields = ("search",)
    show_full_result_count = False


@admin.register(Muster)
class MusterAdmin(admin.ModelAdmin):
    list_display = ("titel", "kategorie", "quelle", "aktualisiert_am")
    list_filter = ("kategorie", "quelle")
    search_fields = ("titel", "text")
    readonly_fields = ("platzhalter_liste", "aktualisiert_am")
    exclude = ("search",)

    @admin.display(description="Platzhalter")
    def platzhalter_liste(self, obj: Muster) -> str:
        return ", ".join(obj.platzhalter) or "–"
