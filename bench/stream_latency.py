"""Stream latency: from the model server writing a token to a websocket client receiving it.

The scripted Ollama server (a process of its own, bench/model_server.py) streams every answer token
by token (one unique token every 50 ms) and notes when it wrote each chunk; one websocket client per
conversation (this process; the same machine, so the same clock) notes when the matching `text`
event arrives. In between is everything Helena
does per token: the ollama client, the agent loop, the event's INSERT (one per batch of all runs of
the process), the Redis pub/sub publish, the consumer in daphne and the socket. daphne and the worker
run with DEBUG off, as deployed. Goal: p95 ≤ 15 ms, with 1 and with 50 conversations
streaming at once; inline runs execute in daphne, background runs on a real Celery worker.

Run with `make bench` (the launcher starts embedded PostgreSQL/Redis when DATABASE_URL/REDIS_URL are
unset). It uses the bench user and admin-settings handling of bench/agent_overhead.py: settings are
restored and the bench user is deleted with everything it produced at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
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
from websockets.asyncio.client import connect  # noqa: E402

from bench.agent_overhead import running_helena  # noqa: E402
from bench.model_server import ModelServerProcess  # noqa: E402

GOAL_MS = 15.0
FIRST_TOKEN_GOAL_MS = 10.0
TOKENS = int(os.environ.get("HELENA_BENCH_TOKENS", "40"))  # per answer (the model server reads it too)
TOKEN_INTERVAL = 0.05  # s between tokens, about what a local 8B model on a GPU streams
# Shown apart (not part of the verdict): the tokens of the first ~0.75 s, while all runs of a round
# start at the same moment, against the rest, when they only stream.
STARTUP_TOKENS = 15
API = "/api/v1"


def log(msg: str) -> None:
    print(f"stream_latency: {msg}", flush=True)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """Each conversation's answer carries its own tag, so every token is unique across all runs."""
    users = [m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"]
    question = users[-1] if users else ""
    tag = question.rsplit(" ", 1)[-1]
    # The first chunk starts with a German word, as Helena's answers do: the language gate
    # (helena/agent/language.py) holds a turn's first words until it knows they are not English.
    return {"text": [f"{'Die ' if i == 0 else ''}{tag}-{i:03d} " for i in range(TOKENS)],
            "chunk_delay": TOKEN_INTERVAL}


def written_tokens(chunk_log: list[tuple[float, bytes]]) -> dict[str, float]:
    """Token → epoch seconds at which the server had written it."""
    times: dict[str, float] = {}
    for at, chunk in chunk_log:
        try:
            content = json.loads(chunk).get("message", {}).get("content", "")
        except (ValueError, AttributeError):
            continue
        for token in re.findall(r"\S+\s*", content):  # as the client splits what it receives
            times.setdefault(token, at)
    return times


@dataclass
class Conversation:
    id: str
    tag: str
    received: dict[str, float] = field(default_factory=dict)  # token → epoch seconds of receipt
    finish_reason: str | None = None


async def _listen(ws: Any, conversation: Conversation, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
        now = time.time()
        if event["type"] == "text":
            # Deltas that arrive while the event writer is busy are merged into one event.
            for token in re.findall(r"\S+\s*", event["delta"]):
                conversation.received.setdefault(token, now)
        elif event["type"] == "done":
            conversation.finish_reason = event["finish_reason"]
            return
        elif event["type"] == "error" and event.get("seq") == 0:
            raise SystemExit(f"Websocket-Fehler: {event}")


async def _one(base_url: str, token: str, conversation: Conversation, mode: str, start: asyncio.Event,
               timeout: float) -> None:
    ws_url = base_url.replace("http://", "ws://") + f"/ws/helena/conversations/{conversation.id}/"
    async with connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        await start.wait()
        await ws.send(json.dumps({"type": "user_message", "mode": mode,
                                  "text": f"Bitte antworte ausführlich {conversation.tag}"}))
        await _listen(ws, conversation, timeout)


async def round_(
    base_url: str, token: str, *, mode: str, conversations: int, timeout: float
) -> list[Conversation]:
    """`conversations` sockets, all asking at once; what each received and when."""
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=30) as client:
        created = []
        for i in range(conversations):
            response = await client.post(f"{API}/helena/conversations", json={})
            response.raise_for_status()
            created.append(Conversation(id=str(response.json()["id"]), tag=f"k{i}x{time.monotonic_ns()}"))
    start = asyncio.Event()
    tasks = [asyncio.create_task(_one(base_url, token, c, mode, start, timeout)) for c in created]
    await asyncio.sleep(0.5)  # all sockets connected and subscribed
    start.set()
    await asyncio.gather(*tasks)
    return created


def latencies(
    chunk_log: list[tuple[float, bytes]], conversations: list[Conversation]
) -> tuple[list[float], list[float], int]:
    """All measured latencies, those after the first STARTUP_TOKENS tokens of each answer (while
    every run of the round starts at once), and how many tokens were not measured."""
    written = written_tokens(chunk_log)
    values: list[float] = []
    settled: list[float] = []
    missing = 0
    for conversation in conversations:
        for i in range(TOKENS):
            token = f"{conversation.tag}-{i:03d} "
            if token in conversation.received and token in written:
                values.append((conversation.received[token] - written[token]) * 1000)
                if i >= STARTUP_TOKENS:
                    settled.append(values[-1])
            else:
                missing += 1
    return values, settled, missing


def first_tokens(chunk_log: list[tuple[float, bytes]], conversations: list[Conversation]) -> list[float]:
    """Each answer's first token: model server wrote it → client had it, ms (the run's first delta is
    never held back, helena/runs/events/emitter.py)."""
    written = written_tokens(chunk_log)
    return [(c.received[t] - written[t]) * 1000 for c in conversations
            if (t := f"{c.tag}-000 ") in c.received and t in written]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, nargs="+", default=[1, 50])
    parser.add_argument("--modes", nargs="+", choices=["inline", "background"],
                        default=["inline", "background"])
    parser.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args()

    rows: list[str] = []
    with running_helena("stream-latency", ModelServerProcess("bench.stream_latency:answer"),
                        inline_timeout=args.timeout, background_timeout=args.timeout,
                        worker_threads=max(args.conversations)) as bench:
        server, servers, token, base_url = bench.model, bench.servers, bench.token, bench.servers.base_url
        for mode in args.modes:  # warm-up: imports, connections
            asyncio.run(round_(base_url, token, mode=mode, conversations=1, timeout=args.timeout))
        for mode in args.modes:
            for count in args.conversations:
                server.start_chunk_log()
                cpu_before = servers.cpu_seconds()
                conversations = asyncio.run(round_(base_url, token, mode=mode, conversations=count,
                                                   timeout=args.timeout))
                cpu_ms = (servers.cpu_seconds() - cpu_before) * 1000
                chunk_log = server.take_chunk_log()
                values, settled, missing = latencies(chunk_log, conversations)
                first = first_tokens(chunk_log, conversations)
                if not values:
                    raise SystemExit(f"{mode} × {count}: kein Token gemessen")
                verdict = "erreicht" if p95(values) <= GOAL_MS else "verfehlt"
                rows.append(f"| {mode:10} | {count:>4} | {len(values):>6} | {statistics.median(values):7.1f} "
                            f"| {p95(values):7.1f} | {max(values):7.1f} | {missing:>5} | {verdict:8} "
                            f"| {p95(settled) if settled else float('nan'):12.1f} "
                            f"| {cpu_ms / (count * TOKENS):12.2f} "
                            f"| {statistics.median(first) if first else float('nan'):13.1f} |")
                log(f"{mode} × {count}: {len(values)} Tokens gemessen")
        print()
        print(f"Stream-Latenz Modellserver → Websocket-Client in ms ({TOKENS} Tokens pro Antwort, "
              f"alle {TOKEN_INTERVAL * 1000:.0f} ms); Ziel p95 ≤ {GOAL_MS:.0f} ms; {servers.describe()}, "
              f"{os.cpu_count()} Kerne")
        print("| Modus      | Ges. | Tokens |  Median |     p95 |     max | fehlt | Ziel     "
              "| p95 ab T. 16 | CPU ms/Token | 1. Token (Med.) |")
        print("|------------|-----:|-------:|--------:|--------:|--------:|------:|----------"
              "|-------------:|-------------:|----------------:|")
        for line in rows:
            print(line)
        print(f"„p95 ab T. 16“: ohne die ersten {STARTUP_TOKENS} Tokens jeder Antwort, während alle Läufe "
              "der Runde zugleich starten (nur zur Einordnung; das Ziel gilt für alle Tokens).")
        print("„CPU ms/Token“: CPU-Zeit aller daphne- und Worker-Prozesse während der Runde (Gespräche "
              "anlegen, verbinden, Läufe starten und streamen), geteilt durch die Tokens der Runde.")
        print(f"„1. Token“: Modellserver → Client für das erste Token jeder Antwort; Ziel ≤ "
              f"{FIRST_TOKEN_GOAL_MS:.0f} ms bei einem Gespräch (Kapazität, CPU/Token: bench/capacity.py).")


if __name__ == "__main__":
    main()
