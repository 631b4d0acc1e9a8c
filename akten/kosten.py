"""Gebührenberechnung nach RVG (Anwaltsgebühren) und GKG (Gerichtskosten).

Pure Python on purpose: the fee rules are legal arithmetic that must be testable
without a database and reusable from views, the JSON API and background jobs.
All money is ``Decimal``; floats are rejected at the boundary because binary
fractions cannot represent cents exactly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext
from types import MappingProxyType
from typing import Literal
from zoneinfo import ZoneInfo

from config.errors import DomainError

BERLIN = ZoneInfo("Europe/Berlin")  # the firm's calendar day, not the server's UTC day

__all__ = [
    "KV_GKG",
    "VV_RVG",
    "Gebuehrentatbestand",
    "GkgErgebnis",
    "KostenError",
    "Position",
    "RvgErgebnis",
    "berechne_gkg",
    "berechne_rvg",
    "parse_betrag",
    "parse_satz",
]


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
_KONTEXT = Context(prec=28)

_ZAHL = re.compile(r"[+-]?\d+(?:[.,]\d+)?")
_MAX_EINGABELAENGE = 40


# --------------------------------------------------------------------------- parsing


def _abgeschnitten(text: str) -> str:
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
                f"Ungültiger {bezeichnung}: „{_abgeschnitten(value)}“ ist keine Zahl "
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


def _runde(betrag: Decimal) -> Decimal:
    """Round to the cent, half up, as § 2 Abs. 2 Satz 2 RVG prescribes."""
    return betrag.quantize(CENT, rounding=ROUND_HALF_UP)


def _satz_text(satz: Decimal) -> str:
    """Render a rate like the statute does ("1.3", "2.0", "0.65"), without exponent noise."""
    normal = satz.normalize()
    if normal == normal.to_integral_value():
        return f"{normal:.1f}"
    return f"{normal:f}"


def _satz_de(satz: Decimal) -> str:
    """German rendering of a rate for messages ("1,3")."""
    return _satz_text(satz).replace(".", ",")


def _eur_de(betrag: Decimal) -> str:
    """German money rendering for messages ("30.000.000,00 EUR")."""
    text = f"{betrag:,.2f}"
    return text.replace(",", "\0").replace(".", ",").replace("\0", ".") + " EUR"


def _geld(betrag: Decimal) -> str:
    """JSON money: decimal string with exactly two places."""
    return f"{betrag:.2f}"


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class _Stufe:
    """One band of a value table: per started `schritt` up to `bis` add `zuwachs`."""

    bis: Decimal | None
    schritt: Decimal
    zuwachs: Decimal


@dataclass(frozen=True)
class _Wertgebuehrentabelle:
    """A 1.0 fee table (§ 13 RVG / § 34 GKG) with its period of validity."""

    bezeichnung: str
    gueltig_ab: date
    gueltig_bis: date | None
    grundbetrag: Decimal
    stufen: tuple[_Stufe, ...]

    def gilt_am(self, stichtag: date) -> bool:
        """Whether this table applies on the given date."""
        return self.gueltig_ab <= stichtag and (
            self.gueltig_bis is None or stichtag <= self.gueltig_bis
        )

    def gebuehr(self, wert: Decimal) -> Decimal:
        """1.0 fee for `wert`; every started step counts fully, hence the ceiling division."""
        betrag = self.grundbetrag
        untergrenze = Decimal(500)
        for stufe in self.stufen:
            if wert <= untergrenze:
                break
            obergrenze = wert if stufe.bis is None else min(wert, stufe.bis)
            ganze, rest = divmod(obergrenze - untergrenze, stufe.schritt)
            betrag += (ganze + (1 if rest else 0)) * stufe.zuwachs
            if stufe.bis is None:
                break
            untergrenze = stufe.bis
        return betrag


# Band limits and step widths are identical in § 13 RVG and § 34 GKG (both versions).
_BAENDER: tuple[tuple[int | None, int], ...] = (
    (2_000, 500),
    (10_000, 1_000),
    (25_000, 3_000),
    (50_000, 5_000),
    (200_000, 15_000),
    (500_000, 30_000),
    (None, 50_000),
)


def _tabelle(
    *,
    bezeichnung: str,
    gueltig_ab: date,
    gueltig_bis: date | None,
    grundbetrag: str,
    zuwaechse: tuple[str, ...],
) -> _Wertgebuehrentabelle:
    """Build a table from the statute's increments so the numbers read like the law."""
    assert len(zuwaechse) == len(_BAENDER)
    stufen = tuple(
        _Stufe(
            bis=None if bis is None else Decimal(bis),
            schritt=Decimal(schritt),
            zuwachs=Decimal(zuwachs),
        )
        for (bis, schritt), zuwachs in zip(_BAENDER, zuwaechse, strict=True)
    )
    return _Wertgebuehrentabelle(
        bezeichnung=bezeichnung,
        gueltig_ab=gueltig_ab,
        gueltig_bis=gueltig_bis,
        grundbetrag=Decimal(grundbetrag),
        stufen=stufen,
    )


_AB_2025 = date(2025, 6, 1)
_BIS_2025 = date(2025, 5, 31)
_AB_2021 = date(2021, 1, 1)

_RVG_TABELLEN: tuple[_Wertgebuehrentabelle, ...] = (
    _tabelle(
        bezeichnung="RVG 2025 (KostBRÄG 2025, ab 01.06.2025)",
        gueltig_ab=_AB_2025,
        gueltig_bis=None,
        grundbetrag="51.50",
        zuwaechse=("41.50", "59.50", "55.00", "86.00", "99.50", "140.00", "175.00"),
    ),
    _tabelle(
        bezeichnung="RVG 2021 (KostRÄG 2021, 01.01.2021 bis 31.05.2025)",
        gueltig_ab=_AB_2021,
        gueltig_bis=_BIS_2025,
        grundbetrag="49.00",
        zuwaechse=("39.00", "56.00", "52.00", "81.00", "94.00", "132.00", "165.00"),
    ),
)

_GKG_TABELLEN: tuple[_Wertgebuehrentabelle, ...] = (
    _tabelle(
        bezeichnung="GKG 2025 (KostBRÄG 2025, ab 01.06.2025)",
        gueltig_ab=_AB_2025,
        gueltig_bis=None,
        grundbetrag="40.00",
        zuwaechse=("21.00", "22.50", "30.50", "40.50", "140.00", "210.00", "210.00"),
    ),
    _tabelle(
        bezeichnung="GKG 2021 (KostRÄG 2021, 01.01.2021 bis 31.05.2025)",
        gueltig_ab=_AB_2021,
        gueltig_bis=_BIS_2025,
        grundbetrag="38.00",
        zuwaechse=("20.00", "21.00", "29.00", "38.00", "132.00", "198.00", "198.00"),
    ),
)


def _waehle_tabelle(
    tabellen: Sequence[_Wertgebuehrentabelle], *, stichtag: date, gesetz: str
) -> _Wertgebuehrentabelle:
    """Pick the table in force on `stichtag`; older law is refused rather than miscomputed."""
    for tabelle in tabellen:
        if tabelle.gilt_am(stichtag):
            return tabelle
    raise KostenError(
        f"Für den {stichtag:%d.%m.%Y} ist keine {gesetz}-Gebührentabelle hinterlegt; "
        f"unterstützt werden Daten ab dem 01.01.2021."
    )


# --------------------------------------------------------------------------- catalogues


@dataclass(frozen=True)
class Gebuehrentatbestand:
    """A numbered fee (VV RVG / KV GKG) with its default rate and what rates it permits.

    art "fest": only `satz`; "rahmen": any rate in [min_satz, max_satz];
    "erhoehung": multiples of `schritt` up to `max_satz` (Nr. 1008 VV RVG).
    """

    nr: str
    bezeichnung: str
    satz: Decimal
    art: Literal["fest", "rahmen", "erhoehung"] = "fest"
    min_satz: Decimal | None = None
    max_satz: Decimal | None = None
    schritt: Decimal | None = None


def _fest(nr: str, bezeichnung: str, satz: str) -> Gebuehrentatbestand:
    """Shorthand for a fixed-rate fee."""
    return Gebuehrentatbestand(nr=nr, bezeichnung=bezeichnung, satz=Decimal(satz))


VV_RVG: Mapping[str, Gebuehrentatbestand] = MappingProxyType(
    {
        t.nr: t
        for t in (
            _fest("1000", "Einigungsgebühr", "1.5"),
            _fest("1003", "Einigungsgebühr bei Anhängigkeit", "1.0"),
            Gebuehrentatbestand(
                nr="1008",
                bezeichnung="Erhöhung bei mehreren Auftraggebern",
                satz=Decimal("0.3"),
                art="erhoehung",
                max_satz=Decimal("2.0"),
                schritt=Decimal("0.3"),
            ),
            Gebuehrentatbestand(
                nr="2300",
                bezeichnung="Geschäftsgebühr",
                satz=Decimal("1.3"),
                art="rahmen",
                min_satz=Decimal("0.5"),
                max_satz=Decimal("2.5"),
            ),
            _fest("3100", "Verfahrensgebühr", "1.3"),
            _fest("3101", "Verfahrensgebühr bei vorzeitiger Beendigung des Auftrags", "0.8"),
            _fest("3104", "Terminsgebühr", "1.2"),
            _fest("3200", "Verfahrensgebühr Berufung", "1.6"),
            _fest("3202", "Terminsgebühr Berufung", "1.2"),
            _fest("3305", "Verfahrensgebühr Mahnverfahren", "1.0"),
            _fest("3307", "Verfahrensgebühr Widerspruch", "0.5"),
        )
    }
)
"""Supported VV RVG fees (Wertgebühren) by number."""

# Auslagen are switched on by listing them; they have no rate of their own.
_RVG_AUSLAGEN: Mapping[str, str] = MappingProxyType(
    {
        "7002": "Pauschale für Post- und Telekommunikationsentgelte",
        "7008": "Umsatzsteuer",
    }
)

KV_GKG: Mapping[str, Gebuehrentatbestand] = MappingProxyType(
    {
        t.nr: t
        for t in (
            _fest("1210", "Verfahren im Allgemeinen (Klage 1. Instanz)", "3.0"),
            _fest("1211", "Ermäßigung der Verfahrensgebühr 1. Instanz (statt Nr. 1210)", "1.0"),
            _fest("1220", "Berufungsverfahren im Allgemeinen", "4.0"),
            _fest("1222", "Ermäßigung der Verfahrensgebühr Berufung (statt Nr. 1220)", "2.0"),
            _fest("1230", "Revisionsverfahren im Allgemeinen", "5.0"),
        )
    }
)
"""Supported KV GKG court fees by number."""

# A reduced fee replaces the full one for the same Gegenstand; both at once is a mistake.
_RVG_AUSSCHLUESSE: tuple[tuple[str, str], ...] = (("3100", "3101"), ("1000", "1003"))
_GKG_AUSSCHLUESSE: tuple[tuple[str, str], ...] = (("1210", "1211"), ("1220", "1222"))

# Fees the Nr. 1008 increase can attach to.
_ERHOEHBAR = frozenset({"2300", "3100", "3101", "3200", "3305", "3307"})
_SCHWELLENSATZ_2300 = Decimal("1.3")


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Position:
    """One computed fee line."""

    nr: str
    bezeichnung: str
    satz: Decimal
    betrag: Decimal

    def as_dict(self) -> dict[str, str]:
        """JSON-ready form with decimal strings."""
        return {
            "nr": self.nr,
            "bezeichnung": self.bezeichnung,
            "satz": _satz_text(self.satz),
            "betrag": _geld(self.betrag),
        }


@dataclass(frozen=True)
class RvgErgebnis:
    """Lawyer fee calculation; `gegenstandswert` is the value used (after the cap)."""

    tabelle: str
    gegenstandswert: Decimal
    gebuehr_1_0: Decimal
    positionen: tuple[Position, ...]
    auslagenpauschale: Decimal
    netto: Decimal
    ust: Decimal
    gesamt: Decimal
    hinweise: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """JSON shape consumed by the API and the frontend; money as two-place strings."""
        return {
            "tabelle": self.tabelle,
            "gebuehr_1_0": _geld(self.gebuehr_1_0),
            "positionen": [p.as_dict() for p in self.positionen],
            "auslagenpauschale": _geld(self.auslagenpauschale),
            "netto": _geld(self.netto),
            "ust": _geld(self.ust),
            "gesamt": _geld(self.gesamt),
            "hinweise": list(self.hinweise),
        }


@dataclass(frozen=True)
class GkgErgebnis:
    """Court fee calculation; no VAT is charged on court fees."""

    tabelle: str
    gegenstandswert: Decimal
    gebuehr_1_0: Decimal
    positionen: tuple[Position, ...]
    gesamt: Decimal
    hinweise: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """JSON shape consumed by the API and the frontend; money as two-place strings."""
        return {
            "tabelle": self.tabelle,
            "gebuehr_1_0": _geld(self.gebuehr_1_0),
            "positionen": [p.as_dict() for p in self.positionen],
            "gesamt": _geld(self.gesamt),
            "hinweise": list(self.hinweise),
        }


# --------------------------------------------------------------------------- shared steps


def _gegenstandswert(value: object, *, vorschrift: str, hinweise: list[str]) -> Decimal:
    """Validate the value and apply the 30 Mio cap, telling the user when it bites."""
    wert = parse_betrag(value, bezeichnung="Gegenstandswert")
    if wert <= 0:
        raise KostenError("Der Gegenstandswert muss größer als 0 EUR sein.")
    if wert > PLAUSIBILITAETSGRENZE:
        raise KostenError(
            f"Der Gegenstandswert ist unplausibel hoch (mehr als "
            f"{_eur_de(PLAUSIBILITAETSGRENZE)}); bitte Eingabe prüfen."
        )
    if wert > HOECHSTWERT:
        hinweise.append(
            f"Der Gegenstandswert von {_eur_de(wert)} wurde nach {vorschrift} "
            f"auf {_eur_de(HOECHSTWERT)} begrenzt."
        )
        return HOECHSTWERT
    return wert


def _stichtag(value: date | None, *, bezeichnung: str) -> date:
    """Default to today; reject non-dates so strings go through parse_datum explicitly."""
    if value is None:
        return datetime.now(BERLIN).date()
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    raise KostenError(f"Ungültiges {bezeichnung}: erwartet wird ein Datum.")


def _pruefe_flag(value: object, *, name: str) -> bool:
    """Only real booleans: a JSON string "false" would otherwise count as true."""
    if not isinstance(value, bool):
        raise KostenError(f"Ungültige Angabe für „{name}“: erwartet wird ja/nein (true/false).")
    return value


def _nummer(value: object, *, verzeichnis: str) -> str:
    """Normalise a fee number given as str or int."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise KostenError(f"Ungültige Nummer im {verzeichnis}: erwartet wird z. B. „3100“.")
    return str(value).strip()


def _lies_gebuehren(
    gebuehren: object, *, verzeichnis: str
) -> list[tuple[str, Decimal | None]]:
    """Read [{nr, satz?}] (or bare numbers) into (nr, satz) pairs; rates are parsed here."""
    if isinstance(gebuehren, (str, bytes)) or not isinstance(gebuehren, Sequence):
        raise KostenError("Die Gebühren müssen als Liste angegeben werden.")
    posten: list[tuple[str, Decimal | None]] = []
    for eintrag in gebuehren:
        if isinstance(eintrag, Mapping):
            unbekannt = sorted(str(k) for k in eintrag if k not in ("nr", "satz"))
            if unbekannt:
                raise KostenError(
                    f"Unbekannte Angabe bei einer Gebühr: {', '.join(unbekannt)} "
                    f"(erlaubt sind „nr“ und „satz“)."
                )
            if "nr" not in eintrag:
                raise KostenError("Jede Gebühr braucht eine Nummer („nr“).")
            nr = _nummer(eintrag["nr"], verzeichnis=verzeichnis)
            roh = eintrag.get("satz")
            leer = roh is None or (isinstance(roh, str) and not roh.strip())
            posten.append((nr, None if leer else parse_satz(roh)))
        else:
            posten.append((_nummer(eintrag, verzeichnis=verzeichnis), None))
    return posten


def _unbekannt(nr: str, *, verzeichnis: str, bekannt: Sequence[str]) -> KostenError:
    """Error for an unknown number that lists the valid ones, so the user can correct it."""
    return KostenError(
        f"Unbekannte Nummer „{_abgeschnitten(nr)}“ im {verzeichnis}. "
        f"Bekannte Nummern: {', '.join(sorted(bekannt))}."
    )


def _pruefe_doppelte_und_ausschluesse(
    nummern: Sequence[str], *, verzeichnis: str, ausschluesse: Sequence[tuple[str, str]]
) -> None:
    """One value can carry each fee once, and never a fee plus its reduced variant."""
    gesehen: set[str] = set()
    for nr in nummern:
        if nr in gesehen:
            raise KostenError(f"Nr. {nr} {verzeichnis} ist mehrfach angegeben.")
        gesehen.add(nr)
    for a, b in ausschluesse:
        if a in gesehen and b in gesehen:
            raise KostenError(
                f"Nr. {a} und Nr. {b} {verzeichnis} schließen sich aus; bitte nur eine angeben."
            )


def _satz_fuer(
    tatbestand: Gebuehrentatbestand, satz: Decimal | None, *, verzeichnis: str
) -> Decimal:
    """Apply the default rate or check a given one against what the number permits."""
    if satz is None:
        return tatbestand.satz
    nr = tatbestand.nr
    if tatbestand.art == "fest":
        if satz != tatbestand.satz:
            raise KostenError(
                f"Nr. {nr} {verzeichnis} hat den festen Satz {_satz_de(tatbestand.satz)}; "
                f"angegeben wurde {_satz_de(satz)}."
            )
    elif tatbestand.art == "rahmen":
        assert tatbestand.min_satz is not None and tatbestand.max_satz is not None
        if not tatbestand.min_satz <= satz <= tatbestand.max_satz:
            raise KostenError(
                f"Der Satz für Nr. {nr} {verzeichnis} muss zwischen "
                f"{_satz_de(tatbestand.min_satz)} und {_satz_de(tatbestand.max_satz)} liegen; "
                f"angegeben wurde {_satz_de(satz)}."
            )
    else:
        assert tatbestand.max_satz is not None and tatbestand.schritt is not None
        vielfaches = satz % tatbestand.schritt == 0
        if satz > tatbestand.max_satz or not (vielfaches or satz == tatbestand.max_satz):
            raise KostenError(
                f"Die Erhöhung nach Nr. {nr} {verzeichnis} beträgt "
                f"{_satz_de(tatbestand.schritt)} je weiteren Auftraggeber, höchstens "
                f"{_satz_de(tatbestand.max_satz)}; angegeben wurde {_satz_de(satz)}."
            )
    return satz


def _gebuehr_mit_mindestbetrag(*, basis: Decimal, satz: Decimal) -> tuple[Decimal, bool]:
    """Fee for one rate, rounded, raised to the statutory minimum; flag says if it was raised."""
    betrag = _runde(basis * satz)
    if betrag < MINDESTBETRAG:
        return MINDESTBETRAG, True
    return betrag, False


def _positionen(
    posten: Sequence[tuple[str, Decimal | None]],
    *,
    katalog: Mapping[str, Gebuehrentatbestand],
    verzeichnis: str,
    basis: Decimal,
    mindest_vorschrift: str,
    hinweise: list[str],
) -> tuple[Position, ...]:
    """Turn validated (nr, satz) pairs into rounded fee lines."""
    ergebnis: list[Position] = []
    for nr, satz_eingabe in posten:
        tatbestand = katalog[nr]
        satz = _satz_fuer(tatbestand, satz_eingabe, verzeichnis=verzeichnis)
        betrag, angehoben = _gebuehr_mit_mindestbetrag(basis=basis, satz=satz)
        if angehoben:
            hinweise.append(
                f"Nr. {nr} {verzeichnis}: Mindestbetrag von {_eur_de(MINDESTBETRAG)} "
                f"angesetzt ({mindest_vorschrift})."
            )
        ergebnis.append(
            Position(nr=nr, bezeichnung=tatbestand.bezeichnung, satz=satz, betrag=betrag)
        )
    return tuple(ergebnis)


# --------------------------------------------------------------------------- RVG


def berechne_rvg(
    *,
    gegenstandswert: Decimal | int | str,
    gebuehren: Sequence[Mapping[str, object] | str | int],
    auftragsdatum: date | None = None,
    auslagenpauschale: bool = True,
    ust: bool = True,
) -> RvgErgebnis:
    """Compute lawyer fees (Wertgebühren) under the RVG table in force on the Auftragsdatum.

    The Auftragsdatum decides the table (§ 60 RVG). Listing "7002"/"7008" in
    `gebuehren` switches the Auslagenpauschale/Umsatzsteuer on, whatever the flags say.
    """
    pauschale_an = _pruefe_flag(auslagenpauschale, name="auslagenpauschale")
    ust_an = _pruefe_flag(ust, name="ust")
    with localcontext(_KONTEXT):
        hinweise: list[str] = []
        wert = _gegenstandswert(
            gegenstandswert, vorschrift="§ 22 Abs. 2 RVG", hinweise=hinweise
        )
        stichtag = _stichtag(auftragsdatum, bezeichnung="Auftragsdatum")
        tabelle = _waehle_tabelle(_RVG_TABELLEN, stichtag=stichtag, gesetz="RVG")
        verzeichnis = "VV RVG"

        posten: list[tuple[str, Decimal | None]] = []
        for nr, satz in _lies_gebuehren(gebuehren, verzeichnis=verzeichnis):
            if nr in _RVG_AUSLAGEN:
                if satz is not None:
                    raise KostenError(f"Nr. {nr} {verzeichnis} wird ohne Satz angegeben.")
                if nr == "7002":
                    pauschale_an = True
                else:
                    ust_an = True
                continue
            if nr not in VV_RVG:
                raise _unbekannt(
                    nr, verzeichnis=verzeichnis, bekannt=[*VV_RVG, *_RVG_AUSLAGEN]
                )
            posten.append((nr, satz))
        if not posten:
            raise KostenError("Bitte mindestens eine Gebühr (z. B. Nr. 3100 VV RVG) angeben.")
        nummern = [nr for nr, _ in posten]
        _pruefe_doppelte_und_ausschluesse(
            nummern, verzeichnis=verzeichnis, ausschluesse=_RVG_AUSSCHLUESSE
        )

        gebuehr_1_0 = tabelle.gebuehr(wert)
        positionen = _positionen(
            posten,
            katalog=VV_RVG,
            verzeichnis=verzeichnis,
            basis=gebuehr_1_0,
            mindest_vorschrift="§ 13 Abs. 2 RVG",
            hinweise=hinweise,
        )
        hinweise.extend(_rvg_hinweise(positionen, nummern))

        summe = sum((p.betrag for p in positionen), Decimal("0.00"))
        pauschale = Decimal("0.00")
        if pauschale_an:
            pauschale = min(
                _runde(summe * AUSLAGENPAUSCHALE_ANTEIL), AUSLAGENPAUSCHALE_HOECHSTBETRAG
            )
        netto = summe + pauschale
        steuer = _runde(netto * UST_SATZ) if ust_an else Decimal("0.00")
        return RvgErgebnis(
            tabelle=tabelle.bezeichnung,
            gegenstandswert=wert,
            gebuehr_1_0=gebuehr_1_0,
            positionen=positionen,
            auslagenpauschale=pauschale,
            netto=netto,
            ust=steuer,
            gesamt=netto + steuer,
            hinweise=tuple(hinweise),
        )


def _rvg_hinweise(positionen: Sequence[Position], nummern: Sequence[str]) -> list[str]:
    """Warnings a lawyer must see before billing, without blocking the calculation."""
    hinweise: list[str] = []
    for position in positionen:
        if position.nr == "2300" and position.satz > _SCHWELLENSATZ_2300:
            hinweise.append(
                f"Geschäftsgebühr (Nr. 2300 VV RVG) mit Satz {_satz_de(position.satz)}: "
                f"Ein Satz über 1,3 kann nur gefordert werden, wenn die Tätigkeit "
                f"umfangreich oder schwierig war; bitte begründen."
            )
    if "2300" in nummern and any(nr in ("3100", "3101") for nr in nummern):
        hinweise.append(
            "Die Anrechnung der Geschäftsgebühr auf die Verfahrensgebühr "
            "(Vorbem. 3 Abs. 4 VV RVG) ist nicht berücksichtigt."
        )
    if "1008" in nummern and not _ERHOEHBAR.intersection(nummern):
        hinweise.append(
            "Die Erhöhung nach Nr. 1008 VV RVG setzt eine Verfahrens- oder "
            "Geschäftsgebühr voraus."
        )
    return hinweise


# --------------------------------------------------------------------------- GKG


def berechne_gkg(
    *,
    gegenstandswert: Decimal | int | str,
    gebuehren: Sequence[Mapping[str, object] | str | int] | None = None,
    stichtag: date | None = None,
) -> GkgErgebnis:
    """Compute court fees under the GKG table in force on `stichtag` (default: Nr. 1210).

    The caller picks the Stichtag (usually Anhängigkeit, § 71 GKG); default is today.
    """
    with localcontext(_KONTEXT):
        hinweise: list[str] = []
        wert = _gegenstandswert(
            gegenstandswert, vorschrift="§ 39 Abs. 2 GKG", hinweise=hinweise
        )
        tag = _stichtag(stichtag, bezeichnung="Stichtag")
        tabelle = _waehle_tabelle(_GKG_TABELLEN, stichtag=tag, gesetz="GKG")
        verzeichnis = "KV GKG"

        posten = _lies_gebuehren(
            ["1210"] if gebuehren is None else gebuehren, verzeichnis=verzeichnis
        )
        if not posten:
            raise KostenError("Bitte mindestens eine Gebühr (z. B. Nr. 1210 KV GKG) angeben.")
        for nr, _ in posten:
            if nr not in KV_GKG:
                raise _unbekannt(nr, verzeichnis=verzeichnis, bekannt=list(KV_GKG))
        _pruefe_doppelte_und_ausschluesse(
            [nr for nr, _ in posten], verzeichnis=verzeichnis, ausschluesse=_GKG_AUSSCHLUESSE
        )

        gebuehr_1_0 = tabelle.gebuehr(wert)
        positionen = _positionen(
            posten,
            katalog=KV_GKG,
            verzeichnis=verzeichnis,
            basis=gebuehr_1_0,
            mindest_vorschrift="§ 34 Abs. 2 GKG",
            hinweise=hinweise,
        )
        return GkgErgebnis(
            tabelle=tabelle.bezeichnung,
            gegenstandswert=wert,
            gebuehr_1_0=gebuehr_1_0,
            positionen=positionen,
            gesamt=sum((p.betrag for p in positionen), Decimal("0.00")),
            hinweise=tuple(hinweise),
        )
