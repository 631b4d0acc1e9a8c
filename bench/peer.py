"""A peer side by side: Open WebUI and Helena streaming the same answers to the same number of clients.

Open WebUI (PyPI `open-webui`, pinned below) is installed by this bench into a venv of its own
(var/peer-venv, about 7 GB with torch and its other dependencies; never a dependency of Helena),
started offline (OFFLINE_MODE, no Hugging Face downloads, no sign-up, no title or tag generation)
against the same scripted Ollama server, and asked through its OpenAI-compatible
/api/chat/completions with stream=true. Helena is asked through her websocket as in
bench/capacity.py. For each N: token → client p95 and the server processes' CPU per token (less
their idle CPU), and the ratio Open WebUI ÷ Helena.

Caveats printed with the figures: Open WebUI streams over one HTTP response per answer (SSE) and
keeps no per-event database row; Helena stores every event before it is sent and relays it through
Redis to whichever process holds the socket, which is what replay, resync and a second tab need.
Run: part of `make bench` (HELENA_BENCH_PEER=0 skips it: its first run downloads and installs ~7 GB),
or `.venv/bin/python bench/peer.py` with DATABASE_URL/REDIS_URL set.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
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
from bench.capacity import idle_rate, round_  # noqa: E402
from bench.model_server import ModelServerProcess  # noqa: E402
from bench.stream_latency import TOKENS, Conversation, latencies, p95  # noqa: E402
from bench.stream_latency import answer as scripted_answer  # noqa: E402

OPEN_WEBUI = "open-webui==0.12.4"
VENV = BASE_DIR / "var" / "peer-venv"
MODEL = "bench-model:latest"
MODELS = [MODEL]  # what the scripted server's /api/tags lists (bench/model_server.py)
ADMIN = {"email": "admin@localhost", "password": "admin"}  # Open WebUI without auth signs in so


def log(msg: str) -> None:
    print(f"peer: {msg}", flush=True)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    return scripted_answer(request)


def ensure_open_webui() -> Path:
    executable = VENV / "bin" / "open-webui"
    if executable.exists():
        return executable
    log(f"installiere {OPEN_WEBUI} nach {VENV} (einmalig, etwa 7 GB, einige Minuten) …")
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(VENV / "bin" / "pip"), "install", "--quiet", OPEN_WEBUI], check=True)
    return executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_open_webui(executable: Path, model_url: str, logdir: Path) -> tuple[subprocess.Popen, str]:
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
    }
    out = (logdir / "open-webui.log").open("wb")
    proc = subprocess.Popen([str(executable), "serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                            cwd=data, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"Open WebUI ist beendet (siehe {logdir / 'open-webui.log'}).")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise SystemExit("Open WebUI hat nach 300 s nicht geantwortet.")


def cpu_seconds(pid: int) -> float:
    """CPU of the process and its children (Open WebUI may start workers)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    pids = [pid, *(int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                                   text=True).stdout.split())]
    for one in pids:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def idle_of(pid: int, seconds: float = 3.0) -> float:
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


async def _owui_one(client: httpx.AsyncClient, conversation: Conversation, delay: float) -> None:
    await asyncio.sleep(delay)
    body = {"model": MODEL, "stream": True,
            "messages": [{"role": "user", "content": f"Bitte antworte ausführlich {conversation.tag}"}]}
    async with client.stream("POST", "/api/chat/completions", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            now = time.time()
            try:
                delta = json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
            except (ValueError, KeyError, IndexError):
                continue
            for token in re.findall(r"\S+\s*", delta):
                conversation.received.setdefault(token, now)
    conversation.finish_reason = "stop"


async def owui_round(base: str, token: str, count: int, spread: float = 1.0) -> list[Conversation]:
    conversations = [Conversation(id=str(i), tag=f"o{i}x{time.monotonic_ns()}") for i in range(count)]
    limits = httpx.Limits(max_connections=count + 10, max_keepalive_connections=count + 10)
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=300,
                                 limits=limits) as client:
        await asyncio.gather(*(_owui_one(client, c, spread * i / max(count, 1))
                               for i, c in enumerate(conversations)))
    return conversations


def measure(name: str, server: ModelServerProcess, run: Any, cpu: Any,
            idle: float) -> tuple[float, float, int]:
    """p95 ms, CPU ms per token, missing tokens of one round."""
    server.start_chunk_log()
    before, started = cpu(), time.monotonic()
    conversations = run()
    used = cpu() - before - idle * (time.monotonic() - started)
    values, _settled, missing = latencies(server.take_chunk_log(), conversations)
    q95 = p95(values) if values else float("nan")
    log(f"{name}: {len(values)} Tokens, p95 {q95:.1f} ms, {missing} fehlen")
    return q95, used * 1000 / max(len(values), 1), missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, nargs="+", default=[10, 50])
    args = parser.parse_args()

    stop_on_signals()
    logdir = Path(tempfile.mkdtemp(prefix="helena-peer-"))
    server = ModelServerProcess("bench.peer:answer")
    owui: subprocess.Popen | None = None
    rows: list[str] = []
    try:
        executable = ensure_open_webui()
        owui, base = start_open_webui(executable, server.url, logdir)
        token = httpx.post(f"{base}/api/v1/auths/signin", json=ADMIN, timeout=30).json()["token"]
        asyncio.run(owui_round(base, token, 2))  # warm-up
        time.sleep(1)
        owui_idle = idle_of(owui.pid)
        with running_helena("peer", server, inline_timeout=300, background_timeout=300,
                            worker_threads=max(args.conversations)) as bench:
            servers, helena_token = bench.servers, bench.token
            asyncio.run(round_(servers, helena_token, 2, timeout=300))  # warm-up
            helena_idle = idle_rate(servers)
            for count in args.conversations:
                o = measure(f"Open WebUI × {count}", server,
                            lambda c=count: asyncio.run(owui_round(base, token, c)),
                            lambda: cpu_seconds(owui.pid), owui_idle)
                h = measure(f"Helena × {count}", server,
                            lambda c=count: asyncio.run(round_(servers, helena_token, c, timeout=300))[0],
                            servers.cpu_seconds, helena_idle)
                rows.append(f"| {count:>9} | {h[0]:10.1f} | {h[1]:13.2f} | {o[0]:14.1f} | {o[1]:17.2f} "
                            f"| {h[1] / o[1] if o[1] else float('nan'):21.2f} |")
            print()
            print(f"Helena und Open WebUI ({OPEN_WEBUI}) nebeneinander: {TOKENS} Tokens je Antwort, "
                  f"20 Tokens/s, derselbe Skript-Server, {os.cpu_count()} Kerne; "
                  f"Helena: {servers.describe()}")
            print("| Gespräche | Helena p95 | Helena ms/Tok | Open WebUI p95 | Open WebUI ms/Tok "
                  "| CPU Helena ÷ Open WebUI |")
            print("|----------:|-----------:|--------------:|---------------:|------------------:|----------------------:|")
            for row in rows:
                print(row)
            print("Open WebUI: ein SSE-Strom je Antwort, kein Ereignis in der Datenbank; Helena: jedes "
                  "Ereignis gespeichert und über Redis an den Socket-Prozess (Wiederholen, Nachholen, "
                  "zweiter Tab).")
    except KeyboardInterrupt:
        log("abgebrochen")
    finally:  # Helena's processes and the database are put back by running_helena
        if owui is not None and owui.poll() is None:
            os.killpg(owui.pid, signal.SIGTERM)
            owui.wait(timeout=30)
        server.stop()


if __name__ == "__main__":
    main()
