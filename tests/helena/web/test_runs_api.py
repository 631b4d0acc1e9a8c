"""Runs as a service, from outside: the JSON API against real PostgreSQL and Redis, inline runs on
the ASGI process's runner, background runs on a real Celery worker, and the scripted model server
standing in for Ollama and a cloud endpoint."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from akten.models import Beteiligter
from helena.llm import router
from helena.models import (
    AgentRun,
    ErrorLog,
    HelenaSettings,
    LLMCall,
    Message,
    ModelTier,
    RateLimit,
    RunEvent,
    TaskRoute,
)
from helena.runs.sweep import sweep_stale_runs
from tests.conftest import Kanzlei
from tests.scripted_llm_server import ScriptedLLMServer, unused_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def post(client: Client, path: str, body: dict) -> tuple[int, dict]:
    response = client.post(f"/api/v1{path}", json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


def ask(client: Client, text: str, *, mode: str = "auto", akte_id: str | None = None) -> tuple[str, str]:
    status, conv = post(client, "/helena/conversations", {"akte_id": akte_id} if akte_id else {})
    assert status == 201, conv
    status, body = post(client, f"/helena/conversations/{conv['id']}/messages", {"text": text, "mode": mode})
    assert status == 202, body
    return conv["id"], body["run_id"]


def wait(client: Client, run_id: str, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = client.get(f"/api/v1/helena/runs/{run_id}").json()
        if run["status"] not in ("queued", "running"):
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish: {run}")


def events(client: Client, run_id: str, after: int = 0) -> list[dict]:
    return client.get(f"/api/v1/helena/runs/{run_id}/events", {"after": after}).json()


def assert_one_done(evs: list[dict]) -> dict:
    assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1))
    done = [e for e in evs if e["type"] == "done"]
    assert len(done) == 1 and evs[-1]["type"] == "done"
    return done[0]


def test_inline_run_end_to_end(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    frist = {"start": "2026-10-01", "dauer": {"monate": 1}, "bundesland": "NW"}
    tiers.script([{"tool_calls": [{"name": "calculate_frist", "arguments": frist}]},
                  {"text": "Die Frist endet am 02.11.2026."}])
    client = kanzlei.client("anwalt")
    conv_id, run_id = ask(client, "Wann endet die Berufungsfrist bei Zustellung am 01.10.2026?")
    run = wait(client, run_id)
    assert run["status"] == "finished" and run["finish_reason"] == "stop"
    assert run["mode"] == "inline" and run["tier"] == 1 and run["model"] == "klein"
    assert run["text"] == "Die Frist endet am 02.11.2026." and run["usage"]["completion_tokens"] > 0
    evs = events(client, run_id)
    done = assert_one_done(evs)
    assert evs[0]["type"] == "run_started" and evs[0]["max_steps"] == 5
    result = next(e for e in evs if e["type"] == "tool_result")
    assert result["ok"] and "02.11.2026" in result["summary"]
    assert done["text"] == run["text"]
    assert events(client, run_id, after=len(evs) - 1) == evs[-1:]
    messages = client.get(f"/api/v1/helena/conversations/{conv_id}").json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert LLMCall.objects.filter(run_id=run_id).count() == 2


def test_other_users_conversation_and_run_are_404(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([{"text": "Antwort."}])
    owner = kanzlei.client("anwalt")
    conv_id, run_id = ask(owner, "Kurze Frage?")
    wait(owner, run_id)
    other = kanzlei.client("sachbearbeiter")
    paths = (f"/helena/conversations/{conv_id}", f"/helena/runs/{run_id}", f"/helena/runs/{run_id}/events")
    for path in paths:
        response = other.get(f"/api/v1{path}")
        assert response.status_code == 404 and "Antwort" not in response.content.decode()
    for path in (f"/helena/runs/{run_id}/cancel", f"/helena/runs/{run_id}/continue"):
        assert post(other, path, {})[0] == 404
    assert post(other, f"/helena/conversations/{conv_id}/messages", {"text": "Hallo"})[0] == 404
    assert post(other, "/helena/conversations", {"akte_id": str(kanzlei.akten["C"].pk)})[0] == 404
    assert Message.objects.filter(conversation_id=conv_id).count() == 2


@pytest.mark.parametrize("body", [{"text": "x" * 20_001}, {"text": "Hi", "mode": "turbo"}, {}])
def test_bad_messages_are_refused_and_create_nothing(kanzlei: Kanzlei, body: dict) -> None:
    client = kanzlei.client("anwalt")
    _, conv = post(client, "/helena/conversations", {})
    status, response = post(client, f"/helena/conversations/{conv['id']}/messages", body)
    assert status in (422,) and response["code"] in ("invalid_message", "invalid_input")
    assert not Message.objects.exists() and not AgentRun.objects.exists()


def test_a_blank_message_is_answered_with_a_clarifying_question(kanzlei: Kanzlei) -> None:
    """PROTOCOL.md: not an error; a run like any other, which needs no model (none is configured)."""
    client = kanzlei.client("anwalt")
    _, conv = post(client, "/helena/conversations", {})
    status, body = post(client, f"/helena/conversations/{conv['id']}/messages", {"text": "  \n "})
    assert status == 202
    run = wait(client, body["run_id"])
    assert run["status"] == "finished" and "Wobei kann ich dir helfen?" in run["text"]
    assert [e["type"] for e in events(client, body["run_id"])] == ["run_started", "text", "done"]


def test_rate_limit_refuses_with_429_and_creates_nothing(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([{"text": "Erste Antwort."}])
    RateLimit.objects.create(user=kanzlei.users["praktikant"], runs_per_hour=1)
    client = kanzlei.client("praktikant")
    _, run_id = ask(client, "Erste Frage?")
    wait(client, run_id)
    conv_id = AgentRun.objects.get(pk=run_id).conversation_id
    status, body = post(client, f"/helena/conversations/{conv_id}/messages", {"text": "Zweite Frage?"})
    assert status == 429 and body["code"] == "rate_limited"
    assert "Limit" in body["detail"] and "Uhr" in body["detail"] and body["retry_at"]
    assert AgentRun.objects.count() == 1 and Message.objects.filter(role="user").count() == 1


def test_cancel_keeps_the_partial_answer(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([{"text": ["Erster Teil. ", "Zweiter Teil. ", "Dritter Teil."], "chunk_delay": 1.0}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Erklär mir ausführlich die Berufung.", mode="inline")
    deadline = time.monotonic() + 10
    while not any(e["type"] == "text" for e in events(client, run_id)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert post(client, f"/helena/runs/{run_id}/cancel", {})[0] == 200
    run = wait(client, run_id)
    assert run["status"] == "cancelled" and run["finish_reason"] == "cancelled"
    assert run["text"].startswith("Erster Teil") and "Dritter" not in run["text"]
    assert_one_done(events(client, run_id))
    assert post(client, f"/helena/runs/{run_id}/cancel", {})[0] == 409


def test_step_cap_then_continue_in_background_on_celery(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                                       celery_worker: subprocess.Popen) -> None:
    steps = [{"tool_calls": [{"name": "calculate_frist", "arguments": {"start": "2026-10-01",
                                                                       "dauer": {"tage": i + 1}}}]}
             for i in range(5)]
    tiers.script([*steps, {"text": "Zwischenstand."},
                  {"text": "Im Hintergrund fertig geworden."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Wie lange dauert eine Frist?", mode="inline")
    run = wait(client, run_id)
    assert run["finish_reason"] == "max_steps"
    done = assert_one_done(events(client, run_id))
    assert done["continue_offered"] is True
    status, body = post(client, f"/helena/runs/{run_id}/continue", {})
    assert status == 202
    child = wait(client, body["run_id"], timeout=60)
    assert child["mode"] == "background" and child["parent_id"] == run_id
    assert child["finish_reason"] == "stop" and child["text"] == "Im Hintergrund fertig geworden."
    assert assert_one_done(events(client, body["run_id"]))["text"] == child["text"]
    assert AgentRun.objects.get(pk=body["run_id"]).celery_task_id
    assert post(client, f"/helena/runs/{run_id}/continue", {})[0] == 409  # only once


def test_background_run_on_a_real_worker(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                         celery_worker: subprocess.Popen) -> None:
    tiers.script([{"text": "Recherche abgeschlossen."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Recherchiere bitte die Rechtsprechung zur Mietminderung.", mode="background")
    run = wait(client, run_id, timeout=60)
    assert run["mode"] == "background" and run["status"] == "finished"
    assert assert_one_done(events(client, run_id))["finish_reason"] == "stop"
    assert events(client, run_id)[0]["max_steps"] == 20


def test_downed_local_model_falls_back(kanzlei: Kanzlei, server: ScriptedLLMServer) -> None:
    ModelTier.objects.create(tier=1, provider="ollama", model_name="klein", base_url=server.url)
    ModelTier.objects.create(tier=2, provider="ollama", model_name="gross",
                             base_url=f"http://127.0.0.1:{unused_port()}")
    server.script([{"text": "Antwort vom kleinen Modell."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Bitte prüfe die Kündigungsfristen für ein Arbeitsverhältnis von zwölf Jahren "
                            "und erkläre mir, welche Ausnahmen gelten könnten.", mode="inline")
    run = wait(client, run_id)
    assert run["tier"] == 1 and run["model"] == "klein" and run["finish_reason"] == "stop"
    assert any(e["type"] == "warning" and e["code"] == "model_fallback" for e in events(client, run_id))


def test_no_model_reachable_ends_with_model_unavailable(kanzlei: Kanzlei) -> None:
    router.clear_health_cache()
    port = unused_port()
    ModelTier.objects.create(tier=1, provider="ollama", model_name="klein", base_url=f"http://127.0.0.1:{port}")
    ModelTier.objects.create(tier=2, provider="ollama", model_name="gross", base_url=f"http://127.0.0.1:{port}")
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Hallo?")
    run = wait(client, run_id)
    assert run["status"] == "failed" and run["finish_reason"] == "error"
    evs = events(client, run_id)
    error = next(e for e in evs if e["type"] == "error")
    assert error["code"] == "model_unavailable" and "Administration der Kanzlei" in error["message"]
    assert f"127.0.0.1:{port}" not in error["message"]  # the address is for the admin:
    logged = ErrorLog.objects.get(run_id=run_id)
    assert logged.kind == "model" and f"127.0.0.1:{port}" in logged.message
    assert_one_done(evs)


def test_escalation_after_a_stall(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    same = {"tool_calls": [{"name": "search_gesetze", "arguments": {"query": "Kündigungsfrist"}}]}
    tiers.script([same, same, {"text": "Kleines Modell kommt nicht weiter."},
                  {"text": "Das große Modell antwortet."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Wann endet die Kündigungsfrist?", mode="inline")  # a lookup: tier 1
    run = wait(client, run_id)
    assert run["tier"] == 2 and run["model"] == "gross"
    assert run["text"] == "Das große Modell antwortet." and run["finish_reason"] == "stop"
    evs = events(client, run_id)
    assert any(e["type"] == "warning" and e["code"] == "escalation" for e in evs)
    assert [e["tier"] for e in evs if e["type"] == "run_started"] == [1, 2]
    assert assert_one_done(evs)["finish_reason"] == "stop"


def test_cloud_call_gets_redacted_pii(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    akte = kanzlei.akten["A"]
    Beteiligter.objects.create(akte=akte, rolle="mandant", name="Hans Meier", email="hans.meier@example.org",
                               telefon="0221 1234567", anschrift="Domstraße 1\n50667 Köln")
    ModelTier.objects.create(tier=3, provider="openai", model_name="cloud-x", base_url=tiers.url + "/v1")
    HelenaSettings.objects.update_or_create(pk=1, defaults={"cloud_allowed": True,
                                                            "cloud_confirmation": "AVV geprüft"})
    TaskRoute.objects.create(task_type="schriftsatz", tier=3)
    tiers.script([{"text": "Entwurf für [MANDANT_1]: Klageerwiderung."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Entwirf einen Schriftsatz: Klageerwiderung für Hans Meier "
                            "(hans.meier@example.org, Tel. 0221 1234567), Az. 1/26.",
                    mode="inline", akte_id=str(akte.pk))
    run = wait(client, run_id)
    assert run["tier"] == 3 and run["provider"] == "openai"
    sent = json.dumps(tiers.requests_to("/v1/chat/completions"), ensure_ascii=False)
    for secret in ("Hans Meier", "hans.meier@example.org", "1234567", "Domstraße", "1/26"):
        assert secret not in sent
    assert run["text"] == "Entwurf für Hans Meier: Klageerwiderung."


def test_sweep_fails_a_run_whose_worker_died(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                             celery_worker: subprocess.Popen) -> None:
    tiers.script([{"text": "Zu spät.", "delay": 30}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Recherchiere lange.", mode="background")
    deadline = time.monotonic() + 30
    while AgentRun.objects.get(pk=run_id).status != "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(celery_worker.pid, signal.SIGKILL)  # the worker dies mid-run
    celery_worker.wait(timeout=10)
    assert sweep_stale_runs() == 0  # deadline not yet passed: the run might still be alive
    AgentRun.objects.filter(pk=run_id).update(deadline=timezone.now() - timedelta(seconds=1))
    assert sweep_stale_runs() == 1
    run = wait(client, run_id)
    assert run["status"] == "failed" and "ausgefallen" in run["text"]
    evs = events(client, run_id)
    assert next(e for e in evs if e["type"] == "error")["code"] == "run_lost"
    assert_one_done(evs)
    assert RunEvent.objects.filter(run_id=run_id, type="done").count() == 1


def test_llm_classifier_when_switched_on(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    HelenaSettings.objects.update_or_create(pk=1, defaults={"llm_classifier": True})
    verdict = {"mode": "background", "tier": 2, "task_type": "recherche", "reason": "viele Quellen"}
    tiers.script([{"text": json.dumps(verdict)}, {"text": "Antwort."}])
    client = kanzlei.client("anwalt")
    _, conv = post(client, "/helena/conversations", {})
    _, body = post(client, f"/helena/conversations/{conv['id']}/messages",
                   {"text": "Was gilt?", "mode": "inline"})
    run = AgentRun.objects.get(pk=body["run_id"])
    assert run.mode == "inline" and run.tier == 2  # the client's mode wins, the tier is the model's
    assert LLMCall.objects.filter(operation="classifier", user=kanzlei.users["anwalt"]).count() == 1
    wait(client, body["run_id"])


def test_events_are_broadcast_to_the_conversations_sockets_in_order(kanzlei: Kanzlei,
                                                                   tiers: ScriptedLLMServer) -> None:
    import asyncio
    import threading

    from helena.realtime import fanout

    tiers.script([{"text": "Gesendet und gespeichert."}])
    client = kanzlei.client("anwalt")
    _, conv = post(client, "/helena/conversations", {})
    received: list[dict] = []
    subscribed = threading.Event()

    class Socket:
        """A listener as a chat socket is one: its own loop, joined before the run."""

        def __init__(self) -> None:
            self.heard = asyncio.Event()

        async def live(self, frames: list) -> None:
            received.extend(json.loads(frame.text) for frame in frames)
            self.heard.set()

        def missed(self) -> None:
            pass

    async def listen() -> None:
        socket = Socket()
        await fanout.join(conversation_id=int(conv["id"]), socket=socket)
        subscribed.set()
        while True:
            try:
                await asyncio.wait_for(socket.heard.wait(), timeout=3)
            except TimeoutError:
                await fanout.leave(conversation_id=int(conv["id"]), socket=socket)
                return
            socket.heard.clear()

    listener = threading.Thread(target=asyncio.run, args=(listen(),))
    listener.start()
    assert subscribed.wait(10)
    _, body = post(client, f"/helena/conversations/{conv['id']}/messages", {"text": "Wann endet die Frist?"})
    wait(client, body["run_id"])
    listener.join(30)
    assert received == events(client, body["run_id"])  # the same events, in the same order


def test_cancel_a_background_run_still_in_the_queue(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    client = kanzlei.client("anwalt")  # no worker running: the task waits in the queue
    _, run_id = ask(client, "Recherchiere alles zur Mietminderung.", mode="background")
    assert AgentRun.objects.get(pk=run_id).status == "queued"
    status, run = post(client, f"/helena/runs/{run_id}/cancel", {})
    assert status == 200 and run["status"] == "cancelled"
    done = assert_one_done(events(client, run_id))
    assert done["finish_reason"] == "cancelled"
