"""The chat websocket through a real daphne (config.asgi), real Redis channel layer, PostgreSQL and the
scripted model server: auth and close codes, streaming, bad frames, cancel, two tabs, reload
catch-up without gaps or duplicates.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from helena.models import AgentRun, Conversation, Message
from tests.conftest import Kanzlei
from tests.helena.web.test_runs_api import events, wait

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _conversation(kanzlei: Kanzlei, username: str = "anwalt") -> Conversation:
    return Conversation.objects.create(user=kanzlei.users[username])


def _url(asgi_server: str, conversation_id: Any) -> str:
    return f"ws://{asgi_server}/ws/helena/conversations/{conversation_id}/"


def _bearer(kanzlei: Kanzlei, username: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {kanzlei.tokens[username]}"}


async def _recv(ws: Any, timeout: float = 15) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def _until_done(ws: Any, run_id: str | None = None, timeout: float = 30) -> list[dict[str, Any]]:
    """Every event until the `done` of `run_id` (or of the first run seen)."""
    seen: list[dict[str, Any]] = []
    while True:
        event = await _recv(ws, timeout)
        seen.append(event)
        run_id = run_id or event.get("run_id")
        if event["type"] == "done" and event["run_id"] == run_id:
            return seen


def _message(text: str, *, mode: str = "inline") -> str:
    return json.dumps({"type": "user_message", "text": text, "mode": mode})


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _close_code(url: str, **kwargs: Any) -> int | None:
    async with connect(url, **kwargs) as ws:
        try:
            await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None
    return None


# --------------------------------------------------------------------------- who may connect


def test_refusals_close_with_the_protocol_codes(kanzlei: Kanzlei, asgi_server: str) -> None:
    conversation = _conversation(kanzlei, "anwalt")
    url = _url(asgi_server, conversation.pk)
    assert _run(_close_code(url, additional_headers=_bearer(kanzlei, "sachbearbeiter"))) == 4403
    assert _run(_close_code(url)) == 4403  # anonymous
    assert _run(_close_code(url, additional_headers={"Authorization": "Bearer falsch"})) == 4403
    assert _run(_close_code(_url(asgi_server, 999999), additional_headers=_bearer(kanzlei, "anwalt"))) == 4404
    assert _run(_close_code(_url(asgi_server, "abc"), additional_headers=_bearer(kanzlei, "anwalt"))) == 4404
    # a conversation its owner deleted is gone for the socket, too (helena/conversations/records.py)
    Conversation.objects.filter(pk=conversation.pk).update(geloescht_am=timezone.now())
    assert _run(_close_code(url, additional_headers=_bearer(kanzlei, "anwalt"))) == 4404


def test_session_cookie_works_only_from_our_own_origin(kanzlei: Kanzlei, asgi_server: str) -> None:
    client = Client()
    client.force_login(kanzlei.users["anwalt"])
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    conversation = _conversation(kanzlei, "anwalt")
    url = _url(asgi_server, conversation.pk)
    foreign = {"Cookie": cookie}
    assert _run(_close_code(url, additional_headers=foreign, origin="http://evil.example")) == 4403

    async def own_origin() -> dict[str, Any]:
        async with connect(url, additional_headers={"Cookie": cookie}, origin="http://127.0.0.1") as ws:
            await ws.send("kein json")
            return await _recv(ws)

    assert _run(own_origin())["code"] == "invalid_message"


# --------------------------------------------------------------------------- streaming


def test_a_message_streams_every_event_as_persisted(kanzlei: Kanzlei, asgi_server: str, tiers) -> None:
    frist = {"start": "2026-10-01", "dauer": {"monate": 1}, "bundesland": "NW"}
    tiers.script([{"tool_calls": [{"name": "calculate_frist", "arguments": frist}]},
                  {"text": "Die Frist endet am Montag, 02.11.2026."}])
    conversation = _conversation(kanzlei)

    async def go() -> list[dict[str, Any]]:
        url = _url(asgi_server, conversation.pk)
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(_message("Wann endet die Frist?"))
            return await _until_done(ws)

    live = _run(go())
    run_id = live[0]["run_id"]
    assert live[0]["type"] == "run_started" and live[0]["mode"] == "inline"
    assert live[0]["message"] == "Wann endet die Frist?"  # a second tab shows the question at once
    types = [e["type"] for e in live]
    assert {"agent_state", "tool_call", "tool_result", "step", "text", "done"} <= set(types)
    text = "".join(e["delta"] for e in live if e["type"] == "text")
    assert text == "Die Frist endet am Montag, 02.11.2026."
    stored = events(kanzlei.client("anwalt"), run_id)
    assert live == stored  # the same events, same order, same seq and ts
    assert [m.role for m in Message.objects.filter(conversation=conversation)] == ["user", "assistant"]


def test_a_socket_gets_nothing_of_another_users_conversation(kanzlei: Kanzlei, asgi_server: str,
                                                             tiers) -> None:
    """All run events of the installation travel on one Redis channel: a socket gets only its own
    conversation's, never those of a run streaming next to it for another user."""
    tiers.script([{"text": ["Vertraulich: ", "Mandant ", "Meier."]}])
    mine, theirs = _conversation(kanzlei), _conversation(kanzlei, "sachbearbeiter")

    async def go() -> tuple[list[dict[str, Any]], list[str]]:
        other_url, my_url = _url(asgi_server, theirs.pk), _url(asgi_server, mine.pk)
        async with connect(other_url, additional_headers=_bearer(kanzlei, "sachbearbeiter")) as other, \
                connect(my_url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(_message("Was weißt du über Meier?"))
            live = await _until_done(ws)
            heard: list[str] = []
            with contextlib.suppress(TimeoutError):
                while True:
                    heard.append(await asyncio.wait_for(other.recv(), 1.5))
            return live, heard

    live, heard = _run(go())
    assert live[-1]["type"] == "done" and "Meier" in "".join(e.get("delta", "") for e in live)
    assert heard == []


def test_frames_of_every_length_arrive_whole_in_both_tabs(kanzlei: Kanzlei, asgi_server: str, tiers) -> None:
    """Run events are written to the connection as finished frames (helena/realtime/frame_writer.py):
    a strict client reads every length a frame header can say (7, 16 and 64 bits), UTF-8 intact."""
    parts = ["§ 1 ", "Fristbeginn nach § 187 BGB: " + "ä" * 120, "Ü€😀 " * 17_000]  # the last > 65,535 bytes
    tiers.script([{"text": parts}])
    conversation = _conversation(kanzlei)
    url = _url(asgi_server, conversation.pk)

    async def go() -> tuple[list, list]:
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt"), max_size=None) as one, \
                connect(url, additional_headers=_bearer(kanzlei, "anwalt"), max_size=None) as two:
            await one.send(_message("Erklär mir den Fristbeginn."))
            return await asyncio.gather(_until_done(one), _until_done(two))

    first, second = _run(go())
    assert first == second
    assert "".join(e.get("delta", "") for e in first if e["type"] == "text") == "".join(parts)
    assert first[-1]["text"] == "".join(parts).strip()  # the answer as stored: without the trailing space


def test_two_tabs_see_identical_step_lists(kanzlei: Kanzlei, asgi_server: str, tiers) -> None:
    tiers.script([{"tool_calls": [{"name": "read_fristen", "arguments": {}}]},
                  {"text": ["Du hast ", "eine offene ", "Frist."], "chunk_delay": 0.05}])
    conversation = _conversation(kanzlei)
    url = _url(asgi_server, conversation.pk)

    async def go() -> tuple[list, list]:
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as one, \
                connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as two:
            await one.send(json.dumps({"type": "user_message", "text": "Welche Fristen habe ich?"}))
            return await asyncio.gather(_until_done(one), _until_done(two))

    first, second = _run(go())
    assert first == second
    assert [e["seq"] for e in first] == list(range(1, len(first) + 1))


def test_reload_mid_run_catches_up_without_gaps_or_duplicates(
    kanzlei: Kanzlei, asgi_server: str, tiers
) -> None:
    words = [f"Wort{i} " for i in range(30)]
    tiers.script([{"tool_calls": [{"name": "read_fristen", "arguments": {}}]},
                  {"text": words, "chunk_delay": 0.05}])
    conversation = _conversation(kanzlei)
    url = _url(asgi_server, conversation.pk)

    async def go() -> tuple[list, list]:
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(json.dumps({"type": "user_message", "text": "Welche Fristen?", "mode": "inline"}))
            before: list[dict[str, Any]] = []
            while len([e for e in before if e["type"] == "text"]) < 5:
                before.append(await _recv(ws))
        # The tab is gone; a new one asks for what came after the last event it had.
        run_id, last = before[-1]["run_id"], before[-1]["seq"]
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(json.dumps({"type": "sync", "after": {run_id: last}}))
            after = await _until_done(ws, run_id)
        return before, after

    before, after = _run(go())
    combined = before + after
    assert [e["seq"] for e in combined] == list(range(1, len(combined) + 1))
    assert combined == events(kanzlei.client("anwalt"), combined[0]["run_id"])
    assert "".join(e["delta"] for e in combined if e["type"] == "text") == "".join(words)


def test_a_new_tab_gets_the_runs_in_progress(kanzlei: Kanzlei, asgi_server: str, tiers) -> None:
    tiers.script([{"text": [f"Teil{i} " for i in range(20)], "chunk_delay": 0.05}])
    conversation = _conversation(kanzlei)
    url = _url(asgi_server, conversation.pk)

    async def go() -> list[dict[str, Any]]:
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(json.dumps({"type": "user_message", "text": "Erzähl was.", "mode": "inline"}))
            first = await _recv(ws)
            while (await _recv(ws))["type"] != "text":
                pass
            async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as late:
                await late.send(json.dumps({"type": "sync", "after": {}}))
                return await _until_done(late, first["run_id"])

    late = _run(go())
    assert [e["seq"] for e in late] == list(range(1, len(late) + 1))


# --------------------------------------------------------------------------- control frames


def test_cancel_over_the_socket(kanzlei: Kanzlei, asgi_server: str, tiers) -> None:
    tiers.script([{"text": [f"Satz {i}. " for i in range(100)], "chunk_delay": 0.1}])
    conversation = _conversation(kanzlei)

    async def go() -> list[dict[str, Any]]:
        url = _url(asgi_server, conversation.pk)
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(_message("Lange Antwort bitte."))
            seen = []
            while not any(e["type"] == "text" for e in seen):
                seen.append(await _recv(ws))
            await ws.send(json.dumps({"type": "cancel", "run_id": seen[0]["run_id"]}))
            return seen + await _until_done(ws, seen[0]["run_id"])

    seen = _run(go())
    assert seen[-1]["finish_reason"] == "cancelled"
    # `done` is streamed as the loop ends; the run row is closed a moment later.
    assert wait(kanzlei.client("anwalt"), seen[0]["run_id"])["status"] == "cancelled"


def test_a_blank_message_gets_a_clarifying_question(kanzlei: Kanzlei, asgi_server: str) -> None:
    """PROTOCOL.md: a blank user_message is no error; Helena answers it with a short clarifying
    question, in a run like any other (no model needed for it)."""
    conversation = _conversation(kanzlei)

    async def go() -> list[dict[str, Any]]:
        async with connect(_url(asgi_server, conversation.pk),
                           additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(json.dumps({"type": "user_message", "text": "   "}))
            return await _until_done(ws)

    seen = _run(go())
    assert [e["type"] for e in seen] == ["run_started", "text", "done"]
    assert "Wobei kann ich dir helfen?" in seen[1]["delta"]
    assert seen[-1]["finish_reason"] == "stop" and seen[-1]["text"] == seen[1]["delta"]
    run = wait(kanzlei.client("anwalt"), seen[0]["run_id"])  # the outcome is recorded after `done`
    assert run["status"] == "finished" and run["text"] == seen[1]["delta"]
    assert Message.objects.get(conversation=conversation, role="assistant").text == run["text"]


def test_bad_frames_get_errors_and_change_nothing(kanzlei: Kanzlei, asgi_server: str, tiers) -> None:
    conversation = _conversation(kanzlei)
    other_run = AgentRun.objects.create(conversation=_conversation(kanzlei, "sachbearbeiter"),
                                        user=kanzlei.users["sachbearbeiter"], mode="inline", tier=1)
    frames = [
        ("kein json", "invalid_message", "JSON"),
        (json.dumps([1, 2]), "invalid_message", "type"),
        (json.dumps({"type": "loeschen"}), "invalid_message", "Unbekannter Nachrichtentyp"),
        (json.dumps({"type": "user_message"}), "invalid_message", "text"),
        (json.dumps({"type": "user_message", "text": "x" * 20_001}), "invalid_message", "zu lang"),
        (_message("hallo", mode="schnell"), "invalid_message", "Modus"),
        (json.dumps({"type": "cancel"}), "invalid_message", "run_id"),
        (json.dumps({"type": "cancel", "run_id": str(other_run.pk)}), "not_found", "nicht gefunden"),
        (json.dumps({"type": "sync", "after": {"x": "y"}}), "invalid_message", "after"),
        (json.dumps({"type": "user_message", "client_id": "m7"}), "invalid_message", "text"),
    ]

    async def go() -> list[dict[str, Any]]:
        answers = []
        async with connect(_url(asgi_server, conversation.pk), additional_headers=_bearer(kanzlei, "anwalt"),
                           max_size=2**22) as ws:
            for frame, _, _ in frames:
                await ws.send(frame)
                answers.append(await _recv(ws))
                await asyncio.sleep(0.11)  # stay under the frame rate limit
            # More than 10 frames in a second: refused, the socket stays open.
            for _ in range(12):
                await ws.send(json.dumps({"type": "sync", "after": {}}))
            flood = []
            with contextlib.suppress(TimeoutError):
                while True:  # collect the refusals until a second of silence
                    flood.append(await _recv(ws, 1.2))
            await ws.send("noch offen?")
            return answers, flood, await _recv(ws)

    answers, flood, last = _run(go())
    for (frame, code, text), answer in zip(frames, answers, strict=True):
        assert answer["type"] == "error" and answer["code"] == code, (frame[:40], answer)
        assert text in answer["message"], (frame[:40], answer)
        assert answer["seq"] == 0 and answer["run_id"] is None
    assert answers[-1]["client_id"] == "m7"  # the refusal names the message it refers to
    assert all("client_id" not in answer for answer in answers[:-1])
    assert len(flood) >= 2 and all(e["code"] == "rate_limited" for e in flood)
    assert "pro Sekunde" in flood[0]["message"]
    assert last["code"] == "invalid_message"
    assert not Message.objects.filter(conversation=conversation).exists()
    assert not AgentRun.objects.filter(conversation=conversation).exists()


def test_sync_brings_runs_that_ran_while_the_socket_was_away(
    kanzlei: Kanzlei, asgi_server: str, tiers
) -> None:
    tiers.script([{"text": "Erste Antwort."}, {"text": "Zweite Antwort, während du weg warst."}])
    conversation = _conversation(kanzlei)
    url = _url(asgi_server, conversation.pk)
    client = kanzlei.client("anwalt")

    async def first() -> list[dict[str, Any]]:
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(_message("Erste Frage?"))
            return await _until_done(ws)

    seen = _run(first())
    body = json.dumps({"text": "Zweite Frage?", "mode": "inline"})
    response = client.post(f"/api/v1/helena/conversations/{conversation.pk}/messages", body,
                           content_type="application/json")
    second_id = response.json()["run_id"]
    wait(client, second_id)

    async def back() -> list[dict[str, Any]]:
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await ws.send(json.dumps({"type": "sync", "after": {seen[-1]["run_id"]: seen[-1]["seq"]}}))
            return await _until_done(ws, second_id)

    missed = _run(back())
    assert missed == events(client, second_id)
    assert missed[-1]["text"] == "Zweite Antwort, während du weg warst."


def test_events_that_never_reached_the_group_arrive_anyway(kanzlei: Kanzlei, asgi_server: str) -> None:
    """Redis pub/sub delivers at most once. A run whose events were stored but never published
    (here: written straight to the database) still reaches an open socket, `done` included, by
    the socket's own resync (HELENA_WS_RESYNC_SECONDS, 1 s under test)."""
    from helena.runs.events.writer import persist_event

    conversation = _conversation(kanzlei)
    url = _url(asgi_server, conversation.pk)

    async def watch() -> list[dict[str, Any]]:
        async with connect(url, additional_headers=_bearer(kanzlei, "anwalt")) as ws:
            await asyncio.sleep(0.3)  # connected: the run below starts after the socket
            run = await asyncio.to_thread(
                AgentRun.objects.create, conversation=conversation, user=kanzlei.users["anwalt"],
                mode=AgentRun.Mode.INLINE, status=AgentRun.Status.RUNNING)
            for type_, payload in (
                ("agent_state", {"state": "thinking"}),
                ("text", {"delta": "Verloren gegangen "}),
                ("done", {"finish_reason": "stop", "text": "Verloren gegangen und doch da.",
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                          "cap_reached": False, "continue_offered": False}),
            ):
                await asyncio.to_thread(persist_event, run_id=run.pk, type=type_, payload=payload)
            await asyncio.to_thread(AgentRun.objects.filter(pk=run.pk).update,
                                    status=AgentRun.Status.FINISHED)
            return await _until_done(ws, str(run.pk), timeout=10)

    seen = _run(watch())
    run_id = seen[-1]["run_id"]
    assert seen == events(kanzlei.client("anwalt"), run_id)
    assert [e["type"] for e in seen] == ["agent_state", "text", "done"]
