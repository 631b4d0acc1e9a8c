"""Guessed API tokens (akten/accounts/tokenbremse.py) through the API: after 20 wrong tokens from one
address the next wrong one is a 429 in German with Retry-After, while a right token from the same
address still gets its answer, and another address is not affected."""

from __future__ import annotations

import pytest
from django.test import Client

from akten.accounts import tokenbremse
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def _mit(token: str, adresse: str = "127.0.0.1") -> object:
    return Client(headers={"Authorization": f"Bearer {token}"}).get("/api/v1/me", REMOTE_ADDR=adresse)


def test_wrong_tokens_from_one_address_are_braked_the_right_one_is_not(kanzlei: Kanzlei) -> None:
    for nummer in range(20):
        response = _mit(f"hel_falsch{nummer}")
        assert response.status_code == 401, nummer
    gebremst = _mit("hel_falsch-21")
    assert gebremst.status_code == 429
    body = gebremst.json()
    assert body["code"] == "too_many_attempts"
    assert body["detail"].startswith("Zu viele Anfragen mit falschem API-Token von deiner Adresse.")
    assert 0 < int(gebremst["Retry-After"]) <= 300 and body["retry_after"] == int(gebremst["Retry-After"])

    richtig = _mit(kanzlei.tokens["anwalt"])  # same address, right token: at full speed
    assert richtig.status_code == 200 and richtig.json()["username"] == "anwalt"
    assert _mit("hel_falsch-22", adresse="198.51.100.4").status_code == 401  # another address


def test_a_right_token_is_not_counted(kanzlei: Kanzlei) -> None:
    zaehler = tokenbremse._redis()
    key = tokenbremse.KEY.format(adresse="127.0.0.1")
    for _ in range(3):
        assert _mit(kanzlei.tokens["sekretariat"]).status_code == 200
    assert zaehler.get(key) is None
    assert _mit("hel_falsch").status_code == 401
    assert int(zaehler.get(key)) == 1 and 0 < zaehler.ttl(key) <= 300


def test_behind_a_proxy_the_configured_header_decides_the_address(kanzlei: Kanzlei, settings) -> None:
    settings.HELENA_PROXY_IP_HEADER = "X-Forwarded-For"
    proxy = "10.0.0.1"
    for nummer in range(21):
        # the client claims another address on the left; the proxy appended the real one on the right
        response = Client(headers={"Authorization": f"Bearer hel_x{nummer}",
                                   "X-Forwarded-For": f"1.2.3.{nummer}, 203.0.113.50"}).get(
            "/api/v1/me", REMOTE_ADDR=proxy)
    assert response.status_code == 429
    anderer = Client(headers={"Authorization": "Bearer hel_y", "X-Forwarded-For": "203.0.113.51"}).get(
        "/api/v1/me", REMOTE_ADDR=proxy)
    assert anderer.status_code == 401  # another client behind the same proxy
