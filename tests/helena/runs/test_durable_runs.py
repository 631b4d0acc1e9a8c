"""Runs that survive their process, with real processes: a Celery worker killed with SIGKILL and one
stopped with SIGTERM in the middle of a twelve-step background run, its run going on on the other
worker from its last checkpoint — the answer arrives, exactly one `done`, the draft proposed before
the crash exists once, and the time it took is within the promise (issue 38)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from drafts.models import Draft
from helena.models import AgentRun, ErrorLog, RunEvent
from tests.conftest import BASE_DIR, Kanzlei, start_celery_worker, stop_celery_worker
from tests.helena.web.test_runs_api import ask, assert_one_done, events, wait
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

STEPS = 12
STEP_DELAY = 1.0  # seconds the scripted model thinks before each turn
ANSWER = "Recherche abgeschlossen: die Kündigungsfrist beträgt sieben Monate zum Monatsende."
TAKEOVER = {"HELENA_RUN_TAKEOVER": "true", "HELENA_HANDOVER_SECONDS": "4"}


def research(akte_id: int) -> Any:
    """The model of a twelve-step research: a Frist draft first, then one calculation per step,
    then the answer — each turn chosen by how many results the conversation already has, so a run
    that asks again after a crash gets the turn that fits its history."""

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        done = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
        if done == 0:
            call = {"name": "create_draft_frist", "arguments": {
                "akte_id": str(akte_id), "bezeichnung": "Kündigungsschutzklage", "start": "2026-11-02",
                "dauer": {"wochen": 3}}}
            return {"tool_calls": [call], "delay": STEP_DELAY}
        if done < STEPS:
            return {"tool_calls": [{"name": "calculate_frist", "arguments": {
                "start": "2026-10-01", "dauer": {"tage": done}}}], "delay": STEP_DELAY}
        return {"text": ANSWER, "delay": STEP_DELAY}

    return respond


@pytest.fixture
def workers() -> Iterator[list[subprocess.Popen]]:
    """Two real Celery workers (threads pool, as `make run` starts them) that take over runs."""
    logs = BASE_DIR / "tests" / "artifacts"
    logs.mkdir(exist_ok=True)
    started = []
    for index in (1, 2):
        log = open(logs / f"durable-worker-{index}-{os.getpid()}.log", "w+b")  # noqa: SIM115
        started.append((start_celery_worker(TAKEOVER, pool="threads", log=log), log))
    yield [worker for worker, _ in started]
    for worker, log in started:
        stop_celery_worker(worker, signal.SIGKILL)
        log.close()


def _owner_pid(run_id: str) -> int:
    owner = AgentRun.objects.get(pk=run_id).owner
    return int(owner.split(":")[1])


def _wait_for_results(run_id: str, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while RunEvent.objects.filter(run_id=run_id, type="tool_result").count() < count:
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.1)


def _the_owner(workers: list[subprocess.Popen], run_id: str) -> subprocess.Popen:
    pid = _owner_pid(run_id)
    return next(worker for worker in workers if worker.pid == pid)


def _assert_answered_once(client: Client, run_id: str) -> list[dict]:
    run = wait(client, run_id, timeout=90)
    assert run["status"] == "finished", run
    assert run["text"] == ANSWER
    evs = events(client, run_id)
    done = assert_one_done(evs)  # seq 1..n without a gap, exactly one done, at the end
    assert done["text"] == ANSWER
    assert Draft.objects.filter(run_id=run_id).count() == 1  # proposed before the crash, found again
    calls = [e["call_id"] for e in evs if e["type"] == "tool_call"]
    assert len(calls) == len(set(calls)), "a step shown twice"
    assert len([e for e in evs if e["type"] == "draft_created"]) == 1
    return evs


def test_a_killed_workers_run_goes_on_on_the_other_worker(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                                          workers: list[subprocess.Popen]) -> None:
    tiers.respond_with(research(kanzlei.akten["A"].pk))
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Recherchiere gründlich die Kündigungsfristen in der Akte 1/26.",
                    mode="background", akte_id=str(kanzlei.akten["A"].pk))
    _wait_for_results(run_id, 3)  # the draft and two calculations are done
    owner = _the_owner(workers, run_id)
    killed_at = time.monotonic()
    os.killpg(owner.pid, signal.SIGKILL)  # a crash, the OOM killer: no word to anyone
    owner.wait(timeout=10)

    evs = _assert_answered_once(client, run_id)
    took = time.monotonic() - killed_at
    resumed = [e for e in evs if e["type"] == "resumed"]
    assert len(resumed) == 1 and resumed[0]["message"].startswith("Helena macht weiter")
    assert AgentRun.objects.get(pk=run_id).attempt == 1  # taken over once, by the other worker
    assert ErrorLog.objects.filter(run_id=run_id, code="run_taken_over").exists()  # the admin learns of it
    print(f"\nSIGKILL: answer {took:.1f} s after the kill")
    assert took < 60, f"the run took {took:.1f} s after the kill"


def test_a_worker_told_to_stop_hands_its_run_over_and_exits_quickly(
        kanzlei: Kanzlei, tiers: ScriptedLLMServer, workers: list[subprocess.Popen]) -> None:
    tiers.respond_with(research(kanzlei.akten["A"].pk))
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Recherchiere gründlich die Kündigungsfristen in der Akte 1/26.",
                    mode="background", akte_id=str(kanzlei.akten["A"].pk))
    _wait_for_results(run_id, 3)
    owner = _the_owner(workers, run_id)
    told_at = time.monotonic()
    os.killpg(owner.pid, signal.SIGTERM)  # a deploy, systemd, Ctrl-C
    owner.wait(timeout=30)
    exited = time.monotonic() - told_at
    evs = _assert_answered_once(client, run_id)
    took = time.monotonic() - told_at
    resumed = [e for e in evs if e["type"] == "resumed"]
    assert len(resumed) == 1 and "neu gestartet" in resumed[0]["message"]
    print(f"\nSIGTERM: worker gone after {exited:.1f} s, answer {took:.1f} s after the signal")
    assert exited < 10, f"the worker took {exited:.1f} s to stop"
    assert took < 30, "a handed-over run is taken at once, not after a lapsed heartbeat"
