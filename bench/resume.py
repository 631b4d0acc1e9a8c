"""Runs that outlive their process: how long a background run takes to go on, and to answer, after the
Celery worker running it is killed (SIGKILL) or told to stop (SIGTERM) — issue 38.

The scripted model server (a process of its own, bench/model_server.py) answers every model call after
MODEL_DELAY; a run is a research of STEPS calculate_frist calls (distinct arguments per step, chosen by
the number of tool results in the request, so a run taken over gets the turn that fits its history)
and a text answer. Helena runs as deployed: one daphne (the JSON API the runs are posted to), TWO
Celery workers (threads pool: a worker is one process, its runs are tasks on its runner loop), DEBUG
off, HELENA_RUN_TAKEOVER=true. Per round and kind, a background run is posted; once TOOL_RESULTS of
its results are stored, the worker that owns it (AgentRun.owner "host:pid:nonce") gets the signal,
and the run must go on on the other worker from its checkpoint:

- SIGKILL: nobody is told; its heartbeat lapses (15 s) and the other worker's watch takes it over.
- SIGTERM: the worker hands the run over at its next step boundary and exits; the other takes it at
  its next watch round.

Figures from the stored event timestamps (RunEvent.created_at, the same machine's wall clock as the
time.time() of the signal): signal → `resumed` and signal → `done`; for SIGTERM also signal → the
worker's exit (waited for in a thread). Each round checks: status finished with the scripted answer,
exactly one `done`, exactly one `resumed` whose notice names the cause (crash / restart), no step
shown twice. The signalled worker is started again before the next round. Settings and the bench
user's data are restored/deleted at the end (and the broker's unacknowledged messages of the killed
workers' runs), every process is stopped, also on Ctrl-C (bench/agent_overhead.py running_helena).
Run with `make bench`.
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")

import django  # noqa: E402

django.setup()

import httpx  # noqa: E402
from django.conf import settings  # noqa: E402

from bench.agent_overhead import API, PRODUCTION_ENV, Child, Running, running_helena  # noqa: E402
from bench.model_server import ModelServerProcess  # noqa: E402
from config.processes import Command, worker_commands  # noqa: E402
from helena.models import AgentRun, HelenaSettings, RunEvent  # noqa: E402
from helena.runs.execute import RESUMED  # noqa: E402

MODEL_DELAY = 0.5  # seconds before every model answer
STEPS = 12  # tool turns of the research; then the answer
TOOL_RESULTS = 4  # stored results before the signal
WORKERS = 2
QUESTION = "Recherchiere gründlich, wann die Fristen von 1 bis 12 Tagen ab dem 01.10.2026 in NRW enden."
ANSWER = "Recherche abgeschlossen: die zwölf Fristen sind berechnet, die Enddaten stehen oben."
READY_TIMEOUT = 90.0
# Goals (issue 38): (kind, figure) → seconds. SIGKILL: heartbeat lapse 15 s + the next watch round.
GOALS = {("SIGKILL", "resume"): 30.0, ("SIGKILL", "answer"): 60.0,
         ("SIGTERM", "exit"): 10.0, ("SIGTERM", "resume"): 10.0}
FIGURES = {"resume": "Signal → resumed", "answer": "Signal → done", "exit": "Signal → Worker beendet"}
KINDS = {"SIGKILL": signal.SIGKILL, "SIGTERM": signal.SIGTERM}
CAUSES = {"SIGKILL": "crash", "SIGTERM": "handover"}  # the notice the client must read (RESUMED)

PRODUCTION_ENV["HELENA_RUN_TAKEOVER"] = "true"  # read by every process running_helena starts


def log(msg: str) -> None:
    print(f"resume: {msg}", flush=True)


def research_turn(request: dict[str, Any]) -> dict[str, Any]:
    """One calculate_frist per tool result so far (distinct `tage`: no tool cache, no stall), then
    the answer."""
    done = sum(1 for m in request.get("messages") or [] if m.get("role") == "tool")
    if done < STEPS:
        arguments = {"start": "2026-10-01", "dauer": {"tage": done + 1}, "bundesland": "NW"}
        return {"delay": MODEL_DELAY, "tool_calls": [{"name": "calculate_frist", "arguments": arguments}]}
    return {"delay": MODEL_DELAY, "text": ANSWER}


@dataclass
class Round:
    kind: str
    number: int
    run_id: str = ""
    victim: int = 0  # pid of the worker signalled
    taker: int = 0  # pid of the worker that took the run over
    resume_s: float | None = None
    answer_s: float | None = None
    exit_s: float | None = None
    problems: list[str] = field(default_factory=list)

    def figure(self, name: str) -> float | None:
        return {"resume": self.resume_s, "answer": self.answer_s, "exit": self.exit_s}[name]


# --- the workers -----------------------------------------------------------------------------------


_restarts = itertools.count(2)


def _ready_workers(bench: Running) -> None:
    """The worker signalled in the round before started again, as running_helena started it (its log
    in a file of its own); every worker answers a ping (its consumer, and the run watch, started)."""
    from config.celery import app

    for index, worker in enumerate(bench.servers.workers):
        if worker.proc.poll() is not None:
            command = worker_commands(processes=WORKERS, threads=settings.CELERY_WORKER_CONCURRENCY,
                                      loglevel="WARNING", quiet=True)[index]
            name = f"{command.name}.{next(_restarts)}"
            bench.servers.workers[index] = Child(Command(name, command.argv), bench.logdir)
    deadline = time.monotonic() + READY_TIMEOUT
    while len(app.control.ping(timeout=1.0) or []) < WORKERS:
        bench.servers.check()
        if time.monotonic() > deadline:
            raise SystemExit(f"Nicht alle Celery-Worker antworten:\n{bench.servers.workers[-1].tail()}")


class Exit:
    """When a process exited (time.time()), waited for in a thread while the run is watched."""

    def __init__(self, child: Child) -> None:
        self.child, self.at = child, None
        self._thread = threading.Thread(target=self._wait, daemon=True)
        self._thread.start()

    def _wait(self) -> None:
        self.child.proc.wait()
        self.at = time.time()

    def join(self, timeout: float) -> float | None:
        self._thread.join(timeout)
        return self.at


# --- one round ---------------------------------------------------------------------------------------


posted: set[str] = set()  # every run this bench started, also one whose round a Ctrl+C cut short


def _post_run(client: httpx.Client) -> str:
    response = client.post(f"{API}/helena/conversations", json={})
    if response.status_code != 201:
        raise SystemExit(f"Unterhaltung nicht angelegt: HTTP {response.status_code} {response.text[:300]}")
    response = client.post(f"{API}/helena/conversations/{response.json()['id']}/messages",
                           json={"text": QUESTION, "mode": "background"})
    if response.status_code != 202:
        raise SystemExit(f"Lauf nicht gestartet: HTTP {response.status_code} {response.text[:300]}")
    posted.add(str(response.json()["run_id"]))
    return str(response.json()["run_id"])


def _wait_for_results(run_id: str, timeout: float) -> str:
    """Until TOOL_RESULTS results are stored; '' or why not."""
    deadline = time.monotonic() + timeout
    while RunEvent.objects.filter(run_id=run_id, type="tool_result").count() < TOOL_RESULTS:
        status = AgentRun.objects.values_list("status", flat=True).get(pk=run_id)
        if status not in ("queued", "running"):
            return f"vor dem Signal beendet (Status {status})"
        if time.monotonic() > deadline:
            return f"nach {timeout:.0f} s noch keine {TOOL_RESULTS} Ergebnisse (Status {status})"
        time.sleep(0.05)
    return ""


def _follow(result: Round, timeout: float) -> None:
    """Until the run has ended; notes which process took it over."""
    deadline = time.monotonic() + timeout
    while True:
        status, owner, attempt = AgentRun.objects.values_list("status", "owner", "attempt").get(
            pk=result.run_id)
        if attempt > 0 and owner and not result.taker:
            result.taker = int(owner.split(":")[1])
        if status not in ("queued", "running"):
            return
        if time.monotonic() > deadline:
            result.problems.append(f"nach {timeout:.0f} s nicht fertig (Status {status})")
            return
        time.sleep(0.1)


def _evaluate(result: Round, signalled_at: float) -> None:
    run = AgentRun.objects.get(pk=result.run_id)
    events = list(RunEvent.objects.filter(run=run).order_by("seq").values("type", "created_at", "payload"))
    kinds = [e["type"] for e in events]
    if run.status != AgentRun.Status.FINISHED or run.text != ANSWER:
        error = next((f" {e['payload'].get('code')}: {e['payload'].get('message')}"
                      for e in events if e["type"] == "error"), "")
        result.problems.append(f"Status {run.status}, finish_reason {run.finish_reason}{error}")
    for kind in ("done", "resumed"):
        if kinds.count(kind) != 1:
            result.problems.append(f"{kinds.count(kind)} × {kind} statt 1")
    calls = [e["payload"].get("call_id") for e in events if e["type"] == "tool_call"]
    if len(calls) != len(set(calls)):
        result.problems.append("ein Schritt doppelt angezeigt")
    if result.taker == result.victim:
        result.problems.append("nicht von einem anderen Prozess übernommen")
    resumed = next((e for e in events if e["type"] == "resumed"), None)
    done = next((e for e in events if e["type"] == "done"), None)
    if resumed is not None and resumed["payload"].get("message") != RESUMED[CAUSES[result.kind]]:
        result.problems.append(f"Hinweis „{resumed['payload'].get('message')}“ statt des für {result.kind}")
    if resumed is not None:
        result.resume_s = resumed["created_at"].timestamp() - signalled_at
    if done is not None:
        result.answer_s = done["created_at"].timestamp() - signalled_at


def one_round(bench: Running, client: httpx.Client, *, kind: str, number: int, timeout: float) -> Round:
    result = Round(kind=kind, number=number)
    _ready_workers(bench)
    result.run_id = _post_run(client)
    problem = _wait_for_results(result.run_id, timeout=60)
    if problem:
        result.problems.append(problem)
        return result
    owner = AgentRun.objects.values_list("owner", flat=True).get(pk=result.run_id)
    result.victim = int(owner.split(":")[1]) if owner.count(":") == 2 else 0
    index = next((i for i, w in enumerate(bench.servers.workers) if w.proc.pid == result.victim), None)
    if index is None:
        result.problems.append(f"Besitzer „{owner}“ ist keiner der Worker dieses Benchmarks")
        return result
    victim = bench.servers.workers[index]
    exited = Exit(victim)
    signalled_at = time.time()
    # The threads pool: the worker is one process, its runs are in it; the pid is the whole worker.
    os.kill(result.victim, KINDS[kind])
    _follow(result, timeout)
    exit_at = exited.join(timeout=30)
    if exit_at is None:
        result.problems.append("der Worker lief 30 s nach dem Signal noch; mit SIGKILL beendet")
        victim.proc.kill()
        exited.join(timeout=10)
    elif kind == "SIGTERM":
        result.exit_s = exit_at - signalled_at
    _evaluate(result, signalled_at)
    return result


def forget_unacked(run_ids: set[str]) -> None:
    """The task messages of the killed workers' runs, left unacknowledged in the broker (acks_late):
    removed, or a worker would get them again after the visibility timeout (for runs deleted here)."""
    from config.celery import app

    with app.connection_for_write() as connection:
        channel = connection.default_channel
        client = getattr(channel, "client", None)
        if client is None or not hasattr(channel, "unacked_key"):  # not the Redis transport
            return
        for tag, raw in client.hgetall(channel.unacked_key).items():
            if any(run_id in raw.decode(errors="replace") for run_id in run_ids):
                client.hdel(channel.unacked_key, tag)
                client.zrem(channel.unacked_index_key, tag)


# --- report ------------------------------------------------------------------------------------------


def _seconds(value: float | None) -> str:
    return f"{value:6.1f}" if value is not None else "     –"


def report(rounds: list[Round]) -> None:
    print(f"\nresume: Weitermachen nach Prozessende ({STEPS} Werkzeugschritte + Antwort, Modell "
          f"{MODEL_DELAY} s je Zug, Signal nach {TOOL_RESULTS} Ergebnissen, {WORKERS} Celery-Worker)")
    print(f"{'Runde':>5} {'Signal':<8} {'Opfer':>8} {'übernahm':>8} {'→resumed':>9} {'→done':>7} "
          f"{'→Ende':>7}  Prüfungen")
    for r in rounds:
        print(f"{r.number:>5} {r.kind:<8} {r.victim:>8} {r.taker or '–':>8} {_seconds(r.resume_s):>9} "
              f"{_seconds(r.answer_s):>7} {_seconds(r.exit_s):>7}  {'; '.join(r.problems) or 'ok'}")
    print("\nFigur                             Median     Max   Ziel")
    for kind in KINDS:
        for name in ("exit", "resume", "answer"):
            clean = [r for r in rounds if r.kind == kind and not r.problems]
            values = [v for r in clean if (v := r.figure(name)) is not None]
            goal = GOALS.get((kind, name))
            if not values:
                if goal is not None:
                    print(f"{kind} {FIGURES[name]:<26}   (keine auswertbaren Runden)   ≤ {goal:.0f} s")
                continue
            verdict = ("erreicht" if max(values) <= goal else "VERFEHLT") if goal is not None else ""
            print(f"{kind} {FIGURES[name]:<26} {statistics.median(values):5.1f} s {max(values):5.1f} s   "
                  f"{f'≤ {goal:.0f} s' if goal is not None else '–':<7} {verdict}")
    failed = [r for r in rounds if r.problems]
    print(f"  {len(rounds) - len(failed)} von {len(rounds)} Runden ohne Befund (nur sie zählen); Zeiten: "
          "RunEvent.created_at minus time.time() des Signals; Ziel erreicht heißt: auch das Maximum.",
          flush=True)


# --- main --------------------------------------------------------------------------------------------


def measure(bench: Running, rounds: list[Round], *, count: int, kinds: list[str], timeout: float) -> None:
    """`count` rounds of each kind, appended to `rounds` as they finish."""
    helena = HelenaSettings.load()  # restored with the rest by running_helena
    helena.background_max_steps = max(helena.background_max_steps, STEPS + 2)
    helena.save()
    with httpx.Client(base_url=bench.servers.base_url, timeout=30,
                      headers={"Authorization": f"Bearer {bench.token}"}) as client:
        for number in range(1, count + 1):
            for kind in kinds:
                result = one_round(bench, client, kind=kind, number=number, timeout=timeout)
                rounds.append(result)
                log(f"Runde {number} {kind}: resumed {_seconds(result.resume_s).strip()} s, done "
                    f"{_seconds(result.answer_s).strip()} s {'; '.join(result.problems)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds per kind (SIGKILL, SIGTERM)")
    parser.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS))
    parser.add_argument("--timeout", type=int, default=120, help="s per run after the signal")
    parser.add_argument("--keep-runs", action="store_true", help="leave the bench user and its runs")
    args = parser.parse_args()

    os.environ["HELENA_WEB_PROCESSES"] = "1"  # the API only
    os.environ["HELENA_WORKER_PROCESSES"] = str(WORKERS)
    rounds: list[Round] = []
    model = ModelServerProcess("bench.resume:research_turn")
    threads = settings.CELERY_WORKER_CONCURRENCY  # HELENA_WORKER_THREADS, as deployed
    try:
        with running_helena("resume", model, inline_timeout=60, background_timeout=600,
                            worker_threads=threads, keep_runs=args.keep_runs) as bench:
            try:
                measure(bench, rounds, count=args.rounds, kinds=args.kinds, timeout=args.timeout)
            finally:  # what was measured before a Ctrl+C is printed too
                if rounds:
                    report(rounds)
    finally:
        forget_unacked(posted)


if __name__ == "__main__":
    main()
