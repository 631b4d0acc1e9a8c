"""„Nicht anlegen“ on the Kollisionsprüfung's confirm step: the decision to stop is recorded too.

The refused save rolled back with everything else, so the check is run again for the names whose
hits were shown (the hidden field of the confirm step) and kept as „abgebrochen“ with its hits —
the firm can show that it checked and that someone stopped (§ 43a Abs. 4 BRAO)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from akten.erfassung.rechte import pruefe
from akten.kollision import protokolliere
from akten.kollision import pruefe as kollisionen
from akten.models import Beteiligter
from akten.selectors import get_akte

HOECHSTENS_NAMEN = 10


def _namen(feld: str) -> list[tuple[str, str]]:
    """The confirm step's „rolle:name|rolle:name“, as far as it is one."""
    paare = []
    for teil in feld.split("|")[:HOECHSTENS_NAMEN]:
        rolle, _, name = teil.partition(":")
        if rolle in Beteiligter.Rolle.values and name.strip():
            paare.append((rolle, name.strip()[:200]))
    return paare


@login_required
@require_POST
def abbrechen(request: HttpRequest) -> HttpResponse:
    """Record the stop with the hits, save nothing else, and go back."""
    pruefe(request.user, "beteiligter")
    akte_id = request.POST.get("kollision_akte", "")
    akte = get_akte(user=request.user, akte_id=akte_id) if akte_id else None  # 404 for a foreign one
    for rolle, name in _namen(request.POST.get("kollision_namen", "")):
        treffer = kollisionen(namen=[name], user=request.user, neue_rolle=rolle,
                              fuer_akte=akte.pk if akte else None)
        if treffer:
            protokolliere(user=request.user, namen=[name], treffer=treffer, anlass="hand", akte=akte,
                          fortgesetzt=False, begruendung=request.POST.get("kollision_begruendung", ""))
    messages.info(request, "Abgebrochen – nichts gespeichert. Die Kollisionsprüfung ist mit deiner "
                           "Entscheidung vermerkt.")
    if akte is not None:
        return redirect(f"{reverse('akten:detail', args=[akte.pk])}?tab=beteiligte")
    return redirect("akten:list")
