"""The read log's page /akten/<id>/zugriffe/ („Zugriffe – wer hat gelesen“: newest first, 50 a page,
by person, period and way) and its CSV (thin). Only the Akte's Anwalt/Anwältin and ADMIN: someone
else who sees the Akte gets 403, someone who does not 404 (config.middleware's pages)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from akten.fristenbuch.selectors import FilterFehler
from akten.lesezugriffe.export import als_csv
from akten.lesezugriffe.selectors import Filter, leser, lesezugriffe, protokoll_akte
from akten.models import Lesezugriff

PRO_SEITE = 50
CSV_HOECHSTENS = 100_000  # a year of a busy Akte; the filter narrows a bigger one


def _filter(request: HttpRequest) -> Filter:
    g = request.GET
    return Filter.aus(user=request.user, person_wert=g.get("person") or None, von=g.get("von") or None,
                      bis=g.get("bis") or None, weg=g.get("weg") or None)


@login_required
@require_GET
def zugriffe(request: HttpRequest, akte_id: int) -> HttpResponse:
    akte = protokoll_akte(user=request.user, akte_id=akte_id)
    fehler = ""
    try:
        auswahl = _filter(request)
    except FilterFehler as exc:  # the page again with the whole log and what was wrong
        fehler, auswahl = exc.message, Filter()
    qs = lesezugriffe(user=request.user, akte=akte, filter=auswahl).select_related("user")
    seite = Paginator(qs, PRO_SEITE).get_page(request.GET.get("seite"))
    abfrage = request.GET.copy()
    abfrage.pop("seite", None)
    return render(request, "akten/zugriffe.html", {
        "akte": akte, "seite": seite, "fehler": fehler, "leser": leser(user=request.user, akte=akte),
        "wege": Lesezugriff.Weg.choices, "g": request.GET, "abfrage": abfrage.urlencode(),
    }, status=422 if fehler else 200)


@login_required
@require_GET
def zugriffe_csv(request: HttpRequest, akte_id: int) -> HttpResponse:
    akte = protokoll_akte(user=request.user, akte_id=akte_id)
    auswahl = _filter(request)  # a bad filter: the German 422 page, no file
    qs = lesezugriffe(user=request.user, akte=akte, filter=auswahl).select_related("user")
    name = f"zugriffe-{akte.aktenzeichen}-{timezone.localdate():%Y-%m-%d}.csv".replace("/", "-")
    zeilen = qs[:CSV_HOECHSTENS + 1].iterator(chunk_size=2000)  # one more: whether the file is cut
    antwort = HttpResponse(als_csv(zeilen, hoechstens=CSV_HOECHSTENS), content_type="text/csv; charset=utf-8")
    antwort["Content-Disposition"] = f'attachment; filename="{name}"'
    return antwort
