"""Fristen and Kosten through the JSON API: exact results, German errors, never a 500."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def post(client: Client, path: str, body: object) -> tuple[int, dict]:
    response = client.post(f"/api/v1{path}", json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


def test_rvg_example_from_the_brief(kanzlei: Kanzlei) -> None:
    status, body = post(kanzlei.client("praktikant"), "/kosten/rvg", {
        "gegenstandswert": "5000",
        "gebuehren": [{"nr": "3100"}, {"nr": "3104"}, {"nr": "7002"}, {"nr": "7008"}],
        "auftragsdatum": "2025-06-01",
    })
    assert status == 200
    assert body["gebuehr_1_0"] == "354.50"
    assert [(p["nr"], p["satz"], p["betrag"]) for p in body["positionen"]] == [
        ("3100", "1.3", "460.85"), ("3104", "1.2", "425.40"),
    ]
    assert (body["auslagenpauschale"], body["netto"], body["ust"], body["gesamt"]) == (
        "20.00", "906.25", "172.19", "1078.44",
    )


def test_rvg_table_follows_auftragsdatum(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    _, alt = post(client, "/kosten/rvg", {"gegenstandswert": 5000, "gebuehren": [{"nr": "3100"}],
                                          "auftragsdatum": "2025-05-31"})
    _, neu = post(client, "/kosten/rvg", {"gegenstandswert": 5000, "gebuehren": [{"nr": "3100"}],
                                          "auftragsdatum": "01.06.2025"})
    assert (alt["gebuehr_1_0"], neu["gebuehr_1_0"]) == ("334.00", "354.50")
    assert "2021" in alt["tabelle"] and "2025" in neu["tabelle"]


def test_rvg_json_numbers_are_taken_exactly(kanzlei: Kanzlei) -> None:
    status, body = post(kanzlei.client("anwalt"), "/kosten/rvg", {
        "gegenstandswert": 5000.0, "gebuehren": [{"nr": "2300", "satz": 1.5}],
        "auftragsdatum": "2025-07-01", "ust": False, "auslagenpauschale": False,
    })
    assert status == 200
    assert body["positionen"][0]["betrag"] == "531.75"  # 1.5 x 354.50
    assert body["gesamt"] == "531.75"
    assert any("1,3" in h for h in body["hinweise"])


def test_gkg_default_is_kv_1210(kanzlei: Kanzlei) -> None:
    status, body = post(kanzlei.client("sekretariat"), "/kosten/gkg",
                        {"gegenstandswert": "5000", "stichtag": "2025-06-01"})
    assert status == 200
    assert body["gebuehr_1_0"] == "170.50"
    assert body["positionen"] == [{"nr": "1210", "bezeichnung": body["positionen"][0]["bezeichnung"],
                                   "satz": "3.0", "betrag": "511.50"}]
    assert body["gesamt"] == "511.50"


@pytest.mark.parametrize(("path", "body", "fragment"), [
    ("/kosten/rvg", {"gegenstandswert": "abc", "gebuehren": [{"nr": "3100"}]}, "Gegenstandswert"),
    ("/kosten/rvg", {"gegenstandswert": "-5", "gebuehren": [{"nr": "3100"}]}, "Gegenstandswert"),
    ("/kosten/rvg", {"gegenstandswert": "5.000", "gebuehren": [{"nr": "3100"}]}, "Nachkommastellen"),
    ("/kosten/rvg", {"gegenstandswert": "5000", "gebuehren": [{"nr": "9999"}]}, "9999"),
    ("/kosten/rvg", {"gegenstandswert": "5000", "gebuehren": [{"nr": "2300", "satz": "3.0"}]}, "2300"),
    ("/kosten/rvg", {"gegenstandswert": "5000", "gebuehren": []}, "Gebühr"),
    ("/kosten/rvg", {"gegenstandswert": "5000", "gebuehren": [{"nr": "3100"}],
                     "auftragsdatum": "2020-12-31"}, "2021"),
    ("/kosten/rvg", {"gegenstandswert": "5000", "gebuehren": [{"nr": "3100"}],
                     "auftragsdatum": "2025-02-30"}, "Datum"),
    ("/kosten/rvg", {"gebuehren": [{"nr": "3100"}]}, "gegenstandswert fehlt"),
    ("/kosten/gkg", {"gegenstandswert": "NaN"}, "Gegenstandswert"),
    ("/kosten/gkg", {"gegenstandswert": "5000", "gebuehren": [{"nr": "3100"}]}, "3100"),
    ("/fristen/berechnen", {"start": "2026-02-30", "dauer": {"monate": 1}}, "30. Februar"),
    ("/fristen/berechnen", {"start": "2026-01-05", "dauer": {"monate": 0}}, "Dauer"),
    ("/fristen/berechnen", {"start": "2026-01-05", "dauer": {"tage": -3}}, "Dauer"),
    ("/fristen/berechnen", {"start": "2026-01-05", "dauer": {"stunden": 3}}, "stunden"),
    ("/fristen/berechnen", {"start": "2026-01-05", "dauer": {"tage": 3}, "bundesland": "XY"}, "XY"),
    ("/fristen/berechnen", {"start": "2026-01-05"}, "dauer"),
    ("/fristen/berechnen", {"start": "2026-01-05", "preset": "berufung", "dauer": {"tage": 1}}, "preset"),
    ("/fristen/berechnen", {"start": "2026-01-05", "preset": "mondfrist"}, "erlaubt: berufung,"),
    ("/fristen/berechnen", {"dauer": {"tage": 3}}, "start fehlt"),
])
def test_bad_input_is_422_with_german_detail(kanzlei: Kanzlei, path: str, body: dict, fragment: str) -> None:
    status, response = post(kanzlei.client("anwalt"), path, body)
    assert status == 422, response
    assert response["code"] == "invalid_input"
    assert fragment.lower() in response["detail"].lower()


@pytest.mark.parametrize("raw", ["{kaputt", "", "[1, 2]", "null", '"text"'])
def test_malformed_bodies_never_500(kanzlei: Kanzlei, raw: str) -> None:
    client = kanzlei.client("anwalt")
    response = client.post("/api/v1/fristen/berechnen", raw, content_type="application/json")
    assert response.status_code in (400, 422)
    assert response.json()["code"] in ("bad_request", "invalid_input")


def test_frist_berechnen_month_end_and_weekend(kanzlei: Kanzlei) -> None:
    status, body = post(kanzlei.client("praktikant"), "/fristen/berechnen",
                        {"start": "2026-01-31", "dauer": {"monate": 1}, "bundesland": "NW"})
    assert status == 200
    # 31.01. + 1 Monat = 28.02.2026 (§ 188 Abs. 3 BGB), a Saturday → Monday 02.03.2026.
    assert body["unverschobenes_ende"] == "2026-02-28"
    assert body["ende"] == "2026-03-02"
    assert body["verschoben"] == [{"datum": "2026-02-28", "grund": "Samstag"},
                                  {"datum": "2026-03-01", "grund": "Sonntag"}]
    assert "§ 188 Abs. 3 BGB" in body["begruendung"]


def test_frist_berechnen_preset_with_holiday_of_the_land(kanzlei: Kanzlei) -> None:
    # Zustellung 01.10.2026; Berufung 1 Monat → 01.11.2026 (Sunday, Allerheiligen in NW) → 02.11.
    status, body = post(kanzlei.client("anwalt"), "/fristen/berechnen",
                        {"start": "2026-10-01", "preset": "berufung", "bundesland": "NW", "vorfrist_tage": 7})
    assert status == 200
    assert body["ende"] == "2026-11-02"
    assert body["notfrist"] is True
    assert "§ 517 ZPO" in body["begruendung"]
    assert body["verschoben"] == [{"datum": "2026-11-01", "grund": "Sonntag und Feiertag: Allerheiligen"}]
    assert body["vorfrist"]["datum"] == "2026-10-26"


def test_calculators_need_login(kanzlei: Kanzlei) -> None:
    status, body = post(Client(), "/kosten/rvg", {"gegenstandswert": "5000", "gebuehren": [{"nr": "3100"}]})
    assert status == 401 and body["code"] == "unauthorized"
