"""The small entries of an Akte by hand: a Notiz (one beginning with „@Helena“ is a task for her), a
Zeit, and who may see the Akte (Zugriff)."""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from akten.erfassung.akten import zugriff_entziehen, zugriff_geben
from akten.erfassung.notizen import notiz_anlegen
from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import EingabeFehler
from akten.erfassung.zeiten import zeit_erfassen
from akten.models import Akte, Alert, Notiz, User
from akten.seiten import selectors
from akten.seiten.arbeitsplatz import arbeitsplatz
from akten.seiten.forms import NotizForm, ZeitForm, ZugriffForm, fehler_zeigen
from akten.selectors import get_akte

log = logging.getLogger(__name__)
HELENA = "@helena"  # as helena.proactive.auftraege.HELENA_MENTION (akten knows no helena)
AUFTRAG_NICHT_GESTARTET = "Dein Auftrag an Helena aus der Notiz konnte nicht starten"  # helena/signals.py


def _tab(akte: Akte, tab: str, anker: str) -> str:
    return reverse("akten:detail", args=[akte.pk]) + f"?tab={tab}#{anker}"


def _eintrag_seite(request: HttpRequest, akte: Akte, form: NotizForm | ZeitForm, *, titel: str, knopf: str,
                   status: int) -> HttpResponse:
    return render(request, "akten/eintrag_form.html",
                  {"akte": akte, "form": form, "titel": titel, "knopf": knopf}, status=status)


def _helena_meldung(request: HttpRequest, notiz: Notiz, user: User) -> None:
    """What became of the task in a Notiz: helena/signals.py starts it once the Notiz is saved, or
    leaves the author a Hinweis why it could not start."""
    abgelehnt = (Alert.objects.filter(empfaenger=user, akte=notiz.akte, art=Alert.Art.AUFGABE,
                                      angelegt_am__gte=notiz.angelegt_am,
                                      message__startswith=AUFTRAG_NICHT_GESTARTET)
                 .order_by("-angelegt_am").first())
    if abgelehnt is not None:
        messages.warning(request, f"Die Notiz ist gespeichert. {abgelehnt.message}")
    else:
        messages.success(request, "Die Notiz ist gespeichert, und Helena hat den Auftrag bekommen. Sie "
                                  "meldet sich mit einem Hinweis, sobald sie fertig ist.")


@login_required
def notiz_neu(request: HttpRequest, akte_id: int) -> HttpResponse:
    """Write a Notiz into the Akte."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    pruefe(request.user, "notiz")
    form = NotizForm(request.POST or None)
    seite = {"titel": "Notiz schreiben", "knopf": "Notiz speichern"}
    if request.method != "POST":
        return _eintrag_seite(request, akte, form, status=200, **seite)
    if form.is_valid():
        notiz: Notiz | None = None
        try:
            with transaction.atomic():
                notiz = notiz_anlegen(user=request.user, akte_id=akte.pk, titel=form.cleaned_data["titel"],
                                      inhalt=form.cleaned_data["inhalt"])
        except EingabeFehler as exc:
            fehler_zeigen(form, exc)
        except Exception:
            if notiz is None:
                raise
            # saved; only the task's start after the commit failed (helena/signals.py)
            log.exception("task from Notiz %s could not start", notiz.pk)
            messages.warning(request, "Die Notiz ist gespeichert, aber Helenas Auftrag konnte nicht starten. "
                                      "Versuche es später mit „Auftrag an Helena“.")
            return redirect(_tab(akte, "notizen", f"notiz-{notiz.pk}"))
        else:
            if notiz.inhalt.casefold().startswith(HELENA):
                _helena_meldung(request, notiz, request.user)
            else:
                messages.success(request, "Die Notiz ist gespeichert.")
            return redirect(_tab(akte, "notizen", f"notiz-{notiz.pk}"))
    return _eintrag_seite(request, akte, form, status=422, **seite)


@login_required
def zeit_neu(request: HttpRequest, akte_id: int) -> HttpResponse:
    """Enter time spent on the Akte (for oneself)."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    pruefe(request.user, "zeiterfassung")
    form = ZeitForm(request.POST or None, initial={"datum": timezone.localdate(), "abrechenbar": True})
    seite = {"titel": "Zeit erfassen", "knopf": "Zeit speichern"}
    if request.method != "POST":
        return _eintrag_seite(request, akte, form, status=200, **seite)
    if form.is_valid():
        werte = form.cleaned_data
        daten = {"datum": werte["datum"], "dauer_minuten": werte["dauer"], "taetigkeit": werte["taetigkeit"],
                 "abrechenbar": werte["abrechenbar"]}
        try:
            zeit = zeit_erfassen(user=request.user, akte_id=akte.pk, daten=daten)
        except EingabeFehler as exc:
            fehler_zeigen(form, exc)
        else:
            messages.success(request, f"{zeit.dauer_minuten} Minuten für „{zeit.taetigkeit}“ sind erfasst.")
            return redirect(_tab(akte, "zeiten", f"zeiterfassung-{zeit.pk}"))
    return _eintrag_seite(request, akte, form, status=422, **seite)


@login_required
@require_POST
def zugriff_neu(request: HttpRequest, akte_id: int) -> HttpResponse:
    """Let a person see the Akte (Anwälte and the Administration)."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    pruefe(request.user, "zugriff")
    kandidaten = selectors.zugriff_kandidaten(user=request.user, akte_id=akte.pk)
    form = ZugriffForm(request.POST, kandidaten=kandidaten,
                       auto_id="zugriff-%s")
    if form.is_valid():
        person = form.cleaned_data["person"]
        try:
            zugriff_geben(user=request.user, akte_id=akte.pk, person=person)
        except EingabeFehler as exc:
            fehler_zeigen(form, exc)
        else:
            messages.success(request, f"{person.get_full_name() or person.username} sieht die Akte jetzt.")
            return redirect(_tab(akte, "uebersicht", "zugriff"))
    context = arbeitsplatz(request, akte)
    context.update(zugriff_form=form, tab="uebersicht")
    return render(request, "akten/detail.html", context, status=422)


@login_required
@require_POST
def zugriff_weg(request: HttpRequest, akte_id: int, person_id: int) -> HttpResponse:
    """Take the Akte away from a person; its own Anwalt keeps it."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    pruefe(request.user, "zugriff")
    person = selectors.person_mit_zugriff(user=request.user, akte_id=akte.pk, person_id=person_id)
    if person is None:
        messages.info(request, "Diese Person sieht die Akte schon nicht mehr.")
        return redirect(_tab(akte, "uebersicht", "zugriff"))
    name = person.get_full_name() or person.username
    try:
        zugriff_entziehen(user=request.user, akte_id=akte.pk, person=person)
    except EingabeFehler as exc:
        messages.error(request, exc.message)
        return redirect(_tab(akte, "uebersicht", "zugriff"))
    if person.pk == request.user.pk and not request.user.sees_all_akten:
        messages.success(request, f"Du siehst die Akte {akte.aktenzeichen} nicht mehr.")
        return redirect("akten:list")
    messages.success(request, f"{name} sieht die Akte nicht mehr.")
    return redirect(_tab(akte, "uebersicht", "zugriff"))
