"""The fee calculators' tables (akten.kosten) against the bundled official statute text.

Why: the RVG/GKG tables in akten/kosten/tabellen.py are typed-in data. The law ships with Helena as
the official gesetze-im-internet.de XML (corpus/gesetze/*.zip); this test reads § 13 Abs. 1 RVG,
§ 34 Abs. 1 GKG and both Anlagen 2 from those files and fails, naming law, row and both amounts,
as soon as a step or a single value→fee pair disagrees. The calculator table compared is the one
it applies on the text's Stand (ParsedGesetz.stand_datum), i.e. the 2025 tables for the 2025 text.
FamGKG § 28 is not compared: the calculators have no FamGKG table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest
from django.conf import settings

from akten.kosten import GKG_TABELLEN, RVG_TABELLEN, berechne_gkg, berechne_rvg
from akten.kosten.tabellen import waehle_tabelle
from helena.knowledge.importers import ParsedGesetz, ParsedNorm, parse_gii_xml_zip

GESETZE = Path(settings.BASE_DIR) / "corpus" / "gesetze"

# "2 000", "1 357,00", "40", "51,50" – thousands separated by (narrow/no-break) spaces or dots.
_ZAHL = r"\d{1,3}(?:[ \u00a0\u202f.]\d{3})*(?:,\d{1,2})?"
_ERSTE_STUFE = re.compile(rf"bis ({_ZAHL}) Euro die Gebühr ({_ZAHL}) Euro")
_UEBER = re.compile(rf"über ({_ZAHL})")


class TabellenFehler(AssertionError):
    """The statute text does not have the expected shape; the comparison cannot be trusted."""


@dataclass(frozen=True)
class Gesetzesstufe:
    """One row of the step table in the text: up to `bis` (None: "über …") per `schritt` + `zuwachs`."""

    zeile: int
    bis: Decimal | None
    schritt: Decimal
    zuwachs: Decimal


@dataclass(frozen=True)
class Wertgebuehr:
    """One value→fee pair of an Anlage 2; `stelle` says where it stands in the table."""

    stelle: str
    wert: Decimal
    gebuehr: Decimal


def zahl(text: str) -> Decimal:
    """German number of the statute text to Decimal ("1 357,00" → 1357.00); refuses anything else."""
    roh = text.strip()
    if not re.fullmatch(_ZAHL, roh):
        raise TabellenFehler(f"Keine Zahl im Gesetzestext: {roh!r}")
    return Decimal(re.sub(r"[ \u00a0\u202f.]", "", roh).replace(",", "."))


def _tabellenzeilen(text: str) -> list[list[str]]:
    """Table lines (cells joined by " | ") without the header line, which carries the "…" captions."""
    zeilen = [[zelle.strip() for zelle in z.split("|")] for z in text.splitlines() if "|" in z]
    if not zeilen or not any("…" in z or "..." in z for z in zeilen[0]):
        raise TabellenFehler(f"Tabelle ohne erwartete Kopfzeile: {zeilen[:1]!r}")
    return zeilen[1:]


def absatz_1(norm: ParsedNorm) -> str:
    """Abs. 1 of a norm: § 13 Abs. 2 RVG has a first step of its own (Inkasso) that must not count."""
    return re.split(r"\n\s*\(2\)", norm.text, maxsplit=1)[0]


def lies_stufen(text: str) -> tuple[Decimal, Decimal, list[Gesetzesstufe]]:
    """Abs. 1 text → (limit of the first step, its fee, the increments table)."""
    treffer = _ERSTE_STUFE.search(text)
    if treffer is None:
        raise TabellenFehler("Erste Stufe („bis … Euro die Gebühr … Euro“) nicht gefunden.")
    stufen: list[Gesetzesstufe] = []
    for nr, zellen in enumerate(_tabellenzeilen(text), start=1):
        if len(zellen) != 3:
            raise TabellenFehler(f"Stufentabelle Zeile {nr}: drei Spalten erwartet, {zellen!r}")
        ueber = _UEBER.fullmatch(zellen[0])
        bis = None if ueber else zahl(zellen[0])
        stufen.append(Gesetzesstufe(nr, bis, zahl(zellen[1]), zahl(zellen[2])))
    return zahl(treffer[1]), zahl(treffer[2]), stufen


def lies_anlage(text: str) -> list[Wertgebuehr]:
    """Anlage 2 text → every value→fee pair; each row holds two pairs (left and right column)."""
    paare: list[Wertgebuehr] = []
    for nr, zellen in enumerate(_tabellenzeilen(text), start=1):
        if len(zellen) % 2:
            raise TabellenFehler(f"Anlage 2 Zeile {nr}: Wert/Gebühr-Paare erwartet, {zellen!r}")
        for spalte in range(0, len(zellen), 2):
            wert, gebuehr = zellen[spalte : spalte + 2]
            if not wert and not gebuehr:
                continue  # a shorter last row
            seite = "links" if spalte == 0 else "rechts"
            paare.append(Wertgebuehr(f"Zeile {nr} {seite}", zahl(wert), zahl(gebuehr)))
    return paare


def vergleiche_stufen(gesetz: str, text: str, stichtag: date, tabellen: tuple) -> list[str]:
    """Every disagreement between the step table of the text and the calculator's table."""
    tabelle = waehle_tabelle(tabellen, stichtag=stichtag, gesetz=gesetz)
    erste_bis, erste_gebuehr, stufen = lies_stufen(text)
    fehler: list[str] = []
    wo = f"{gesetz}, Rechner-Tabelle „{tabelle.bezeichnung}“"
    if erste_gebuehr != tabelle.grundbetrag:
        fehler.append(f"{wo}: erste Stufe bis {erste_bis} EUR – Gesetz {erste_gebuehr} EUR, "
                      f"Rechner {tabelle.grundbetrag} EUR")
    # The calculator's first step ends where its first band begins (implicitly at 500 EUR).
    cent = Decimal("0.01")
    if tabelle.gebuehr(erste_bis) != tabelle.grundbetrag or tabelle.gebuehr(erste_bis + cent) <= (
        tabelle.grundbetrag
    ):
        fehler.append(f"{wo}: erste Stufe endet im Gesetz bei {erste_bis} EUR, im Rechner nicht")
    if len(stufen) != len(tabelle.stufen):
        fehler.append(f"{wo}: Gesetz hat {len(stufen)} Stufen, Rechner {len(tabelle.stufen)}")
    for gesetzlich, rechner in zip(stufen, tabelle.stufen, strict=False):
        for feld, im_gesetz, im_rechner in (
            ("Wert bis", gesetzlich.bis, rechner.bis),
            ("je angefangene", gesetzlich.schritt, rechner.schritt),
            ("Erhöhung um", gesetzlich.zuwachs, rechner.zuwachs),
        ):
            if im_gesetz != im_rechner:
                fehler.append(f"{wo}, Stufentabelle Zeile {gesetzlich.zeile}, {feld}: "
                              f"Gesetz {im_gesetz} EUR, Rechner {im_rechner} EUR")
    return fehler


def vergleiche_anlage(gesetz: str, text: str, rechner: Callable[[Decimal], Decimal]) -> list[str]:
    """Every value of Anlage 2 whose fee differs (to the cent) from the calculator's 1,0 fee."""
    return [
        f"{gesetz} Anlage 2, {paar.stelle}: Wert bis {paar.wert} EUR – Gesetz {paar.gebuehr} EUR, "
        f"Rechner {berechnet} EUR"
        for paar in lies_anlage(text)
        if (berechnet := rechner(paar.wert)) != paar.gebuehr
    ]


@cache
def gesetz(datei: str) -> ParsedGesetz:
    """The bundled statute, parsed once per test run."""
    return parse_gii_xml_zip(GESETZE / datei)


def norm(datei: str, nummer: str) -> ParsedNorm:
    """One norm of a bundled statute by its number ("13", "anlage2")."""
    treffer = [n for n in gesetz(datei).normen if n.nummer == nummer]
    assert len(treffer) == 1, f"{datei}: Norm {nummer!r} {len(treffer)}-mal gefunden"
    return treffer[0]


def stichtag(datei: str) -> date:
    """The Stand of the bundled text decides which calculator table it is compared with."""
    stand = gesetz(datei).stand_datum
    assert stand is not None, f"{datei}: kein Stand-Datum im XML"
    return stand


def rvg_1_0(datei: str) -> Callable[[Decimal], Decimal]:
    """The RVG calculator's amount for a 1,0 fee (Nr. 3305 VV RVG) at a value."""
    def rechne(wert: Decimal) -> Decimal:
        ergebnis = berechne_rvg(gegenstandswert=wert, gebuehren=["3305"], auftragsdatum=stichtag(datei),
                                auslagenpauschale=False, ust=False)
        (position,) = ergebnis.positionen
        assert position.satz == 1
        return position.betrag
    return rechne


def gkg_1_0(datei: str) -> Callable[[Decimal], Decimal]:
    """The GKG calculator's amount for a 1,0 fee (Nr. 1211 KV GKG) at a value."""
    def rechne(wert: Decimal) -> Decimal:
        ergebnis = berechne_gkg(gegenstandswert=wert, gebuehren=["1211"], stichtag=stichtag(datei))
        (position,) = ergebnis.positionen
        assert position.satz == 1
        return position.betrag
    return rechne


@dataclass(frozen=True)
class Fall:
    """One law: its bundled file, the norm with the step table, the calculator's tables and 1,0 fee."""

    name: str
    datei: str
    paragraph: str
    tabellen: tuple
    rechner: Callable[[str], Callable[[Decimal], Decimal]]


FAELLE = [
    pytest.param(Fall("RVG", "rvg.zip", "13", RVG_TABELLEN, rvg_1_0), id="rvg"),
    pytest.param(Fall("GKG", "gkg_2004.zip", "34", GKG_TABELLEN, gkg_1_0), id="gkg"),
]


@pytest.mark.parametrize("fall", FAELLE)
def test_stufentabelle_wie_im_gesetz(fall: Fall) -> None:
    """§ 13 Abs. 1 RVG / § 34 Abs. 1 GKG: first step and every band equal the calculator's."""
    text = absatz_1(norm(fall.datei, fall.paragraph))
    _, _, stufen = lies_stufen(text)
    assert len(stufen) == 7 and stufen[-1].bis is None, "Stufentabelle unvollständig gelesen"
    fehler = vergleiche_stufen(f"§ {fall.paragraph} {fall.name}", text, stichtag(fall.datei), fall.tabellen)
    assert not fehler, "Gesetz und Rechner weichen ab:\n" + "\n".join(fehler)


@pytest.mark.parametrize("fall", FAELLE)
def test_anlage_2_wie_im_rechner(fall: Fall) -> None:
    """Anlage 2: every value→fee pair up to 500 000 EUR equals the calculator's 1,0 fee."""
    text = norm(fall.datei, "anlage2").text
    paare = lies_anlage(text)
    assert len(paare) == 42, f"{fall.name} Anlage 2: {len(paare)} statt 42 Wert/Gebühr-Paare gelesen"
    assert paare[0].wert == 500 and paare[-1].wert == 500_000
    fehler = vergleiche_anlage(fall.name, text, fall.rechner(fall.datei))
    assert not fehler, "Gesetz und Rechner weichen ab:\n" + "\n".join(fehler)


def test_abweichung_wird_gemeldet() -> None:
    """The comparison can fail: an altered copy of the text is reported with law, row, both amounts."""
    paragraph = absatz_1(norm("rvg.zip", "13"))
    anlage = norm("rvg.zip", "anlage2").text
    tag = stichtag("rvg.zip")
    assert "51,50" in paragraph and "59,50" in paragraph and "1 357,00" in anlage

    stufen_fehler = vergleiche_stufen(
        "§ 13 RVG", paragraph.replace("51,50", "49,00").replace("59,50", "56,00"), tag, RVG_TABELLEN
    )
    assert any(f.startswith("§ 13 RVG") and "erste Stufe bis 500 EUR" in f
               and "Gesetz 49.00 EUR" in f and "Rechner 51.50 EUR" in f for f in stufen_fehler)
    assert any("Zeile 2, Erhöhung um: Gesetz 56.00 EUR, Rechner 59.50 EUR" in f for f in stufen_fehler)

    anlage_fehler = vergleiche_anlage("RVG", anlage.replace("1 357,00", "1 375,00"), rvg_1_0("rvg.zip"))
    assert anlage_fehler == [
        "RVG Anlage 2, Zeile 1 rechts: Wert bis 50000 EUR – Gesetz 1375.00 EUR, Rechner 1357.00 EUR"
    ]
    # A step table the parser cannot read must not pass as "no disagreement".
    with pytest.raises(TabellenFehler):
        vergleiche_stufen("§ 13 RVG", paragraph.replace("41,50", "41,5O"), tag, RVG_TABELLEN)
