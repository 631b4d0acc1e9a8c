"""An inline run survives its daphne: two real daphne processes, the run started on one of them
(where inline runs execute), that one killed with SIGKILL mid-run; the other takes the run over and
the chat's socket — on the surviving daphne — sees the answer go on: the notice, the rest of the
steps, one `done` (issue 38)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from helena.models import AgentRun, RunEvent
from tests.conftest import Kanzlei, daphne
from tests.helena.web.test_runs_api import assert_one_done
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ANSWER = "Die Berufungsfrist endet am 02.12.2026."
TAKEOVER = {"HELENA_RUN_TAKEOVER": "true", "DEBUG": "1", "HELENA_WS_RESYNC_SECONDS": "1"}


def _respond(request: dict[str, Any]) -> dict[str, Any]:
    done = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
    if done < 3:
        return {"tool_calls": [{"name": "calculate_frist", "arguments": {
            "start": "2026-11-02", "dauer": {"wochen": done + 1}}}], "delay": 1.5}
    return {"text": ANSWER, "delay": 1.0}


async def _events_until_done(url: str, headers: dict[str, str], run_started: asyncio.Event,
                             timeout: float) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    async with connect(url, additional_headers=headers) as ws:
        run_started.set()
        deadline = time.monotonic() + timeout
        while True:
            event = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
            if event.get("type") in (None, "hello", "pong") or "seq" not in event:
                continue
            seen.append(event)
            if event["type"] == "done":
                return seen


def test_a_killed_daphnes_inline_run_goes_on_in_the_other(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "1")  # the scenario reads the run between its awaits
    tiers.respond_with(_respond)
    headers = {"Authorization": f"Bearer {kanzlei.tokens['anwalt']}"}
    with daphne(TAKEOVER) as first, daphne(TAKEOVER) as second:
        api = f"http://{first}/api/v1/helena"
        conversation = httpx.post(f"{api}/conversations", json={}, headers=headers).json()
        url = f"ws://{second}/ws/helena/conversations/{conversation['id']}/"

        async def scenario() -> tuple[list[dict[str, Any]], float]:
            listening = asyncio.Event()
            watcher = asyncio.create_task(_events_until_done(url, headers, listening, timeout=90))
            await listening.wait()
            sent = await asyncio.to_thread(httpx.post, f"{api}/conversations/{conversation['id']}/messages",
                                           json={"text": "Wann endet die Berufungsfrist?", "mode": "inline"},
                                           headers=headers)
            assert sent.status_code == 202, sent.text
            run_id = sent.json()["run_id"]
            while not RunEvent.objects.filter(run_id=run_id, type="tool_result").exists():
                await asyncio.sleep(0.1)
            owner = int(AgentRun.objects.get(pk=run_id).owner.split(":")[1])
            killed_at = time.monotonic()
            os.kill(owner, signal.SIGKILL)  # the daphne running the run
            return await watcher, killed_at

        seen, killed_at = asyncio.run(scenario())
        took = time.monotonic() - killed_at

    run = AgentRun.objects.get(pk=seen[-1]["run_id"])
    assert run.status == "finished" and run.text == ANSWER
    assert seen[-1]["text"] == ANSWER
    stored = [{"seq": e.seq, "type": e.type, **e.payload} for e in run.events.order_by("seq")]
    assert_one_done(stored)
    kinds = [e["type"] for e in seen]
    assert kinds.count("resumed") == 1 and kinds.count("done") == 1
    resumed = next(e for e in seen if e["type"] == "resumed")
    assert "Helena macht weiter" in resumed["message"]
    # After the notice, the rest of the answer: the steps not done before the crash, then the text.
    after = kinds[kinds.index("resumed"):]
    assert "tool_result" in after and "text" in after
    print(f"\ndaphne SIGKILL: answer {took:.1f} s after the kill")
    assert took < 60


def _gone(pid: int) -> bool:
    """Exited (a zombie until the fixture reaps it) or no more."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][:1] in "ZX"
    except FileNotFoundError:
        return True


def test_a_deploy_loses_no_inline_run(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    """The only daphne told to stop (a deploy, make run's Ctrl-C) hands its run over within seconds;
    the daphne that starts next finishes it."""
    tiers.respond_with(_respond)
    headers = {"Authorization": f"Bearer {kanzlei.tokens['anwalt']}"}
    with daphne(TAKEOVER) as only:
        api = f"http://{only}/api/v1/helena"
        conversation = httpx.post(f"{api}/conversations", json={}, headers=headers).json()
        sent = httpx.post(f"{api}/conversations/{conversation['id']}/messages",
                          json={"text": "Wann endet die Berufungsfrist?", "mode": "inline"}, headers=headers)
        run_id = sent.json()["run_id"]
        while not RunEvent.objects.filter(run_id=run_id, type="tool_result").exists():
            time.sleep(0.05)
        pid = int(AgentRun.objects.get(pk=run_id).owner.split(":")[1])
        told = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        while not _gone(pid):
            assert time.monotonic() - told < 10, "daphne did not stop within 10 s"
            time.sleep(0.1)
        stopped = time.monotonic() - told
    run = AgentRun.objects.get(pk=run_id)
    assert run.status == "running" and run.owner == ""  # handed over, waiting for a process
    restarted = time.monotonic()
    with daphne(TAKEOVER):
        while AgentRun.objects.get(pk=run_id).status == "running":
            assert time.monotonic() - restarted < 60
            time.sleep(0.2)
        took = time.monotonic() - restarted
    run = AgentRun.objects.get(pk=run_id)
    assert run.status == "finished" and run.text == ANSWER
    stored = [{"seq": e.seq, "type": e.type, **e.payload} for e in run.events.order_by("seq")]
    assert_one_done(stored)
    resumed = [e for e in stored if e["type"] == "resumed"]
    assert len(resumed) == 1 and "neu gestartet" in resumed[0]["message"]
    print(f"\ndaphne SIGTERM: stopped after {stopped:.1f} s; answer {took:.1f} s after the next start")
