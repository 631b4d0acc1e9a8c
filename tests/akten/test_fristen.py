"""Table-driven tests for akten.fristen (pure functions, no database).

Every expected date below is a literal that was checked by hand against a calendar
and the holidays package; weekdays are noted in the comments.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

import pytest

from akten.fristen import (
    BUNDESLAENDER,
    PRESETS,
    Dauer,
    FristError,
    Verschiebung,
    berechne_frist,
    berechne_preset,
    berechne_vorfrist,
    format_datum,
    normalisiere_bundesland,
    parse_datum,
    parse_dauer,
)
from akten.models import Bundesland

# --------------------------------------------------------------------------- #
# §§ 187, 188 BGB without any shift
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("start", "dauer", "fristbeginn", "ende"),
    [
        # § 187 Abs. 1 / § 188 Abs. 1: Mo 02.03.2026 + 10 Tage = Do 12.03.2026
        (date(2026, 3, 2), {"tage": 10}, "ereignis", date(2026, 3, 12)),
        (date(2026, 3, 2), {"tage": 1}, "ereignis", date(2026, 3, 3)),
        # § 188 Abs. 2 Alt. 1: Mi 04.03.2026 + 2 Wochen = Mi 18.03.2026
        (date(2026, 3, 4), {"wochen": 2}, "ereignis", date(2026, 3, 18)),
        # 10.03.2026 + 1 Monat = Fr 10.04.2026
        (date(2026, 3, 10), {"monate": 1}, "ereignis", date(2026, 4, 10)),
        # 10.06.2026 + 1 Jahr = Do 10.06.2027
        (date(2026, 6, 10), {"jahre": 1}, "ereignis", date(2027, 6, 10)),
        # Combined: 02.04.2026 (1 Monat) + 14 Tage = Do 16.04.2026
        (date(2026, 3, 2), {"monate": 1, "wochen": 2}, "ereignis", date(2026, 4, 16)),
        # Combined: 28.02.2026 (clamped) + 3 Tage = Di 03.03.2026
        (date(2026, 1, 31), {"monate": 1, "tage": 3}, "ereignis", date(2026, 3, 3)),
        # Jahre + Monate are one step: 31.01.2023 + 13 Monate = Do 29.02.2024
        (date(2023, 1, 31), {"jahre": 1, "monate": 1}, "ereignis", date(2024, 2, 29)),
        # § 187 Abs. 2: Mo 02.03.2026 counts, + 10 Tage - 1 = Mi 11.03.2026
        (date(2026, 3, 2), {"tage": 10}, "tagesbeginn", date(2026, 3, 11)),
        # § 188 Abs. 2 Alt. 2: Di 03.03.2026 + 1 Woche -> Mo 09.03.2026
        (date(2026, 3, 3), {"wochen": 1}, "tagesbeginn", date(2026, 3, 9)),
        # 01.03.2026 + 1 Monat -> Tag vor dem 01.04. = Di 31.03.2026
        (date(2026, 3, 1), {"monate": 1}, "tagesbeginn", date(2026, 3, 31)),
        # 01.01.2025 + 1 Jahr -> Mi 31.12.2025
        (date(2025, 1, 1), {"jahre": 1}, "tagesbeginn", date(2025, 12, 31)),
        # 31.03.2026 + 1 Monat: 31.04. fehlt, Vortag = Do 30.04.2026
        (date(2026, 3, 31), {"monate": 1}, "tagesbeginn", date(2026, 4, 30)),
        # Lebensalter: geboren 29.02.2000, 18 Jahre -> Mi 28.02.2018
        (date(2000, 2, 29), {"jahre": 18}, "tagesbeginn", date(2018, 2, 28)),
    ],
)
def test_frist_ohne_verschiebung(
    start: date, dauer: dict[str, int], fristbeginn: Any, ende: date
) -> None:
    ergebnis = berechne_frist(start=start, fristbeginn=fristbeginn, bundesland="NW", **dauer)
    assert ergebnis.unverschobenes_ende == ende
    assert ergebnis.ende == ende
    assert ergebnis.verschoben == ()


def test_dauer_als_dict_entspricht_einzelwerten() -> None:
    a = berechne_frist(start=date(2026, 3, 2), dauer={"monate": 1, "wochen": 2}, bundesland="NW")
    b = berechne_frist(start=date(2026, 3, 2), monate=1, wochen=2, bundesland="NW")
    assert a.ende == b.ende == date(2026, 4, 16)
    assert a.dauer == b.dauer == Dauer(monate=1, wochen=2)


def test_start_als_string() -> None:
    assert berechne_frist(start="2026-03-02", tage=10).ende == date(2026, 3, 12)
    assert berechne_frist(start="02.03.2026", tage=10).ende == date(2026, 3, 12)


# --------------------------------------------------------------------------- #
# § 188 Abs. 3 BGB – month ends
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("start", "dauer", "fristbeginn", "unverschoben", "ende"),
    [
        # Non-leap year: 31.01.2026 + 1 Monat = Sa 28.02.2026 -> Mo 02.03.2026
        (date(2026, 1, 31), {"monate": 1}, "ereignis", date(2026, 2, 28), date(2026, 3, 2)),
        # Non-leap year, workday: Fr 28.02.2025
        (date(2025, 1, 31), {"monate": 1}, "ereignis", date(2025, 2, 28), date(2025, 2, 28)),
        # Leap year: 31.01.2024 + 1 Monat = Do 29.02.2024
        (date(2024, 1, 31), {"monate": 1}, "ereignis", date(2024, 2, 29), date(2024, 2, 29)),
        # Leap year: 30.01.2024 + 1 Monat = Do 29.02.2024
        (date(2024, 1, 30), {"monate": 1}, "ereignis", date(2024, 2, 29), date(2024, 2, 29)),
        # 31.03.2026 + 1 Monat = Do 30.04.2026
        (date(2026, 3, 31), {"monate": 1}, "ereignis", date(2026, 4, 30), date(2026, 4, 30)),
        # 31.08.2026 + 1 Monat = Mi 30.09.2026
        (date(2026, 8, 31), {"monate": 1}, "ereignis", date(2026, 9, 30), date(2026, 9, 30)),
        # 29.02.2024 + 1 Jahr = Fr 28.02.2025
        (date(2024, 2, 29), {"jahre": 1}, "ereignis", date(2025, 2, 28), date(2025, 2, 28)),
        # 29.02.2024 + 4 Jahre = Di 29.02.2028 (exists again)
        (date(2024, 2, 29), {"jahre": 4}, "ereignis", date(2028, 2, 29), date(2028, 2, 29)),
        # 31.12.2025 + 2 Monate = Sa 28.02.2026 -> Mo 02.03.2026
        (date(2025, 12, 31), {"monate": 2}, "ereignis", date(2026, 2, 28), date(2026, 3, 2)),
        # § 187 Abs. 2: 31.01.2026 + 1 Monat -> Sa 28.02.2026 -> Mo 02.03.2026
        (date(2026, 1, 31), {"monate": 1}, "tagesbeginn", date(2026, 2, 28), date(2026, 3, 2)),
        # § 187 Abs. 2, leap year: 30.01.2024 + 1 Monat -> Vortag des 30.02. = Do 29.02.2024
        (date(2024, 1, 30), {"monate": 1}, "tagesbeginn", date(2024, 2, 29), date(2024, 2, 29)),
    ],
)
def test_monatsende(
    start: date, dauer: dict[str, int], fristbeginn: Any, unverschoben: date, ende: date
) -> None:
    ergebnis = berechne_frist(start=start, fristbeginn=fristbeginn, bundesland="NW", **dauer)
    assert ergebnis.unverschobenes_ende == unverschoben
    assert ergebnis.ende == ende


def test_monatsende_begruendung_nennt_188_abs_3() -> None:
    ergebnis = berechne_frist(start=date(2026, 3, 31), monate=1, bundesland="NW")
    assert "§ 188 Abs. 3 BGB" in ergebnis.begruendung
    assert "Donnerstag, 30.04.2026" in ergebnis.begruendung


# --------------------------------------------------------------------------- #
# § 193 BGB / § 222 Abs. 2 ZPO – shift paths
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("start", "dauer", "bundesland", "unverschoben", "ende", "verschoben"),
    [
        # Samstag: Mi 04.03.2026 + 10 Tage = Sa 14.03.2026 -> Mo 16.03.2026
        (
            date(2026, 3, 4),
            {"tage": 10},
            None,
            date(2026, 3, 14),
            date(2026, 3, 16),
            [(date(2026, 3, 14), "Samstag"), (date(2026, 3, 15), "Sonntag")],
        ),
        # Sonntag: Do 05.03.2026 + 10 Tage = So 15.03.2026 -> Mo 16.03.2026
        (
            date(2026, 3, 5),
            {"tage": 10},
            "HH",
            date(2026, 3, 15),
            date(2026, 3, 16),
            [(date(2026, 3, 15), "Sonntag")],
        ),
        # Tag der Deutschen Einheit: Do 03.10.2024 -> Fr 04.10.2024
        (
            date(2024, 9, 3),
            {"monate": 1},
            None,
            date(2024, 10, 3),
            date(2024, 10, 4),
            [(date(2024, 10, 3), "Feiertag: Tag der Deutschen Einheit")],
        ),
        # Neujahr: Do 01.01.2026 -> Fr 02.01.2026
        (
            date(2025, 12, 1),
            {"monate": 1},
            "BE",
            date(2026, 1, 1),
            date(2026, 1, 2),
            [(date(2026, 1, 1), "Feiertag: Neujahr")],
        ),
        # Weihnachten: Do 25.12. -> Fr 26.12. -> Sa -> So -> Mo 29.12.2025
        (
            date(2025, 11, 25),
            {"monate": 1},
            "NW",
            date(2025, 12, 25),
            date(2025, 12, 29),
            [
                (date(2025, 12, 25), "Feiertag: Erster Weihnachtstag"),
                (date(2025, 12, 26), "Feiertag: Zweiter Weihnachtstag"),
                (date(2025, 12, 27), "Samstag"),
                (date(2025, 12, 28), "Sonntag"),
            ],
        ),
        # Ostern: Karfreitag 03.04. -> Sa -> So -> Ostermontag 06.04. -> Di 07.04.2026
        (
            date(2026, 3, 3),
            {"monate": 1},
            "NW",
            date(2026, 4, 3),
            date(2026, 4, 7),
            [
                (date(2026, 4, 3), "Feiertag: Karfreitag"),
                (date(2026, 4, 4), "Samstag"),
                (date(2026, 4, 5), "Sonntag"),
                (date(2026, 4, 6), "Feiertag: Ostermontag"),
            ],
        ),
        # Brandenburg: Ostersonntag is a gesetzlicher Feiertag there
        (
            date(2026, 3, 3),
            {"monate": 1},
            "BB",
            date(2026, 4, 3),
            date(2026, 4, 7),
            [
                (date(2026, 4, 3), "Feiertag: Karfreitag"),
                (date(2026, 4, 4), "Samstag"),
                (date(2026, 4, 5), "Sonntag und Feiertag: Ostersonntag"),
                (date(2026, 4, 6), "Feiertag: Ostermontag"),
            ],
        ),
        # Sonntag and holiday: So 03.10.2027 -> Mo 04.10.2027
        (
            date(2027, 9, 3),
            {"monate": 1},
            "NW",
            date(2027, 10, 3),
            date(2027, 10, 4),
            [(date(2027, 10, 3), "Sonntag und Feiertag: Tag der Deutschen Einheit")],
        ),
        # Erster Mai: Fr 10.04.2026 + 3 Wochen = Fr 01.05.2026 -> Mo 04.05.2026
        (
            date(2026, 4, 10),
            {"wochen": 3},
            "SH",
            date(2026, 5, 1),
            date(2026, 5, 4),
            [
                (date(2026, 5, 1), "Feiertag: Erster Mai"),
                (date(2026, 5, 2), "Samstag"),
                (date(2026, 5, 3), "Sonntag"),
            ],
        ),
    ],
)
def test_verschiebung(
    start: date,
    dauer: dict[str, int],
    bundesland: str | None,
    unverschoben: date,
    ende: date,
    verschoben: list[tuple[date, str]],
) -> None:
    ergebnis = berechne_frist(start=start, bundesland=bundesland, **dauer)
    assert ergebnis.unverschobenes_ende == unverschoben
    assert ergebnis.ende == ende
    assert ergebnis.verschoben == tuple(Verschiebung(datum=d, grund=g) for d, g in verschoben)


@pytest.mark.parametrize(
    ("start", "dauer", "bundesland", "ende"),
    [
        # Reformationstag Fr 31.10.2025: NI/SN -> Mo 03.11.2025, NW/BY no holiday
        (date(2025, 10, 17), {"wochen": 2}, "NI", date(2025, 11, 3)),
        (date(2025, 10, 17), {"wochen": 2}, "SN", date(2025, 11, 3)),
        (date(2025, 10, 17), {"wochen": 2}, "NW", date(2025, 10, 31)),
        (date(2025, 10, 17), {"wochen": 2}, "BY", date(2025, 10, 31)),
        (date(2025, 10, 17), {"wochen": 2}, None, date(2025, 10, 31)),
        # Allerheiligen Fr 01.11.2024: NW/BY -> Mo 04.11.2024, NI no holiday
        (date(2024, 10, 18), {"wochen": 2}, "NW", date(2024, 11, 4)),
        (date(2024, 10, 18), {"wochen": 2}, "BY", date(2024, 11, 4)),
        (date(2024, 10, 18), {"wochen": 2}, "NI", date(2024, 11, 1)),
        # Fronleichnam Do 04.06.2026: NW/HE -> Fr 05.06.2026, NI not, SN only partially
        (date(2026, 5, 4), {"monate": 1}, "NW", date(2026, 6, 5)),
        (date(2026, 5, 4), {"monate": 1}, "HE", date(2026, 6, 5)),
        (date(2026, 5, 4), {"monate": 1}, "NI", date(2026, 6, 4)),
        (date(2026, 5, 4), {"monate": 1}, "SN", date(2026, 6, 4)),
        (date(2026, 5, 4), {"monate": 1}, "TH", date(2026, 6, 4)),
        # Frauentag Mi 08.03.2028: BE/MV -> Do 09.03.2028, NW not
        (date(2028, 2, 8), {"monate": 1}, "BE", date(2028, 3, 9)),
        (date(2028, 2, 8), {"monate": 1}, "MV", date(2028, 3, 9)),
        (date(2028, 2, 8), {"monate": 1}, "NW", date(2028, 3, 8)),
        # Buß- und Bettag Mi 18.11.2026: SN -> Do 19.11.2026, BY not
        (date(2026, 11, 4), {"wochen": 2}, "SN", date(2026, 11, 19)),
        (date(2026, 11, 4), {"wochen": 2}, "BY", date(2026, 11, 18)),
        # Weltkindertag Fr 20.09.2024: TH -> Mo 23.09.2024, SN not
        (date(2024, 9, 6), {"wochen": 2}, "TH", date(2024, 9, 23)),
        (date(2024, 9, 6), {"wochen": 2}, "SN", date(2024, 9, 20)),
        # Mariä Himmelfahrt Fr 15.08.2025: SL -> Mo 18.08.2025, BY only partially
        (date(2025, 7, 15), {"monate": 1}, "SL", date(2025, 8, 18)),
        (date(2025, 7, 15), {"monate": 1}, "BY", date(2025, 8, 15)),
        # Berlin, one-off holiday Do 08.05.2025 (80. Jahrestag der Befreiung) -> Fr 09.05.2025
        (date(2025, 4, 8), {"monate": 1}, "BE", date(2025, 5, 9)),
        (date(2025, 4, 8), {"monate": 1}, "NW", date(2025, 5, 8)),
        # Heiligabend is no gesetzlicher Feiertag: Do 24.12.2026
        (date(2026, 12, 10), {"wochen": 2}, "NW", date(2026, 12, 24)),
    ],
)
def test_landesfeiertag(
    start: date, dauer: dict[str, int], bundesland: str | None, ende: date
) -> None:
    assert berechne_frist(start=start, bundesland=bundesland, **dauer).ende == ende


def test_werktagsregel_abschaltbar() -> None:
    # Sa 14.03.2026 stays when § 193 BGB is not applied (e.g. Kündigungsfrist)
    ergebnis = berechne_frist(start=date(2026, 3, 4), tage=10, werktagsregel=False)
    assert ergebnis.ende == date(2026, 3, 14)
    assert ergebnis.verschoben == ()
    assert "Keine Verschiebung nach § 193 BGB" in ergebnis.begruendung


# --------------------------------------------------------------------------- #
# Partial holidays: conservatively not shifted, but a Hinweis
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("start", "dauer", "bundesland", "ende", "erwartet"),
    [
        # Fr 15.08.2025, BY: Mariä Himmelfahrt only in catholic municipalities
        (date(2025, 7, 15), {"monate": 1}, "BY", date(2025, 8, 15), "Mariä Himmelfahrt"),
        (date(2025, 7, 15), {"monate": 1}, "Bayern", date(2025, 8, 15), "15.08.2025"),
        # Do 04.06.2026, SN/TH: Fronleichnam only in parts
        (date(2026, 5, 4), {"monate": 1}, "SN", date(2026, 6, 4), "Fronleichnam"),
        (date(2026, 5, 4), {"monate": 1}, "TH", date(2026, 6, 4), "Fronleichnam"),
        # Fr 08.08.2025, BY: Augsburger Hohes Friedensfest only in Augsburg
        (date(2025, 7, 8), {"monate": 1}, "BY", date(2025, 8, 8), "Augsburger Hohes Friedensfest"),
    ],
)
def test_teilfeiertag_nicht_verschoben_mit_hinweis(
    start: date, dauer: dict[str, int], bundesland: str, ende: date, erwartet: str
) -> None:
    ergebnis = berechne_frist(start=start, bundesland=bundesland, **dauer)
    assert ergebnis.ende == ende
    assert ergebnis.verschoben == ()
    treffer = [h for h in ergebnis.hinweise if erwartet in h]
    assert len(treffer) == 1
    assert "nicht verschoben" in treffer[0]


@pytest.mark.parametrize("bundesland", ["NW", "SL", "NI"])
def test_kein_teilfeiertag_hinweis_in_anderen_laendern(bundesland: str) -> None:
    # Fr 15.08.2025: no partial holiday outside BY (SL: full holiday -> shifted)
    ergebnis = berechne_frist(start=date(2025, 7, 15), monate=1, bundesland=bundesland)
    assert ergebnis.hinweise == ()


@pytest.mark.parametrize(
    ("start", "bundesland", "ende"),
    [
        # Allerheiligen Fr 01.11.2024 is a full holiday in BY -> Mo 04.11.2024, no Hinweis
        (date(2024, 10, 1), "BY", date(2024, 11, 4)),
        # Karfreitag/Ostermontag 2026 in BY -> Di 07.04.2026, no Hinweis
        (date(2026, 3, 3), "BY", date(2026, 4, 7)),
    ],
)
def test_voller_feiertag_ohne_teilfeiertag_hinweis(
    start: date, bundesland: str, ende: date
) -> None:
    ergebnis = berechne_frist(start=start, monate=1, bundesland=bundesland)
    assert ergebnis.ende == ende
    assert ergebnis.hinweise == ()


def test_teilfeiertag_uebersprungen_hinweis() -> None:
    # Sa 15.08.2026 in BY: skipped as Samstag (not as Feiertag) -> Mo 17.08.2026
    ergebnis = berechne_frist(start=date(2026, 7, 15), monate=1, bundesland="BY")
    assert ergebnis.ende == date(2026, 8, 17)
    assert ergebnis.verschoben == (
        Verschiebung(datum=date(2026, 8, 15), grund="Samstag"),
        Verschiebung(datum=date(2026, 8, 16), grund="Sonntag"),
    )
    assert any("15.08.2026" in h and "Mariä Himmelfahrt" in h for h in ergebnis.hinweise)


def test_ohne_bundesland_hinweise() -> None:
    # Di 06.01.2026: Heilige Drei Könige only in BW, BY, ST
    ergebnis = berechne_frist(start=date(2025, 12, 6), monate=1)
    assert ergebnis.ende == date(2026, 1, 6)
    assert ergebnis.bundesland is None
    assert "nur bundesweite gesetzliche Feiertage" in ergebnis.begruendung
    assert any(h.startswith("Kein Bundesland angegeben") for h in ergebnis.hinweise)
    assert any("Heilige Drei Könige in BW, BY, ST" in h for h in ergebnis.hinweise)


# --------------------------------------------------------------------------- #
# Begründung and JSON
# --------------------------------------------------------------------------- #


def test_begruendung_ereignisfrist() -> None:
    text = berechne_frist(start=date(2026, 3, 3), monate=1, bundesland="NW").begruendung
    for teil in (
        "§ 187 Abs. 1 BGB",
        "§ 188 Abs. 2 Alt. 1 BGB",
        "§ 193 BGB",
        "§ 222 Abs. 2 ZPO",
        "Dienstag, 03.03.2026",
        "Rechnerisches Fristende: Freitag, 03.04.2026",
        "Freitag, 03.04.2026 (Feiertag: Karfreitag)",
        "Nordrhein-Westfalen (NW)",
        "Fristende: Dienstag, 07.04.2026",
    ):
        assert teil in text


def test_begruendung_tagesbeginn() -> None:
    text = berechne_frist(
        start=date(2026, 3, 1), monate=1, fristbeginn="tagesbeginn", bundesland="NW"
    ).begruendung
    assert "§ 187 Abs. 2 BGB" in text
    assert "§ 188 Abs. 2 Alt. 2 BGB" in text
    assert "Dienstag, 31.03.2026" in text


def test_as_dict_json() -> None:
    ergebnis = berechne_frist(start=date(2026, 3, 3), monate=1, bundesland="nw", vorfrist_tage=7)
    daten = ergebnis.as_dict()
    json.dumps(daten)  # must be JSON-serialisable
    assert daten["ende"] == "2026-04-07"
    assert daten["unverschobenes_ende"] == "2026-04-03"
    assert daten["bundesland"] == "NW"
    assert daten["dauer"] == {"tage": 0, "wochen": 0, "monate": 1, "jahre": 0}
    assert daten["verschoben"][0] == {"datum": "2026-04-03", "grund": "Feiertag: Karfreitag"}
    assert len(daten["verschoben"]) == 4
    assert daten["hinweise"] == []
    assert daten["vorfrist"]["datum"] == "2026-03-31"
    assert isinstance(daten["begruendung"], str)


@pytest.mark.parametrize(
    ("datum", "text"),
    [
        (date(2026, 4, 3), "Freitag, 03.04.2026"),
        (date(2026, 3, 1), "Sonntag, 01.03.2026"),
        (date(2024, 2, 29), "Donnerstag, 29.02.2024"),
    ],
)
def test_format_datum(datum: date, text: str) -> None:
    assert format_datum(datum) == text


@pytest.mark.parametrize(
    ("dauer", "text"),
    [
        (Dauer(tage=1), "1 Tag"),
        (Dauer(wochen=2), "2 Wochen"),
        (Dauer(monate=1, wochen=2), "1 Monat und 2 Wochen"),
        (Dauer(jahre=1, monate=2, wochen=1, tage=3), "1 Jahr, 2 Monate, 1 Woche und 3 Tage"),
    ],
)
def test_dauer_text(dauer: Dauer, text: str) -> None:
    assert dauer.text == text


# --------------------------------------------------------------------------- #
# Presets
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("preset", "start", "ende", "notfrist"),
    [
        # Urteil zugestellt Di 03.03.2026 -> Karfreitag 03.04. -> Di 07.04.2026
        ("berufung", date(2026, 3, 3), date(2026, 4, 7), True),
        # Urteil zugestellt 12.05.2026 -> Fr 12.06.2026
        ("berufung", date(2026, 5, 12), date(2026, 6, 12), True),
        # 2 Monate ab Zustellung: So 03.05.2026 -> Mo 04.05.2026
        ("berufungsbegruendung", date(2026, 3, 3), date(2026, 5, 4), False),
        # 2 Wochen: Di 17.03.2026
        ("einspruch_versaeumnisurteil", date(2026, 3, 3), date(2026, 3, 17), True),
        # 2 Wochen: Do 24.12.2026 (Heiligabend is no Feiertag)
        ("widerspruch_mahnbescheid", date(2026, 12, 10), date(2026, 12, 24), False),
        # 1 Monat ab 31.01.2026: Sa 28.02.2026 -> Mo 02.03.2026
        ("revision", date(2026, 1, 31), date(2026, 3, 2), True),
        # 2 Monate ab 31.12.2025: Sa 28.02.2026 -> Mo 02.03.2026
        ("revisionsbegruendung", date(2025, 12, 31), date(2026, 3, 2), False),
        # 3 Wochen ab Fr 10.04.2026: Fr 01.05.2026 (Erster Mai) -> Mo 04.05.2026
        ("kuendigungsschutzklage", date(2026, 4, 10), date(2026, 5, 4), False),
    ],
)
def test_preset(preset: str, start: date, ende: date, notfrist: bool) -> None:
    ergebnis = berechne_preset(preset=preset, start=start, bundesland="NW")
    assert ergebnis.ende == ende
    assert ergebnis.notfrist is notfrist
    assert ergebnis.preset is PRESETS[preset]
    assert PRESETS[preset].norm in ergebnis.begruendung
    assert any("Notfrist (§ 224" in h for h in ergebnis.hinweise) is notfrist


@pytest.mark.parametrize(
    ("key", "dauer", "norm", "notfrist"),
    [
        ("berufung", Dauer(monate=1), "§ 517 ZPO", True),
        ("berufungsbegruendung", Dauer(monate=2), "§ 520 Abs. 2 ZPO", False),
        ("einspruch_versaeumnisurteil", Dauer(wochen=2), "§ 339 Abs. 1 ZPO", True),
        ("widerspruch_mahnbescheid", Dauer(wochen=2), "§ 692 Abs. 1 Nr. 3, § 694 ZPO", False),
        ("revision", Dauer(monate=1), "§ 548 ZPO", True),
        ("revisionsbegruendung", Dauer(monate=2), "§ 551 Abs. 2 ZPO", False),
        ("kuendigungsschutzklage", Dauer(wochen=3), "§ 4 S. 1 KSchG", False),
    ],
)
def test_preset_tabelle(key: str, dauer: Dauer, norm: str, notfrist: bool) -> None:
    preset = PRESETS[key]
    assert (preset.dauer, preset.norm, preset.notfrist) == (dauer, norm, notfrist)
    assert preset.bezeichnung
    json.dumps(preset.as_dict())


def test_preset_widerspruch_keine_notfrist_hinweis() -> None:
    ergebnis = berechne_preset(
        preset="widerspruch_mahnbescheid", start=date(2026, 12, 10), bundesland="NW"
    )
    assert any("Keine Notfrist" in h for h in ergebnis.hinweise)


def test_preset_gross_klein_und_vorfrist() -> None:
    ergebnis = berechne_preset(
        preset="Berufung", start="2026-03-03", bundesland="Nordrhein-Westfalen", vorfrist_tage=7
    )
    assert ergebnis.ende == date(2026, 4, 7)
    assert ergebnis.vorfrist is not None
    assert ergebnis.vorfrist.datum == date(2026, 3, 31)


# --------------------------------------------------------------------------- #
# Vorfrist
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("ende", "dauer", "bundesland", "datum", "uebersprungen"),
    [
        # Di 07.04.2026 - 7 Tage = Di 31.03.2026
        (date(2026, 4, 7), {}, "NW", date(2026, 3, 31), []),
        (date(2026, 4, 7), {"wochen": 1}, "NW", date(2026, 3, 31), []),
        # Mo 16.03.2026 - 2 Tage = Sa 14.03. -> Fr 13.03.2026
        (date(2026, 3, 16), {"tage": 2}, "NW", date(2026, 3, 13), [date(2026, 3, 14)]),
        # Di 17.03.2026 - 2 Tage = So 15.03. -> Sa -> Fr 13.03.2026
        (
            date(2026, 3, 17),
            {"tage": 2},
            None,
            date(2026, 3, 13),
            [date(2026, 3, 15), date(2026, 3, 14)],
        ),
        # Fr 10.04.2026 - 7 Tage = Karfreitag 03.04. -> Do 02.04.2026
        (date(2026, 4, 10), {"tage": 7}, "NW", date(2026, 4, 2), [date(2026, 4, 3)]),
        # Mo 13.04.2026 - 1 Woche = Ostermontag -> So -> Sa -> Karfreitag -> Do 02.04.2026
        (
            date(2026, 4, 13),
            {"wochen": 1},
            "NW",
            date(2026, 4, 2),
            [date(2026, 4, 6), date(2026, 4, 5), date(2026, 4, 4), date(2026, 4, 3)],
        ),
        # Fr 22.08.2025 - 7 Tage = Fr 15.08.2025: BY partial holiday -> Do 14.08.2025
        (date(2025, 8, 22), {"tage": 7}, "BY", date(2025, 8, 14), [date(2025, 8, 15)]),
        (date(2025, 8, 22), {"tage": 7}, "NW", date(2025, 8, 15), []),
    ],
)
def test_vorfrist(
    ende: date,
    dauer: dict[str, int],
    bundesland: str | None,
    datum: date,
    uebersprungen: list[date],
) -> None:
    vorfrist = berechne_vorfrist(ende=ende, bundesland=bundesland, **dauer)
    assert vorfrist.datum == datum
    assert [v.datum for v in vorfrist.verschoben] == uebersprungen
    json.dumps(vorfrist.as_dict())


def test_vorfrist_gruende() -> None:
    vorfrist = berechne_vorfrist(ende=date(2026, 4, 10), tage=7, bundesland="NW")
    assert vorfrist.unverschobenes_datum == date(2026, 4, 3)
    assert vorfrist.verschoben == (
        Verschiebung(datum=date(2026, 4, 3), grund="Feiertag: Karfreitag"),
    )
    assert "Donnerstag, 02.04.2026" in vorfrist.begruendung
    bayern = berechne_vorfrist(ende=date(2025, 8, 22), tage=7, bundesland="BY")
    assert bayern.verschoben[0].grund.startswith("örtlicher Feiertag: Mariä Himmelfahrt")


def test_vorfrist_im_ergebnis_vor_fristbeginn() -> None:
    # Di 03.03.2026 + 3 Tage = Fr 06.03.2026; Vorfrist 7 Tage = Fr 27.02.2026 < Start
    ergebnis = berechne_frist(start=date(2026, 3, 3), tage=3, bundesland="NW", vorfrist_tage=7)
    assert ergebnis.ende == date(2026, 3, 6)
    assert ergebnis.vorfrist is not None
    assert ergebnis.vorfrist.datum == date(2026, 2, 27)
    assert any("Vorfrist" in h for h in ergebnis.hinweise)


# --------------------------------------------------------------------------- #
# Parsing helpers
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("wert", "erwartet"),
    [
        ("2024-02-29", date(2024, 2, 29)),
        ("03.04.2026", date(2026, 4, 3)),
        ("3.4.2026", date(2026, 4, 3)),
        (" 2026-04-03 ", date(2026, 4, 3)),
        (date(2026, 4, 3), date(2026, 4, 3)),
    ],
)
def test_parse_datum(wert: str | date, erwartet: date) -> None:
    assert parse_datum(wert) == erwartet


@pytest.mark.parametrize(
    ("wert", "meldung"),
    [
        ("2026-02-30", "30. Februar 2026 gibt es nicht"),
        ("2025-02-29", "29. Februar 2025 gibt es nicht"),
        ("31.04.2026", "31. April 2026 gibt es nicht"),
        ("2026-13-01", "Monat 13 existiert nicht"),
        ("2026-00-10", "Monat 0 existiert nicht"),
        ("0000-01-01", "Jahr"),
        ("", "Ungültiges Datum"),
        ("morgen", "Ungültiges Datum"),
        ("2026/04/03", "Ungültiges Datum"),
        (20260403, "Ungültiges Datum"),
        (None, "Ungültiges Datum"),
        (datetime(2026, 4, 3, 12, 0), "ohne Uhrzeit"),
    ],
)
def test_parse_datum_fehler(wert: Any, meldung: str) -> None:
    with pytest.raises(FristError, match=meldung):
        parse_datum(wert)


@pytest.mark.parametrize(
    ("wert", "erwartet"),
    [
        ({"monate": 1}, Dauer(monate=1)),
        ({"wochen": 2, "tage": 0}, Dauer(wochen=2)),
        ({"jahre": 1, "monate": 2, "wochen": 3, "tage": 4}, Dauer(4, 3, 2, 1)),
        ({"jahre": 100}, Dauer(jahre=100)),
        ({"tage": 36500}, Dauer(tage=36500)),
        (Dauer(tage=3), Dauer(tage=3)),
    ],
)
def test_parse_dauer(wert: Any, erwartet: Dauer) -> None:
    assert parse_dauer(wert) == erwartet


@pytest.mark.parametrize(
    ("wert", "meldung"),
    [
        ({}, "größer als null"),
        ({"tage": 0}, "größer als null"),
        ({"tage": -1}, "nicht negativ"),
        ({"monate": 2, "tage": -1}, "nicht negativ"),
        ({"tage": 1.0}, "ganze Zahl"),
        ({"tage": "2"}, "ganze Zahl"),
        ({"tage": None}, "ganze Zahl"),
        ({"tage": True}, "ganze Zahl"),
        ({"Tage": 1}, "Unbekannte Angabe"),
        ({"tage": 1, "stunden": 2}, "Unbekannte Angabe"),
        ({"jahre": 101}, "100 Jahre"),
        ({"monate": 1201}, "100 Jahre"),
        ({"tage": 36501}, "100 Jahre"),
        ({"jahre": 100, "tage": 1}, "100 Jahre"),
        ([("tage", 1)], "Objekt"),
        ("1 Monat", "Objekt"),
        (None, "Objekt"),
    ],
)
def test_parse_dauer_fehler(wert: Any, meldung: str) -> None:
    with pytest.raises(FristError, match=meldung):
        parse_dauer(wert)


@pytest.mark.parametrize(
    ("wert", "code"),
    [
        ("NW", "NW"),
        ("nw", "NW"),
        (" Nordrhein-Westfalen ", "NW"),
        ("nordrhein westfalen", "NW"),
        ("NRW", "NW"),
        ("Bayern", "BY"),
        ("bayern", "BY"),
        ("by", "BY"),
        ("Thüringen", "TH"),
        ("Thueringen", "TH"),
        ("Baden-Württemberg", "BW"),
        ("sachsen-anhalt", "ST"),
        ("Sachsen", "SN"),
        ("Mecklenburg-Vorpommern", "MV"),
        (None, None),
        ("", None),
        ("  ", None),
    ],
)
def test_normalisiere_bundesland(wert: str | None, code: str | None) -> None:
    assert normalisiere_bundesland(wert) == code


@pytest.mark.parametrize("wert", ["XX", "Augsburg", "Bavaria", "N W", "Deutschland", 12])
def test_normalisiere_bundesland_fehler(wert: Any) -> None:
    with pytest.raises(FristError, match="Bundesland"):
        normalisiere_bundesland(wert)


def test_unbekanntes_bundesland_listet_codes() -> None:
    with pytest.raises(FristError) as info:
        berechne_frist(start=date(2026, 3, 2), tage=1, bundesland="XY")
    for code in ("BB", "BY", "NW", "SN", "TH"):
        assert code in str(info.value)


# --------------------------------------------------------------------------- #
# Errors of the public functions: always FristError
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("kwargs", "meldung"),
    [
        ({"start": "2026-02-30", "tage": 1}, "30. Februar 2026"),
        ({"start": "kein datum", "tage": 1}, "Ungültiges Datum"),
        ({"start": datetime(2026, 3, 2, 9, 0), "tage": 1}, "ohne Uhrzeit"),
        ({"start": date(2026, 3, 2)}, "größer als null"),
        ({"start": date(2026, 3, 2), "tage": 0, "monate": 0}, "größer als null"),
        ({"start": date(2026, 3, 2), "tage": -1}, "nicht negativ"),
        ({"start": date(2026, 3, 2), "wochen": -2, "monate": 1}, "nicht negativ"),
        ({"start": date(2026, 3, 2), "monate": True}, "ganze Zahl"),
        ({"start": date(2026, 3, 2), "tage": 1.5}, "ganze Zahl"),
        ({"start": date(2026, 3, 2), "jahre": 101}, "100 Jahre"),
        ({"start": date(2026, 3, 2), "dauer": {"tage": 1, "stunden": 1}}, "Unbekannte Angabe"),
        ({"start": date(2026, 3, 2), "dauer": {"tage": 1}, "tage": 1}, "entweder"),
        ({"start": date(2026, 3, 2), "tage": 1, "bundesland": "XX"}, "Unbekanntes Bundesland"),
        ({"start": date(2026, 3, 2), "tage": 1, "bundesland": "Augsburg"}, "Bundesland"),
        ({"start": date(2026, 3, 2), "tage": 1, "fristbeginn": "montag"}, "Fristbeginn"),
        # End beyond the holiday data of the package (1991–2100)
        ({"start": date(2026, 3, 2), "jahre": 100}, "1991 bis 2100"),
        ({"start": date(1985, 3, 1), "tage": 1}, "1991 bis 2100"),
        # End beyond year 9999
        ({"start": date(9999, 12, 1), "monate": 1}, "9999"),
        ({"start": date(9999, 12, 31), "tage": 1, "werktagsregel": False}, "9999"),
        ({"start": date(2026, 3, 2), "tage": 1, "vorfrist_tage": 0}, "größer als null"),
        ({"start": date(2026, 3, 2), "tage": 1, "vorfrist_tage": -3}, "nicht negativ"),
    ],
)
def test_berechne_frist_fehler(kwargs: dict[str, Any], meldung: str) -> None:
    with pytest.raises(FristError, match=meldung) as info:
        berechne_frist(**kwargs)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "meldung"),
    [
        ({"ende": "31.04.2026"}, "31. April 2026"),
        ({"ende": date(2026, 4, 7), "tage": 0}, "größer als null"),
        ({"ende": date(2026, 4, 7), "tage": 400}, "366 Tage"),
        ({"ende": date(2026, 4, 7), "wochen": True}, "ganze Zahl"),
        ({"ende": date(2026, 4, 7), "bundesland": "Augsburg"}, "Bundesland"),
        ({"ende": date(1991, 1, 3), "tage": 7}, "1991 bis 2100"),
    ],
)
def test_berechne_vorfrist_fehler(kwargs: dict[str, Any], meldung: str) -> None:
    with pytest.raises(FristError, match=meldung):
        berechne_vorfrist(**kwargs)


@pytest.mark.parametrize("preset", ["berufungsfrist", "", "Revision!", None])
def test_unbekanntes_preset(preset: Any) -> None:
    with pytest.raises(FristError, match="Unbekannte Fristart"):
        berechne_preset(preset=preset, start=date(2026, 3, 3))


def test_the_akte_offers_exactly_the_laender_the_calculator_knows() -> None:
    """The Bundesland of an Akte (a database choice) and the calculator's holiday basis (pure Python,
    no Django) are two lists of the same sixteen Länder: they must never drift apart."""
    assert dict(Bundesland.choices) == dict(BUNDESLAENDER)
