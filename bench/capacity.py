"""Capacity: how many conversations stream at once before the chat falls behind, and what a token and
a run start cost in CPU.

The scripted Ollama server (a process of its own) answers every conversation with ANSWER_TOKENS unique
tokens, one every 50 ms (20 tokens/s, a local model on a GPU); one real websocket client per
conversation (this process) notes when each token arrives. The conversations start spread over the
first second, as people do, not all in one instant. N ramps up (--steps) until the token → client p95
exceeds 100 ms or a token is lost; the last N that held is the capacity.

Figures (goals of issue 39 beside them):
- run start: CPU of all server processes for one run whose answer is one token, measured over
  sequential runs (message in → run_started out, plus the one token and `done`), goal ≤ 5 ms;
- CPU per token: the server processes' CPU while every conversation of a round streams (from 0.5 s
  after the last one started until 0.5 s before the first one ends: no start and no end in it),
  divided by the tokens the clients received meanwhile; goal ≤ 0.2 ms. Beside it, as before, the
  whole round's CPU less its run starts (each at the run-start figure): that one inherits the noise
  of the run-start measurement (±3 ms a start is ±0.03 ms a token at 150 conversations);
- memory: resident size of each server process idle, and the growth per open conversation.

The clients share the machine's two cores with the servers (a browser would not): their CPU is not
counted, their delay is. Run with `make bench` or `.venv/bin/python bench/capacity.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("HELENA_BENCH_TOKENS", "100")  # the model server reads it in bench.stream_latency

import django  # noqa: E402

django.setup()

import httpx  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from bench.agent_overhead import Servers, running_helena  # noqa: E402
from bench.model_server import ModelServerProcess  # noqa: E402
from bench.stream_latency import TOKEN_INTERVAL, TOKENS, Conversation, _listen, latencies, p95  # noqa: E402
from bench.stream_latency import answer as long_answer  # noqa: E402

P95_LIMIT_MS = 100.0
GOAL_CONVERSATIONS = 200
GOAL_TOKEN_CPU_MS = 0.2
GOAL_TOKEN_AT = 150  # conversations at which the CPU per token is held against its goal
GOAL_START_CPU_MS = 5.0
START_SPREAD = 1.0  # s over which a round's conversations send their message
WINDOW = (START_SPREAD + 0.5, TOKENS * TOKEN_INTERVAL - 0.5)  # s after the first message: all stream
API = "/api/v1"


def log(msg: str) -> None:
    print(f"capacity: {msg}", flush=True)


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def memory(servers: Servers) -> dict[str, float]:
    return {f"{child.name}#{child.proc.pid}": rss_mb(child.proc.pid) for child in servers.children}


async def _create(client: httpx.AsyncClient, count: int) -> list[Conversation]:
    created = []
    for i in range(count):
        response = await client.post(f"{API}/helena/conversations", json={})
        response.raise_for_status()
        created.append(Conversation(id=str(response.json()["id"]), tag=f"c{i}x{time.monotonic_ns()}"))
    return created


async def _converse(base_url: str, token: str, conversation: Conversation, delay: float,
                    connected: asyncio.Event, go: asyncio.Event, timeout: float, opened: list[int],
                    mode: str) -> None:
    ws_url = base_url.replace("http://", "ws://") + f"/ws/helena/conversations/{conversation.id}/"
    async with connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"}, max_queue=None) as ws:
        opened.append(1)
        await connected.wait()
        await go.wait()
        await asyncio.sleep(delay)
        await ws.send(json.dumps({"type": "user_message", "mode": mode,
                                  "text": f"Bitte antworte ausführlich {conversation.tag}"}))
        await _listen(ws, conversation, timeout)


async def round_(servers: Servers, token: str, count: int, *, timeout: float,
                 on_open: Any = None, mode: str = "inline",
                 window: list[tuple[float, float]] | None = None) -> tuple[list[Conversation], float, float]:
    """`count` conversations, sockets open, messages spread over START_SPREAD; their receipts and the
    CPU seconds the servers spent from the first message on, and the seconds that took. Inline runs
    execute in the daphne process that took the message; background runs in the Celery worker,
    which reaches the sockets only through PostgreSQL and Redis (as from another host). `window`
    gets (CPU seconds, epoch seconds) at both ends of WINDOW."""
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=servers.base_url, headers=headers, timeout=60) as client:
        conversations = await _create(client, count)
    connected, go, opened = asyncio.Event(), asyncio.Event(), []
    tasks = [asyncio.create_task(_converse(servers.base_url, token, c, START_SPREAD * i / max(count, 1),
                                           connected, go, timeout, opened, mode))
             for i, c in enumerate(conversations)]
    deadline = time.monotonic() + 60
    while len(opened) < count and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # subscribed
    connected.set()
    if on_open is not None:
        on_open()
    cpu_before, started = servers.cpu_seconds(), time.monotonic()
    go.set()
    sampling = asyncio.create_task(_sample(servers, started, window)) if window is not None else None
    await asyncio.gather(*tasks)
    if sampling is not None:
        await sampling
    return conversations, servers.cpu_seconds() - cpu_before, time.monotonic() - started


async def _sample(servers: Servers, started: float, window: list[tuple[float, float]]) -> None:
    for at in WINDOW:
        await asyncio.sleep(max(0.0, started + at - time.monotonic()))
        window.append((servers.cpu_seconds(), time.time()))


def idle_rate(servers: Servers, seconds: float = 3.0) -> float:
    """CPU seconds per second the servers spend doing nothing for us (beat, polls, timers)."""
    before, started = servers.cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    return (servers.cpu_seconds() - before) / (time.monotonic() - started)


RUNS_PER_CONVERSATION = 10  # a run start in a conversation of at most 20 messages


def run_start_cpu(servers: Servers, token: str, *, runs: int, timeout: float, idle: float) -> float:
    """ms of server CPU per run whose answer is a single token, over `runs` runs one after another.

    At most RUNS_PER_CONVERSATION runs per conversation: past 40 messages a conversation's history
    is condensed by a tier-1 model call every ~10 turns (helena/runs/history.py), a model call of its
    own, not the cost of starting a run."""
    async def go() -> float:
        headers = {"Authorization": f"Bearer {token}"}
        count = max(1, math.ceil(runs / RUNS_PER_CONVERSATION))
        async with httpx.AsyncClient(base_url=servers.base_url, headers=headers, timeout=60) as client:
            conversations = await _create(client, count)
        base = servers.base_url.replace("http://", "ws://")
        async with contextlib.AsyncExitStack() as stack:
            sockets = [await stack.enter_async_context(connect(f"{base}/ws/helena/conversations/{c.id}/",
                                                               additional_headers=headers))
                       for c in conversations]
            before, started = servers.cpu_seconds(), time.monotonic()
            per = {c.name: c.cpu_seconds() for c in servers.children}
            done = 0
            while done < runs:
                ws = sockets[done // RUNS_PER_CONVERSATION]
                message = {"type": "user_message", "mode": "inline", "text": f"kurz{done} einzeln"}
                await ws.send(json.dumps(message))
                while True:
                    event = json.loads(await asyncio.wait_for(ws.recv(), timeout))
                    if event["type"] == "done":
                        done += 1
                        await asyncio.sleep(0.15)  # a socket may send 10 messages a second
                        break
                    if event["type"] == "error" and not event.get("seq"):  # refused: try again
                        log(f"abgelehnt: {event.get('message')}")
                        await asyncio.sleep(1.0)
                        break
            used = servers.cpu_seconds() - before - idle * (time.monotonic() - started)
            log("Laufstart je Prozess (ms CPU je Lauf, Leerlauf nicht abgezogen): " + ", ".join(
                f"{c.name} {(c.cpu_seconds() - per[c.name]) * 1000 / runs:.1f}" for c in servers.children))
            return used * 1000 / runs

    return asyncio.run(go())


@dataclass
class Row:
    conversations: int
    tokens: int
    median: float
    p95: float
    missing: int
    cpu_all: float  # ms per token, run starts included
    cpu_stream: float  # ms per token, the round's run starts taken out
    cpu_window: float = math.nan  # ms per token while every conversation streams (WINDOW)

    @property
    def held(self) -> bool:
        return self.tokens > 0 and self.p95 <= P95_LIMIT_MS and self.missing == 0


def measure(servers: Servers, server: ModelServerProcess, token: str, count: int, *, start_ms: float,
            idle: float, timeout: float, mode: str = "inline",
            sampled: dict[str, float] | None = None) -> Row:
    """One round of `count` conversations: latency, losses and CPU per token."""
    server.start_chunk_log()
    on_open = None if sampled is None else (lambda: sampled.update(memory(servers)))
    window: list[tuple[float, float]] = []
    conversations, cpu, seconds = asyncio.run(round_(
        servers, token, count, timeout=timeout, on_open=on_open, mode=mode,
        window=window if WINDOW[1] > WINDOW[0] else None))
    cpu -= idle * seconds
    values, _settled, missing = latencies(server.take_chunk_log(), conversations)
    tokens = max(len(values), 1)
    row = Row(conversations=count, tokens=len(values),
              median=statistics.median(values) if values else math.nan,
              p95=p95(values) if values else math.nan, missing=missing, cpu_all=cpu * 1000 / tokens,
              cpu_stream=max(0.0, cpu * 1000 - count * start_ms) / tokens,
              cpu_window=_window_cpu(window, conversations, idle))
    where = "im Worker" if mode == "background" else "in daphne"
    log(f"{count} Gespräche ({where}): p95 {row.p95:.1f} ms, {missing} fehlen, "
        f"{row.cpu_window:.2f} ms CPU/Token im Strom ({row.cpu_stream:.2f} ohne Laufstarts)")
    return row


def _window_cpu(window: list[tuple[float, float]], conversations: list[Conversation], idle: float) -> float:
    """ms of server CPU per token the clients received within the window (NaN without one)."""
    if len(window) != 2:
        return math.nan
    (cpu_from, at_from), (cpu_to, at_to) = window
    tokens = sum(1 for c in conversations for at in c.received.values() if at_from <= at <= at_to)
    if not tokens:
        return math.nan
    return (cpu_to - cpu_from - idle * (at_to - at_from)) * 1000 / tokens


def ramp(servers: Servers, server: ModelServerProcess, token: str, steps: list[int], *, start_ms: float,
         idle: float, timeout: float) -> tuple[list[Row], dict[str, float]]:
    """Rounds of growing size until one does not hold; the rows and the memory of the last that held."""
    rows: list[Row] = []
    peak: dict[str, float] = {}
    for count in steps:
        sampled: dict[str, float] = {}
        row = measure(servers, server, token, count, start_ms=start_ms, idle=idle, timeout=timeout,
                      sampled=sampled)
        rows.append(row)
        if not row.held:
            break
        peak = sampled
    return rows, peak


def _verdict(ok: bool) -> str:
    return "erreicht" if ok else "verfehlt"


def report(servers: Servers, rows: list[Row], *, start_ms: float, idle: dict[str, float],
           peak: dict[str, float], background: Row | None) -> None:
    held = max((r.conversations for r in rows if r.held), default=0)
    print()
    print(f"Kapazität ({TOKENS} Tokens je Antwort, 20 Tokens/s je Gespräch, Start über {START_SPREAD:.0f} s "
          f"verteilt; {servers.describe()}, {os.cpu_count()} Kerne)")
    print("| Gespräche | Tokens | Median ms | p95 ms | fehlt | CPU ms/Tok. alles | ohne Laufstarts "
          "| im Strom | hält |")
    print("|----------:|-------:|----------:|-------:|------:|------------------:|----------------:"
          "|---------:|------|")
    for r in rows:
        print(f"| {r.conversations:>9} | {r.tokens:>6} | {r.median:9.1f} | {r.p95:6.1f} | {r.missing:>5} "
              f"| {r.cpu_all:17.2f} | {r.cpu_stream:15.2f} | {r.cpu_window:8.2f} "
              f"| {'ja' if r.held else 'nein'} |")
    print()
    print(f"Kapazität: {held} Gespräche (p95 ≤ {P95_LIMIT_MS:.0f} ms, nichts verloren); "
          f"Ziel ≥ {GOAL_CONVERSATIONS}: {_verdict(held >= GOAL_CONVERSATIONS)}")
    at = next((r for r in rows if r.conversations == GOAL_TOKEN_AT), None)
    if at is None:
        print(f"CPU je Token bei {GOAL_TOKEN_AT} Gesprächen: nicht gemessen (--steps ohne {GOAL_TOKEN_AT})")
    else:
        print(f"CPU je Token bei {GOAL_TOKEN_AT} Gesprächen, während alle streamen: {at.cpu_window:.2f} ms "
              f"(die ganze Runde ohne ihre Laufstarts: {at.cpu_stream:.2f} ms); Ziel ≤ {GOAL_TOKEN_CPU_MS}: "
              f"{_verdict(at.cpu_window <= GOAL_TOKEN_CPU_MS)}")
    if background is not None:
        b = background
        print(f"Dieselben Gespräche im Celery-Worker statt in daphne (Web und Worker getrennte Prozesse, "
              f"nur über PostgreSQL und Redis verbunden): {b.conversations} Gespräche, p95 {b.p95:.1f} ms, "
              f"{b.missing} "
              f"fehlen, CPU je Token {b.cpu_window:.2f} ms (im Strom) / {b.cpu_stream:.2f} ms (ohne "
              f"Laufstarts) / {b.cpu_all:.2f} ms (alles); "
              f"hält: {'ja' if b.held else 'nein'}")
    print(f"CPU je Laufstart (Nachricht → run_started, ein Token, done): {start_ms:.1f} ms; "
          f"Ziel ≤ {GOAL_START_CPU_MS:.0f}: {_verdict(start_ms <= GOAL_START_CPU_MS)}")
    print("Speicher (RSS) je Prozess im Leerlauf: "
          + ", ".join(f"{name} {mb:.0f} MB" for name, mb in idle.items()))
    if peak and held:
        grown = sum(peak.values()) - sum(idle.get(name, 0.0) for name in peak)
        print(f"Speicher je offenem Gespräch ({held} Sockets offen): {grown * 1024 / held:.0f} kB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[25, 50, 100, 150, 200, 250, 300])
    parser.add_argument("--start-runs", type=int, default=40)
    parser.add_argument("--timeout", type=int, default=180)
    parser.add_argument("--no-background", action="store_true",
                        help="ohne die Runde im Celery-Worker (Läufe im Hintergrund)")
    args = parser.parse_args()

    with running_helena("capacity", ModelServerProcess("bench.capacity:answer"), inline_timeout=args.timeout,
                        background_timeout=args.timeout, worker_threads=max(args.steps)) as bench:
        server, servers, token = bench.model, bench.servers, bench.token
        asyncio.run(round_(servers, token, 2, timeout=args.timeout))  # warm-up
        run_start_cpu(servers, token, runs=30, timeout=args.timeout, idle=0.0)  # both daphnes warm
        idle = memory(servers)
        rate = idle_rate(servers)
        log(f"Leerlauf: {rate * 1000:.1f} ms CPU je Sekunde (abgezogen)")
        start_ms = run_start_cpu(servers, token, runs=args.start_runs, timeout=args.timeout, idle=rate)
        log(f"Laufstart: {start_ms:.1f} ms CPU je Lauf ({args.start_runs} Läufe)")
        rows, peak = ramp(servers, server, token, args.steps, start_ms=start_ms, idle=rate,
                          timeout=args.timeout)
        held = max((r.conversations for r in rows if r.held), default=0)
        background = None
        if held and not args.no_background:
            background = measure(servers, server, token, held, start_ms=start_ms, idle=rate,
                                 timeout=args.timeout, mode="background")
        report(servers, rows, start_ms=start_ms, idle=idle, peak=peak, background=background)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """The stream_latency answer (unique tokens per conversation); a message ending "einzeln" gets
    one token (the run-start measurement)."""
    users = [m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"]
    if users and users[-1].endswith("einzeln"):
        return {"text": ["Ja."], "chunk_delay": TOKEN_INTERVAL}
    return long_answer(request)


if __name__ == "__main__":
    main()
