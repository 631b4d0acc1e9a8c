"""What Helena computes in the chat is exactly what the calculators compute: the tools against the
JSON API, input for input, as a lawyer would compare them."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

import pytest

from akten.kosten import BERLIN
from tests.conftest import Kanzlei
from tests.helena.tools.test_tools import call

pytestmark = pytest.mark.django_db


def api(kanzlei: Kanzlei, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = kanzlei.client("anwalt").post(f"/api/v1{path}", json.dumps(body),
                                             content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("body", [
    # § 187 Abs. 2 BGB: a Frist that begins at the start of a day (Beginn eines Mietverhältnisses)
    {"start": "2026-03-01", "dauer": {"monate": 1}, "fristbeginn": "tagesbeginn", "bundesland": "NW"},
    {"start": "2026-03-02", "dauer": {"tage": 10}, "fristbeginn": "tagesbeginn", "bundesland": "BY"},
    # § 187 Abs. 1 BGB with a Vorfrist, and a preset
    {"start": "2026-04-30", "dauer": {"monate": 1}, "vorfrist_tage": 7, "bundesland": "BE"},
    {"start": "2026-12-10", "preset": "berufung", "bundesland": "NW"},
    {"start": "2026-12-10", "preset": "berufung", "vorfrist_tage": 3, "bundesland": "BY"},
])
def test_calculate_frist_equals_the_calculator(kanzlei: Kanzlei, body: dict[str, Any]) -> None:
    expected = api(kanzlei, "/fristen/berechnen", body)
    result = call(kanzlei.users["anwalt"], "calculate_frist", body)
    assert result.ok, result.error
    for key in ("ende", "begruendung", "unverschobenes_ende", "notfrist", "bundesland"):
        assert str(result.data[key]) == str(expected[key]), key
    assert (result.data["vorfrist"] or {}).get("datum") == (expected["vorfrist"] or {}).get("datum")


def test_tagesbeginn_differs_from_ereignis_by_one_day(kanzlei: Kanzlei) -> None:
    """The Lebensalter case: a Frist beginning with the day counts it, an event does not."""
    args = {"start": "2026-03-02", "dauer": {"tage": 10}, "bundesland": "NW"}
    ereignis = call(kanzlei.users["anwalt"], "calculate_frist", args)
    tagesbeginn = call(kanzlei.users["anwalt"], "calculate_frist", {**args, "fristbeginn": "tagesbeginn"})
    assert (ereignis.data["ende"], tagesbeginn.data["ende"]) == ("2026-03-12", "2026-03-11")
    assert "187 Abs. 2" in tagesbeginn.data["begruendung"]


def test_calculate_frist_refuses_a_preset_with_tagesbeginn_like_the_api(kanzlei: Kanzlei) -> None:
    body = {"start": "2026-12-10", "preset": "berufung", "fristbeginn": "tagesbeginn"}
    response = kanzlei.client("anwalt").post("/api/v1/fristen/berechnen", json.dumps(body),
                                             content_type="application/json")
    result = call(kanzlei.users["anwalt"], "calculate_frist", body)
    assert response.status_code == 422 and result.error_code == "invalid_arguments"
    assert result.error == response.json()["detail"]


GEBUEHREN = [{"nr": "3100"}, {"nr": "3104"}]


@pytest.mark.parametrize(("auftragsdatum", "tabelle"), [("2025-05-31", "2021"), ("2025-06-01", "2025"),
                                                         ("2024-02-15", "2021")])
def test_get_kosten_rules_with_an_auftragsdatum_equals_the_rvg_api(
    kanzlei: Kanzlei, auftragsdatum: str, tabelle: str
) -> None:
    expected = api(kanzlei, "/kosten/rvg", {"gegenstandswert": "5000", "gebuehren": GEBUEHREN,
                                            "auftragsdatum": auftragsdatum})
    result = call(kanzlei.users["anwalt"], "get_kosten_rules",
                  {"gegenstandswert": "5000", "gebuehren": GEBUEHREN, "auftragsdatum": auftragsdatum})
    assert result.ok, result.error
    rvg = result.data["rvg"]
    assert tabelle in rvg["tabelle"] and rvg["tabelle"] == expected["tabelle"]
    assert [rvg[k] for k in ("netto", "ust", "gesamt")] == [expected[k] for k in ("netto", "ust", "gesamt")]


def test_get_kosten_rules_defaults_to_the_akte_auftragsdatum(kanzlei: Kanzlei) -> None:
    """An Akte taken on in March 2025 is billed under the 2021 table, whatever today is."""
    akte = kanzlei.akten["A"]
    akte.auftragsdatum = date(2025, 3, 14)
    akte.save()
    now = datetime(2026, 11, 25, 10, tzinfo=BERLIN)
    focused = call(kanzlei.users["anwalt"], "get_kosten_rules", {"gegenstandswert": "5000"},
                   akte_id=akte.pk, now=now)
    named = call(kanzlei.users["anwalt"], "get_kosten_rules",
                 {"gegenstandswert": "5000", "akte_id": str(akte.pk)}, now=now)
    for result in (focused, named):
        assert result.ok, result.error
        assert "2021" in result.data["rvg"]["tabelle"] and result.data["rvg"]["gesamt"] == "1017.45"
        assert result.data["auftragsdatum"] == "2025-03-14"
        assert "Auftragsdatum der Akte 1/26" in result.data["hinweise"][0]
    # An Akte without Auftragsdatum: today, said so.
    other = call(kanzlei.users["anwalt"], "get_kosten_rules", {"gegenstandswert": "5000"},
                 akte_id=kanzlei.akten["B"].pk, now=now)
    assert "2025" in other.data["rvg"]["tabelle"] and "kein Auftragsdatum" in other.data["hinweise"][0]
    # A foreign Akte is not found, its date not revealed.
    foreign = call(kanzlei.users["praktikant"], "get_kosten_rules",
                   {"gegenstandswert": "5000", "akte_id": str(akte.pk)}, now=now)
    assert not foreign.ok and foreign.error_code == "not_found"
