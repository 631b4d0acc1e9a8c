"""What a careful colleague would point out on a draft before it is approved: a Frist on a
non-Werktag or off its Berechnung (the same check as the Frist form's), a letter with placeholders
left open or without a recipient in the Akte. Shown on the card; they warn, they do not refuse."""

from __future__ import annotations

from datetime import date
from typing import Any

from akten.dokumente.platzhalter import offene_platzhalter
from akten.erfassung.fristen import frist_warnungen
from akten.models import Akte, Beteiligter
from drafts.models import Draft


def _frist_warnungen(*, fields: dict[str, Any], akte: Akte, context: dict[str, Any]) -> list[str]:
    """What a careful colleague would point out about a proposed Frist (the same check as the form's)."""
    return frist_warnungen(datum=date.fromisoformat(fields["datum"]), typ=fields.get("typ", "frist"),
                           bundesland=akte.bundesland, berechnung=context.get("berechnung"))


def warnungen_fuer(
    *, kind: str, fields: dict[str, Any], akte: Akte | None, context: dict[str, Any]
) -> list[str]:
    if kind == Draft.Kind.FRIST and akte is not None:
        return _frist_warnungen(fields=fields, akte=akte, context=context)
    if kind == Draft.Kind.DOKUMENT:
        warnings = []
        offen = offene_platzhalter(fields.get("inhalt", ""))
        if offen:
            liste = ", ".join("{{" + name + "}}" for name in offen)
            warnings.append(f"Noch nicht ausgefüllt: {liste}. Bitte vor der Freigabe ergänzen.")
        rolle = fields.get("empfaenger", "")
        if (akte is not None and rolle in Beteiligter.Rolle.values
                and not akte.beteiligte.filter(rolle=rolle).exists()):
            warnings.append(f"Die Akte nennt keine Beteiligten der Rolle „{Beteiligter.Rolle(rolle).label}“: "
                            "das Schreiben hätte keinen Empfänger. Bitte in der Akte ergänzen.")
        return warnings
    return []
