"""The pages of one Akte's Fristen, Termine and Wiedervorlagen kept by hand: anlegen and bearbeiten with
the Fristenrechner inside the form (works without JavaScript: "Berechnen" renders the form again with
the result), the Frist with its Berechnung and Verlauf, Erledigt with a Vermerk, the second person's
Bestätigung of a Notfrist (Vier-Augen-Prinzip), Wieder öffnen with a reason.

Thin: reads through akten.selectors, writes through akten.erfassung.fristen (scope: 404, role: 403)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from akten.erfassung import fristen as dienst
from akten.erfassung.rechte import darf, pruefe
from akten.erfassung.speichern import EingabeFehler
from akten.fristen import PRESETS
from akten.fristenbuch.forms import FristForm, GrundForm, RechnerForm, VermerkForm, uebernehmen
from akten.lesezugriffe.services import Bereich, Weg, lesen
from akten.models import Akte, Frist, Kanzleieinstellung
from akten.seiten.verlauf import verlauf_des_eintrags
from akten.selectors import get_akte, get_frist
from config.errors import DomainError
from config.navigation import safe_next


def zurueck(request: HttpRequest, frist: Frist) -> str:
    """Where an action returns: the page it came from (`next`, same host only), else the Akte's Frist."""
    ziel = safe_next(request, request.POST.get("next") or request.GET.get("next"))
    if ziel:
        return ziel
    return f"{reverse('akten:detail', args=[frist.akte_id])}?tab=fristen#frist-{frist.pk}"


def _vorlagen() -> dict[str, dict[str, Any]]:
    return {k: {"bezeichnung": p.bezeichnung, "notfrist": p.notfrist} for k, p in PRESETS.items()}


def _werte(form: FristForm) -> dict[str, Any]:
    """The values a bound Frist form was sent with, as initial values of a form shown again."""
    werte: dict[str, Any] = {}
    for name, feld in form.fields.items():
        roh = form.data.get(name)
        werte[name] = bool(roh) if name == "ist_notfrist" else feld.widget.value_from_datadict(
            form.data, form.files, name)
    return werte


def _speichern(request: HttpRequest, akte: Akte, frist: Frist | None, daten: dict[str, Any]) -> Frist:
    if frist is None:
        daten.pop("grund", None)
        return dienst.frist_anlegen(user=request.user, akte_id=akte.pk, daten=daten)
    grund = daten.pop("grund", "")
    return dienst.frist_aendern(user=request.user, akte_id=akte.pk, frist_id=frist.pk, aenderungen=daten,
                                grund=grund)


def _neu_initial(request: HttpRequest) -> dict[str, Any]:
    typ = request.GET.get("typ")
    return {"typ": typ if typ in Frist.Typ.values else Frist.Typ.FRIST, "verantwortlich": request.user.pk}


def _formular(request: HttpRequest, akte: Akte, frist: Frist | None) -> HttpResponse:
    """Anlegen (frist None) and bearbeiten share one form: Berechnen, Speichern, warnings to confirm."""
    rechner_initial = RechnerForm.initial_aus(frist.berechnung if frist else None)
    kontext: dict[str, Any] = {"akte": akte, "frist": frist, "ergebnis": None, "warnungen": [],
                               "berechnung": frist.berechnung if frist else None, "vorlagen": _vorlagen()}
    if request.method != "POST":
        kontext["form"] = FristForm(instance=frist, initial={} if frist else _neu_initial(request), akte=akte)
        kontext["rechner"] = RechnerForm(initial=rechner_initial)
        return render(request, "akten/frist_form.html", kontext)
    rechner = kontext["rechner"] = RechnerForm(request.POST, initial=rechner_initial)
    berechnen = request.POST.get("aktion") == "berechnen"
    # an unchanged Rechner of a Frist being corrected keeps its Berechnung as it was
    neu_berechnet = frist is None or berechnen or rechner.has_changed()
    if neu_berechnet:
        land = request.POST.get("bundesland") or akte.bundesland
        kontext["ergebnis"], kontext["berechnung"] = rechner.berechnen(land) or (None, None)
    form = kontext["form"] = FristForm(request.POST, instance=frist, akte=akte)
    if berechnen:
        werte = _werte(form)
        if kontext["ergebnis"]:
            werte = uebernehmen(werte, kontext["ergebnis"])
        kontext["form"] = FristForm(instance=frist, initial=werte, akte=akte)
        return render(request, "akten/frist_form.html", kontext)
    rechner_ok = not neu_berechnet or (rechner.is_valid() and not rechner.non_field_errors())
    if form.is_valid() and rechner_ok:
        daten = {**form.cleaned_data, "berechnung": kontext["berechnung"]}
        if frist is None or neu_berechnet or "datum" in form.changed_data:  # only a new date is checked
            kontext["warnungen"] = dienst.frist_warnungen(
                datum=daten["datum"], typ=daten["typ"], bundesland=daten["bundesland"] or akte.bundesland,
                berechnung=daten["berechnung"])
        if not kontext["warnungen"] or request.POST.get("trotz_warnung"):
            try:
                neu = _speichern(request, akte, frist, daten)
            except DomainError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, f"„{neu.bezeichnung}“ ist gespeichert.")
                return redirect(reverse("akten:frist_detail", args=[akte.pk, neu.pk]))
    return render(request, "akten/frist_form.html", kontext)


@login_required
def frist_neu(request: HttpRequest, akte_id: int) -> HttpResponse:
    """A new Frist, Termin or Wiedervorlage in a visible Akte (404 otherwise; 403 for the role)."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    pruefe(request.user, "frist")
    return _formular(request, akte, None)


@login_required
def frist_bearbeiten(request: HttpRequest, akte_id: int, frist_id: int) -> HttpResponse:
    """Correct a Frist by hand; roles and scoping as for marking it erledigt."""
    frist = dienst.editable_frist(user=request.user, akte_id=akte_id, frist_id=frist_id)
    frist = Frist.objects.select_related("akte").get(pk=frist.pk)
    if request.method != "POST":  # the form shows the Frist: a read of it, as its page
        lesen(user=request.user, akte=frist.akte, weg=Weg.SEITE, bereich=Bereich.FRIST, objekt_id=frist.pk)
    return _formular(request, frist.akte, frist)


@login_required
@require_POST
def frist_pruefen(request: HttpRequest, akte_id: int) -> JsonResponse:
    """The form's warnings while typing (its script): the same check as on saving, nothing stored."""
    akte = get_akte(user=request.user, akte_id=akte_id)
    form = FristForm(request.POST, akte=akte)
    form.is_valid()
    datum = form.cleaned_data.get("datum")
    if not datum:
        return JsonResponse({"warnungen": []})
    land = form.cleaned_data.get("bundesland") or akte.bundesland
    rechnung = RechnerForm(request.POST).berechnen(land)
    warnungen = dienst.frist_warnungen(datum=datum, typ=form.cleaned_data.get("typ") or Frist.Typ.FRIST,
                                       bundesland=land, berechnung=rechnung[1] if rechnung else None)
    return JsonResponse({"warnungen": warnungen})


@login_required
@require_GET
def frist_detail(request: HttpRequest, akte_id: int, frist_id: int) -> HttpResponse:
    """One Frist: its data, how its date came about, what was done, its Verlauf and the actions."""
    frist = get_frist(user=request.user, akte_id=akte_id, frist_id=frist_id)
    lesen(user=request.user, akte=frist.akte, weg=Weg.SEITE, bereich=Bereich.FRIST, objekt_id=frist.pk)
    heute = timezone.localdate()
    warnungen = dienst.frist_warnungen(datum=frist.datum, typ=frist.typ, berechnung=frist.berechnung,
                                       bundesland=frist.effektives_bundesland, vergangenheit=False)
    return render(request, "akten/fristen/detail.html", {
        "akte": frist.akte, "frist": frist, "heute": heute, "warnungen": warnungen,
        "verlauf": verlauf_des_eintrags(user=request.user, eintrag=frist),
        "darf_fristen": darf(request.user, "frist"),
        "vier_augen": Kanzleieinstellung.aktuell().vier_augen_notfrist,
    })


def _gesendet(request: HttpRequest) -> Any:
    return request.POST if request.method == "POST" else None


def _aktion(request: HttpRequest, frist: Frist, vorlage: str, form: VermerkForm | GrundForm,
            tun: Callable[[dict[str, Any]], str]) -> HttpResponse:
    """Run an action from its small form: a missing Vermerk/Grund shows the form again with the German
    reason (nothing changed); a Frist in another state (already erledigt …) returns with the message."""
    if request.method == "POST" and form.is_valid():
        try:
            nachricht = tun(form.cleaned_data)
        except EingabeFehler as exc:
            form.add_error(None, exc.message)
        except DomainError as exc:
            if exc.status != 409:
                raise
            messages.error(request, exc.message)
            return redirect(zurueck(request, frist))
        else:
            messages.success(request, nachricht)
            return redirect(zurueck(request, frist))
    return render(request, vorlage, {"akte": frist.akte, "frist": frist, "form": form,
                                     "next": request.POST.get("next") or request.GET.get("next", "")})


@login_required
def frist_erledigt(request: HttpRequest, akte_id: int, frist_id: int) -> HttpResponse:
    """Erledigt with a short Vermerk; a Notfrist under the Vier-Augen-Prinzip then waits for a second
    person. GET shows the form (the Fristenbuch and the Akte page carry it inline too)."""
    frist = dienst.editable_frist(user=request.user, akte_id=akte_id, frist_id=frist_id)

    def tun(daten: dict[str, Any]) -> str:
        erledigt = dienst.frist_erledigen(user=request.user, akte_id=akte_id, frist_id=frist_id,
                                          vermerk=daten["vermerk"])
        if erledigt.wartet_auf_bestaetigung:
            return (f"„{erledigt.bezeichnung}“: Erledigung eingetragen – sie wartet auf die Bestätigung "
                    "durch eine zweite Person.")
        return f"„{erledigt.bezeichnung}“ ist erledigt."

    return _aktion(request, frist, "akten/fristen/erledigt.html", VermerkForm(_gesendet(request)), tun)


@login_required
@require_POST
def frist_bestaetigen(request: HttpRequest, akte_id: int, frist_id: int) -> HttpResponse:
    """The second person confirms a Notfrist's Erledigt (not the one who entered it: 403)."""
    frist = dienst.editable_frist(user=request.user, akte_id=akte_id, frist_id=frist_id)
    try:
        frist = dienst.frist_bestaetigen(user=request.user, akte_id=akte_id, frist_id=frist_id)
    except DomainError as exc:
        if exc.status != 409:
            raise
        messages.error(request, exc.message)
    else:
        messages.success(request, f"„{frist.bezeichnung}“ ist erledigt: Erledigung bestätigt.")
    return redirect(zurueck(request, frist))


@login_required
def frist_wieder_oeffnen(request: HttpRequest, akte_id: int, frist_id: int) -> HttpResponse:
    """Take an Erledigt back, with the reason (kept in the Verlauf)."""
    frist = dienst.editable_frist(user=request.user, akte_id=akte_id, frist_id=frist_id)

    def tun(daten: dict[str, Any]) -> str:
        offen = dienst.frist_wieder_oeffnen(user=request.user, akte_id=akte_id, frist_id=frist_id,
                                            grund=daten["grund"])
        return f"„{offen.bezeichnung}“ ist wieder offen."

    return _aktion(request, frist, "akten/fristen/wieder_oeffnen.html", GrundForm(_gesendet(request)), tun)
