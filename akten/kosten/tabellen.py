"""The fee tables (Anlage 2 RVG, Anlage 2 GKG, each version with its Stichtag) and the catalogues
of fee numbers (VV RVG, KV GKG): data, checked against the published tables by tests/akten/test_kosten.py
and against the bundled statute text (§ 13 RVG, § 34 GKG, both Anlagen 2) by
tests/akten/test_gebuehrentabellen.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from types import MappingProxyType
from typing import Literal

from akten.kosten.zahlen import KostenError

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

RVG_TABELLEN: tuple[_Wertgebuehrentabelle, ...] = (
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

GKG_TABELLEN: tuple[_Wertgebuehrentabelle, ...] = (
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


def waehle_tabelle(
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
RVG_AUSLAGEN: Mapping[str, str] = MappingProxyType(
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
RVG_AUSSCHLUESSE: tuple[tuple[str, str], ...] = (("3100", "3101"), ("1000", "1003"))
GKG_AUSSCHLUESSE: tuple[tuple[str, str], ...] = (("1210", "1211"), ("1220", "1222"))

# Fees the Nr. 1008 increase can attach to.
ERHOEHBAR = frozenset({"2300", "3100", "3101", "3200", "3305", "3307"})
SCHWELLENSATZ_2300 = Decimal("1.3")
