"""HTML pages of the Akten: the user's list, one Akte as a workspace (its tabs and the pages that enter
records by hand are in akten/seiten), and the user's Notizen and Hinweise.

Reads are scoped through akten.selectors, writes go through the services of akten/erfassung
(role-checked); other apps add sections to the Akte page through akten/panels.py (the drafts waiting
for a decision).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from akten.erfassung.rechte import darf
from akten.lesezugriffe.services import Bereich, Lesung, Weg, lesen, speichern
from akten.seiten.arbeitsplatz import arbeitsplatz, gewaehlter_tab
from akten.selectors import akten_overview, alerts_for, get_akte, notizen_for
from akten.services import mark_alert_read


@login_required
@require_GET
def akten_list(request: HttpRequest) -> HttpResponse:
    """The Akten this user may see, with a search over Aktenzeichen, Rubrum, Beteiligte, Tags."""
    q = request.GET.get("q", "").strip()
    akten = akten_overview(user=request.user, query=q or None)
    return render(request, "akten/list.html", {"akten": akten[:200], "q": q,
                                               "darf_anlegen": darf(request.user, "akte")})


# Which part of the Akte a tab shows (the whole page, „Alles“, and the Übersicht are the Akte itself).
TAB_BEREICH = {"beteiligte": Bereich.BETEILIGTE, "fristen": Bereich.FRISTEN, "dokumente": Bereich.DOKUMENTE,
               "notizen": Bereich.NOTIZEN, "zeiten": Bereich.ZEITEN, "aktivitaet": Bereich.AKTIVITAET,
               "helena": Bereich.HELENA}


@login_required
@require_GET
def akte_detail(request: HttpRequest, akte_id: int) -> HttpResponse:
    """The Akte as a workspace with its tabs (akten/seiten/arbeitsplatz.py); 404 for an Akte the user
    may not see (indistinguishable from none)."""
    akte = get_akte(user=request.user, akte_id=akte_id)  # NotFound: the 404 page (config.middleware)
    lesen(user=request.user, akte=akte, weg=Weg.SEITE,
          bereich=TAB_BEREICH.get(gewaehlter_tab(request), Bereich.AKTE))
    return render(request, "akten/detail.html", arbeitsplatz(request, akte))


@login_required
@require_GET
def notizen(request: HttpRequest) -> HttpResponse:
    """My Notizen and those of the Akten I may see, newest first. Their full text is each Akte's
    Notizen read: one row per Akte shown, one INSERT for the page."""
    rows = list(notizen_for(user=request.user).select_related("akte", "verfasst_von")
                .order_by("-angelegt_am")[:200])
    speichern(user=request.user, weg=Weg.SEITE,
              lesungen=[Lesung.von(n.akte, bereich=Bereich.NOTIZEN) for n in rows if n.akte_id])
    return render(request, "akten/notizen.html", {"notizen": rows})


@login_required
def hinweise(request: HttpRequest) -> HttpResponse:
    """Hinweise for me (and for the Akten I may see); POST marks one read."""
    if request.method == "POST":
        mark_alert_read(user=request.user, alert_id=request.POST.get("alert_id", ""))
        messages.success(request, "Als gelesen markiert.")
        return redirect("akten:hinweise")
    rows = alerts_for(user=request.user).select_related("akte")
    return render(request, "akten/hinweise.html", {"hinweise": rows[:200]})
