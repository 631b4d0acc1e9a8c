"""Tests for akten.kosten (RVG/GKG). Every expected amount is a hand-computed literal."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from akten.kosten import (
    KV_GKG,
    VV_RVG,
    GkgErgebnis,
    KostenError,
    Position,
    RvgErgebnis,
    berechne_gkg,
    berechne_rvg,
    gebuehr_mit_mindestbetrag,
    parse_betrag,
    parse_satz,
)

NEU = date(2025, 6, 1)  # first day of the 2025 tables
ALT = date(2025, 5, 31)  # last day of the 2021 tables
MITTE_ALT = date(2023, 3, 15)

TABELLE_RVG_2025 = "RVG 2025 (KostBRÄG 2025, ab 01.06.2025)"
TABELLE_RVG_2021 = "RVG 2021 (KostRÄG 2021, 01.01.2021 bis 31.05.2025)"
TABELLE_GKG_2025 = "GKG 2025 (KostBRÄG 2025, ab 01.06.2025)"
TABELLE_GKG_2021 = "GKG 2021 (KostRÄG 2021, 01.01.2021 bis 31.05.2025)"


def D(text: str) -> Decimal:
    """Short Decimal literal helper for readable tables."""
    return Decimal(text)


# --------------------------------------------------------------------------- § 13 RVG table

# (Gegenstandswert, 1.0-Gebühr). Worked by hand from the increments, e.g. 2025:
# 2,000 = 51.50 + 3*41.50 = 176.00; 10,000 = 176 + 8*59.50 = 652.00;
# 25,000 = 652 + 5*55 = 927.00; 50,000 = 927 + 5*86 = 1,357.00;
# 200,000 = 1,357 + 10*99.50 = 2,352.00; 500,000 = 2,352 + 10*140 = 3,752.00;
# 30 Mio = 3,752 + 590*175 = 107,002.00.
RVG_2025 = [
    ("0.01", "51.50"),
    ("1", "51.50"),
    ("500", "51.50"),
    ("500.01", "93.00"),
    ("501", "93.00"),
    ("1000", "93.00"),
    ("1000.01", "134.50"),
    ("1500", "134.50"),
    ("1501", "176.00"),
    ("2000", "176.00"),
    ("2000.01", "235.50"),
    ("2001", "235.50"),
    ("3000", "235.50"),
    ("3001", "295.00"),
    ("5000", "354.50"),
    ("10000", "652.00"),
    ("10000.01", "707.00"),
    ("10001", "707.00"),
    ("13000", "707.00"),
    ("13001", "762.00"),
    ("25000", "927.00"),
    ("25000.01", "1013.00"),
    ("25001", "1013.00"),
    ("30000", "1013.00"),
    ("30001", "1099.00"),
    ("50000", "1357.00"),
    ("50000.01", "1456.50"),
    ("50001", "1456.50"),
    ("65000", "1456.50"),
    ("65001", "1556.00"),
    ("200000", "2352.00"),
    ("200000.01", "2492.00"),
    ("200001", "2492.00"),
    ("230000", "2492.00"),
    ("230001", "2632.00"),
    ("500000", "3752.00"),
    ("500000.01", "3927.00"),
    ("500001", "3927.00"),
    ("550000", "3927.00"),
    ("550001", "4102.00"),
    ("600000", "4102.00"),
    ("1000000", "5502.00"),
    ("30000000", "107002.00"),
    ("30000000.01", "107002.00"),  # capped (§ 22 Abs. 2 RVG)
    ("50000000", "107002.00"),
]

# 2021: 2,000 = 49 + 3*39 = 166; 10,000 = 166 + 8*56 = 614; 25,000 = 614 + 5*52 = 874;
# 50,000 = 874 + 5*81 = 1,279; 200,000 = 1,279 + 10*94 = 2,219;
# 500,000 = 2,219 + 10*132 = 3,539; 30 Mio = 3,539 + 590*165 = 100,889.
RVG_2021 = [
    ("1", "49.00"),
    ("500", "49.00"),
    ("500.01", "88.00"),
    ("501", "88.00"),
    ("1000", "88.00"),
    ("1000.01", "127.00"),
    ("2000", "166.00"),
    ("2000.01", "222.00"),
    ("3000", "222.00"),
    ("3001", "278.00"),
    ("5000", "334.00"),
    ("10000", "614.00"),
    ("10000.01", "666.00"),
    ("13000", "666.00"),
    ("13001", "718.00"),
    ("25000", "874.00"),
    ("25000.01", "955.00"),
    ("30000", "955.00"),
    ("30001", "1036.00"),
    ("50000", "1279.00"),
    ("50000.01", "1373.00"),
    ("65000", "1373.00"),
    ("65001", "1467.00"),
    ("200000", "2219.00"),
    ("200000.01", "2351.00"),
    ("230001", "2483.00"),
    ("500000", "3539.00"),
    ("500000.01", "3704.00"),
    ("550001", "3869.00"),
    ("600000", "3869.00"),
    ("1000000", "5189.00"),
    ("30000000", "100889.00"),
    ("40000000", "100889.00"),
]


@pytest.mark.parametrize(
    ("stichtag", "tabelle", "wert", "erwartet"),
    [(NEU, TABELLE_RVG_2025, w, e) for w, e in RVG_2025]
    + [(ALT, TABELLE_RVG_2021, w, e) for w, e in RVG_2021],
)
def test_rvg_tabelle(stichtag: date, tabelle: str, wert: str, erwartet: str) -> None:
    ergebnis = berechne_rvg(
        gegenstandswert=wert, gebuehren=[{"nr": "1003"}], auftragsdatum=stichtag
    )
    assert ergebnis.tabelle == tabelle
    assert ergebnis.gebuehr_1_0 == D(erwartet)
    # Nr. 1003 has rate 1.0, so the single position equals the table value.
    assert ergebnis.positionen[0].betrag == D(erwartet)


# --------------------------------------------------------------------------- § 34 GKG table

# 2025: 2,000 = 40 + 3*21 = 103; 10,000 = 103 + 8*22.50 = 283; 25,000 = 283 + 5*30.50
# = 435.50; 50,000 = 435.50 + 5*40.50 = 638; 200,000 = 638 + 10*140 = 2,038;
# 500,000 = 2,038 + 10*210 = 4,138; 30 Mio = 4,138 + 590*210 = 128,038.
GKG_2025 = [
    ("1", "40.00"),
    ("500", "40.00"),
    ("500.01", "61.00"),
    ("1000", "61.00"),
    ("1500", "82.00"),
    ("2000", "103.00"),
    ("2000.01", "125.50"),
    ("3000", "125.50"),
    ("3001", "148.00"),
    ("5000", "170.50"),
    ("10000", "283.00"),
    ("10000.01", "313.50"),
    ("13001", "344.00"),
    ("25000", "435.50"),
    ("25000.01", "476.00"),
    ("30001", "516.50"),
    ("50000", "638.00"),
    ("50000.01", "778.00"),
    ("65001", "918.00"),
    ("200000", "2038.00"),
    ("200000.01", "2248.00"),
    ("230001", "2458.00"),
    ("500000", "4138.00"),
    ("500000.01", "4348.00"),
    ("550001", "4558.00"),
    ("600000", "4558.00"),
    ("1000000", "6238.00"),
    ("30000000", "128038.00"),
    ("30000000.01", "128038.00"),  # capped (§ 39 Abs. 2 GKG)
]

# 2021: 2,000 = 38 + 3*20 = 98; 10,000 = 98 + 8*21 = 266; 25,000 = 266 + 5*29 = 411;
# 50,000 = 411 + 5*38 = 601; 200,000 = 601 + 10*132 = 1,921;
# 500,000 = 1,921 + 10*198 = 3,901; 30 Mio = 3,901 + 590*198 = 120,721.
GKG_2021 = [
    ("500", "38.00"),
    ("500.01", "58.00"),
    ("1000", "58.00"),
    ("2000", "98.00"),
    ("2000.01", "119.00"),
    ("3001", "140.00"),
    ("5000", "161.00"),
    ("10000", "266.00"),
    ("10000.01", "295.00"),
    ("25000", "411.00"),
    ("25000.01", "449.00"),
    ("50000", "601.00"),
    ("50000.01", "733.00"),
    ("200000", "1921.00"),
    ("200000.01", "2119.00"),
    ("500000", "3901.00"),
    ("500000.01", "4099.00"),
    ("600000", "4297.00"),
    ("1000000", "5881.00"),
    ("30000000", "120721.00"),
]


@pytest.mark.parametrize(
    ("stichtag", "tabelle", "wert", "erwartet"),
    [(NEU, TABELLE_GKG_2025, w, e) for w, e in GKG_2025]
    + [(ALT, TABELLE_GKG_2021, w, e) for w, e in GKG_2021],
)
def test_gkg_tabelle(stichtag: date, tabelle: str, wert: str, erwartet: str) -> None:
    ergebnis = berechne_gkg(gegenstandswert=wert, gebuehren=["1211"], stichtag=stichtag)
    assert ergebnis.tabelle == tabelle
    assert ergebnis.gebuehr_1_0 == D(erwartet)
    assert ergebnis.gesamt == D(erwartet)  # Nr. 1211 has rate 1.0


# --------------------------------------------------------------------------- table by date


@pytest.mark.parametrize(
    ("datum", "rvg_tabelle", "rvg_5000", "gkg_tabelle", "gkg_5000"),
    [
        (date(2021, 1, 1), TABELLE_RVG_2021, "334.00", TABELLE_GKG_2021, "161.00"),
        (MITTE_ALT, TABELLE_RVG_2021, "334.00", TABELLE_GKG_2021, "161.00"),
        (ALT, TABELLE_RVG_2021, "334.00", TABELLE_GKG_2021, "161.00"),
        (NEU, TABELLE_RVG_2025, "354.50", TABELLE_GKG_2025, "170.50"),
        (date(2030, 1, 1), TABELLE_RVG_2025, "354.50", TABELLE_GKG_2025, "170.50"),
        (datetime(2025, 6, 1, 0, 0), TABELLE_RVG_2025, "354.50", TABELLE_GKG_2025, "170.50"),
        (datetime(2025, 5, 31, 23, 59), TABELLE_RVG_2021, "334.00", TABELLE_GKG_2021, "161.00"),
    ],
)
def test_tabelle_nach_datum(
    datum: date, rvg_tabelle: str, rvg_5000: str, gkg_tabelle: str, gkg_5000: str
) -> None:
    rvg = berechne_rvg(gegenstandswert="5000", gebuehren=["3100"], auftragsdatum=datum)
    gkg = berechne_gkg(gegenstandswert="5000", stichtag=datum)
    assert (rvg.tabelle, rvg.gebuehr_1_0) == (rvg_tabelle, D(rvg_5000))
    assert (gkg.tabelle, gkg.gebuehr_1_0) == (gkg_tabelle, D(gkg_5000))


def test_standarddatum_ist_heute() -> None:
    ohne = berechne_rvg(gegenstandswert="5000", gebuehren=["3100"])
    mit = berechne_rvg(gegenstandswert="5000", gebuehren=["3100"], auftragsdatum=date.today())
    assert ohne == mit
    assert berechne_gkg(gegenstandswert="5000") == berechne_gkg(
        gegenstandswert="5000", stichtag=date.today()
    )


# --------------------------------------------------------------------------- VV RVG positions

# At 5,000 EUR: 1.0 = 354.50 (2025) and 334.00 (2021).
@pytest.mark.parametrize(
    ("stichtag", "nr", "satz", "bezeichnung", "erwartet_satz", "betrag"),
    [
        (NEU, "3100", None, "Verfahrensgebühr", "1.3", "460.85"),
        (
            NEU,
            "3101",
            None,
            "Verfahrensgebühr bei vorzeitiger Beendigung des Auftrags",
            "0.8",
            "283.60",
        ),
        (NEU, "3104", None, "Terminsgebühr", "1.2", "425.40"),
        (NEU, "1000", None, "Einigungsgebühr", "1.5", "531.75"),
        (NEU, "1003", None, "Einigungsgebühr bei Anhängigkeit", "1.0", "354.50"),
        (NEU, "2300", None, "Geschäftsgebühr", "1.3", "460.85"),
        (NEU, "2300", "0.5", "Geschäftsgebühr", "0.5", "177.25"),
        (NEU, "2300", "2.5", "Geschäftsgebühr", "2.5", "886.25"),
        (NEU, "2300", "1,5", "Geschäftsgebühr", "1.5", "531.75"),
        (NEU, "3200", None, "Verfahrensgebühr Berufung", "1.6", "567.20"),
        (NEU, "3202", None, "Terminsgebühr Berufung", "1.2", "425.40"),
        (NEU, "3305", None, "Verfahrensgebühr Mahnverfahren", "1.0", "354.50"),
        (NEU, "3307", None, "Verfahrensgebühr Widerspruch", "0.5", "177.25"),
        (NEU, "1008", None, "Erhöhung bei mehreren Auftraggebern", "0.3", "106.35"),
        (NEU, "1008", "0.6", "Erhöhung bei mehreren Auftraggebern", "0.6", "212.70"),
        (NEU, "1008", "1.8", "Erhöhung bei mehreren Auftraggebern", "1.8", "638.10"),
        (NEU, "1008", "2.0", "Erhöhung bei mehreren Auftraggebern", "2.0", "709.00"),
        (NEU, "3100", "1.30", "Verfahrensgebühr", "1.3", "460.85"),  # same fixed rate
        (NEU, 3104, None, "Terminsgebühr", "1.2", "425.40"),  # nr as int
        (ALT, "3100", None, "Verfahrensgebühr", "1.3", "434.20"),
        (ALT, "3104", None, "Terminsgebühr", "1.2", "400.80"),
        (ALT, "3200", None, "Verfahrensgebühr Berufung", "1.6", "534.40"),
        (ALT, "3307", None, "Verfahrensgebühr Widerspruch", "0.5", "167.00"),
    ],
)
def test_vv_positionen(
    stichtag: date,
    nr: str | int,
    satz: str | None,
    bezeichnung: str,
    erwartet_satz: str,
    betrag: str,
) -> None:
    eintrag: dict[str, object] = {"nr": nr}
    if satz is not None:
        eintrag["satz"] = satz
    ergebnis = berechne_rvg(
        gegenstandswert="5000", gebuehren=[eintrag], auftragsdatum=stichtag
    )
    (position,) = ergebnis.positionen
    assert position.as_dict() == {
        "nr": str(nr),
        "bezeichnung": bezeichnung,
        "satz": erwartet_satz,
        "betrag": betrag,
    }
    assert position.satz == D(erwartet_satz)
    assert isinstance(position.satz, Decimal)


def test_katalog_vollstaendig() -> None:
    assert sorted(VV_RVG) == [
        "1000", "1003", "1008", "2300", "3100", "3101", "3104", "3200", "3202", "3305", "3307",
    ]
    assert sorted(KV_GKG) == ["1210", "1211", "1220", "1222", "1230"]


# --------------------------------------------------------------------------- full RVG examples

BEISPIEL_DICT = {
    "tabelle": TABELLE_RVG_2025,
    "gebuehr_1_0": "354.50",
    "positionen": [
        {"nr": "3100", "bezeichnung": "Verfahrensgebühr", "satz": "1.3", "betrag": "460.85"},
        {"nr": "3104", "bezeichnung": "Terminsgebühr", "satz": "1.2", "betrag": "425.40"},
    ],
    "auslagenpauschale": "20.00",
    "netto": "906.25",
    "ust": "172.19",
    "gesamt": "1078.44",
    "hinweise": [],
}


@pytest.mark.parametrize(
    "gebuehren",
    [
        [{"nr": "3100"}, {"nr": "3104"}, {"nr": "7002"}, {"nr": "7008"}],
        [{"nr": "3100"}, {"nr": "3104"}],
        ["3100", "3104", "7002", "7008"],
        [3100, 3104, 7002, 7008],
        [{"nr": "3100", "satz": "1.3"}, {"nr": "3104", "satz": Decimal("1.2")}],
    ],
)
def test_beispiel_1078_44(gebuehren: list[object]) -> None:
    ergebnis = berechne_rvg(gegenstandswert="5000", gebuehren=gebuehren, auftragsdatum=NEU)
    assert ergebnis.as_dict() == BEISPIEL_DICT
    assert ergebnis.netto == D("906.25")
    assert ergebnis.ust == D("172.19")
    assert ergebnis.gesamt == D("1078.44")


def test_beispiel_typen_und_dataclass() -> None:
    ergebnis = berechne_rvg(
        gegenstandswert=Decimal("5000.00"), gebuehren=["3100", "3104"], auftragsdatum=NEU
    )
    assert isinstance(ergebnis, RvgErgebnis)
    assert ergebnis.gegenstandswert == D("5000")
    assert ergebnis.positionen == (
        Position(nr="3100", bezeichnung="Verfahrensgebühr", satz=D("1.3"), betrag=D("460.85")),
        Position(nr="3104", bezeichnung="Terminsgebühr", satz=D("1.2"), betrag=D("425.40")),
    )
    for wert in (
        ergebnis.gebuehr_1_0,
        ergebnis.auslagenpauschale,
        ergebnis.netto,
        ergebnis.ust,
        ergebnis.gesamt,
    ):
        assert isinstance(wert, Decimal)
    with pytest.raises(AttributeError):
        ergebnis.gesamt = D("0")  # type: ignore[misc]
    daten = ergebnis.as_dict()
    assert list(daten) == [
        "tabelle",
        "gebuehr_1_0",
        "positionen",
        "auslagenpauschale",
        "netto",
        "ust",
        "gesamt",
        "hinweise",
    ]


# (wert, stichtag, gebuehren, flags, positionen-beträge, pauschale, netto, ust, gesamt)
# Hand calculations:
#  a) 300 EUR/2025, 3100: 1.3*51.50 = 66.95; 20 % = 13.39; 80.34; *0.19 = 15.2646 -> 15.26.
#  b) 300 EUR/2021, 3100: 1.3*49 = 63.70; 12.74; 76.44; *0.19 = 14.5236 -> 14.52.
#  c) 500 EUR/2025, 2300 @1.94: 51.50*1.94 = 99.91; 20 % = 19.982 -> 19.98; 119.89;
#     *0.19 = 22.7791 -> 22.78.
#  d) 500 EUR/2025, 2300 @1.95: 51.50*1.95 = 100.425 -> 100.43 (half up); 20 % = 20.086 ->
#     capped 20.00; 120.43; *0.19 = 22.8817 -> 22.88.
#  e) 500 EUR/2025, 3305 w/o Pauschale: 51.50; *0.19 = 9.785 -> 9.79 (half up, not 9.78).
#  f) 3,000 EUR/2025, 3305: 235.50; 20 % = 47.10 -> 20.00; 255.50; *0.19 = 48.545 -> 48.55.
#  g) 5,000 EUR/2025, 3100+3104 w/o Pauschale: 886.25; *0.19 = 168.3875 -> 168.39.
#  h) 5,000 EUR/2025 with Pauschale, w/o USt: 906.25, USt 0.
#  i) both flags off: 886.25.
#  j) flags off but 7002/7008 listed: like the 1,078.44 example.
#  k) 5,000 EUR/2021, 3100+3104: 434.20 + 400.80 = 835.00; +20 = 855.00; *0.19 = 162.45.
#  l) 300 EUR/2025, 2300 @1.75: 51.50*1.75 = 90.125 -> 90.13; 20 % = 18.026 -> 18.03;
#     108.16; *0.19 = 20.5504 -> 20.55.
#  m) 5,000 EUR/2025, 3100 + 1008 @0.6: 460.85 + 212.70 = 673.55; +20 = 693.55;
#     *0.19 = 131.7745 -> 131.77.
RECHNUNGEN = [
    ("a", "300", NEU, ["3100"], {}, ["66.95"], "13.39", "80.34", "15.26", "95.60"),
    ("b", "300", ALT, ["3100"], {}, ["63.70"], "12.74", "76.44", "14.52", "90.96"),
    ("c", "500", NEU, [{"nr": "2300", "satz": "1.94"}], {}, ["99.91"], "19.98", "119.89",
     "22.78", "142.67"),
    ("d", "500", NEU, [{"nr": "2300", "satz": "1.95"}], {}, ["100.43"], "20.00", "120.43",
     "22.88", "143.31"),
    ("e", "500", NEU, ["3305"], {"auslagenpauschale": False}, ["51.50"], "0.00", "51.50",
     "9.79", "61.29"),
    ("f", "3000", NEU, ["3305"], {}, ["235.50"], "20.00", "255.50", "48.55", "304.05"),
    ("g", "5000", NEU, ["3100", "3104"], {"auslagenpauschale": False}, ["460.85", "425.40"],
     "0.00", "886.25", "168.39", "1054.64"),
    ("h", "5000", NEU, ["3100", "3104"], {"ust": False}, ["460.85", "425.40"], "20.00",
     "906.25", "0.00", "906.25"),
    ("i", "5000", NEU, ["3100", "3104"], {"ust": False, "auslagenpauschale": False},
     ["460.85", "425.40"], "0.00", "886.25", "0.00", "886.25"),
    ("j", "5000", NEU, ["3100", "3104", "7002", "7008"],
     {"ust": False, "auslagenpauschale": False}, ["460.85", "425.40"], "20.00", "906.25",
     "172.19", "1078.44"),
    ("k", "5000", ALT, ["3100", "3104"], {}, ["434.20", "400.80"], "20.00", "855.00",
     "162.45", "1017.45"),
    ("l", "300", NEU, [{"nr": "2300", "satz": "1.75"}], {}, ["90.13"], "18.03", "108.16",
     "20.55", "128.71"),
    ("m", "5000", NEU, ["3100", {"nr": "1008", "satz": "0.6"}], {}, ["460.85", "212.70"],
     "20.00", "693.55", "131.77", "825.32"),
]


@pytest.mark.parametrize(
    ("fall", "wert", "stichtag", "gebuehren", "flags", "betraege", "pauschale", "netto",
     "ust", "gesamt"),
    RECHNUNGEN,
)
def test_rvg_rechnungen(
    fall: str,
    wert: str,
    stichtag: date,
    gebuehren: list[object],
    flags: dict[str, bool],
    betraege: list[str],
    pauschale: str,
    netto: str,
    ust: str,
    gesamt: str,
) -> None:
    ergebnis = berechne_rvg(
        gegenstandswert=wert, gebuehren=gebuehren, auftragsdatum=stichtag, **flags
    )
    daten = ergebnis.as_dict()
    assert [p["betrag"] for p in daten["positionen"]] == betraege  # type: ignore[union-attr]
    assert daten["auslagenpauschale"] == pauschale
    assert daten["netto"] == netto
    assert daten["ust"] == ust
    assert daten["gesamt"] == gesamt


# --------------------------------------------------------------------------- minimum fee


# 2021, up to 500 EUR: 0.3 * 49.00 = 14.70 -> raised to 15.00 (§ 13 Abs. 2 RVG).
# 2025, up to 500 EUR: 0.3 * 51.50 = 15.45 -> no minimum. 2021, 501 EUR: 0.3 * 88 = 26.40.
@pytest.mark.parametrize(
    ("wert", "stichtag", "betrag", "mindest_hinweis"),
    [
        ("500", ALT, "15.00", True),
        ("1", MITTE_ALT, "15.00", True),
        ("500", NEU, "15.45", False),
        ("501", ALT, "26.40", False),
    ],
)
def test_mindestbetrag_rvg(wert: str, stichtag: date, betrag: str, mindest_hinweis: bool) -> None:
    ergebnis = berechne_rvg(
        gegenstandswert=wert,
        gebuehren=["3100", "1008"],
        auftragsdatum=stichtag,
    )
    assert ergebnis.positionen[1].betrag == D(betrag)
    treffer = [h for h in ergebnis.hinweise if "Mindestbetrag" in h]
    assert bool(treffer) is mindest_hinweis
    if mindest_hinweis:
        assert treffer == [
            "Nr. 1008 VV RVG: Mindestbetrag von 15,00 EUR angesetzt (§ 13 Abs. 2 RVG)."
        ]


def test_mindestbetrag_gesamtrechnung_2021() -> None:
    # 3100: 1.3*49 = 63.70; 1008: 15.00 (min); 78.70; 20 % = 15.74; 94.44;
    # *0.19 = 17.9436 -> 17.94; 112.38.
    ergebnis = berechne_rvg(gegenstandswert="300", gebuehren=["3100", "1008"], auftragsdatum=ALT)
    daten = ergebnis.as_dict()
    assert (daten["auslagenpauschale"], daten["netto"], daten["ust"], daten["gesamt"]) == (
        "15.74",
        "94.44",
        "17.94",
        "112.38",
    )


# None of the supported KV GKG numbers has a rate low enough to reach 15 EUR, so the
# shared helper is checked directly: 38 * 0.25 = 9.50 -> 15.00; 60 * 0.25 = 15.00 exactly.
@pytest.mark.parametrize(
    ("basis", "satz", "betrag", "angehoben"),
    [
        ("38.00", "0.25", "15.00", True),
        ("49.00", "0.3", "15.00", True),
        ("60.00", "0.25", "15.00", False),
        ("51.50", "0.3", "15.45", False),
        ("40.00", "0.5", "20.00", False),
    ],
)
def test_mindestbetrag_helfer(basis: str, satz: str, betrag: str, angehoben: bool) -> None:
    assert gebuehr_mit_mindestbetrag(basis=D(basis), satz=D(satz)) == (D(betrag), angehoben)


# --------------------------------------------------------------------------- Hinweise


@pytest.mark.parametrize(
    ("satz", "warnung"),
    [(None, False), ("1.3", False), ("1.30", False), ("0.5", False), ("1.31", True),
     ("1.5", True), ("2.5", True)],
)
def test_2300_warnung(satz: str | None, warnung: bool) -> None:
    eintrag: dict[str, object] = {"nr": "2300"}
    if satz is not None:
        eintrag["satz"] = satz
    ergebnis = berechne_rvg(gegenstandswert="5000", gebuehren=[eintrag], auftragsdatum=NEU)
    treffer = [h for h in ergebnis.hinweise if "umfangreich oder schwierig" in h]
    assert len(treffer) == (1 if warnung else 0)
    if satz == "1.5":
        assert treffer[0] == (
            "Geschäftsgebühr (Nr. 2300 VV RVG) mit Satz 1,5: Ein Satz über 1,3 kann nur "
            "gefordert werden, wenn die Tätigkeit umfangreich oder schwierig war; "
            "bitte begründen."
        )


def test_hinweis_anrechnung_und_1008_ohne_grundgebuehr() -> None:
    mit_anrechnung = berechne_rvg(
        gegenstandswert="5000", gebuehren=["2300", "3100"], auftragsdatum=NEU
    )
    assert any("Vorbem. 3 Abs. 4 VV RVG" in h for h in mit_anrechnung.hinweise)
    ohne_grund = berechne_rvg(
        gegenstandswert="5000", gebuehren=["3104", "1008"], auftragsdatum=NEU
    )
    assert any("setzt eine Verfahrens- oder Geschäftsgebühr voraus" in h
               for h in ohne_grund.hinweise)


@pytest.mark.parametrize(
    ("wert", "hinweis"),
    [
        ("30000000", None),
        (
            "30000000.01",
            "Der Gegenstandswert von 30.000.000,01 EUR wurde nach § 22 Abs. 2 RVG "
            "auf 30.000.000,00 EUR begrenzt.",
        ),
        (
            100_000_000,
            "Der Gegenstandswert von 100.000.000,00 EUR wurde nach § 22 Abs. 2 RVG "
            "auf 30.000.000,00 EUR begrenzt.",
        ),
    ],
)
def test_kappung_rvg(wert: object, hinweis: str | None) -> None:
    ergebnis = berechne_rvg(
        gegenstandswert=wert,  # type: ignore[arg-type]
        gebuehren=["3100"],
        auftragsdatum=NEU,
    )
    assert ergebnis.gegenstandswert == D("30000000")
    assert ergebnis.gebuehr_1_0 == D("107002.00")
    # 1.3 * 107,002.00 = 139,102.60
    assert ergebnis.positionen[0].betrag == D("139102.60")
    assert list(ergebnis.hinweise) == ([] if hinweis is None else [hinweis])


def test_kappung_gkg() -> None:
    ergebnis = berechne_gkg(gegenstandswert="45000000", stichtag=NEU)
    # 3.0 * 128,038.00 = 384,114.00
    assert ergebnis.as_dict() == {
        "tabelle": TABELLE_GKG_2025,
        "gebuehr_1_0": "128038.00",
        "positionen": [
            {
                "nr": "1210",
                "bezeichnung": "Verfahren im Allgemeinen (Klage 1. Instanz)",
                "satz": "3.0",
                "betrag": "384114.00",
            }
        ],
        "gesamt": "384114.00",
        "hinweise": [
            "Der Gegenstandswert von 45.000.000,00 EUR wurde nach § 39 Abs. 2 GKG "
            "auf 30.000.000,00 EUR begrenzt."
        ],
    }


# --------------------------------------------------------------------------- GKG positions


# 5,000 EUR: 2025 1.0 = 170.50, 2021 1.0 = 161.00.
@pytest.mark.parametrize(
    ("stichtag", "nr", "satz", "betrag"),
    [
        (NEU, "1210", "3.0", "511.50"),
        (NEU, "1211", "1.0", "170.50"),
        (NEU, "1220", "4.0", "682.00"),
        (NEU, "1222", "2.0", "341.00"),
        (NEU, "1230", "5.0", "852.50"),
        (ALT, "1210", "3.0", "483.00"),
        (ALT, "1211", "1.0", "161.00"),
        (ALT, "1220", "4.0", "644.00"),
        (ALT, "1222", "2.0", "322.00"),
        (ALT, "1230", "5.0", "805.00"),
    ],
)
def test_gkg_positionen(stichtag: date, nr: str, satz: str, betrag: str) -> None:
    ergebnis = berechne_gkg(gegenstandswert="5000", gebuehren=[{"nr": nr}], stichtag=stichtag)
    (position,) = ergebnis.positionen
    assert (position.nr, _satz(position), position.betrag) == (nr, satz, D(betrag))
    assert position.bezeichnung == KV_GKG[nr].bezeichnung
    assert ergebnis.gesamt == D(betrag)


def _satz(position: Position) -> str:
    return position.as_dict()["satz"]


def test_gkg_standard_und_shape() -> None:
    ergebnis = berechne_gkg(gegenstandswert="5000", stichtag=NEU)
    assert isinstance(ergebnis, GkgErgebnis)
    assert ergebnis.as_dict() == {
        "tabelle": TABELLE_GKG_2025,
        "gebuehr_1_0": "170.50",
        "positionen": [
            {
                "nr": "1210",
                "bezeichnung": "Verfahren im Allgemeinen (Klage 1. Instanz)",
                "satz": "3.0",
                "betrag": "511.50",
            }
        ],
        "gesamt": "511.50",
        "hinweise": [],
    }
    assert "ust" not in ergebnis.as_dict()


def test_gkg_mehrere_gebuehren() -> None:
    # 2025, 5,000 EUR: 1210 511.50 + 1220 682.00 = 1,193.50
    ergebnis = berechne_gkg(
        gegenstandswert="5000",
        gebuehren=["1210", {"nr": 1220, "satz": "4"}],
        stichtag=NEU,
    )
    assert ergebnis.gesamt == D("1193.50")
    # 2021, 10,000 EUR: 1.0 = 266; 1222 2.0 = 532.00; 1230 5.0 = 1,330.00; sum 1,862.00
    ergebnis = berechne_gkg(gegenstandswert="10000", gebuehren=["1222", "1230"], stichtag=ALT)
    assert [p.betrag for p in ergebnis.positionen] == [D("532.00"), D("1330.00")]
    assert ergebnis.gesamt == D("1862.00")


# --------------------------------------------------------------------------- errors

RVG_BASIS: dict[str, object] = {
    "gegenstandswert": "5000",
    "gebuehren": ["3100"],
    "auftragsdatum": NEU,
}

RVG_FEHLER = [
    ({"gegenstandswert": "0"}, "größer als 0"),
    ({"gegenstandswert": 0}, "größer als 0"),
    ({"gegenstandswert": "-1"}, "größer als 0"),
    ({"gegenstandswert": "-0.00"}, "größer als 0"),
    ({"gegenstandswert": "abc"}, "keine Zahl"),
    ({"gegenstandswert": ""}, "keine Zahl"),
    ({"gegenstandswert": "1e3"}, "keine Zahl"),
    ({"gegenstandswert": "NaN"}, "keine Zahl"),
    ({"gegenstandswert": "Infinity"}, "keine Zahl"),
    ({"gegenstandswert": Decimal("NaN")}, "keine endliche Zahl"),
    ({"gegenstandswert": Decimal("Infinity")}, "keine endliche Zahl"),
    ({"gegenstandswert": 5000.0}, "Gleitkommazahlen"),
    ({"gegenstandswert": True}, "Wahrheitswerte"),
    ({"gegenstandswert": None}, "erwartet wird eine Zahl"),
    ({"gegenstandswert": ["5000"]}, "erwartet wird eine Zahl"),
    ({"gegenstandswert": "5000.001"}, "zwei Nachkommastellen"),
    ({"gegenstandswert": "5.000"}, "zwei Nachkommastellen"),
    ({"gegenstandswert": "5.000.000"}, "keine Zahl"),
    ({"gegenstandswert": "1000000000000.01"}, "unplausibel hoch"),
    ({"gegenstandswert": 10**15}, "unplausibel hoch"),
    ({"gebuehren": []}, "mindestens eine Gebühr"),
    ({"gebuehren": ["7002", "7008"]}, "mindestens eine Gebühr"),
    ({"gebuehren": "3100"}, "als Liste"),
    ({"gebuehren": None}, "als Liste"),
    ({"gebuehren": ["9999"]}, "Unbekannte Nummer „9999“ im VV RVG. Bekannte Nummern: 1000"),
    ({"gebuehren": [1210]}, "Unbekannte Nummer „1210“"),
    ({"gebuehren": [{"satz": "1.3"}]}, "braucht eine Nummer"),
    ({"gebuehren": [{"nr": "3100", "saz": "1.3"}]}, "Unbekannte Angabe"),
    ({"gebuehren": [{"nr": None}]}, "Ungültige Nummer"),
    ({"gebuehren": [1.5]}, "Ungültige Nummer"),
    ({"gebuehren": ["3100", "3100"]}, "mehrfach"),
    ({"gebuehren": ["3100", "3101"]}, "schließen sich aus"),
    ({"gebuehren": ["1000", "1003"]}, "schließen sich aus"),
    ({"gebuehren": [{"nr": "7002", "satz": "1.0"}]}, "ohne Satz"),
    ({"gebuehren": [{"nr": "3100", "satz": "1.5"}]}, "festen Satz 1,3; angegeben wurde 1,5"),
    ({"gebuehren": [{"nr": "3104", "satz": "1"}]}, "festen Satz 1,2"),
    ({"gebuehren": [{"nr": "2300", "satz": "2.6"}]}, "zwischen 0,5 und 2,5"),
    ({"gebuehren": [{"nr": "2300", "satz": "0.4"}]}, "zwischen 0,5 und 2,5"),
    ({"gebuehren": [{"nr": "1008", "satz": "0.4"}]}, "0,3 je weiteren Auftraggeber"),
    ({"gebuehren": [{"nr": "1008", "satz": "1.9"}]}, "0,3 je weiteren Auftraggeber"),
    ({"gebuehren": [{"nr": "1008", "satz": "2.1"}]}, "höchstens 2,0"),
    ({"gebuehren": [{"nr": "1008", "satz": "2.4"}]}, "höchstens 2,0"),
    ({"gebuehren": [{"nr": "3100", "satz": 1.3}]}, "Gleitkommazahlen"),
    ({"gebuehren": [{"nr": "3100", "satz": "abc"}]}, "Ungültiger Satz"),
    ({"gebuehren": [{"nr": "3100", "satz": "0"}]}, "größer als 0"),
    ({"gebuehren": [{"nr": "2300", "satz": "-1.3"}]}, "größer als 0"),
    ({"gebuehren": [{"nr": "2300", "satz": "1.333"}]}, "zwei Nachkommastellen"),
    ({"auftragsdatum": date(2020, 12, 31)}, "Für den 31.12.2020 ist keine RVG-Gebührentabelle"),
    ({"auftragsdatum": date(1999, 1, 1)}, "ab dem 01.01.2021"),
    ({"auftragsdatum": "2025-06-01"}, "Ungültiges Auftragsdatum"),
    ({"auslagenpauschale": "false"}, "auslagenpauschale"),
    ({"ust": 0}, "„ust“"),
]


@pytest.mark.parametrize(("aenderung", "meldung"), RVG_FEHLER)
def test_rvg_fehler(aenderung: dict[str, object], meldung: str) -> None:
    with pytest.raises(KostenError) as info:
        berechne_rvg(**{**RVG_BASIS, **aenderung})  # type: ignore[arg-type]
    assert meldung in str(info.value)
    assert isinstance(info.value, ValueError)


GKG_FEHLER = [
    ({"gegenstandswert": "0"}, "größer als 0"),
    ({"gegenstandswert": "zehntausend"}, "keine Zahl"),
    ({"gegenstandswert": 1.0}, "Gleitkommazahlen"),
    ({"gebuehren": []}, "mindestens eine Gebühr"),
    ({"gebuehren": ["3100"]}, "Unbekannte Nummer „3100“ im KV GKG. Bekannte Nummern: 1210, 1211"),
    ({"gebuehren": [{"nr": "1210", "satz": "2.0"}]}, "festen Satz 3,0; angegeben wurde 2,0"),
    ({"gebuehren": ["1210", "1211"]}, "schließen sich aus"),
    ({"gebuehren": ["1220", "1222"]}, "schließen sich aus"),
    ({"gebuehren": ["1230", "1230"]}, "mehrfach"),
    ({"stichtag": date(2020, 12, 31)}, "keine GKG-Gebührentabelle"),
]


@pytest.mark.parametrize(("aenderung", "meldung"), GKG_FEHLER)
def test_gkg_fehler(aenderung: dict[str, object], meldung: str) -> None:
    basis: dict[str, object] = {"gegenstandswert": "5000", "stichtag": NEU}
    with pytest.raises(KostenError) as info:
        berechne_gkg(**{**basis, **aenderung})  # type: ignore[arg-type]
    assert meldung in str(info.value)


def test_keyword_only() -> None:
    with pytest.raises(TypeError):
        berechne_rvg("5000", ["3100"])  # type: ignore[misc]
    with pytest.raises(TypeError):
        berechne_gkg("5000")  # type: ignore[misc]


# --------------------------------------------------------------------------- parsers


@pytest.mark.parametrize(
    ("eingabe", "erwartet"),
    [
        ("5000", "5000"),
        (" 5000.5 ", "5000.5"),
        ("5000,50", "5000.50"),
        ("+12.34", "12.34"),
        ("-3", "-3"),
        (5000, "5000"),
        (Decimal("12.34"), "12.34"),
        ("0.01", "0.01"),
    ],
)
def test_parse_betrag_gueltig(eingabe: object, erwartet: str) -> None:
    ergebnis = parse_betrag(eingabe)
    assert ergebnis == D(erwartet)
    assert isinstance(ergebnis, Decimal)


@pytest.mark.parametrize(
    ("eingabe", "meldung"),
    [
        (1.5, "Gleitkommazahlen"),
        ("NaN", "keine Zahl"),
        ("inf", "keine Zahl"),
        ("-Infinity", "keine Zahl"),
        (Decimal("sNaN"), "keine endliche Zahl"),
        ("1e3", "keine Zahl"),
        ("", "keine Zahl"),
        ("12.345", "zwei Nachkommastellen"),
        (Decimal("1.001"), "zwei Nachkommastellen"),
        ("5.000.000", "keine Zahl"),
        ("5 000", "keine Zahl"),
        ("1" * 50, "keine Zahl"),
        (False, "Wahrheitswerte"),
        (None, "erwartet wird eine Zahl"),
    ],
)
def test_parse_betrag_ungueltig(eingabe: object, meldung: str) -> None:
    with pytest.raises(KostenError) as info:
        parse_betrag(eingabe)
    assert meldung in str(info.value)
    assert str(info.value).startswith("Ungültiger Betrag")


def test_parse_betrag_bezeichnung() -> None:
    with pytest.raises(KostenError, match=r"^Ungültiger Gegenstandswert"):
        parse_betrag("x", bezeichnung="Gegenstandswert")


@pytest.mark.parametrize(
    ("eingabe", "erwartet"),
    [("1.3", "1.3"), ("1,3", "1.3"), (" 0.65 ", "0.65"), (2, "2"), (Decimal("1.30"), "1.3")],
)
def test_parse_satz_gueltig(eingabe: object, erwartet: str) -> None:
    ergebnis = parse_satz(eingabe)
    assert ergebnis == D(erwartet)
    assert isinstance(ergebnis, Decimal)


@pytest.mark.parametrize(
    ("eingabe", "meldung"),
    [
        (1.3, "Gleitkommazahlen"),
        ("NaN", "keine Zahl"),
        (Decimal("NaN"), "keine endliche Zahl"),
        ("0", "größer als 0"),
        ("-0.5", "größer als 0"),
        ("1.333", "zwei Nachkommastellen"),
        ("eins", "keine Zahl"),
        (True, "Wahrheitswerte"),
    ],
)
def test_parse_satz_ungueltig(eingabe: object, meldung: str) -> None:
    with pytest.raises(KostenError) as info:
        parse_satz(eingabe)
    assert meldung in str(info.value)
    assert str(info.value).startswith("Ungültiger Satz")
