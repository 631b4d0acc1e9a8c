"""A Frist that Helena proposes gets its dates from the firm's calculator (akten.fristen), never from
the model: the Fristende and Vorfrist of a draft, and the Berechnung kept on it so the approval can
check an edited date against it."""

from __future__ import annotations

from typing import Any

from akten.fristen import FristError, berechne, berechne_vorfrist
from akten.models import Akte
from drafts.fields import FieldsInvalid


def frist_aus_berechnung(
    *, akte: Akte, start: str, dauer: dict[str, Any] | None = None, preset: str | None = None,
    vorfrist_tage: int | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fristende (and Vorfrist) from a start event and a Dauer/preset, with the firm's calculator.

    Returns the fields it determines and the Berechnung to keep on the draft (so the approval can
    check an edited date against it). Raises FieldsInvalid with the calculator's German message.
    """
    try:
        ergebnis = berechne(start=start, dauer=dauer, preset=preset, bundesland=akte.bundesland,
                            vorfrist_tage=7 if vorfrist_tage is None else vorfrist_tage)
    except FristError as exc:
        raise FieldsInvalid(str(exc)) from None
    fields: dict[str, Any] = {"datum": ergebnis.ende.isoformat(), "ist_notfrist": ergebnis.notfrist}
    if ergebnis.vorfrist is not None:
        fields["vorfrist"] = ergebnis.vorfrist.datum.isoformat()
    berechnung = {
        "start": ergebnis.start.isoformat(),
        "dauer": dauer,
        "preset": preset,
        "bundesland": akte.bundesland,
        "ende": ergebnis.ende.isoformat(),
        "begruendung": ergebnis.begruendung,
        "hinweise": list(ergebnis.hinweise),
    }
    return fields, berechnung


def vorfrist_for(*, datum: str, akte: Akte, tage: int | None) -> str | None:
    """A Vorfrist `tage` before the Fristende, moved back to a Werktag; None if not computable."""
    try:
        return berechne_vorfrist(ende=datum, tage=tage, bundesland=akte.bundesland).datum.isoformat()
    except FristError:
        return None
