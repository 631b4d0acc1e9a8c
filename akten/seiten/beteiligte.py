"""Beteiligte of an Akte by hand: hinzufügen, bearbeiten, entfernen — a new name or role passes the
Kollisionsprüfung first, with the same confirm step as a new Akte (akte.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from akten.erfassung.beteiligte import FELDER, beteiligter_aendern, beteiligter_anlegen, beteiligter_entfernen
from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import EingabeFehler
from akten.kollision import KollisionGefunden
from akten.lesezugriffe.services import Bereich, Weg, lesen
from akten.models import Akte, Beteiligter
from akten.seiten import selectors
from akten.seiten.akte import treffer_fuer
from akten.seiten.forms import BeteiligterForm, KollisionForm, fehler_zeigen
from akten.seiten.verlauf import verlauf_des_eintrags
from akten.selectors import get_akte
from config.errors import NotFound

BESTAETIGUNG = "Ich habe die möglichen Kollisionen geprüft und speichere trotzdem"


def zur_liste(akte: Akte, beteiligter_id: int | None = None) -> str:
    anker = f"#beteiligter-{beteiligter_id}" if beteiligter_id else "#beteiligte"
    return reverse("akten:detail", args=[akte.pk]) + "?tab=beteiligte" + anker


def _beteiligter(request: HttpRequest, akte: Akte, pk: int) -> Beteiligter:
    beteiligter = selectors.beteiligter_der_akte(user=request.user, akte_id=akte.pk, beteiligter_id=pk)
    if beteiligter is None:
        raise NotFound("Beteiligte/r nicht gefunden.")
    return beteiligter


def _seite(request: HttpRequest, context: dict[str, Any], *, status: int = 200) -> HttpResponse:
    return render(request, "akten/beteiligter_form.html", context, status=status)


def _speichern(request: HttpRequest, context: dict[str, Any],
               schreiben: Callable[[bool, str], Beteiligter], *,
               erfolg: Callable[[Beteiligter], str]) -> HttpResponse:
    """Save through the service with the user's decision on the Kollisionsprüfung: the hits to decide
    on (409), the record's German problems on the form (422), or back to the list."""
    form, kollision, akte = context["form"], context["kollision"], context["akte"]
    namen = f"{form.cleaned_data['rolle']}:{form.cleaned_data['name']}"
    try:
        beteiligter = schreiben(*kollision.entscheidung(namen))
    except KollisionGefunden as exc:
        return _seite(request, {**context, "treffer": treffer_fuer(exc),
                                "kollision": kollision.fuer_treffer(namen)}, status=409)
    except EingabeFehler as exc:
        fehler_zeigen(form, exc)
        return _seite(request, context, status=422)
    messages.success(request, erfolg(beteiligter))
    return redirect(zur_liste(akte, beteiligter.pk))


@login_required
def beteiligter_neu(request: HttpRequest, akte_id: int) -> HttpResponse:
    """Add a party; the Kollisionsprüfung may ask for a decision before anything is saved."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    pruefe(request.user, "beteiligter")
    rolle = request.GET.get("rolle", "")
    form = BeteiligterForm(request.POST or None,
                           initial={"rolle": rolle if rolle in Beteiligter.Rolle.values else ""})
    kollision = KollisionForm(request.POST or None, bestaetigung=BESTAETIGUNG)
    context: dict[str, Any] = {"akte": akte, "form": form, "kollision": kollision, "treffer": []}
    if request.method != "POST":
        return _seite(request, context)
    if form.is_valid():
        daten = {k: v for k, v in form.cleaned_data.items() if k in FELDER}

        def anlegen(bestaetigt: bool, begruendung: str) -> Beteiligter:
            return beteiligter_anlegen(user=request.user, akte_id=akte.pk, daten=daten,
                                       kollision_bestaetigt=bestaetigt, kollision_begruendung=begruendung)

        return _speichern(request, context, anlegen,
                          erfolg=lambda neu: f"„{neu.name}“ ist als {neu.get_rolle_display()} eingetragen.")
    return _seite(request, context, status=422)


@login_required
def beteiligter_bearbeiten(request: HttpRequest, akte_id: int, beteiligter_id: int) -> HttpResponse:
    """Change a party; a new name or role is checked again. Shows the party's Verlauf."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    beteiligter = _beteiligter(request, akte, beteiligter_id)
    pruefe(request.user, "beteiligter")
    anfang = {name: getattr(beteiligter, name) for name in FELDER}
    form = BeteiligterForm(request.POST or None, initial=anfang)
    kollision = KollisionForm(request.POST or None, bestaetigung=BESTAETIGUNG)
    context: dict[str, Any] = {"akte": akte, "beteiligter": beteiligter, "form": form, "kollision": kollision,
                               "treffer": [],
                               "verlauf": verlauf_des_eintrags(user=request.user, eintrag=beteiligter)}
    if request.method != "POST":  # the form shows the party's data: a read of it
        lesen(user=request.user, akte=akte, weg=Weg.SEITE, bereich=Bereich.BETEILIGTER,
              objekt_id=beteiligter.pk)
        return _seite(request, context)
    if form.is_valid():
        aenderungen = {k: v for k, v in form.cleaned_data.items() if k in FELDER and v != anfang[k]}
        if not aenderungen:
            messages.info(request, "Nichts geändert.")
            return redirect(zur_liste(akte, beteiligter.pk))

        def aendern(bestaetigt: bool, begruendung: str) -> Beteiligter:
            return beteiligter_aendern(user=request.user, akte_id=akte.pk, beteiligter_id=beteiligter.pk,
                                       aenderungen=aenderungen, kollision_bestaetigt=bestaetigt,
                                       kollision_begruendung=begruendung)

        return _speichern(request, context, aendern, erfolg=lambda b: f"„{b.name}“ ist gespeichert.")
    return _seite(request, context, status=422)


@login_required
@require_POST
def beteiligter_weg(request: HttpRequest, akte_id: int, beteiligter_id: int) -> HttpResponse:
    """Remove a party entered by mistake; the Verlauf keeps it."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    beteiligter = _beteiligter(request, akte, beteiligter_id)
    beteiligter_entfernen(user=request.user, akte_id=akte.pk, beteiligter_id=beteiligter.pk)
    messages.success(request, f"„{beteiligter.name}“ ist nicht mehr Beteiligte/r dieser Akte. Der Verlauf "
                              "behält den Eintrag.")
    return redirect(zur_liste(akte))
