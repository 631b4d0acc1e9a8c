"""HTML pages of the Akten: the user's list, a compact view of one Akte, and the user's Notizen and
Hinweise (the Fristen kept by hand: akten/fristenbuch).

Reads are scoped through akten.selectors, writes go through akten.services (role-checked); other
apps add sections to the Akte page through akten/panels.py (the drafts waiting for a decision).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from akten.fristenbuch.akte import fristen_kontext
from akten.panels import panels_for
from akten.selectors import (
    akten_overview,
    alerts_for,
    dokumente_for,
    get_akte,
    notizen_for,
    zeiterfassung_for,
)
from akten.services import mark_alert_read
from akten.users import may_file_dokumente


@login_required
@require_GET
def akten_list(request: HttpRequest) -> HttpResponse:
    """The Akten this user may see, with a search over Aktenzeichen, Rubrum, Beteiligte, Tags."""
    q = request.GET.get("q", "").strip()
    akten = akten_overview(user=request.user, query=q or None)
    return render(request, "akten/list.html", {"akten": akten[:200], "q": q})


@login_required
@require_GET
def akte_detail(request: HttpRequest, akte_id: int) -> HttpResponse:
    """One Akte at a glance; 404 for an Akte the user may not see (indistinguishable from none)."""
    akte = get_akte(user=request.user, akte_id=akte_id)  # NotFound: the 404 page (config.middleware)
    user = request.user
    zeiten = zeiterfassung_for(user=user, akte_id=akte.pk)
    summen = zeiten.aggregate(gesamt=Sum("dauer_minuten"),
                              abrechenbar=Sum("dauer_minuten", filter=Q(abrechenbar=True)))
    dokumente = list(dokumente_for(user=user, akte_id=akte.pk).select_related("erstellt_von", "quelle")[:300])
    context = {
        "akte": akte,
        "beteiligte": akte.beteiligte.all(),
        "dokumente": dokumente,
        "liest_noch": any(d.text_wird_gelesen for d in dokumente),
        "notizen": notizen_for(user=user, akte_id=akte.pk).select_related("verfasst_von"),
        "hinweise": alerts_for(user=user).filter(akte=akte),
        "zeiten": zeiten,
        "summe_minuten": summen["gesamt"] or 0,
        "summe_abrechenbar": summen["abrechenbar"] or 0,
        "panels": panels_for(request, akte),
        "darf_hochladen": may_file_dokumente(user),
        "upload_max_mb": settings.HELENA_UPLOAD_MAX_MB,
    }
    context.update(fristen_kontext(request, akte))
    return render(request, "akten/detail.html", context)


@login_required
@require_GET
def notizen(request: HttpRequest) -> HttpResponse:
    """My Notizen and those of the Akten I may see, newest first."""
    rows = notizen_for(user=request.user).select_related("akte", "verfasst_von").order_by("-angelegt_am")
    return render(request, "akten/notizen.html", {"notizen": rows[:200]})


@login_required
def hinweise(request: HttpRequest) -> HttpResponse:
    """Hinweise for me (and for the Akten I may see); POST marks one read."""
    if request.method == "POST":
        mark_alert_read(user=request.user, alert_id=request.POST.get("alert_id", ""))
        messages.success(request, "Als gelesen markiert.")
        return redirect("akten:hinweise")
    rows = alerts_for(user=request.user).select_related("akte")
    return render(request, "akten/hinweise.html", {"hinweise": rows[:200]})
