"""The pages of a Beteiligter's data protection request: the Auskunft as JSON and PDF (for the person),
its Prüfblatt (internal, a page), Löschung
vormerken (with the other Akten of the same person) and the mark taken back. Thin: reads through
akten/datenschutz/auskunft.py and person.py, writes through loeschung.py (scope: 404, role: 403)."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from akten.datenschutz.auskunft import auskunft, pruefblatt
from akten.datenschutz.forms import LoeschungForm
from akten.datenschutz.loeschung import frueheste_loeschung, loeschung_vormerken, loeschvormerkung_aufheben
from akten.datenschutz.pdf import auskunft_pdf
from akten.datenschutz.person import person_von
from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import EingabeFehler
from akten.seiten.beteiligte import zur_liste
from akten.seiten.forms import fehler_zeigen
from akten.selectors import get_akte


def _dateiname(daten: dict[str, Any], endung: str) -> str:
    name = slugify(daten["person"]["name"])[:60] or "person"
    return f"Auskunft-Art15-{name}-{timezone.localdate():%Y-%m-%d}.{endung}"


@login_required
@require_GET
def auskunft_json(request: HttpRequest, akte_id: int, beteiligter_id: int) -> HttpResponse:
    """The Auskunft as a JSON file (Art. 15 Abs. 3 DSGVO: a copy in a common electronic format)."""
    daten = auskunft(user=request.user, akte_id=akte_id, beteiligter_id=beteiligter_id)
    antwort = HttpResponse(json.dumps(daten, ensure_ascii=False, indent=2),
                           content_type="application/json; charset=utf-8")
    antwort["Content-Disposition"] = f'attachment; filename="{_dateiname(daten, "json")}"'
    antwort["Cache-Control"] = "no-store"
    return antwort


@login_required
@require_GET
def auskunft_als_pdf(request: HttpRequest, akte_id: int, beteiligter_id: int) -> HttpResponse:
    """The Auskunft as a PDF on the letterhead."""
    daten = auskunft(user=request.user, akte_id=akte_id, beteiligter_id=beteiligter_id)
    antwort = HttpResponse(auskunft_pdf(daten), content_type="application/pdf")
    antwort["Content-Disposition"] = f'attachment; filename="{_dateiname(daten, "pdf")}"'
    antwort["Cache-Control"] = "no-store"
    return antwort


def _loeschtag(tag: date | None) -> str:
    return (f"Löschung frühestens am {tag:%d.%m.%Y}" if tag
            else "frühestens 6 Jahre nach Ende des Mandats (Akte noch nicht abgeschlossen)")


@login_required
@require_GET
def pruefblatt_seite(request: HttpRequest, akte_id: int, beteiligter_id: int) -> HttpResponse:
    """The firm's internal sheet to the Auskunft (complete or not, what to black out, namesakes): a page,
    never part of what is sent."""
    blatt = pruefblatt(user=request.user, akte_id=akte_id, beteiligter_id=beteiligter_id)
    akte = get_akte(user=request.user, akte_id=akte_id)
    antwort = render(request, "datenschutz/pruefblatt.html", {"akte": akte, "p": blatt,
                                                              "beteiligter_id": beteiligter_id})
    antwort["Cache-Control"] = "no-store"
    return antwort


@login_required
def loeschung(request: HttpRequest, akte_id: int, beteiligter_id: int) -> HttpResponse:
    """Löschung vormerken: the form with the person's Akten and when each may be deleted."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    pruefe(request.user, "datenschutz")
    person = person_von(user=request.user, akte_id=akte.pk, beteiligter_id=beteiligter_id)
    weitere = [(b.pk, f"{b.akte.aktenzeichen} {b.akte.kurzrubrum} – {b.get_rolle_display()}: "
                      f"{_loeschtag(frueheste_loeschung(b.akte))}")
               for b in person.zeilen if b.pk != person.beteiligter.pk]
    form = LoeschungForm(request.POST or None, initial={"antrag_am": timezone.localdate()}, weitere=weitere)
    kontext = {"akte": akte, "beteiligter": person.beteiligter, "form": form,
               "loeschung_ab": frueheste_loeschung(akte), "namensvetter": len(person.namensvetter)}
    if request.method == "POST" and form.is_valid():
        try:
            vormerkungen = loeschung_vormerken(user=request.user, akte_id=akte.pk,
                                               beteiligter_id=person.beteiligter.pk,
                                               antrag_am=form.cleaned_data["antrag_am"],
                                               begruendung=form.cleaned_data["begruendung"],
                                               weitere=form.cleaned_data.get("weitere", []))
        except EingabeFehler as exc:
            fehler_zeigen(form, exc)
        else:
            anzahl = len(vormerkungen)
            messages.success(request, f"Löschung für „{person.beteiligter.name}“ vorgemerkt ("
                                      f"{anzahl} {'Eintrag' if anzahl == 1 else 'Einträge'}). Gelöscht wird, "
                                      "sobald die Aufbewahrung nach § 50 BRAO abgelaufen ist.")
            return redirect(zur_liste(akte, person.beteiligter.pk))
    status = 422 if request.method == "POST" else 200
    return render(request, "datenschutz/loeschung.html", kontext, status=status)


@login_required
@require_POST
def loeschung_aufheben(request: HttpRequest, akte_id: int, beteiligter_id: int) -> HttpResponse:
    """Take the mark back (this Beteiligter only)."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    loeschvormerkung_aufheben(user=request.user, akte_id=akte.pk, beteiligter_id=beteiligter_id,
                              grund=request.POST.get("grund", "")[:500])
    messages.success(request, "Die Löschvormerkung ist aufgehoben.")
    return redirect(zur_liste(akte, beteiligter_id))
