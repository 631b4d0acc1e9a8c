"""Beteiligte of an Akte, each new or renamed party checked against the firm's parties first."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import nur_bekannte, pruefe_eingabe, speichere
from akten.kollision import KollisionGefunden, protokolliere
from akten.kollision import pruefe as kollisionen
from akten.models import Beteiligter, User
from akten.selectors import get_akte
from config.errors import NotFound

FELDER = ("rolle", "anrede", "name", "anschrift", "telefon", "email", "aktenzeichen_extern", "notiz",
          "extern_id")


def _kollisionspruefung(*, user: User, akte: Any, name: str, rolle: str, anlass: str,
                        bestaetigt: bool, begruendung: str, ausser: int | None = None) -> None:
    """Check the name (also within this Akte: the same person on both sides); refuse with the hits
    unless the user confirmed. The check is recorded with the save — no hits, or gone on despite
    them with the reason; a refused save rolls back with everything else (the caller's transaction)."""
    treffer = kollisionen(namen=[name], user=user, neue_rolle=rolle, ausser_beteiligter=ausser,
                          fuer_akte=akte.pk)
    if treffer and not bestaetigt:
        raise KollisionGefunden(treffer)
    protokolliere(user=user, namen=[name], treffer=treffer, anlass=anlass, akte=akte,
                  fortgesetzt=True if treffer else None,
                  begruendung=begruendung if treffer else "")  # the reason given for another party's hits


@transaction.atomic
def beteiligter_anlegen(*, user: User, akte_id: int | str, daten: dict[str, Any],
                        anlass: str = "hand", grund: str = "",
                        kollision_bestaetigt: bool = False, kollision_begruendung: str = "") -> Beteiligter:
    """A party of the Akte. KollisionGefunden (409) if the name may be a party of the firm already and
    the user has not confirmed; then nothing is saved."""
    akte = get_akte(user=user, akte_id=akte_id)
    pruefe(user, "beteiligter")
    nur_bekannte(daten, FELDER, was="bei Beteiligten")
    beteiligter = Beteiligter(akte=akte, **daten)
    pruefe_eingabe(beteiligter, user=user)  # a bad entry is refused before anything is checked or recorded
    _kollisionspruefung(user=user, akte=akte, name=beteiligter.name, rolle=beteiligter.rolle, anlass=anlass,
                        bestaetigt=kollision_bestaetigt, begruendung=kollision_begruendung)
    return speichere(beteiligter, user=user, grund=grund)


@transaction.atomic
def beteiligter_aendern(*, user: User, akte_id: int | str, beteiligter_id: int | str,
                        aenderungen: dict[str, Any],
                        kollision_bestaetigt: bool = False, kollision_begruendung: str = "") -> Beteiligter:
    """Change a party; a new name or a new role is checked again."""
    akte = get_akte(user=user, akte_id=akte_id)
    pruefe(user, "beteiligter")
    try:
        beteiligter = Beteiligter.objects.select_for_update().get(pk=int(beteiligter_id), akte=akte)
    except (TypeError, ValueError, Beteiligter.DoesNotExist):
        raise NotFound("Beteiligte/r nicht gefunden.") from None
    nur_bekannte(aenderungen, FELDER, was="bei Beteiligten")
    vorher = (beteiligter.name, beteiligter.rolle)
    for name, wert in aenderungen.items():
        setattr(beteiligter, name, wert)
    pruefe_eingabe(beteiligter, user=user)
    if (beteiligter.name, beteiligter.rolle) != vorher:
        _kollisionspruefung(user=user, akte=akte, name=beteiligter.name, rolle=beteiligter.rolle,
                            anlass="hand",
                            bestaetigt=kollision_bestaetigt, begruendung=kollision_begruendung,
                            ausser=beteiligter.pk)
    return speichere(beteiligter, user=user)


@transaction.atomic
def beteiligter_entfernen(*, user: User, akte_id: int | str, beteiligter_id: int | str) -> None:
    """Remove a party entered by mistake (the history keeps it)."""
    akte = get_akte(user=user, akte_id=akte_id)
    pruefe(user, "beteiligter")
    beteiligter = Beteiligter.objects.filter(pk=beteiligter_id, akte=akte).first()
    if beteiligter is None:
        raise NotFound("Beteiligte/r nicht gefunden.")
    beteiligter._history_user = user  # type: ignore[attr-defined]
    beteiligter.delete()
