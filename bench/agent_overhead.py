"""Overhead of the agent machinery: wall time of a 5-step run ÷ the time the model itself took.

The scripted model server (a process of its own, bench/model_server.py) answers every model call
after exactly 200 ms; a run is four calculate_frist calls and a final answer, so the model accounts
for 5 × 0.2 s = 1.0 s. The
runs go through the real stack: JSON API on daphne, the inline runner in daphne's process, a real
Celery worker (threads pool) for background runs, PostgreSQL and Redis; daphne and the worker run
with DEBUG off, as deployed. Goal: ratio ≤ 1.02 (it was 1.05), at 1 and
at 100 concurrent conversations. Two figures per run: `run_started` → `done` (the loop) and
POST → `done` (what a client waits for, admission and queueing included).

Run with `make bench` (the launcher starts embedded PostgreSQL/Redis when DATABASE_URL/REDIS_URL are
unset and migrates). Admin settings touched here (HelenaSettings, ModelTier 1/2) are restored at the
end and the bench user is deleted with everything it produced, so the dev database stays as it was
(`--keep-runs` keeps the runs to look at their events). daphne and the worker are stopped on exit,
Ctrl-C and SIGTERM, and get SIGTERM from the kernel should this process be killed outright.
Figures come from the persisted event timestamps, so how often this script polls does not enter them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import logging
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")

import django  # noqa: E402

django.setup()

import httpx  # noqa: E402
from django.db.models import Count  # noqa: E402

from akten.accounts.users import create_api_token  # noqa: E402
from akten.models import Role, User  # noqa: E402
from bench.model_server import ModelServerProcess  # noqa: E402
from config.processes import (  # noqa: E402
    Command,
    share_database_connections,
    web_commands,
    worker_commands,
)
from helena.models import (  # noqa: E402
    AgentRun,
    Conversation,
    HelenaSettings,
    LLMCall,
    Message,
    ModelTier,
    RateLimit,
    RunEvent,
    ToolCallLog,
)

MODEL_DELAY = 0.2  # seconds before the first byte of every model answer
STEPS = 5  # model calls per run: 4 tool turns and the answer
IDEAL = STEPS * MODEL_DELAY
GOAL = 1.02  # issues 22 and 39; it was 1.05
BENCH_USER = "bench-agent-overhead"
QUESTION = "Wann enden die Fristen von 1 bis 4 Tagen ab dem 01.10.2026 in NRW?"
ANSWER = "Die vier Fristen sind berechnet; die Enddaten mit Begründung stehen in den Ergebnissen oben."
READY_TIMEOUT = 90.0
# A run still queued this long after its POST was never picked up (e.g. the inline runner failed
# before claiming it); waiting for the sweep would take minutes.
START_TIMEOUT = 30.0
API = "/api/v1"
# daphne and the worker run as deployed: without DEBUG, which records and formats every SQL query
# (a dev-only cost of several ms per run), with a throwaway secret key.
PRODUCTION_ENV = {
    "PYTHONUNBUFFERED": "1",
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    # One bench user holds every conversation's socket (a firm has many users with a few each).
    "HELENA_WS_MAX_PER_USER": "100000",
}

logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per request would drown the table


def log(msg: str) -> None:
    print(f"agent_overhead: {msg}", flush=True)


# --- the model -----------------------------------------------------------------------------------


def next_turn(request: dict[str, Any]) -> dict[str, Any]:
    """The turn that fits this conversation: one tool call per tool result so far, then the answer.

    Distinct `tage` per step, so neither the per-run tool cache nor the stall detector kicks in.
    """
    done = sum(1 for m in request.get("messages") or [] if m.get("role") == "tool")
    if done < STEPS - 1:
        arguments = {"start": "2026-10-01", "dauer": {"tage": done + 1}, "bundesland": "NW"}
        return {"delay": MODEL_DELAY, "tool_calls": [{"name": "calculate_frist", "arguments": arguments}]}
    return {"delay": MODEL_DELAY, "text": ANSWER}


# --- database: bench user and admin settings, restored afterwards --------------------------------


@dataclass
class Snapshot:
    helena: dict[str, Any] | None
    tiers: list[dict[str, Any]]


def remove_bench_user() -> None:
    """The user and all it left behind (the ledger and audit rows would otherwise stay, unowned)."""
    user = User.objects.filter(username=BENCH_USER).first()
    if user is None:
        return
    LLMCall.objects.filter(user=user).delete()
    ToolCallLog.objects.filter(user=user).delete()
    user.delete()  # conversations, runs, events, messages, tokens, rate limit cascade
    vacuum()


def vacuum() -> None:
    """VACUUM ANALYZE the tables a bench round fills and empties. Where autovacuum is off (this CI
    machine's PostgreSQL), the dead rows of earlier rounds stayed in the indexes, and a fresh run's
    first seq lookup took 13 ms instead of 0.1 ms: the figures measured the leftovers."""
    from django.db import connection

    with connection.cursor() as cursor:
        for model in (RunEvent, AgentRun, Message, Conversation, LLMCall, ToolCallLog):
            cursor.execute(f'VACUUM ANALYZE "{model._meta.db_table}"')


def stop_on_signals() -> None:
    """SIGTERM and Ctrl-C end a bench through its `finally` (servers stopped, settings restored);
    explicit, as in the launcher: a shell that starts us in the background leaves SIGINT ignored."""

    def on_signal(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)


def take_snapshot() -> Snapshot:
    """What prepare() changes, so restore() can put it back."""
    if ModelTier.objects.filter(model_name__startswith="bench-").exists():
        log("WARNUNG: Modellstufen „bench-…“ vorgefunden – ein früherer Lauf wurde hart beendet und hat die "
            "Einstellungen nicht zurückgesetzt; bitte Modellstufen und Helena-Einstellungen im Admin prüfen.")
    return Snapshot(
        helena=HelenaSettings.objects.filter(pk=1).values().first(),
        tiers=list(ModelTier.objects.filter(tier__in=[1, 2]).values()),
    )


def prepare(server_url: str, *, inline_timeout: int, background_timeout: int) -> str:
    """Bench user with a token, limits that do not get in the way, tiers 1/2 on the scripted server."""
    remove_bench_user()
    user = User.objects.create_user(username=BENCH_USER, password=None, role=Role.ANWALT)
    RateLimit.objects.create(user=user, runs_per_hour=100_000)
    helena = HelenaSettings.load()
    helena.max_concurrent_runs_per_user = 1000
    helena.inline_max_steps = max(helena.inline_max_steps, STEPS)
    helena.background_max_steps = max(helena.background_max_steps, STEPS)
    helena.inline_timeout_s = max(helena.inline_timeout_s, inline_timeout)
    helena.background_timeout_s = max(helena.background_timeout_s, background_timeout)
    helena.llm_classifier = False  # one model call more per run, and not the loop's
    helena.cloud_allowed = False  # no routing to tier 3
    helena.save()
    for tier, name in ((1, "bench-klein"), (2, "bench-gross")):
        ModelTier.objects.update_or_create(tier=tier, defaults={
            "provider": ModelTier.Provider.OLLAMA, "model_name": name, "base_url": server_url,
            "enabled": True, "context_window": None,
        })
    return create_api_token(user=user, name="agent_overhead")


def restore(snapshot: Snapshot, *, keep_runs: bool = False) -> None:
    if not keep_runs:
        remove_bench_user()
    if snapshot.helena is None:
        HelenaSettings.objects.filter(pk=1).delete()
    else:
        values = dict(snapshot.helena)
        HelenaSettings.objects.filter(pk=values.pop("id")).update(**values)
    ModelTier.objects.filter(tier__in=[1, 2]).delete()
    ModelTier.objects.bulk_create([ModelTier(**values) for values in snapshot.tiers])


# --- daphne and the Celery worker -----------------------------------------------------------------


def _die_with_parent() -> None:
    """Linux: the child gets SIGTERM when this process dies, even by SIGKILL (e.g. from the launcher)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Child:
    """A subprocess with its output in a log file (shown when it fails)."""

    def __init__(self, command: Command, logdir: Path) -> None:
        self.name = command.name
        self.logfile = logdir / f"{command.name}.log"
        with self.logfile.open("wb") as out:
            self.proc = subprocess.Popen(command.argv, cwd=BASE_DIR, env={**os.environ, **PRODUCTION_ENV},
                                         stdout=out, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
                                         pass_fds=command.pass_fds)
        command.close_inherited()

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the process has used so far (Linux /proc; 0 elsewhere)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def check(self) -> None:
        if self.proc.poll() is not None:
            raise SystemExit(f"{self.name} ist beendet (Exit-Code {self.proc.returncode}):\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.logfile.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def exceptions(self) -> Counter[str]:
        """The final lines of the tracebacks in the log, counted: why runs failed."""
        with contextlib.suppress(OSError):
            text = self.logfile.read_text(errors="replace")
            return Counter(re.findall(r"^[A-Za-z_][\w.]*(?:Error|Exception)\b.*$", text, re.MULTILINE))
        return Counter()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


@dataclass
class Servers:
    """daphne and Celery workers as a deployment starts them (config/processes.py)."""

    web: list[Child]
    workers: list[Child]
    base_url: str

    @property
    def children(self) -> list[Child]:
        return [*self.web, *self.workers]

    def cpu_seconds(self) -> float:
        return sum(child.cpu_seconds() for child in self.children)

    def check(self) -> None:
        for child in self.children:
            child.check()

    def describe(self) -> str:
        return f"{len(self.web)} × daphne, {len(self.workers)} × Celery-Worker"

    def stop(self) -> None:
        for child in reversed(self.children):
            child.stop()


def start_servers(logdir: Path, *, worker_threads: int) -> Servers:
    """As many daphne and worker processes as HELENA_WEB_PROCESSES / HELENA_WORKER_PROCESSES say."""
    port = free_port()
    web_cmds = web_commands("127.0.0.1", port)
    worker_cmds = worker_commands(threads=worker_threads, loglevel="WARNING", quiet=True)
    env = dict(os.environ)
    share_database_connections(env, processes=len(web_cmds) + len(worker_cmds))
    PRODUCTION_ENV["DB_POOL_MAX_SIZE"] = env["DB_POOL_MAX_SIZE"]
    web = [Child(command, logdir) for command in web_cmds]
    workers = [Child(command, logdir) for command in worker_cmds]
    return Servers(web=web, workers=workers, base_url=f"http://127.0.0.1:{port}")


def wait_ready(servers: Servers, token: str) -> None:
    """daphne answers an authenticated API call; every worker has executed a task."""
    from celery.exceptions import TimeoutError as NoResultYet

    from config.celery import app

    deadline = time.monotonic() + READY_TIMEOUT
    headers = {"Authorization": f"Bearer {token}"}
    while True:
        servers.check()
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{servers.base_url}{API}/me", headers=headers, timeout=2).status_code == 200:
                break
        if time.monotonic() > deadline:
            raise SystemExit(f"daphne antwortet nicht:\n{servers.web[0].tail()}")
        time.sleep(0.2)
    while len(app.control.ping(timeout=1.0) or []) < len(servers.workers):  # each worker answers
        servers.check()
        if time.monotonic() > deadline:
            raise SystemExit(f"Nicht alle Celery-Worker antworten:\n{servers.workers[-1].tail()}")
    result = app.send_task("helena.healthcheck")
    while True:
        servers.check()
        with contextlib.suppress(NoResultYet):
            result.get(timeout=1)
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"Der Celery-Worker nimmt keine Aufgaben an:\n{servers.workers[0].tail()}")


# --- runs over HTTP --------------------------------------------------------------------------------


@dataclass
class Sample:
    posted_at: float  # epoch seconds just before the POST (same machine, same clock as the event ts)
    run_id: str = ""
    loop_s: float | None = None  # run_started → done
    total_s: float | None = None  # POST → done
    error: str = ""


def _brief(response: httpx.Response) -> str:
    """The API's `detail`, else the last line of the body (with DEBUG, a 500 is a whole traceback)."""
    with contextlib.suppress(ValueError, AttributeError):
        return f"HTTP {response.status_code} {response.json()['detail']}"[:300]
    lines = [line for line in response.text.splitlines() if line.strip()]
    return f"HTTP {response.status_code} {lines[-1] if lines else ''}"[:300]


def _epoch(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


async def _conversation(client: httpx.AsyncClient, gate: asyncio.Semaphore) -> str:
    """A new conversation; not part of the measurement, so created a few at a time."""
    async with gate:
        response = await client.post(f"{API}/helena/conversations", json={})
    if response.status_code != 201:
        raise SystemExit(f"Unterhaltung nicht angelegt: {_brief(response)}")
    return response.json()["id"]


async def _start(client: httpx.AsyncClient, conversation_id: str, mode: str) -> Sample:
    sample = Sample(posted_at=time.time())
    try:
        response = await client.post(f"{API}/helena/conversations/{conversation_id}/messages",
                                      json={"text": QUESTION, "mode": mode})
    except httpx.HTTPError as exc:
        sample.error = f"POST: {type(exc).__name__}: {exc}"
        return sample
    if response.status_code != 202:
        sample.error = f"POST: {_brief(response)}"
    else:
        sample.run_id = response.json()["run_id"]
    return sample


async def _wait(client: httpx.AsyncClient, samples: list[Sample], timeout: float) -> None:
    """One run at a time: while the first unfinished one runs, ask only about it.

    A client waiting on 100 runs by polling each of them would load daphne (which also hosts the
    inline runs) far more than a real client on the websocket does; the figures come from the
    persisted event timestamps, so how quickly we notice the end does not enter them.
    """
    deadline = time.monotonic() + timeout
    for sample in samples:
        while sample.run_id and not sample.error:
            status = ""
            try:
                response = await client.get(f"{API}/helena/runs/{sample.run_id}")
                if response.status_code != 200:
                    sample.error = f"GET run: {_brief(response)}"
                    break
                status = response.json()["status"]
            except httpx.HTTPError as exc:
                sample.error = f"GET run: {type(exc).__name__}: {exc}"
                break
            if status not in ("queued", "running"):
                break
            if status == "queued" and time.time() - sample.posted_at > START_TIMEOUT:
                sample.error = f"nach {START_TIMEOUT:.0f} s noch nicht gestartet (Status queued)"
            elif time.monotonic() > deadline:
                sample.error = f"nach {timeout:.0f} s nicht fertig"
            else:
                await asyncio.sleep(0.2)


async def _evaluate(client: httpx.AsyncClient, sample: Sample) -> None:
    """Both figures from the persisted events; anything but a clean 5-step stop counts as a failure."""
    if sample.error:
        return
    response = await client.get(f"{API}/helena/runs/{sample.run_id}/events")
    if response.status_code != 200:
        sample.error = f"GET events: {_brief(response)}"
        return
    events = response.json()
    started = next((e for e in events if e["type"] == "run_started"), None)
    done = next((e for e in events if e["type"] == "done"), None)
    if started is None or done is None:
        sample.error = f"Ereignisse unvollständig ({[e['type'] for e in events]})"
        return
    steps = sum(1 for e in events if e["type"] == "step")
    if done["finish_reason"] != "stop" or steps != STEPS - 1:
        error = next((f"{e['code']}: {e['message']}" for e in events if e["type"] == "error"), "")
        sample.error = f"finish_reason={done['finish_reason']}, {steps} Werkzeugschritte {error}".strip()
        return
    sample.loop_s = _epoch(done["ts"]) - _epoch(started["ts"])
    sample.total_s = _epoch(done["ts"]) - sample.posted_at


async def batch(base_url: str, token: str, *, mode: str, concurrency: int, timeout: float) -> list[Sample]:
    """`concurrency` conversations, each one message posted at the same moment, waited for to the end."""
    limits = httpx.Limits(max_connections=concurrency + 10, max_keepalive_connections=concurrency + 10)
    async with httpx.AsyncClient(base_url=base_url, headers={"Authorization": f"Bearer {token}"},
                                 limits=limits, timeout=timeout) as client:
        gate = asyncio.Semaphore(10)
        conversations = await asyncio.gather(*(_conversation(client, gate) for _ in range(concurrency)))
        samples = list(await asyncio.gather(*(_start(client, c, mode) for c in conversations)))
        await _wait(client, samples, timeout)
        for sample in samples:  # one after another: these requests are not part of the measurement
            await _evaluate(client, sample)
    return samples


def check_model_calls(samples: list[Sample]) -> None:
    """Exactly STEPS model calls per run in the usage ledger, or the ratio would mean something else."""
    ids = [s.run_id for s in samples if s.run_id and not s.error]
    rows = LLMCall.objects.filter(run_id__in=ids).values_list("run_id").annotate(n=Count("id"))
    counts = {str(run_id): n for run_id, n in rows}
    for sample in samples:
        if sample.run_id and not sample.error:
            calls = counts.get(sample.run_id, 0)
            if calls != STEPS:
                sample.error = f"{calls} Modellaufrufe statt {STEPS}"
                sample.loop_s = sample.total_s = None


def measure(base_url: str, token: str, *, mode: str, concurrency: int, rounds: int,
            timeout: float) -> list[Sample]:
    samples: list[Sample] = []
    for _ in range(rounds):
        done = asyncio.run(batch(base_url, token, mode=mode, concurrency=concurrency, timeout=timeout))
        samples += done
        if all(s.error for s in done):
            break  # nothing works: more rounds would only add waiting
    check_model_calls(samples)
    return samples


# --- report ---------------------------------------------------------------------------------------


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(int(len(ordered) * 0.95) - 1, 0)] if len(ordered) > 1 else ordered[0]


def row(mode: str, concurrency: int, samples: list[Sample]) -> str:
    ok = [s for s in samples if s.loop_s is not None and s.total_s is not None]
    head = f"{mode:<10} {concurrency:>8} {len(samples):>6} {len(ok):>4}"
    if not ok:
        return f"{head}   (keine auswertbaren Läufe)"
    loop = [s.loop_s / IDEAL for s in ok if s.loop_s is not None]
    total = [s.total_s / IDEAL for s in ok if s.total_s is not None]
    met = p95(loop) <= GOAL and statistics.median(loop) <= GOAL
    figures = (f"{statistics.median(loop):>10.3f} {p95(loop):>6.3f} {statistics.median(total):>12.3f} "
               f"{p95(total):>6.3f}  {'erreicht' if met else 'VERFEHLT'}")
    return f"{head} {figures}"


def report(results: dict[tuple[str, int], list[Sample]], children: list[Child]) -> None:
    print(f"\nagent_overhead: Laufzeit ÷ Modelllatenz ({STEPS} Modellaufrufe × {MODEL_DELAY * 1000:.0f} ms = "
          f"{IDEAL:.2f} s); Ziel ≤ {GOAL} (Median und p95 der Schleife)")
    print(f"{'Modus':<10} {'parallel':>8} {'Läufe':>6} {'ok':>4} {'Schleife:':>10} {'':>6} "
          f"{'POST→done:':>12} {'':>6}")
    print(f"{'':<10} {'':>8} {'':>6} {'':>4} {'Median':>10} {'p95':>6} {'Median':>12} {'p95':>6}  Ziel")
    for (mode, concurrency), samples in results.items():
        print(row(mode, concurrency, samples))
    any_failed = False
    for (mode, concurrency), samples in results.items():
        failed = [s for s in samples if s.loop_s is None]
        if failed:
            any_failed = True
            print(f"  {mode}/{concurrency}: {len(failed)} Läufe fehlgeschlagen; erster Fehler: "
                  f"{failed[0].run_id or '(kein Lauf)'}: {failed[0].error}")
    for child in children if any_failed else []:
        for line, count in child.exceptions().most_common(3):
            print(f"  {child.name}-Log ({child.logfile}): {count} × {line[:200]}")
    print("  Schleife = Ereignis run_started → done; POST→done = vom Absenden der Nachricht bis done "
          "(Annahme, Warteschlange, Start eingeschlossen).", flush=True)


# --- main -----------------------------------------------------------------------------------------


@dataclass
class Running:
    """What a bench measures against: the scripted model server, Helena's processes and a token."""

    model: ModelServerProcess
    servers: Servers
    token: str
    logdir: Path


@contextlib.contextmanager
def running_helena(name: str, model: ModelServerProcess, *, inline_timeout: int, background_timeout: int,
                   worker_threads: int, keep_runs: bool = False) -> Iterator[Running]:
    """Helena's processes on a snapshot of the database, ready for the bench user; afterwards (also
    after Ctrl+C or a failure) the processes and the model server stopped and the database as it was."""
    stop_on_signals()
    logdir = Path(tempfile.mkdtemp(prefix=f"helena-{name}-"))
    servers: Servers | None = None
    snapshot: Snapshot | None = None
    try:
        snapshot = take_snapshot()
        token = prepare(model.url, inline_timeout=inline_timeout, background_timeout=background_timeout)
        servers = start_servers(logdir, worker_threads=worker_threads)
        wait_ready(servers, token)
        print(f"{name}: {servers.describe()} auf {servers.base_url} bereit (Threads je Worker: "
              f"{worker_threads}); Logs in {logdir}", flush=True)
        yield Running(model=model, servers=servers, token=token, logdir=logdir)
    except KeyboardInterrupt:
        print(f"{name}: abgebrochen", flush=True)
    finally:
        if servers is not None:
            servers.stop()
        model.stop()
        if snapshot is not None:
            restore(snapshot, keep_runs=keep_runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 100])
    parser.add_argument("--modes", nargs="+", choices=["inline", "background"],
                        default=["inline", "background"])
    parser.add_argument("--rounds-single", type=int, default=10,
                        help="runs one after another at concurrency 1 (one run is no distribution)")
    parser.add_argument("--timeout", type=int, default=120, help="s per run (also the inline timeout)")
    parser.add_argument("--keep-runs", action="store_true",
                        help=f"leave user {BENCH_USER} and its runs in the database, to look at the events")
    args = parser.parse_args()

    results: dict[tuple[str, int], list[Sample]] = {}
    with running_helena("agent-overhead", ModelServerProcess("bench.agent_overhead:next_turn"),
                        inline_timeout=args.timeout, background_timeout=args.timeout * 2,
                        worker_threads=max(args.concurrency), keep_runs=args.keep_runs) as bench:
        base_url, token, servers = bench.servers.base_url, bench.token, bench.servers
        try:
            for mode in args.modes:  # first run per process pays imports and connections: shown, not counted
                (cold,) = measure(base_url, token, mode=mode, concurrency=1, rounds=1, timeout=30)
                figure = f"{cold.loop_s / IDEAL:.3f}" if cold.loop_s is not None else f"Fehler: {cold.error}"
                log(f"Aufwärmlauf {mode}: {figure}")
            for mode in args.modes:
                for concurrency in args.concurrency:
                    rounds = args.rounds_single if concurrency == 1 else 1
                    started = time.monotonic()
                    results[(mode, concurrency)] = measure(base_url, token, mode=mode,
                                                           concurrency=concurrency, rounds=rounds,
                                                           timeout=args.timeout)
                    log(f"{mode} × {concurrency} ({rounds} Runde(n)) in {time.monotonic() - started:.1f} s")
                    servers.check()
        finally:  # what was measured before a Ctrl+C is printed too
            if results:
                report(results, servers.children)

if __name__ == "__main__":
    main()
