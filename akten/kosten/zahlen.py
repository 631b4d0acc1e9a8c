"""Amounts and rates as the calculators take and show them: parsing (German and English notation),
rounding to the cent, the legal constants (Mindestbetrag, Auslagenpauschale, Umsatzsteuer)."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Context, Decimal
from zoneinfo import ZoneInfo

from config.errors import DomainError

BERLIN = ZoneInfo("Europe/Berlin")  # the firm's calendar day, not the server's UTC day

class KostenError(DomainError, ValueError):
    """Invalid input for a fee calculation; the message is German and shown to users (422)."""


CENT = Decimal("0.01")
# § 13 Abs. 2 RVG and § 34 Abs. 2 GKG: no single fee may be lower than this.
MINDESTBETRAG = Decimal("15.00")
# § 22 Abs. 2 RVG and § 39 Abs. 2 GKG: values above this are treated as this.
HOECHSTWERT = Decimal("30000000")
# Anything above one Billion EUR is a typo, not a case; refuse instead of capping silently.
PLAUSIBILITAETSGRENZE = Decimal("1000000000000")
AUSLAGENPAUSCHALE_ANTEIL = Decimal("0.20")  # Nr. 7002 VV RVG
AUSLAGENPAUSCHALE_HOECHSTBETRAG = Decimal("20.00")  # Nr. 7002 VV RVG
UST_SATZ = Decimal("0.19")  # Nr. 7008 VV RVG, § 12 Abs. 1 UStG

# A fixed context so a caller who changed the thread's decimal context cannot skew results.
KONTEXT = Context(prec=28)

_ZAHL = re.compile(r"[+-]?\d+(?:[.,]\d+)?")
_MAX_EINGABELAENGE = 40


# --------------------------------------------------------------------------- parsing


def abgeschnitten(text: str) -> str:
    """Shorten echoed user input so error messages stay readable."""
    return text if len(text) <= _MAX_EINGABELAENGE else text[:_MAX_EINGABELAENGE] + "…"


def _parse_dezimal(value: object, *, bezeichnung: str, beispiel: str) -> Decimal:
    """Turn str/int/Decimal into a finite Decimal; floats are refused because they are inexact."""
    if isinstance(value, bool):
        raise KostenError(f"Ungültiger {bezeichnung}: Wahrheitswerte sind keine Zahl.")
    if isinstance(value, float):
        raise KostenError(
            f"Ungültiger {bezeichnung}: Gleitkommazahlen werden nicht akzeptiert, "
            f"bitte als Text angeben (z. B. „{beispiel}“)."
        )
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Decimal):
        zahl = value
    elif isinstance(value, str):
        text = value.strip()
        if len(text) > _MAX_EINGABELAENGE or not _ZAHL.fullmatch(text):
            raise KostenError(
                f"Ungültiger {bezeichnung}: „{abgeschnitten(value)}“ ist keine Zahl "
                f"(erwartet z. B. „{beispiel}“)."
            )
        zahl = Decimal(text.replace(",", "."))
    else:
        raise KostenError(
            f"Ungültiger {bezeichnung}: erwartet wird eine Zahl (z. B. „{beispiel}“)."
        )
    if not zahl.is_finite():
        raise KostenError(f"Ungültiger {bezeichnung}: „{zahl}“ ist keine endliche Zahl.")
    return zahl


def _nachkommastellen(zahl: Decimal) -> int:
    """Count the decimals as written, so '5.000' (German thousands?) is not mistaken for 5."""
    exponent = zahl.as_tuple().exponent
    assert isinstance(exponent, int)  # finite numbers only, checked by the caller
    return max(0, -exponent)


def parse_betrag(value: object, /, *, bezeichnung: str = "Betrag") -> Decimal:
    """Parse a money amount from API/form input into an exact Decimal.

    Accepts str ("5000", "5000.50", "5000,50"), int and Decimal. Rejects floats,
    NaN/Infinity, exponent notation and more than two decimals: a value like
    "5.000" is ambiguous (German thousands separator) and must not become 5 EUR.
    """
    zahl = _parse_dezimal(value, bezeichnung=bezeichnung, beispiel="5000.00")
    if _nachkommastellen(zahl) > 2:
        raise KostenError(
            f"Ungültiger {bezeichnung}: höchstens zwei Nachkommastellen erlaubt "
            f"(Tausenderpunkte bitte weglassen, z. B. „5000“ statt „5.000“)."
        )
    return zahl


def parse_satz(value: object, /) -> Decimal:
    """Parse a Gebührensatz (e.g. "1.3") into a Decimal; rates must never be floats."""
    satz = _parse_dezimal(value, bezeichnung="Satz", beispiel="1.3")
    if _nachkommastellen(satz) > 2:
        raise KostenError("Ungültiger Satz: höchstens zwei Nachkommastellen erlaubt.")
    if satz <= 0:
        raise KostenError("Ungültiger Satz: der Satz muss größer als 0 sein.")
    return satz


def runde(betrag: Decimal) -> Decimal:
    """Round to the cent, half up, as § 2 Abs. 2 Satz 2 RVG prescribes."""
    return betrag.quantize(CENT, rounding=ROUND_HALF_UP)


def satz_text(satz: Decimal) -> str:
    """Render a rate like the statute does ("1.3", "2.0", "0.65"), without exponent noise."""
    normal = satz.normalize()
    if normal == normal.to_integral_value():
        return f"{normal:.1f}"
    return f"{normal:f}"


def satz_de(satz: Decimal) -> str:
    """German rendering of a rate for messages ("1,3")."""
    return satz_text(satz).replace(".", ",")


def eur_de(betrag: Decimal) -> str:
    """German money rendering for messages ("30.000.000,00 EUR")."""
    text = f"{betrag:,.2f}"
    return text.replace(",", "\0").replace(".", ",").replace("\0", ".") + " EUR"


def geld(betrag: Decimal) -> str:
    """JSON money: decimal string with exactly two places."""
    return f"{betrag:.2f}"
