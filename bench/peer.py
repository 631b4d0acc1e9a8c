"""A peer side by side: Open WebUI and Helena streaming the same answers to the same number of clients.

Open WebUI (PyPI `open-webui`, pinned below) lives in a venv of its own (var/peer-venv, about 7 GB
with torch and its other dependencies; never a dependency of Helena): `--install` puts it there
once, without it the bench says so and ends. It is started offline (OFFLINE_MODE, no Hugging Face
downloads, no sign-up, no title or tag generation) against the same scripted Ollama server and asked
through its OpenAI-compatible /api/chat/completions with stream=true. Helena is asked through her
websocket as in bench/capacity.py. Both run in the same bench run, on the same stream (100 unique
tokens per answer at 20 tokens/s, starts spread over one second), one after the other for each N.

Counted the same way for both: tokens are those the scripted server wrote and the client received
(bench/stream_latency.py: latencies); CPU is that of every server process and its descendants
(/proc, children that already ended included; for Helena also the PostgreSQL backends of her
database, Open WebUI's SQLite runs in its process; Redis is shared and not counted) from the first
message to the last token, less the processes' own idle CPU over that time; the run starts
(message in → answer begins) are included in both. Helena's sockets are opened and her
conversations created before the clock starts (a chat already open in the browser); Open WebUI's
HTTP connections open inside the measured time.

Caveats printed with the figures: Open WebUI streams over one HTTP response per answer (SSE) and
keeps no per-event database row on this path; Helena stores every event before it is sent and relays
it through Redis to whichever process holds the socket, which is what replay, resync and a second tab
need. Run: part of `make bench` (HELENA_BENCH_PEER=0 skips it), or
`.venv/bin/python bench/peer.py` with DATABASE_URL/REDIS_URL set.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
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

from bench.agent_overhead import running_helena, stop_on_signals  # noqa: E402
from bench.capacity import P95_LIMIT_MS, START_SPREAD, round_  # noqa: E402
from bench.model_server import ModelServerProcess  # noqa: E402
from bench.stream_latency import TOKENS, Conversation, latencies, p95  # noqa: E402
from bench.stream_latency import answer as scripted_answer  # noqa: E402

OPEN_WEBUI = "open-webui==0.12.4"
VENV = BASE_DIR / "var" / "peer-venv"
MODEL = "bench-model:latest"
MODELS = [MODEL]  # what the scripted server's /api/tags lists (bench/model_server.py)
ADMIN = {"email": "admin@localhost", "password": "admin"}  # Open WebUI without auth signs in so
TIMEOUT = 300  # s per round


def log(msg: str) -> None:
    print(f"peer: {msg}", flush=True)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    return scripted_answer(request)


def ensure_open_webui(*, install: bool) -> Path | None:
    """The venv's executable; None (with the reason printed) when it is missing and not to be installed."""
    executable = VENV / "bin" / "open-webui"
    if executable.exists():
        return executable
    if not install:
        log(f"Open WebUI fehlt ({executable}); übersprungen. Einmalig installieren (etwa 7 GB mit torch, "
            f"einige Minuten): `.venv/bin/python bench/peer.py --install`; `HELENA_BENCH_PEER=0 make bench` "
            f"lässt diesen Vergleich ganz aus.")
        return None
    log(f"installiere {OPEN_WEBUI} nach {VENV} (einmalig, etwa 7 GB, einige Minuten) …")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "--quiet", OPEN_WEBUI], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"peer: Installation von {OPEN_WEBUI} fehlgeschlagen ({exc}); Netz und ~7 GB freien "
                         f"Platz prüfen, dann {VENV} löschen und erneut versuchen.") from exc
    return executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_open_webui(executable: Path, model_url: str, logdir: Path, *,
                     workers: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    data = logdir / "open-webui-data"
    data.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(data), "DATA_DIR": str(data),
        "OFFLINE_MODE": "true", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "WEBUI_AUTH": "False",
        "ENABLE_OPENAI_API": "false", "OLLAMA_BASE_URL": model_url,
        "RAG_EMBEDDING_MODEL_AUTO_UPDATE": "false",
        "ENABLE_TITLE_GENERATION": "false", "ENABLE_TAGS_GENERATION": "false",
        "ENABLE_FOLLOW_UP_GENERATION": "false", "ENABLE_AUTOCOMPLETE_GENERATION": "false",
        "ENABLE_VERSION_UPDATE_CHECK": "false", "GLOBAL_LOG_LEVEL": "WARNING",
        "UVICORN_WORKERS": str(workers),
    }
    out = (logdir / "open-webui.log").open("wb")
    proc = subprocess.Popen([str(executable), "serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                            cwd=data, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"Open WebUI ist beendet (siehe {logdir / 'open-webui.log'}).")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return proc, base
        time.sleep(1)
    raise SystemExit("Open WebUI hat nach 300 s nicht geantwortet.")


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        one = todo.pop()
        found.append(one)
        for task in Path(f"/proc/{one}/task").glob("*/children"):
            with contextlib.suppress(OSError, ValueError):
                todo.extend(int(child) for child in task.read_text().split())
    return found


def _cpu_of(pid: int) -> float:
    """utime + stime + cutime + cstime: the process and the children it already reaped."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _database_backends() -> list[int]:
    """PostgreSQL's processes serving Helena's database (not this bench's own connection)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
        return [row[0] for row in cursor.fetchall()]


@dataclass
class Processes:
    """What is counted of one system: its server processes with all descendants (the same count for
    Open WebUI's uvicorn and Helena's daphne and workers), and for Helena also the PostgreSQL
    backends of her database, which store her events (Open WebUI's SQLite lives in its process)."""

    roots: list[int]
    database: bool = False
    backends: list[int] = field(default_factory=list)

    def sample(self, *, refresh: bool = True) -> dict[tuple[str, int], float]:
        """refresh=False inside the event loop (no ORM there): the backends found last time."""
        pids = [("server", pid) for root in self.roots for pid in _descendants(root)]
        if self.database:
            if refresh:
                self.backends = _database_backends()
            pids += [("db", pid) for pid in self.backends]
        found = {}
        for key in pids:
            with contextlib.suppress(OSError, IndexError, ValueError):
                found[key] = _cpu_of(key[1])
        return found


def used(before: dict[tuple[str, int], float], after: dict[tuple[str, int], float], kind: str) -> float:
    """CPU seconds between two samples; a process that appeared in between counts from its start."""
    return sum(value - before.get(key, 0.0) for key, value in after.items() if key[0] == kind)


def idle_rate(processes: Processes, seconds: float = 3.0) -> float:
    """CPU seconds per second the processes spend doing nothing for us (timers, polls, beat)."""
    before, started = processes.sample(), time.monotonic()
    time.sleep(seconds)
    after = processes.sample()
    return (used(before, after, "server") + used(before, after, "db")) / (time.monotonic() - started)


async def _owui_one(client: httpx.AsyncClient, conversation: Conversation, delay: float) -> None:
    await asyncio.sleep(delay)
    body = {"model": MODEL, "stream": True,
            "messages": [{"role": "user", "content": f"Bitte antworte ausführlich {conversation.tag}"}]}
    try:
        async with client.stream("POST", "/api/chat/completions", json=body) as response:
            response.raise_for_status()
            async for line in response.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                now = time.time()
                try:
                    delta = json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
                except (ValueError, KeyError, IndexError, TypeError):
                    continue
                for token in re.findall(r"\S+\s*", delta):  # as bench/stream_latency.py splits
                    conversation.received.setdefault(token, now)
        conversation.finish_reason = "stop"
    except httpx.HTTPError as exc:  # its tokens count as missing
        conversation.finish_reason = f"error: {type(exc).__name__}"


async def owui_round(base: str, token: str, count: int) -> list[Conversation]:
    """`count` answers streamed at once, the requests spread over START_SPREAD as in bench/capacity.py."""
    conversations = [Conversation(id=str(i), tag=f"o{i}x{time.monotonic_ns()}") for i in range(count)]
    limits = httpx.Limits(max_connections=count + 10, max_keepalive_connections=count + 10)
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT,
                                 limits=limits) as client:
        await asyncio.gather(*(_owui_one(client, c, START_SPREAD * i / max(count, 1))
                               for i, c in enumerate(conversations)))
    return conversations


@dataclass
class Side:
    """One system's round: tokens measured, p95 ms, tokens missing, CPU ms per token."""

    tokens: int
    p95: float
    missing: int
    cpu_ms: float  # all counted processes, idle taken out
    db_ms: float  # of which PostgreSQL's backends

    @property
    def held(self) -> bool:
        return self.tokens > 0 and self.p95 <= P95_LIMIT_MS and self.missing == 0


def measure(name: str, server: ModelServerProcess, run: Any, processes: Processes, idle: float) -> Side:
    """`run()` streams one round and returns its conversations, the monotonic time its first message
    went out and the processes' CPU sample then; CPU is counted from then to the last token."""
    server.start_chunk_log()
    conversations, started, before = run()
    after = processes.sample()
    database = used(before, after, "db")
    total = used(before, after, "server") + database - idle * (time.monotonic() - started)
    values, _settled, missing = latencies(server.take_chunk_log(), conversations)
    tokens = max(len(values), 1)
    side = Side(tokens=len(values), p95=p95(values) if values else math.nan, missing=missing,
                cpu_ms=total * 1000 / tokens, db_ms=database * 1000 / tokens)
    log(f"{name}: {side.tokens} Tokens, p95 {side.p95:.1f} ms, {missing} fehlen, "
        f"{side.cpu_ms:.2f} ms CPU/Token (davon PostgreSQL {side.db_ms:.2f})")
    return side


def _owui_run(base: str, token: str, count: int,
              processes: Processes) -> tuple[list[Conversation], float, Any]:
    before, started = processes.sample(), time.monotonic()
    return asyncio.run(owui_round(base, token, count)), started, before


def _helena_run(servers: Any, token: str, count: int, processes: Processes,
                mark: dict[str, Any]) -> tuple[list[Conversation], float, Any]:
    def on_open() -> None:  # sockets open, conversations created: the clock starts here
        mark["cpu"], mark["at"] = processes.sample(refresh=False), time.monotonic()

    processes.sample()  # the database backends as the round begins
    conversations = asyncio.run(round_(servers, token, count, timeout=TIMEOUT, on_open=on_open))[0]
    return conversations, mark["at"], mark["cpu"]


def _verdict(ok: bool) -> str:
    return "erreicht" if ok else "verfehlt"


def report(rows: list[tuple[int, Side, Side]], describe: str, owui_workers: int) -> None:
    print()
    print(f"Helena und Open WebUI ({OPEN_WEBUI}) in einem Lauf: {TOKENS} Tokens je Antwort, 20 Tokens/s, "
          f"Start über {START_SPREAD:.0f} s verteilt, derselbe Skript-Server, {os.cpu_count()} Kerne; "
          f"Helena: {describe}, Open WebUI: {owui_workers} × uvicorn (mit allen Kindprozessen)")
    print("| Gespräche | Helena p95 ms | fehlt | Helena ms/Tok | davon PostgreSQL | Open WebUI p95 ms "
          "| fehlt | Open WebUI ms/Tok | CPU Helena ÷ Open WebUI |")
    print("|----------:|--------------:|------:|--------------:|-----------------:|------------------:"
          "|------:|------------------:|------------------------:|")
    for count, h, o in rows:
        ratio = h.cpu_ms / o.cpu_ms if o.cpu_ms > 0 else math.nan
        print(f"| {count:>9} | {h.p95:13.1f} | {h.missing:>5} | {h.cpu_ms:13.2f} | {h.db_ms:16.2f} "
              f"| {o.p95:17.1f} | {o.missing:>5} | {o.cpu_ms:17.2f} | {ratio:23.2f} |")
    print()
    for name, index in (("Helena", 1), ("Open WebUI", 2)):
        held = max((row[0] for row in rows if row[index].held), default=0)
        print(f"{name} hält (p95 ≤ {P95_LIMIT_MS:.0f} ms, nichts verloren) bis {held} Gespräche"
              + ("" if held == rows[-1][0] else f"; bei {rows[-1][0]} nicht"))
    for count, h, o in rows:
        print(f"CPU je Token bei {count} Gesprächen: Helena {h.cpu_ms:.2f} ms, Open WebUI {o.cpu_ms:.2f} ms; "
              f"Ziel Helena ≤ Open WebUI: {_verdict(h.cpu_ms <= o.cpu_ms)}")
    print("CPU: alle Serverprozesse samt Kindern vom ersten Senden bis zum letzten Token, abzüglich ihres "
          "Leerlaufs, bei Helena auch die PostgreSQL-Prozesse ihrer Datenbank (Redis nicht: geteilt); die "
          "Laufstarts sind bei beiden eingerechnet. Open WebUI: ein SSE-Strom je Antwort, "
          "nichts je Token in der Datenbank; Helena: jedes Ereignis gespeichert und über Redis an den "
          "Socket-Prozess (Wiederholen, Nachholen, zweiter Tab).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, nargs="+", default=[10, 50, 150])
    parser.add_argument("--owui-workers", type=int, default=1,
                        help="uvicorn-Prozesse von Open WebUI (UVICORN_WORKERS; 1 ist seine Voreinstellung)")
    parser.add_argument("--install", action="store_true",
                        help=f"{OPEN_WEBUI} nach {VENV} installieren, falls es fehlt (etwa 7 GB)")
    args = parser.parse_args()

    executable = ensure_open_webui(install=args.install)
    if executable is None:
        return
    stop_on_signals()
    logdir = Path(tempfile.mkdtemp(prefix="helena-peer-"))
    server = ModelServerProcess("bench.peer:answer")
    owui: subprocess.Popen | None = None
    rows: list[tuple[int, Side, Side]] = []
    try:
        owui, base = start_open_webui(executable, server.url, logdir, workers=args.owui_workers)
        log(f"Open WebUI auf {base} bereit; Logs in {logdir}")
        token = httpx.post(f"{base}/api/v1/auths/signin", json=ADMIN, timeout=30).json()["token"]
        asyncio.run(owui_round(base, token, 2))  # warm-up
        with running_helena("peer", server, inline_timeout=TIMEOUT, background_timeout=TIMEOUT,
                            worker_threads=max(args.conversations)) as bench:
            servers, helena_token = bench.servers, bench.token
            asyncio.run(round_(servers, helena_token, 2, timeout=TIMEOUT))  # warm-up
            owui_roots, helena_roots = [owui.pid], [child.proc.pid for child in servers.children]
            owui_p = Processes(owui_roots)
            helena_p = Processes(helena_roots, database=True)
            owui_idle, helena_idle = idle_rate(owui_p), idle_rate(helena_p)
            log(f"gezählt: Open WebUI {len(_descendants(owui.pid))} Prozesse, Helena "
                f"{sum(len(_descendants(pid)) for pid in helena_roots)}; Leerlauf (abgezogen): Open WebUI "
                f"{owui_idle * 1000:.1f} ms CPU/s, Helena {helena_idle * 1000:.1f} ms CPU/s")
            for count in args.conversations:
                o = measure(f"Open WebUI × {count}", server,
                            lambda c=count: _owui_run(base, token, c, owui_p), owui_p, owui_idle)
                mark: dict[str, Any] = {}
                h = measure(f"Helena × {count}", server,
                            lambda c=count, m=mark: _helena_run(servers, helena_token, c, helena_p, m),
                            helena_p, helena_idle)
                rows.append((count, h, o))
            report(rows, servers.describe(), args.owui_workers)
    except KeyboardInterrupt:
        log("abgebrochen")
    finally:  # Helena's processes and the database are put back by running_helena
        if owui is not None and owui.poll() is None:
            os.killpg(owui.pid, signal.SIGTERM)
            try:
                owui.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(owui.pid, signal.SIGKILL)
        server.stop()


if __name__ == "__main__":
    main()
