"""Fristen, Termine and Wiedervorlagen entered and kept by hand: anlegen (with the Fristenrechner's
result), correct, erledigt with a Vermerk, a Notfrist confirmed by a second person (Vier-Augen-
Prinzip, Kanzleieinstellung), an Erledigt taken back with a reason — all of it in the history."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from django.db import transaction
from django.utils import timezone

from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import EingabeFehler, nur_bekannte, speichere
from akten.fristen import FristErgebnis, FristError, berechne, format_datum, kein_werktag
from akten.fristen_scan import bestaetigung_hinweise
from akten.models import Alert, Frist, Kanzleieinstellung, User
from akten.selectors import get_akte, get_frist, personen_der_akte
from config.errors import DomainError, Forbidden

FELDER = ("bezeichnung", "typ", "datum", "uhrzeit", "vorfrist", "ist_notfrist", "verantwortlich", "notiz",
          "bundesland", "berechnung", "extern_id")
VERMERK_MAX = 2000


class BereitsErledigt(DomainError):
    status, code = 409, "already_decided"


class NichtZuBestaetigen(DomainError):
    """The Frist is not in the state the action needs (nothing waits, nothing to reopen): HTTP 409."""

    status, code = 409, "conflict"


def editable_frist(*, user: User, akte_id: int | str, frist_id: int | str) -> Frist:
    """The Frist if the user may change it: NotFound for a foreign Akte, Forbidden for the role."""
    frist = get_frist(user=user, akte_id=akte_id, frist_id=frist_id)  # NotFound for a foreign Akte
    pruefe(user, "frist")
    return frist


def _locked(frist: Frist) -> Frist:
    return Frist.objects.select_for_update(of=("self",)).select_related("akte").get(pk=frist.pk)


def _pruefe_verantwortlich(frist: Frist) -> None:
    """The person responsible must be active and able to open the Akte, else nobody keeps the Frist."""
    person = frist.verantwortlich
    if person is None:
        return
    if not person.is_active:
        raise EingabeFehler("Diese Person ist nicht mehr aktiv.", {"verantwortlich": "nicht mehr aktiv"})
    if not personen_der_akte(akte=frist.akte).filter(pk=person.pk).exists():
        name = person.get_full_name() or person.username
        raise EingabeFehler(f"{name} darf diese Akte nicht sehen und kann die Frist so nicht halten. Gib "
                            "zuerst Zugriff auf die Akte oder wähle eine andere Person.",
                            {"verantwortlich": "ohne Zugriff auf die Akte"})


@transaction.atomic
def frist_anlegen(*, user: User, akte_id: int | str, daten: dict[str, Any], grund: str = "") -> Frist:
    """A new Frist, Termin or Wiedervorlage in a visible Akte; `berechnung` keeps how the date came
    about (akten.fristen.berechne's result), shown on the Frist."""
    akte = get_akte(user=user, akte_id=akte_id)
    pruefe(user, "frist")
    nur_bekannte(daten, FELDER, was="bei Fristen")
    frist = Frist(akte=akte, **daten)
    _pruefe_verantwortlich(frist)
    return speichere(frist, user=user, grund=grund)


@transaction.atomic
def frist_aendern(*, user: User, akte_id: int | str, frist_id: int | str, aenderungen: dict[str, Any],
                  grund: str = "") -> Frist:
    """Correct a Frist's fields; a change the record refuses (Vorfrist after the end …) changes nothing.

    An erledigt Frist (or one waiting for the second person) is opened again first, so nobody confirms
    a record that differs from what was marked done. A Notfrist keeps the Vier-Augen-Prinzip: only a
    lawyer (or the Administration) declares it no Notfrist, and its end moves only with a reason."""
    frist = _locked(editable_frist(user=user, akte_id=akte_id, frist_id=frist_id))
    if frist.erledigt or frist.wartet_auf_bestaetigung:
        raise BereitsErledigt("Diese Frist ist erledigt oder wartet auf Bestätigung. Öffne sie zuerst wieder "
                              "(mit Grund), wenn sie geändert werden muss.")
    war_notfrist, altes_datum = frist.ist_notfrist, frist.datum
    for name in FELDER:
        if name in aenderungen:
            setattr(frist, name, aenderungen[name])
    grund = (grund or "").strip()
    if war_notfrist and not frist.ist_notfrist:
        pruefe(user, "akte_status")  # the lawyer's decision, like closing the Akte
        if not grund:
            raise EingabeFehler("Bitte gib an, warum das keine Notfrist ist.", {"grund": "fehlt"})
    if war_notfrist and str(frist.datum) != str(altes_datum) and not grund:
        raise EingabeFehler("Das Ende einer Notfrist verschiebst du nur mit Grund (z. B. „Zustellung erst am "
                            "…“).", {"grund": "fehlt"})
    _pruefe_verantwortlich(frist)
    return speichere(frist, user=user, grund=grund)


def _vermerk(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise EingabeFehler("Bitte vermerke kurz, was getan wurde (z. B. „Berufung per beA eingelegt am "
                            "12.03.2026“).", {"vermerk": "fehlt"})
    if len(text) > VERMERK_MAX:
        raise EingabeFehler(f"Der Vermerk darf höchstens {VERMERK_MAX} Zeichen lang sein.",
                            {"vermerk": "zu lang"})
    return text


def vier_augen(frist: Frist) -> bool:
    """Does this Frist's Erledigt need a second person (a Notfrist, where the firm switched it on)?"""
    return frist.ist_notfrist and Kanzleieinstellung.aktuell().vier_augen_notfrist


def _hinweise_gelesen(frist: Frist) -> None:
    # its Hinweise are answered: the scan gives no more, the open ones count as read
    Alert.objects.filter(frist=frist, gelesen=False).update(gelesen=True)


@transaction.atomic
def frist_erledigen(*, user: User, akte_id: int | str, frist_id: int | str, vermerk: str) -> Frist:
    """Mark a Frist erledigt with what was done. A Notfrist under the Vier-Augen-Prinzip then waits for
    a second person's confirmation (frist_bestaetigen) and still counts as open until then."""
    frist = _locked(editable_frist(user=user, akte_id=akte_id, frist_id=frist_id))
    text = _vermerk(vermerk)
    if frist.erledigt:
        raise BereitsErledigt("Diese Frist ist bereits erledigt.")
    if frist.wartet_auf_bestaetigung:
        raise BereitsErledigt("Die Erledigung dieser Notfrist wartet schon auf die Bestätigung einer zweiten "
                              "Person.")
    frist.erledigt_vermerk = text
    if vier_augen(frist):
        frist.erledigung_beantragt_von = user
        frist.erledigung_beantragt_am = timezone.now()
        speichere(frist, user=user, grund="erledigt, wartet auf Bestätigung (Vier-Augen-Prinzip)")
        bestaetigung_hinweise(frist)  # whoever may confirm is told (and mailed: akten/mail/)
        return frist
    frist.erledigt, frist.erledigt_von = True, user
    speichere(frist, user=user, grund="erledigt")
    _hinweise_gelesen(frist)
    return frist


@transaction.atomic
def frist_bestaetigen(*, user: User, akte_id: int | str, frist_id: int | str) -> Frist:
    """The second person confirms a Notfrist's Erledigt: only now it counts."""
    frist = _locked(editable_frist(user=user, akte_id=akte_id, frist_id=frist_id))
    if frist.erledigt:
        raise BereitsErledigt("Diese Frist ist bereits erledigt.")
    if not frist.wartet_auf_bestaetigung:
        raise NichtZuBestaetigen("Für diese Frist ist keine Erledigung zu bestätigen.")
    if frist.erledigung_beantragt_von_id == user.pk:
        raise Forbidden("Die Erledigung einer Notfrist bestätigt eine zweite Person, nicht wer sie "
                        "eingetragen hat (Vier-Augen-Prinzip).")
    frist.erledigt, frist.erledigt_von, frist.bestaetigt_von = True, frist.erledigung_beantragt_von, user
    speichere(frist, user=user, grund="Erledigung bestätigt (Vier-Augen-Prinzip)")
    _hinweise_gelesen(frist)
    return frist


@transaction.atomic
def frist_wieder_oeffnen(*, user: User, akte_id: int | str, frist_id: int | str, grund: str) -> Frist:
    """Take an Erledigt back (or a waiting one) with the reason; the Vermerk stays in the history."""
    frist = _locked(editable_frist(user=user, akte_id=akte_id, frist_id=frist_id))
    grund = (grund or "").strip()
    if not grund:
        raise EingabeFehler("Bitte gib an, warum die Frist wieder offen ist.", {"grund": "fehlt"})
    if len(grund) > VERMERK_MAX:
        raise EingabeFehler(f"Der Grund darf höchstens {VERMERK_MAX} Zeichen lang sein.",
                            {"grund": "zu lang"})
    if not frist.erledigt and not frist.wartet_auf_bestaetigung:
        raise NichtZuBestaetigen("Diese Frist ist nicht erledigt.")
    frist.erledigt = False
    frist.erledigt_von = frist.bestaetigt_von = frist.erledigung_beantragt_von = None
    frist.erledigung_beantragt_am = None
    frist.erledigt_vermerk = ""
    return speichere(frist, user=user, grund=f"wieder offen: {grund}")


# --- the Fristenrechner's result on a Frist, and what a careful colleague points out ----------------


def berechnung_speichern(ergebnis: FristErgebnis, *, dauer: Mapping[str, int] | None, preset: str | None,
                         vorfrist_tage: int | None) -> dict[str, Any]:
    """What Frist.berechnung keeps: the input (to compute it again) and the result as the Frist shows it.
    The keys of a Helena draft's Berechnung (start, dauer, preset, bundesland, ende, begruendung,
    hinweise) keep their meaning, so both are read alike."""
    daten = ergebnis.as_dict()
    vorlage = ergebnis.preset
    return {
        "start": daten["start"], "dauer": dict(dauer) if dauer else None, "preset": preset,
        "bundesland": ergebnis.bundesland or "", "fristbeginn": ergebnis.fristbeginn,
        "vorfrist_tage": vorfrist_tage, "ende": daten["ende"],
        "unverschobenes_ende": daten["unverschobenes_ende"], "verschoben": daten["verschoben"],
        "vorfrist": daten["vorfrist"], "notfrist": ergebnis.notfrist, "dauer_text": ergebnis.dauer.text,
        "bezeichnung": vorlage.bezeichnung if vorlage else "", "norm": vorlage.norm if vorlage else "",
        "begruendung": ergebnis.begruendung, "hinweise": list(ergebnis.hinweise),
    }


def berechnetes_ende(berechnung: Mapping[str, Any] | None, bundesland: str | None) -> date | None:
    """The Fristende the stored Berechnung gives today (None without one, or if it cannot be read)."""
    if not berechnung:
        return None
    try:
        return berechne(start=berechnung["start"], dauer=berechnung.get("dauer"),
                        preset=berechnung.get("preset"), bundesland=bundesland or None,
                        fristbeginn=berechnung.get("fristbeginn") or "ereignis").ende
    except (FristError, KeyError, TypeError):
        return None


def frist_warnungen(*, datum: date, typ: str, bundesland: str | None, berechnung: Mapping[str, Any] | None,
                    heute: date | None = None, vergangenheit: bool = True) -> list[str]:
    """What a careful colleague would point out about a Frist's date before it is entered (the form, a
    Helena draft) and on the Frist: a date other than the computed one, an end on a day that is no
    Werktag (§ 193 BGB, § 222 Abs. 2 ZPO), a date in the past."""
    warnungen: list[str] = []
    ende = berechnetes_ende(berechnung, bundesland)
    if ende is not None and ende != datum:
        warnungen.append(f"Das Datum {format_datum(datum)} weicht von der Fristberechnung ab: "
                         f"berechnet ist {format_datum(ende)}.")
    if (typ or Frist.Typ.FRIST) == Frist.Typ.FRIST:
        try:
            grund = kein_werktag(datum, bundesland or None)
        except FristError:  # beyond the holiday tables (a typo like 2106): say so, lose no input
            grund = ""
            warnungen.append(f"Für {format_datum(datum)} kennt Helena die Feiertage nicht; bitte das "
                             "Jahr prüfen.")
        if grund:
            warnungen.append(f"{format_datum(datum)} ist kein Werktag ({grund}); eine Frist endet dann erst "
                             f"am nächsten Werktag (§ 193 BGB, § 222 Abs. 2 ZPO). Bitte das Datum prüfen.")
    if vergangenheit and datum < (heute or timezone.localdate()):
        warnungen.append(f"Das Datum {format_datum(datum)} liegt in der Vergangenheit.")
    return warnungen
