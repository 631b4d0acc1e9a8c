"""„Importe“ in the Verwaltung: upload the old software's export → its Probelauf, row by row with
the Kollisionsprüfung's hits → „Jetzt importieren“ (a Celery task) with its progress → the report.
Only the Administration (role ADMIN, and superusers) sees any of it (erfassung/rechte.py „import“)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from akten.erfassung.rechte import darf
from akten.importe import laeufe, text
from akten.models import ImportLauf
from config.errors import DomainError

ERGEBNIS = {"neu": "neu", "vorhanden": "schon vorhanden", "fehler": "Fehler – nicht übernommen"}


class HochladenForm(forms.Form):
    datei = forms.FileField(
        label="Datei",
        help_text="Der Export der alten Kanzleisoftware: CSV (UTF-8 oder Windows-1252, mit „;“ oder „,“) "
                  "oder XLSX, Spalten Aktenzeichen, Kurzrubrum, Rechtsgebiet, Mandant, Gegner, "
                  "Gegenstandswert, Anwalt, Bundesland, Angelegt. Zuerst läuft ein Probelauf, der nichts "
                  "speichert.")

    def clean_datei(self) -> Any:
        datei = self.cleaned_data["datei"]
        if datei.size > laeufe.max_bytes():
            raise forms.ValidationError(f"Die Datei ist größer als {laeufe.max_bytes() // 2**20} MB.")
        return datei


@admin.register(ImportLauf)
class ImportLaufAdmin(admin.ModelAdmin):
    list_display = ("dateiname", "art", "status", "fortschritt", "meldung_kurz", "angelegt_von",
                    "angelegt_am")
    list_filter = ("probelauf", "status")
    search_fields = ("dateiname", "meldung")
    list_select_related = ("angelegt_von",)

    # --- who: the Administration only, whatever Django permissions a staff account has -------------

    def _darf(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_staff and darf(request.user, "import"))

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._darf(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._darf(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self._darf(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a Lauf is a record of what happened

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    # --- the list --------------------------------------------------------------------------------

    @admin.display(description="Art", ordering="probelauf")
    def art(self, lauf: ImportLauf) -> str:
        return "Probelauf" if lauf.probelauf else "Import"

    @admin.display(description="Zeilen")
    def fortschritt(self, lauf: ImportLauf) -> str:
        return f"{lauf.zeilen_fertig} von {lauf.zeilen_gesamt}"

    @admin.display(description="Ergebnis")
    def meldung_kurz(self, lauf: ImportLauf) -> str:
        return lauf.meldung[:160] or "—"

    # --- the pages -------------------------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        return [path("<int:lauf_id>/importieren/", self.admin_site.admin_view(self.importieren_view),
                     name="akten_importlauf_importieren"), *super().get_urls()]

    def _kontext(self, request: HttpRequest, **kontext: Any) -> dict[str, Any]:
        return {**self.admin_site.each_context(request), "opts": self.opts,
                "changelist_url": reverse("admin:akten_importlauf_changelist"), **kontext}

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        """Upload → the Probelauf starts; its page shows how it goes."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = HochladenForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            datei = form.cleaned_data["datei"]
            try:
                lauf = laeufe.lauf_anlegen(user=request.user, inhalt=datei.read(), dateiname=datei.name)
            except DomainError as exc:
                form.add_error("datei", exc.message)
            else:
                return HttpResponseRedirect(reverse("admin:akten_importlauf_change", args=[lauf.pk]))
        return TemplateResponse(request, "admin/akten/importlauf/hochladen.html", self._kontext(
            request, title="Akten importieren", form=form))

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: Any = None) -> HttpResponse:
        """A Lauf: progress while it runs (the page reloads itself), then the report row by row."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        lauf = get_object_or_404(ImportLauf.objects.select_related("angelegt_von"), pk=object_id)
        bericht = lauf.bericht or {}
        zeilen = [{**z, "ergebnis": ("würde neu angelegt" if lauf.probelauf else "neu angelegt")
                   if z["status"] == "neu" else ERGEBNIS[z["status"]]} for z in bericht.get("zeilen", [])]
        laeuft = lauf.status in (ImportLauf.Status.WARTET, ImportLauf.Status.LAEUFT)
        prozent = lauf.zeilen_fertig * 100 // lauf.zeilen_gesamt if lauf.zeilen_gesamt else 0
        return TemplateResponse(request, "admin/akten/importlauf/lauf.html", self._kontext(
            request, title=str(lauf), lauf=lauf, bericht=bericht, zeilen=zeilen, laeuft=laeuft,
            prozent=prozent,
            datei=text.datei_text(bericht) if bericht.get("format") else lauf.dateiname,
            ergebnis=text.zusammenfassung_text(bericht) if bericht.get("zusammenfassung") else "",
            importierbar=self._importierbar(lauf, bericht),
            import_url=reverse("admin:akten_importlauf_importieren", args=[lauf.pk]),
            weiter=self._verweis(bericht.get("import_id")), vorher=self._verweis(bericht.get("vorher_id"))))

    @staticmethod
    def _importierbar(lauf: ImportLauf, bericht: dict[str, Any]) -> bool:
        if lauf.probelauf:
            return (lauf.status == ImportLauf.Status.FERTIG and not bericht.get("import_id")
                    and bool((bericht.get("zusammenfassung") or {}).get("neu")))
        return lauf.status == ImportLauf.Status.FEHLER and not bericht.get("import_id")

    @staticmethod
    def _verweis(lauf_id: int | None) -> str:
        return reverse("admin:akten_importlauf_change", args=[lauf_id]) if lauf_id else ""

    def importieren_view(self, request: HttpRequest, lauf_id: int) -> HttpResponse:
        """„Jetzt importieren“: the real run of this Probelauf's file, then its page."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        try:
            lauf = laeufe.import_starten(user=request.user, lauf_id=lauf_id)
        except DomainError as exc:
            messages.error(request, exc.message)
            return HttpResponseRedirect(reverse("admin:akten_importlauf_change", args=[lauf_id]))
        return HttpResponseRedirect(reverse("admin:akten_importlauf_change", args=[lauf.pk]))
