"""/suche/?q=: all hits of the search box on one page (Enter without a choice, or no JavaScript); an
Aktenzeichen or a citation opens its page at once."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from akten.lesezugriffe.services import Weg, speichern
from helena.knowledge.query import SucheError
from helena.quicksearch import selectors

LIMIT_SEITE = 25


@login_required
@require_GET
def suche(request: HttpRequest) -> HttpResponse:
    q = request.GET.get("q", "")
    context: dict = {"q": " ".join(q.split())[: selectors.MAX_ZEICHEN]}
    if q.strip():
        try:
            ergebnis = selectors.suche(user=request.user, q=q, limit=LIMIT_SEITE)
        except SucheError as exc:
            context["fehler"] = exc.message
        else:
            if ergebnis.direkt:
                return redirect(ergebnis.direkt)
            speichern(user=request.user, lesungen=ergebnis.lesungen, weg=Weg.SEITE)
            context["ergebnis"] = ergebnis
    return render(request, "suche/ergebnisse.html", context)
