"""Akte anlegen (with its Mandant and, if known, its Gegner, in one step) and bearbeiten.

The Akte and its parties are one transaction: when the Kollisionsprüfung finds that a party may
already be a party of the firm, nothing is saved; the page shows the hits (for an Akte the user may not
see only the hint whom to ask, never its Aktenzeichen) and asks for the decision and its reason, which
the services record with the check (akten.models.Kollisionspruefung).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from akten.accounts.users import role_of
from akten.erfassung.akten import STAMMDATEN, akte_aendern, akte_anlegen, naechstes_aktenzeichen
from akten.erfassung.beteiligte import beteiligter_anlegen
from akten.erfassung.rechte import darf, pruefe
from akten.erfassung.speichern import EingabeFehler
from akten.kollision import KollisionGefunden
from akten.lesezugriffe.services import Bereich, Weg, lesen
from akten.models import Akte, Beteiligter, User
from akten.seiten.forms import (
    AkteAendernForm,
    AkteForm,
    GegnerForm,
    KollisionForm,
    ParteiForm,
    fehler_zeigen,
)
from akten.selectors import fristen_for, get_akte

BESTAETIGUNG_AKTE = "Ich habe die möglichen Kollisionen geprüft und lege die Akte trotzdem an"


class ParteiFehler(Exception):
    """A party's input was refused by the service; `form` names the part of the page."""

    def __init__(self, form: str, fehler: EingabeFehler) -> None:
        super().__init__(fehler.message)
        self.form, self.fehler = form, fehler


def treffer_fuer(exc: KollisionGefunden) -> list[dict[str, Any]]:
    """The hits as the user may see them (Treffer.fuer: no Aktenzeichen of a foreign Akte)."""
    return [t.fuer() for t in exc.treffer]


def _stammdaten(daten: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in daten.items() if k in STAMMDATEN or (k == "status" and v)}


def _partei(daten: dict[str, Any], rolle: str) -> dict[str, Any]:
    return {"rolle": rolle, **{k: v for k, v in daten.items() if k in ParteiForm.base_fields}}


def akte_mit_parteien(*, user: User, daten: dict[str, Any], parteien: list[tuple[str, dict[str, Any]]],
                      bestaetigt: bool, begruendung: str) -> Akte:
    """The Akte and its parties, or nothing: KollisionGefunden with the hits of every party."""
    with transaction.atomic():
        akte = akte_anlegen(user=user, daten=daten)
        treffer = []
        for form, partei in parteien:
            try:
                beteiligter_anlegen(user=user, akte_id=akte.pk, daten=partei, kollision_bestaetigt=bestaetigt,
                                    kollision_begruendung=begruendung)
            except KollisionGefunden as exc:  # its own savepoint is gone; check the next party too
                treffer += exc.treffer
            except EingabeFehler as exc:
                raise ParteiFehler(form, exc) from None
        if treffer:
            raise KollisionGefunden(treffer)  # rolls the Akte back
    return akte


def _vergeben(form: AkteForm, anwalt: User | None) -> None:
    """A taken Aktenzeichen: say which one is free now."""
    if "aktenzeichen" in form.errors:
        frei = naechstes_aktenzeichen(anwalt=anwalt)
        form.errors["aktenzeichen"] = form.error_class([f"Schon vergeben. Frei ist zum Beispiel {frei}."])


@login_required
def akte_neu(request: HttpRequest) -> HttpResponse:
    """The form for a new Akte with its Mandant (and Gegner); for every role but the Praktikant."""
    user = request.user
    pruefe(user, "akte")
    darf_status = darf(user, "akte_status")
    treffer: list[dict[str, Any]] = []
    daten = request.POST if request.method == "POST" else None
    form = AkteForm(daten, darf_status=darf_status)
    mandant = ParteiForm(daten, prefix="mandant")
    gegner = GegnerForm(daten, prefix="gegner")
    kollision = KollisionForm(daten, bestaetigung=BESTAETIGUNG_AKTE)
    if daten is None:
        anwalt = user if role_of(user) == "ANWALT" else None
        form = AkteForm(darf_status=darf_status, initial={
            "aktenzeichen": naechstes_aktenzeichen(anwalt=anwalt), "anwalt": anwalt.pk if anwalt else None})
    elif all([form.is_valid(), mandant.is_valid(), gegner.is_valid()]):
        parteien = [("mandant", _partei(mandant.cleaned_data, Beteiligter.Rolle.MANDANT))]
        if gegner.cleaned_data["name"]:
            parteien.append(("gegner", _partei(gegner.cleaned_data, Beteiligter.Rolle.GEGNER)))
        namen = "|".join(f"{p['rolle']}:{p['name']}" for _, p in parteien)
        bestaetigt, begruendung = kollision.entscheidung(namen)
        try:
            akte = akte_mit_parteien(user=user, daten=_stammdaten(form.cleaned_data), parteien=parteien,
                                     bestaetigt=bestaetigt, begruendung=begruendung)
        except KollisionGefunden as exc:
            treffer, kollision = treffer_fuer(exc), kollision.fuer_treffer(namen)
        except ParteiFehler as exc:
            fehler_zeigen(mandant if exc.form == "mandant" else gegner, exc.fehler)
        except EingabeFehler as exc:
            fehler_zeigen(form, exc)
            if exc.felder.get("aktenzeichen") == "Schon vergeben.":
                _vergeben(form, form.cleaned_data.get("anwalt"))
        else:
            messages.success(request, f"Die Akte {akte.aktenzeichen} ist angelegt.")
            return redirect("akten:detail", akte_id=akte.pk)
    context = {"form": form, "mandant": mandant, "gegner": gegner, "kollision": kollision, "treffer": treffer,
               "neu": True}
    status = 200 if daten is None else (409 if treffer else 422)
    return render(request, "akten/akte_form.html", context, status=status)


def _aenderungen(akte: Akte, daten: dict[str, Any]) -> dict[str, Any]:
    """Only what differs from the Akte (a person no longer active may stay where they are)."""
    out = {}
    for name, wert in _stammdaten(daten).items():
        jetzt = getattr(akte, f"{name}_id") if name in ("anwalt", "sachbearbeiter") else getattr(akte, name)
        neu = wert.pk if isinstance(wert, User) else wert
        if neu != jetzt and not (neu in (None, "") and jetzt in (None, "")):
            out[name] = wert
    return out


def _offene_fristen_beim_abschluss(request: HttpRequest, akte: Akte) -> None:
    """A closed or filed Akte with open Fristen: say so (they stay in the Fristenbuch and still run)."""
    if akte.status not in (Akte.Status.GESCHLOSSEN, Akte.Status.ARCHIVIERT):
        return
    offen = fristen_for(user=request.user, akte_id=akte.pk, status="active").count()
    if offen:
        menge = "einen offenen Eintrag" if offen == 1 else f"{offen} offene Einträge"
        messages.warning(request, f"Die Akte ist {akte.get_status_display()}, hat aber noch {menge} im "
                                  "Fristenbuch (Frist, Termin oder Wiedervorlage). Sie laufen weiter – bitte "
                                  "erledigen oder übertragen.")


@login_required
def akte_bearbeiten(request: HttpRequest, akte_id: int) -> HttpResponse:
    """Change an Akte's Stammdaten; the status only for Anwälte and the Administration."""
    akte = get_akte(user=request.user, akte_id=akte_id)  # 404 before 403: a foreign Akte is none
    pruefe(request.user, "akte")
    darf_status = darf(request.user, "akte_status")
    if request.method != "POST":  # the form shows the Stammdaten: a read of the Akte
        lesen(user=request.user, akte=akte, weg=Weg.SEITE, bereich=Bereich.AKTE)
        form = AkteAendernForm(darf_status=darf_status, akte=akte, initial=AkteForm.anfangswerte(akte))
        return render(request, "akten/akte_form.html", {"form": form, "akte": akte})
    form = AkteAendernForm(request.POST, darf_status=darf_status, akte=akte)
    if form.is_valid():
        aenderungen = _aenderungen(akte, form.cleaned_data)
        if not aenderungen:
            messages.info(request, "Nichts geändert.")
            return redirect("akten:detail", akte_id=akte.pk)
        try:
            geaendert = akte_aendern(user=request.user, akte_id=akte.pk, aenderungen=aenderungen,
                                     grund=form.cleaned_data["grund"])
        except EingabeFehler as exc:
            fehler_zeigen(form, exc)
            if exc.felder.get("aktenzeichen") == "Schon vergeben.":
                form.errors["aktenzeichen"] = form.error_class([exc.message])
        else:
            messages.success(request, f"Die Akte {aenderungen.get('aktenzeichen', akte.aktenzeichen)} ist "
                                      "gespeichert.")
            _offene_fristen_beim_abschluss(request, geaendert)
            return redirect("akten:detail", akte_id=akte.pk)
    return render(request, "akten/akte_form.html", {"form": form, "akte": akte}, status=422)
