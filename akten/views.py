"""HTML pages of the Akten: the user's list and a compact read view of one Akte.

Read-only and scoped through akten.selectors; other apps add sections to the Akte page through
akten/panels.py (the drafts waiting for a decision, for instance).
"""

from __future__ import annotations

from datetime import time

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from akten.panels import panels_for
from akten.selectors import (
    akten_for,
    alerts_for,
    dokumente_for,
    fristen_for,
    get_akte,
    notizen_for,
    zeiterfassung_for,
)


@login_required
@require_GET
def akten_list(request: HttpRequest) -> HttpResponse:
    """The Akten this user may see, with a search over Aktenzeichen, Rubrum, Beteiligte, Tags."""
    q = request.GET.get("q", "").strip()
    akten = (
        akten_for(user=request.user, query=q or None)
        .annotate(offene_fristen=Count("fristen", filter=Q(fristen__erledigt=False), distinct=True))
        .order_by("aktenzeichen")
    )
    return render(request, "akten/list.html", {"akten": akten[:200], "q": q})


@login_required
@require_GET
def akte_detail(request: HttpRequest, akte_id: int) -> HttpResponse:
    """One Akte at a glance; 404 for an Akte the user may not see (indistinguishable from none)."""
    akte = get_akte(user=request.user, akte_id=akte_id)  # NotFound: the 404 page (config.middleware)
    user = request.user
    heute = timezone.localdate()
    fristen = sorted(fristen_for(user=user, akte_id=akte.pk, status="all"),
                     key=lambda f: (f.erledigt, f.datum, f.uhrzeit or time.min))
    zeiten = zeiterfassung_for(user=user, akte_id=akte.pk)
    summen = zeiten.aggregate(gesamt=Sum("dauer_minuten"),
                              abrechenbar=Sum("dauer_minuten", filter=Q(abrechenbar=True)))
    context = {
        "akte": akte,
        "heute": heute,
        "beteiligte": akte.beteiligte.all(),
        "fristen": fristen,
        "dokumente": dokumente_for(user=user, akte_id=akte.pk).select_related("erstellt_von"),
        "notizen": notizen_for(user=user, akte_id=akte.pk).select_related("verfasst_von"),
        "hinweise": alerts_for(user=user).filter(akte=akte),
        "zeiten": zeiten,
        "summe_minuten": summen["gesamt"] or 0,
        "summe_abrechenbar": summen["abrechenbar"] or 0,
        "panels": panels_for(request, akte),
    }
    return render(request, "akten/detail.html", context)
