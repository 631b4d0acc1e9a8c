"""Which version of a law a lawyer reads, and what an empty decision search means, seen from outside:
every statute row (GET /knowledge/search, GET /knowledge/normen, the search box, /suche/,
search_gesetze) carries the law's Stand as the official text states it; with no decision loaded,
search_urteile and the search box say so instead of finding „nothing“ (docs/protocol.md).

One small bundled law (KSchG) is loaded once for the module, not the whole corpus.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.test import Client

from helena.knowledge.models import Gesetz, Muster, Urteil
from tests.conftest import Kanzlei
from tests.helena.tools.test_tools import call

pytestmark = pytest.mark.django_db

KEINE_ENTSCHEIDUNGEN = "Es sind keine Entscheidungen geladen."


@pytest.fixture(scope="module")
def kschg(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The bundled KSchG; yields its Stand („zuletzt geändert durch …“)."""
    with django_db_blocker.unblock():
        call_command("load_gesetze", "--only", "KSchG", verbosity=0)
        stand = Gesetz.objects.get(abk="KSchG").stand
    assert stand.startswith("zuletzt geändert durch ")
    yield stand
    with django_db_blocker.unblock():
        Gesetz.objects.filter(abk="KSchG").delete()


@pytest.fixture
def urteil(kschg: str) -> Urteil:
    """One decision loaded, on the Abfindung (a query's words are read with the statutes' lexicon)."""
    return Urteil.objects.create(gericht="Testgericht Nord", aktenzeichen="TEST 1/26", typ="Urteil",
                                 leitsatz="Synthetische Testentscheidung zur Abfindung bei Auflösung des "
                                          "Arbeitsverhältnisses.",
                                 text="Synthetischer Text.")


def _session(kanzlei: Kanzlei, username: str) -> Client:
    client = Client()
    client.force_login(kanzlei.users[username])
    return client


# --- the API -------------------------------------------------------------------------------------


def test_search_rows_of_a_statute_carry_the_laws_stand(kanzlei: Kanzlei, kschg: str) -> None:
    client = kanzlei.client("praktikant")
    cited = client.get("/api/v1/knowledge/search", {"q": "§ 4 KSchG", "kind": "gesetz"}).json()
    assert cited[0]["citation"] == "§ 4 KSchG" and cited[0]["stand"] == kschg
    asked = client.get("/api/v1/knowledge/search", {"q": "Sozialauswahl bei der Kündigung", "gesetz": "KSchG",
                                                     "kind": "gesetz"}).json()
    assert asked and {row["stand"] for row in asked} == {kschg}
    Muster.objects.create(titel="Testmuster Fristverlängerung", kategorie="Schriftsatz",
                          text="Antrag auf Verlängerung der Frist.")
    muster = client.get("/api/v1/knowledge/search", {"q": "Fristverlängerung", "kind": "muster"}).json()
    assert muster[0]["stand"] == ""  # a Muster has no Stand


def test_the_norm_endpoint_carries_the_laws_stand(kanzlei: Kanzlei, kschg: str) -> None:
    norm = kanzlei.client("sekretariat").get("/api/v1/knowledge/normen/KSchG/4").json()
    assert norm["citation"] == "§ 4 KSchG" and norm["stand"] == kschg
    schema = Client().get("/api/v1/openapi.json").json()["components"]["schemas"]
    assert "stand" in schema["NormOut"]["properties"] and "stand" in schema["WissenTrefferOut"]["properties"]


def test_without_decisions_the_api_keeps_its_shape(kanzlei: Kanzlei, kschg: str) -> None:
    assert not Urteil.objects.exists()
    rows = kanzlei.client("anwalt").get("/api/v1/knowledge/search", {"q": "Abfindung", "kind": "urteil"})
    assert rows.status_code == 200 and rows.json() == []


# --- Helena's tools ------------------------------------------------------------------------------


def test_search_gesetze_gives_helena_the_stand(kanzlei: Kanzlei, kschg: str) -> None:
    result = call(kanzlei.users["praktikant"], "search_gesetze", {"query": "§ 1 KSchG", "limit": 3})
    first = result.data["results"][0]
    assert result.ok and first["citation"] == "§ 1 KSchG"
    assert first["stand"] == kschg and first["source"].endswith(f"Stand: {kschg}")


def test_search_urteile_says_that_no_decisions_are_loaded(kanzlei: Kanzlei, kschg: str) -> None:
    result = call(kanzlei.users["praktikant"], "search_urteile", {"query": "Abfindung"})
    assert result.ok and result.summary == "Keine Entscheidungen geladen"
    assert result.data["results"] == []
    assert "In dieser Installation sind keine Entscheidungen geladen" in result.data["hinweis"]
    assert "python manage.py load_urteile" in result.data["hinweis"]


def test_search_urteile_with_decisions_but_no_match_finds_nothing(kanzlei: Kanzlei, urteil: Urteil) -> None:
    user = kanzlei.users["praktikant"]
    miss = call(user, "search_urteile", {"query": "Betriebsrat"})
    assert miss.ok and miss.summary == "Keine Treffer" and miss.data["results"] == []
    assert "Keine Treffer" in miss.data["hinweis"] and "geladen" not in miss.data["hinweis"]
    hit = call(user, "search_urteile", {"query": "Abfindung"})
    assert hit.summary == "1 Entscheidung gefunden" and hit.data["results"][0]["stand"] == ""


# --- the search box and /suche/ ----------------------------------------------------------------------


def test_the_search_box_shows_the_stand_and_that_no_decisions_are_loaded(kanzlei: Kanzlei,
                                                                          kschg: str) -> None:
    body = kanzlei.client("anwalt").get("/api/v1/suche", {"q": "Kündigungsschutzklage"}).json()
    normen = next(g["treffer"] for g in body["gruppen"] if g["art"] == "normen")
    assert normen and {t["stand"] for t in normen} == {kschg}
    assert body["hinweise"] == [KEINE_ENTSCHEIDUNGEN]
    assert kanzlei.client("anwalt").get("/api/v1/suche", {"q": "3/26"}).json()["hinweise"] == []

    html = _session(kanzlei, "anwalt").get("/suche/", {"q": "Kündigungsschutzklage"}).content.decode()
    assert f"Stand: {kschg}" in html and KEINE_ENTSCHEIDUNGEN in html
    leer = _session(kanzlei, "anwalt").get("/suche/", {"q": "Xylophonstimmung"}).content.decode()
    assert "Nichts gefunden für „Xylophonstimmung“" in leer and KEINE_ENTSCHEIDUNGEN in leer


def test_with_decisions_loaded_the_search_box_is_as_before(kanzlei: Kanzlei, kschg: str,
                                                           urteil: Urteil) -> None:
    body = kanzlei.client("anwalt").get("/api/v1/suche", {"q": "Kündigungsschutzklage"}).json()
    assert body["hinweise"] == []
    leer = _session(kanzlei, "anwalt").get("/suche/", {"q": "Xylophonstimmung"}).content.decode()
    assert "Nichts gefunden für „Xylophonstimmung“" in leer and KEINE_ENTSCHEIDUNGEN not in leer
