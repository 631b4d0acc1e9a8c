"""The statute page (/wissen/normen/<gesetz>/<nummer>/): one norm's text, read-only, where the search box
and a citation lead. Any logged-in role may read it: the corpus is no client data."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from helena.knowledge import selectors


@login_required
@require_GET
def norm(request: HttpRequest, gesetz: str, nummer: str) -> HttpResponse:
    """One norm; an unknown one is the 404 page (NormNotFound, config.middleware)."""
    found = selectors.get_norm(gesetz=gesetz, bezeichnung=nummer)
    vorher, nachher = selectors.neighbours(norm=found)
    return render(request, "wissen/norm.html", {"norm": found, "vorher": vorher, "nachher": nachher})
