"""The read log in the Verwaltung: „Zugriffsprotokoll (wer hat gelesen)“, read only and only for the
Administration (role ADMIN) — a staff member of another role must not read every Akte's log there
(the pages' rule: akten/lesezugriffe/selectors.py); and `LesenImAdminMixin`: opening an Akte's record
in the admin is a read of the Akte like its page."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from akten.accounts.users import role_of
from akten.lesezugriffe.services import Bereich, Weg, lesen
from akten.models import Akte, Beteiligter, Dokument, Frist, Lesezugriff, Notiz
from config.admin_base import ReadOnlyAdminMixin

# what an admin change view of an Akte's record reads: (the Akte, its part, the Dokument, the entry's id)
_BEREICH = {Akte: Bereich.AKTE, Beteiligter: Bereich.BETEILIGTER, Dokument: Bereich.DOKUMENT,
            Frist: Bereich.FRIST, Notiz: Bereich.NOTIZ}


class LesenImAdminMixin:
    """The change view (GET, shown) of an Akte, Beteiligter, Dokument, Frist or Notiz is a read of its Akte
    with weg Seite: one INSERT, the Akte joined to the record loaded anyway (no extra SELECT)."""

    model: type

    def get_queryset(self, request: HttpRequest) -> Any:
        qs = super().get_queryset(request)  # type: ignore[misc]
        return qs if self.model is Akte else qs.select_related("akte")

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> Any:
        obj = super().get_object(request, object_id, from_field)  # type: ignore[misc]
        request._gelesen_im_admin = obj  # type: ignore[attr-defined]
        return obj

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        antwort = super().change_view(request, object_id, form_url, extra_context)  # type: ignore[misc]
        obj = getattr(request, "_gelesen_im_admin", None)
        if request.method == "GET" and antwort.status_code == 200 and obj is not None:
            akte = obj if isinstance(obj, Akte) else obj.akte
            if akte is not None:  # a Notiz of one's own has no Akte
                lesen(user=request.user, akte=akte, weg=Weg.SEITE, bereich=_BEREICH[type(obj)],
                      dokument=obj if isinstance(obj, Dokument) else None,
                      objekt_id=None if isinstance(obj, Akte | Dokument) else obj.pk)
        return antwort


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

    def _darf(self, request: HttpRequest) -> bool:
        """Every Akte's log: only the Administration (a permission given by hand does not widen it)."""
        user = request.user
        return bool(user.is_active and user.is_staff and role_of(user) == "ADMIN")

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._darf(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._darf(request)
