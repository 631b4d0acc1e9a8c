"""/fristen/: the Fristenbuch — every open Frist, Termin and Wiedervorlage of the Akten the user may
see, overdue first, by day or by week, with filters and the Erledigt action on each row — and the
daily Fristenkontrolle to print or as PDF (today, overdue, the next days, a line to sign)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.http import require_GET

from akten.dokumente.ausgabe.pdf import pdf_aus_html
from akten.erfassung.rechte import darf
from akten.fristenbuch.forms import BuchFilter, KontrollFilter
from akten.fristenbuch.gruppen import gruppieren
from akten.fristenbuch.selectors import fristen_im_buch, fristenkontrolle
from akten.models import Kanzleieinstellung

GRENZE = 500  # rows on one page; beyond that the period should be narrowed


@login_required
@require_GET
def fristenbuch(request: HttpRequest) -> HttpResponse:
    """The Fristenbuch with its filters (von, bis, verantwortlich, typ, Status; by day or week)."""
    filter_form = BuchFilter(request.GET or None)
    auswahl = filter_form.auswahl()
    eintraege = list(fristen_im_buch(user=request.user, **auswahl)[:GRENZE + 1])
    heute = timezone.localdate()
    ansicht = (filter_form.cleaned_data.get("ansicht") if filter_form.is_bound else "") or "tag"
    gruppen = gruppieren(eintraege[:GRENZE], nach=ansicht, heute=heute)
    return render(request, "fristenbuch/liste.html", {
        "filter_form": filter_form, "gruppen": gruppen, "heute": heute, "ansicht": ansicht,
        "anzahl": min(len(eintraege), GRENZE), "mehr": len(eintraege) > GRENZE, "grenze": GRENZE,
        "darf_fristen": darf(request.user, "frist"),
        "vier_augen": Kanzleieinstellung.aktuell().vier_augen_notfrist,
        "nach_tagen": _abfrage(request, ansicht="tag"), "nach_wochen": _abfrage(request, ansicht="woche"),
        "kontrolle_abfrage": _abfrage(request, nur=("verantwortlich",)),
    })


def _abfrage(request: HttpRequest, *, nur: tuple[str, ...] | None = None, **setzen: str) -> str:
    """The current query string with some values replaced (or only some kept)."""
    abfrage = request.GET.copy()
    if nur is not None:
        for key in list(abfrage):
            if key not in nur:
                del abfrage[key]
    for key, wert in setzen.items():
        abfrage[key] = wert
    return abfrage.urlencode()


def _kontrolle(request: HttpRequest) -> dict[str, Any]:
    filter_form = KontrollFilter(request.GET or None)
    kontrolle = fristenkontrolle(user=request.user, **filter_form.auswahl())
    return {"filter_form": filter_form, "k": kontrolle, "heute": kontrolle.heute, "erstellt": timezone.now(),
            "ersteller": request.user.get_full_name() or request.user.get_username(),
            "abfrage": request.GET.urlencode()}


@login_required
@require_GET
def kontrolle(request: HttpRequest) -> HttpResponse:
    """The daily Fristenkontrolle as a page to print."""
    return render(request, "fristenbuch/kontrolle.html", _kontrolle(request))


@login_required
@require_GET
def kontrolle_pdf(request: HttpRequest) -> HttpResponse:
    """The same Fristenkontrolle as a PDF (WeasyPrint, nothing fetched from outside)."""
    kontext = _kontrolle(request)
    pdf = pdf_aus_html(render_to_string("fristenbuch/kontrolle_pdf.html", kontext))
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="Fristenkontrolle-{kontext["heute"]:%Y-%m-%d}.pdf"'
    return response
