"""Bad input, as a user or an attacker sends it: a clear German error, nothing stored, nothing crashed,
nothing left running. Every case is an input that used to answer 500 or close the socket with 1011.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis
from django.conf import settings
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from drafts.models import Draft, DraftEvent
from helena.models import Conversation, Message
from helena.realtime import socket_limits
from helena.runs.events.broadcast import channel as events_channel
from tests.conftest import Kanzlei
from tests.drafts.test_drafts import _approve, _propose

NUL, SURROGATE = "\u0000", "\ud800"
BAD_VALUES = [("nul", "a\x00b", "%00"), ("surrogate", "a\ud800b", "%ED%A0%80")]


def _raw_json(body: dict[str, Any]) -> str:
    """JSON as an attacker writes it: escapes for NUL and lone surrogates, which json.dumps can't emit
    from a surrogate without them anyway."""
    return json.dumps(body)  # ensure_ascii: "\u0000" and "\ud800" as escapes


def assert_german_422(response: Any) -> dict[str, Any]:
    assert response.status_code == 422, response.content[:300]
    body = response.json()
    assert body["code"] == "invalid_input"
    assert "Ungültige Eingabe" in body["detail"]
    assert NUL not in body["detail"] and SURROGATE not in body["detail"]
    return body


# --- the API ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("param", ["q", "gesetz", "gericht", "kategorie"])
def test_knowledge_search_refuses_nul_in_every_parameter(kanzlei: Kanzlei, param: str) -> None:
    query = {"q": "Kündigung", param: "a\x00b"}
    response = kanzlei.client("anwalt").get("/api/v1/knowledge/search", query)
    body = assert_german_422(response)
    assert f"„{param}“ enthält ein Nullzeichen" in body["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/knowledge/normen/BGB%00/1", "/api/v1/knowledge/normen/BGB/1%00",
                                  "/api/v1/akten/1%00", "/api/v1/helena/runs/%00"])
def test_a_nul_in_the_path_is_refused(kanzlei: Kanzlei, path: str) -> None:
    assert_german_422(kanzlei.client("anwalt").get(path))


@pytest.mark.django_db
def test_a_broken_utf8_path_is_not_found_not_a_crash(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("anwalt").get("/api/v1/knowledge/normen/BGB%ED%A0%80/1")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


@pytest.mark.django_db
@pytest.mark.parametrize(("label", "value", "_"), BAD_VALUES)
def test_posting_a_message_with_bad_text_stores_nothing(kanzlei: Kanzlei, label: str, value: str,
                                                         _: str) -> None:
    client = kanzlei.client("anwalt")
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    response = client.post(f"/api/v1/helena/conversations/{conversation.pk}/messages",
                           _raw_json({"text": value}), content_type="application/json")
    body = assert_german_422(response)
    assert "„text“" in body["detail"]
    assert not Message.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("label", "value", "_"), BAD_VALUES)
def test_approving_a_draft_with_bad_edited_fields_changes_nothing(
    kanzlei: Kanzlei, label: str, value: str, _: str
) -> None:
    data = _propose(kanzlei, "anwalt", "create_notiz",
                    {"akte_id": str(kanzlei.akten["A"].pk), "inhalt": "Rückruf"})
    events = DraftEvent.objects.count()
    response = _approve(kanzlei, "anwalt", data["draft_id"], {"fields": {"inhalt": value}})
    assert_german_422(response)
    draft = Draft.objects.get(pk=data["draft_id"])
    assert draft.status == "pending" and draft.fields["inhalt"] == "Rückruf"
    assert DraftEvent.objects.count() == events


@pytest.mark.django_db
def test_a_body_claiming_another_content_type_is_checked_all_the_same(kanzlei: Kanzlei) -> None:
    """django-ninja reads an API body as JSON whatever the header says; so does the check."""
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    response = kanzlei.client("anwalt").post(f"/api/v1/helena/conversations/{conversation.pk}/messages",
                                             '{"text": "a\\u0000b"}', content_type="text/plain")
    assert_german_422(response)
    assert not Message.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/akten?offset=1000000000000000000000000000000",
                                  "/api/v1/drafts?offset=1000000000000000000000000000000",
                                  "/api/v1/helena/runs/00000000-0000-0000-0000-000000000000/events"
                                  "?after=1000000000000000000000000000000"])
def test_huge_numbers_in_the_query_are_refused(kanzlei: Kanzlei, path: str) -> None:
    assert_german_422(kanzlei.client("anwalt").get(path))


@pytest.mark.django_db
def test_a_json_array_body_creates_no_conversation(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("anwalt").post("/api/v1/helena/conversations", "[1]",
                                             content_type="application/json")
    body = assert_german_422(response)
    assert "JSON-Objekt" in body["detail"]
    assert not Conversation.objects.exists()


@pytest.mark.django_db
def test_deeply_nested_json_is_refused_before_parsing(kanzlei: Kanzlei) -> None:
    body = '{"text": ' + "[" * 20_000 + "]" * 20_000 + "}"
    response = kanzlei.client("anwalt").post("/api/v1/helena/conversations", body,
                                             content_type="application/json")
    assert "zu tief verschachtelt" in assert_german_422(response)["detail"]


@pytest.mark.django_db
def test_a_huge_bad_value_is_not_echoed_back(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("anwalt").post(
        "/api/v1/fristen/berechnen", json.dumps({"start": "x" * 100_000, "dauer": {"tage": 1}}),
        content_type="application/json")
    assert response.status_code == 422
    assert len(response.content) < 1_000
    assert "kein gültiges Datum" in response.json()["detail"]


@pytest.mark.django_db
def test_vorfrist_errors_speak_of_the_vorfrist(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("anwalt").post(
        "/api/v1/fristen/berechnen",
        json.dumps({"start": "2026-01-01", "dauer": {"wochen": 2}, "vorfrist_tage": -3}),
        content_type="application/json")
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail == "Ungültige Eingabe: vorfrist_tage muss mindestens 0 sein." and "Dauer" not in detail


@pytest.mark.django_db
def test_a_refused_draft_history_is_kept_whole_but_paged(kanzlei: Kanzlei) -> None:
    data = _propose(kanzlei, "anwalt", "create_notiz",
                    {"akte_id": str(kanzlei.akten["A"].pk), "inhalt": "Rückruf"})
    assert _approve(kanzlei, "anwalt", data["draft_id"]).status_code == 200
    for _ in range(60):  # a script hammering on a decided draft
        assert _approve(kanzlei, "anwalt", data["draft_id"]).status_code == 409
    client = kanzlei.client("anwalt")
    detail = client.get(f"/api/v1/drafts/{data['draft_id']}").json()
    total = DraftEvent.objects.filter(draft_id=data["draft_id"]).count()
    assert detail["history_total"] == total and total > 60  # the audit keeps every attempt
    assert len(detail["history"]) == 50
    assert detail["history"][0]["action"] == "created"  # how it began stays visible
    page = client.get(f"/api/v1/drafts/{data['draft_id']}/history", {"offset": 0, "limit": 200}).json()
    assert page["total"] == total and len(page["items"]) == total
    second = client.get(f"/api/v1/drafts/{data['draft_id']}/history", {"offset": 10, "limit": 5}).json()
    assert second["items"] == page["items"][10:15]
    assert client.get(f"/api/v1/drafts/{data['draft_id']}/history", {"limit": 500}).status_code == 422
    assert kanzlei.client("praktikant").get(f"/api/v1/drafts/{data['draft_id']}/history").status_code == 404


@pytest.mark.django_db
def test_every_validation_error_is_named_in_german(kanzlei: Kanzlei) -> None:
    response = kanzlei.client("anwalt").post(
        "/api/v1/fristen/berechnen", json.dumps({"start": "morgen", "dauer": "zwei Wochen"}),
        content_type="application/json")
    body = assert_german_422(response)
    assert "start ist kein gültiges Datum" in body["detail"] and "dauer ist kein Objekt" in body["detail"]
    assert [e["loc"][-1] for e in body["errors"]] == ["start", "dauer"]
    assert [e["msg"] for e in body["errors"]] == [
        "ist kein gültiges Datum (JJJJ-MM-TT oder TT.MM.JJJJ)", "ist kein Objekt"]
    assert "should" not in response.content.decode() and "Input" not in response.content.decode()


@pytest.mark.django_db
def test_an_id_may_be_a_number_or_a_string(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    akte = kanzlei.akten["A"]
    for akte_id in (akte.pk, str(akte.pk)):
        response = client.post("/api/v1/helena/conversations", json.dumps({"akte_id": akte_id}),
                               content_type="application/json")
        assert response.status_code == 201, response.content
        assert Conversation.objects.get(pk=response.json()["id"]).akte == akte
    for wrong in (True, 1.5, [1]):
        response = client.post("/api/v1/helena/conversations", json.dumps({"akte_id": wrong}),
                               content_type="application/json")
        assert response.status_code == 422 and response.json()["errors"][0]["msg"] == "ist kein Text"


# --- pages and forms -----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(("label", "_", "encoded"), BAD_VALUES)
def test_pages_refuse_bad_query_text_with_a_german_page(kanzlei: Kanzlei, label: str, _: str,
                                                         encoded: str) -> None:
    from django.test import Client

    client = Client()
    client.force_login(kanzlei.users["anwalt"])
    response = client.get(f"/akten/?q=a{encoded}b")
    if label == "surrogate":  # Django decodes broken UTF-8 in a query as U+FFFD: harmless
        assert response.status_code == 200
        return
    assert response.status_code == 400
    page = response.content.decode()
    assert "Ungültige Eingabe" in page and "nichts gespeichert" in page


@pytest.mark.django_db
def test_a_form_with_a_nul_stores_nothing(kanzlei: Kanzlei) -> None:
    from django.test import Client

    data = _propose(kanzlei, "anwalt", "create_notiz",
                    {"akte_id": str(kanzlei.akten["A"].pk), "inhalt": "Rückruf"})
    client = Client()
    client.force_login(kanzlei.users["anwalt"])
    response = client.post(f"/entwuerfe/{data['draft_id']}/freigeben/", {"inhalt": "böse\x00"})
    assert response.status_code == 400
    assert Draft.objects.get(pk=data["draft_id"]).status == "pending"


# --- the websocket ---------------------------------------------------------------------------------


def _url(asgi_server: str, conversation_id: Any) -> str:
    return f"ws://{asgi_server}/ws/helena/conversations/{conversation_id}/"


def _bearer(kanzlei: Kanzlei, username: str = "anwalt") -> dict[str, str]:
    return {"Authorization": f"Bearer {kanzlei.tokens[username]}"}


async def _recv(ws: Any, timeout: float = 10) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


FRAMES_THAT_CRASHED = [
    "[" * 10_000 + "]" * 10_000,  # 20 kB: RecursionError in json.loads
    '{"type": "' + "\\ud800" + '"}',  # echoed in the error message: UnicodeEncodeError
    '{"type": "user_message", "text": "a\\u0000b"}',  # NUL into PostgreSQL
    '{"type": "user_message", "text": "a\\ud800b", "client_id": "x"}',
    '{"type": "sync", "after": {"\\ud800": 1}}',
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_bad_frames_get_an_error_event_and_the_socket_stays(kanzlei: Kanzlei, asgi_server: str) -> None:
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])

    async def scenario() -> list[dict[str, Any]]:
        errors = []
        async with connect(_url(asgi_server, conversation.pk), additional_headers=_bearer(kanzlei),
                           max_size=None) as ws:
            for frame in FRAMES_THAT_CRASHED:
                await ws.send(frame)
                errors.append(await _recv(ws))
            await ws.send(json.dumps({"type": "sync", "after": {}}))  # still open and answering
            await ws.send(json.dumps({"type": "nonsense"}))
            errors.append(await _recv(ws))
        return errors

    errors = asyncio.run(scenario())
    assert [e["type"] for e in errors] == ["error"] * 6
    assert all(e["code"] == "invalid_message" for e in errors)
    assert "zu tief verschachtelt" in errors[0]["message"]
    assert "Surrogate" in errors[1]["message"] and "Nullzeichen" in errors[2]["message"]
    assert errors[3].get("client_id") is None or errors[3]["client_id"] == "x"
    assert not Message.objects.filter(conversation=conversation).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_thirty_crashed_or_dropped_sockets_leave_nothing_behind(kanzlei: Kanzlei, asgi_server: str) -> None:
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    user_id = kanzlei.users["anwalt"].pk
    client = redis.Redis.from_url(settings.REDIS_URL)
    channel = events_channel()  # subscribed by a process while it holds a chat socket

    async def one(i: int) -> None:
        ws = await connect(_url(asgi_server, conversation.pk), additional_headers=_bearer(kanzlei),
                           max_size=None)
        await ws.send(FRAMES_THAT_CRASHED[i % len(FRAMES_THAT_CRASHED)])
        await _recv(ws)
        ws.transport.abort()  # dropped: no close frame, the TCP connection just ends

    async def scenario() -> tuple[int, int]:
        for batch in range(3):
            await asyncio.gather(*(one(batch * 10 + i) for i in range(10)))
        async with connect(_url(asgi_server, conversation.pk), additional_headers=_bearer(kanzlei)) as ws:
            await ws.send(json.dumps({"type": "sync", "after": {}}))
            await asyncio.sleep(0.3)
            live = client.pubsub_numsub(channel)[0][1]
            counted = await socket_limits.open_count(user_id=user_id)
        return live, counted

    live_with_one, counted_with_one = asyncio.run(scenario())
    assert (live_with_one, counted_with_one) == (1, 1)  # only the socket still open

    async def after() -> int:
        for _ in range(50):
            if (client.pubsub_numsub(channel)[0][1] == 0
                    and await socket_limits.open_count(user_id=user_id) == 0):
                return 0
            await asyncio.sleep(0.1)
        return -1

    assert asyncio.run(after()) == 0  # no subscription, no registry entry (and so no resync task)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_open_sockets_per_user_are_limited(kanzlei: Kanzlei, asgi_server: str) -> None:
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    other = Conversation.objects.create(user=kanzlei.users["sachbearbeiter"])
    limit = settings.HELENA_WS_MAX_PER_USER

    async def opened(ws: Any) -> bool:
        """Open, or refused with 4429 (an error event, then the close)."""
        try:
            frame = await asyncio.wait_for(ws.recv(), 5)
        except TimeoutError:
            return True
        except ConnectionClosed:
            return False
        return json.loads(frame).get("code") != "too_many_sockets"

    async def scenario() -> tuple[dict[str, Any], int | None, bool]:
        # Opened all at once, a few more than allowed: exactly `limit` of them stay.
        url, headers = _url(asgi_server, conversation.pk), _bearer(kanzlei)
        tried = await asyncio.gather(*(connect(url, additional_headers=headers) for _ in range(limit + 3)))
        states = await asyncio.gather(*(opened(ws) for ws in tried))
        assert sum(states) == limit, states
        open_ones = [ws for ws, is_open in zip(tried, states, strict=True) if is_open]
        for ws, is_open in zip(tried, states, strict=True):
            if not is_open:
                await ws.close()
        try:
            async with connect(_url(asgi_server, conversation.pk), additional_headers=_bearer(kanzlei)) as ws:
                refusal = await _recv(ws)
                try:
                    await asyncio.wait_for(ws.recv(), 5)
                    code = None
                except ConnectionClosed as exc:
                    code = exc.rcvd.code if exc.rcvd else None
            # Another user is not affected.
            async with connect(_url(asgi_server, other.pk),
                               additional_headers=_bearer(kanzlei, "sachbearbeiter")) as ws:
                await ws.send(json.dumps({"type": "nonsense"}))
                other_ok = (await _recv(ws))["code"] == "invalid_message"
        finally:
            for ws in open_ones:
                await ws.close()
        return refusal, code, other_ok

    refusal, code, other_ok = asyncio.run(scenario())
    assert refusal["type"] == "error" and refusal["code"] == "too_many_sockets"
    assert "Zu viele offene Verbindungen" in refusal["message"]
    assert code == 4429 and other_ok

