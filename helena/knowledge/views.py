"""The statute page (/wissen/normen/<gesetz>/<nummer>/): one norm's text, read-only, where the search box
and a citation lead. Any logged-in role may read it: the corpus is no client data.

A citation carries when it was made (`?zitiert=2026-05-01T14:05`, helena/knowledge/zitate.py): the page
says whether the norm changed since (normverlauf). A norm its law no longer has is shown repealed,
with its last text."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from helena.knowledge import normverlauf, selectors


@login_required
@require_GET
def norm(request: HttpRequest, gesetz: str, nummer: str) -> HttpResponse:
    """One norm; an unknown one is the 404 page (NormNotFound, config.middleware)."""
    zitiert = normverlauf.parse_zitiert(request.GET.get("zitiert"))
    try:
        found = selectors.get_norm(gesetz=gesetz, bezeichnung=nummer)
    except selectors.NormNotFound:
        aufgehoben = normverlauf.aufgehoben(gesetz=gesetz, nummer=nummer)
        if aufgehoben is None:
            raise
        context = {
            "aufgehoben": aufgehoben,
            "gesetz": normverlauf.gesetz(abk=aufgehoben.gesetz_abk),
            "verlauf": normverlauf.verlauf(gesetz=aufgehoben.gesetz_abk, nummer=aufgehoben.nummer,
                                           zitiert=zitiert),
        }
        return render(request, "wissen/norm_aufgehoben.html", context)
    vorher, nachher = selectors.neighbours(norm=found)
    verlauf = normverlauf.verlauf(gesetz=found.gesetz.abk, nummer=found.nummer, zitiert=zitiert)
    return render(request, "wissen/norm.html",
                  {"norm": found, "vorher": vorher, "nachher": nachher, "verlauf": verlauf})
