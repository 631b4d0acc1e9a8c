"""Gebührenberechnung nach RVG (Anwaltsgebühren) und GKG (Gerichtskosten).

Pure Python on purpose: the fee rules are legal arithmetic that must be testable
without a database and reusable from views, the JSON API and background jobs.
All money is ``Decimal``; floats are rejected at the boundary because binary
fractions cannot represent cents exactly.
"""

from akten.kosten.berechnung import berechne_gkg, berechne_rvg
from akten.kosten.schritte import GkgErgebnis, Position, RvgErgebnis, gebuehr_mit_mindestbetrag
from akten.kosten.tabellen import (
    GKG_TABELLEN,
    KV_GKG,
    RVG_AUSLAGEN,
    RVG_TABELLEN,
    VV_RVG,
    Gebuehrentatbestand,
)
from akten.kosten.zahlen import (
    AUSLAGENPAUSCHALE_ANTEIL,
    AUSLAGENPAUSCHALE_HOECHSTBETRAG,
    BERLIN,
    HOECHSTWERT,
    MINDESTBETRAG,
    UST_SATZ,
    KostenError,
    parse_betrag,
    parse_satz,
)

__all__ = [
    "AUSLAGENPAUSCHALE_ANTEIL",
    "AUSLAGENPAUSCHALE_HOECHSTBETRAG",
    "BERLIN",
    "GKG_TABELLEN",
    "HOECHSTWERT",
    "KV_GKG",
    "MINDESTBETRAG",
    "RVG_AUSLAGEN",
    "RVG_TABELLEN",
    "UST_SATZ",
    "VV_RVG",
    "Gebuehrentatbestand",
    "GkgErgebnis",
    "KostenError",
    "Position",
    "RvgErgebnis",
    "berechne_gkg",
    "berechne_rvg",
    "gebuehr_mit_mindestbetrag",
    "parse_betrag",
    "parse_satz",
]
