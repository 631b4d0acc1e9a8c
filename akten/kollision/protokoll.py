"""Keeping each Kollisionsprüfung and the decision; refusing to save until the user has decided."""

from __future__ import annotations

from typing import Any

from akten.kollision.pruefung import Treffer
from akten.models import Akte, Kollisionspruefung, User
from config.errors import DomainError


class KollisionGefunden(DomainError):
    """Possible conflicts were found and the user has not yet decided to go on (HTTP 409).

    `treffer` holds what the user may be told; the page shows them and asks again, the API client
    sends `kollision_bestaetigt: true` (and a `kollision_begruendung`) to go on.
    """

    status, code = 409, "kollision"

    def __init__(self, treffer: list[Treffer]) -> None:
        anzahl = len(treffer)
        menge = "ein möglicher Treffer" if anzahl == 1 else f"{anzahl} mögliche Treffer"
        text = ("Kollisionsprüfung: " + menge
                + ". Bitte prüfen und bestätigen, dass du trotzdem speichern willst.")
        super().__init__(text, treffer=[t.fuer() for t in treffer])
        self.treffer = treffer


def protokolliere(*, user: User | None, namen: list[str], treffer: list[Treffer], anlass: str,
                  akte: Akte | None = None, fortgesetzt: bool | None = None,
                  begruendung: str = "") -> Kollisionspruefung:
    """Record one check: no hits, went on despite hits (with the reason), stopped, or undecided."""
    if not treffer:
        entscheidung = Kollisionspruefung.Entscheidung.KEINE_TREFFER
    elif fortgesetzt is None:
        entscheidung = Kollisionspruefung.Entscheidung.OFFEN
    else:
        entscheidung = (Kollisionspruefung.Entscheidung.FORTGESETZT if fortgesetzt
                        else Kollisionspruefung.Entscheidung.ABGEBROCHEN)
    daten: list[dict[str, Any]] = [t.als_dict() for t in treffer]
    return Kollisionspruefung.objects.create(akte=akte, user=user, anlass=anlass, namen=namen,
                                             treffer=daten, entscheidung=entscheidung,
                                             begruendung=begruendung[:2000])
