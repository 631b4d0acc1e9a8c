"""The JSON API seen from outside: authentication and what each role may (not) see."""

from __future__ import annotations

import pytest
from django.test import Client

from akten.models import ApiToken
from tests.conftest import GRANTS, Kanzlei

pytestmark = pytest.mark.django_db

ALL_AKTEN = {"1/26", "2/26", "3/26", "4/26"}
VISIBLE = {
    "admin": ALL_AKTEN,
    **{user: {f"{'ABCD'.index(k) + 1}/26" for k in keys} for user, keys in GRANTS.items()},
}


def aktenzeichen(response) -> set[str]:
    return {a["aktenzeichen"] for a in response.json()}


@pytest.mark.parametrize("path", ["/api/v1/me", "/api/v1/akten", "/api/v1/fristen", "/api/v1/akten/1"])
def test_anonymous_is_401_with_json_error(kanzlei: Kanzlei, path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "unauthorized"
    assert "Nicht angemeldet" in body["detail"]


@pytest.mark.parametrize("header", ["Bearer falsch", "Bearer ", "Token abc", "Bearer " + "x" * 500])
def test_invalid_token_is_401(kanzlei: Kanzlei, header: str) -> None:
    response = Client(headers={"Authorization": header}).get("/api/v1/akten")
    assert response.status_code == 401


def test_revoked_token_and_inactive_user_are_401(kanzlei: Kanzlei) -> None:
    ApiToken.objects.filter(user=kanzlei.users["anwalt"]).update(widerrufen=True)
    assert kanzlei.client("anwalt").get("/api/v1/me").status_code == 401
    kanzlei.users["praktikant"].is_active = False
    kanzlei.users["praktikant"].save()
    assert kanzlei.client("praktikant").get("/api/v1/me").status_code == 401


def test_tokens_are_stored_hashed(kanzlei: Kanzlei) -> None:
    raw = kanzlei.tokens["anwalt"]
    stored = ApiToken.objects.get(user=kanzlei.users["anwalt"])
    assert raw not in (stored.key_hash, stored.prefix) and len(stored.key_hash) == 64


@pytest.mark.parametrize("username", sorted(VISIBLE))
def test_me_names_user_and_role(kanzlei: Kanzlei, username: str) -> None:
    body = kanzlei.client(username).get("/api/v1/me").json()
    assert body["username"] == username
    assert body["role"] == kanzlei.users[username].role


@pytest.mark.parametrize("username", sorted(VISIBLE))
def test_akten_list_is_scoped_per_role(kanzlei: Kanzlei, username: str) -> None:
    response = kanzlei.client(username).get("/api/v1/akten")
    assert response.status_code == 200
    assert aktenzeichen(response) == VISIBLE[username]
    assert response["X-Total-Count"] == str(len(VISIBLE[username]))


@pytest.mark.parametrize("username", sorted(VISIBLE))
def test_akte_detail_visible_200_and_invisible_404(kanzlei: Kanzlei, username: str) -> None:
    client = kanzlei.client(username)
    for key, akte in kanzlei.akten.items():
        response = client.get(f"/api/v1/akten/{akte.pk}")
        if akte.aktenzeichen in VISIBLE[username]:
            assert response.status_code == 200
            body = response.json()
            assert body["aktenzeichen"] == akte.aktenzeichen
            assert [f["bezeichnung"] for f in body["fristen"]] == [f"Frist {key} offen"]
        else:
            assert response.status_code == 404
            body = response.json()
            assert body == {"detail": "Nicht gefunden.", "code": "not_found"}
            assert akte.kurzrubrum not in response.content.decode()


@pytest.mark.parametrize("akte_id", ["abc", "999999", "-1", "1.5", "%20"])
def test_unknown_or_malformed_akte_id_is_404(kanzlei: Kanzlei, akte_id: str) -> None:
    assert kanzlei.client("admin").get(f"/api/v1/akten/{akte_id}").status_code == 404


def test_akten_filters(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("admin")
    assert aktenzeichen(client.get("/api/v1/akten", {"q": "Stahlbau"})) == {"1/26"}
    assert aktenzeichen(client.get("/api/v1/akten", {"status": "offen"})) == ALL_AKTEN
    assert aktenzeichen(client.get("/api/v1/akten", {"limit": 1})) <= ALL_AKTEN
    bad = client.get("/api/v1/akten", {"status": "verloren"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_input"
    assert "status" in bad.json()["detail"]
    assert client.get("/api/v1/akten", {"limit": 0}).status_code == 422


def test_search_does_not_leak_invisible_akten(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("praktikant").get("/api/v1/akten", {"q": "Vertraulich"})
    assert response.status_code == 200 and response.json() == []


@pytest.mark.parametrize("username", sorted(VISIBLE))
def test_fristen_are_scoped(kanzlei: Kanzlei, username: str) -> None:
    client = kanzlei.client(username)
    active = client.get("/api/v1/fristen").json()
    assert {f["aktenzeichen"] for f in active} == VISIBLE[username]
    assert all(not f["erledigt"] for f in active)
    past = client.get("/api/v1/fristen", {"status": "past"}).json()
    assert {f["aktenzeichen"] for f in past} == VISIBLE[username]
    assert all(f["erledigt"] for f in past)
    assert len(client.get("/api/v1/fristen", {"status": "all"}).json()) == 2 * len(VISIBLE[username])


@pytest.mark.parametrize("username", ["sachbearbeiter", "sekretariat", "praktikant"])
def test_fristen_filter_by_invisible_akte_is_404(kanzlei: Kanzlei, username: str) -> None:
    response = kanzlei.client(username).get("/api/v1/fristen", {"akte_id": kanzlei.akten["C"].pk})
    assert response.status_code == 404
    assert "Vertraulich" not in response.content.decode()


def test_fristen_filter_by_visible_akte(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("anwalt").get("/api/v1/fristen", {"akte_id": kanzlei.akten["C"].pk})
    assert [f["bezeichnung"] for f in response.json()] == ["Frist C offen"]


def test_fristen_bad_status_is_422(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("admin").get("/api/v1/fristen", {"status": "morgen"})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("Ungültige Eingabe")


def test_session_login_works_and_csrf_protects_writes(kanzlei: Kanzlei) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(kanzlei.users["sekretariat"])
    assert aktenzeichen(client.get("/api/v1/akten")) == VISIBLE["sekretariat"]
    response = client.post(
        "/api/v1/fristen/berechnen", {"start": "2026-01-05", "dauer": {"tage": 3}},
        content_type="application/json",
    )
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"


def test_openapi_and_docs_are_served(kanzlei: Kanzlei) -> None:
    spec = Client().get("/api/v1/openapi.json")
    assert spec.status_code == 200
    paths = spec.json()["paths"]
    for path in ["/api/v1/me", "/api/v1/akten", "/api/v1/akten/{akte_id}", "/api/v1/fristen",
                 "/api/v1/fristen/berechnen", "/api/v1/kosten/rvg", "/api/v1/kosten/gkg"]:
        assert path in paths
    assert Client().get("/api/v1/docs").status_code == 200


def test_database_overload_is_a_503_not_a_500(kanzlei: Kanzlei, monkeypatch) -> None:
    from django.db import OperationalError, connection

    from akten import selectors

    def away(**kwargs):
        raise OperationalError("FATAL: sorry, too many clients already")

    def too_slow(**kwargs):  # a real statement timeout: the database is there, only overloaded
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = '1ms'")
            cursor.execute("SELECT pg_sleep(0.2)")

    monkeypatch.setattr(selectors, "akten_for", away)
    response = kanzlei.client("anwalt").get("/api/v1/akten")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.json()["code"] == "database_unavailable" and "Datenbank" in response.json()["detail"]

    monkeypatch.setattr(selectors, "akten_for", too_slow)
    response = kanzlei.client("anwalt").get("/api/v1/akten")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.json()["code"] == "unavailable" and "überlastet" in response.json()["detail"]
