"""`make run` / `make test` plumbing, end to end: embedded servers, daphne, Celery, clean shutdown."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psycopg
import pytest
import redis
from django.conf import settings

from tests.conftest import database_url
from tests.scripted_llm_server import ScriptedLLMServer, start_scripted_server

BASE_DIR = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _read_until(proc: subprocess.Popen, marker: str, timeout: float) -> list[str]:
    """Collect the launcher's output lines until one contains marker."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                break
            continue
        lines.append(line)
        if marker in line:
            return lines
    raise AssertionError(f"{marker!r} not seen; output:\n{''.join(lines)}")


def _admin_conninfo(dbname: str) -> dict:
    db = settings.DATABASES["default"]
    return {"host": db["HOST"] or "127.0.0.1", "port": db["PORT"] or 5432, "user": db["USER"],
            "dbname": dbname, "autocommit": True}


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(extra)
    return env


def test_embedded_servers_start_and_stop(tmp_path: Path) -> None:
    """Without DATABASE_URL / REDIS_URL the wheels' PostgreSQL and Redis run, and stop again."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "config.launcher", "services"], cwd=BASE_DIR, text=True,
        env=_clean_env(HELENA_VAR_DIR=str(tmp_path / "var")),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        lines = _read_until(proc, "REDIS_URL=", timeout=120)
        urls = dict(line.strip().split("=", 1) for line in lines if "_URL=" in line)
        database_url, redis_url = urls["DATABASE_URL"], urls["REDIS_URL"]
        # The URL means the same to libpq (psycopg, psql) as to Django: the embedded database itself.
        with psycopg.connect(database_url) as conn:
            assert conn.info.dbname == "helena" and conn.info.host.startswith(str(tmp_path))
            version = conn.execute("SHOW server_version_num").fetchone()[0]
            german = conn.execute("SELECT to_tsvector('german', 'Fristen')").fetchone()[0]
        assert int(version) >= 180000
        assert "'frist'" in german
        assert redis.Redis.from_url(redis_url).ping()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert not (tmp_path / "var" / "pgdata" / "postmaster.pid").exists()
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()


@pytest.fixture
def launcher_db() -> str:
    name = settings.DATABASES["default"]["NAME"] + "_launcher"
    with psycopg.connect(**_admin_conninfo("postgres")) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield name
    with psycopg.connect(**_admin_conninfo("postgres")) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_make_run_serves_admin_and_api_with_demo_data(launcher_db: str, tmp_path: Path) -> None:
    port = _free_port()
    model_server = start_scripted_server()
    model_server.script([{"text": "Hallo aus dem Inline-Lauf."}])
    env = _clean_env(DATABASE_URL=database_url(launcher_db), HELENA_VAR_DIR=str(tmp_path / "var"),
                     HELENA_DEMO_PASSWORD="pw-launcher", OLLAMA_HOST=model_server.url,
                     HELENA_WEB_PROCESSES="2", HELENA_RUN_TAKEOVER="true")
    for name in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"):  # as deployed: no DEBUG, its own key
        env.pop(name, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "config.launcher", "run", "--port", str(port)], cwd=BASE_DIR, text=True,
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        # As from a background shell job: SIGINT ignored on entry; Ctrl-C must still stop everything.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        output = "".join(_read_until(proc, "Beenden mit Strg+C", timeout=240))
        assert f"Helena läuft: http://127.0.0.1:{port}/" in output
        assert "pw-launcher" in output and "sachbearbeiter" in output
        assert "Kein Sprachmodell antwortet" not in output  # the scripted model server answers
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):  # daphne needs a moment to bind
            try:
                urllib.request.urlopen(f"{base}/admin/login/", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        login_page = urllib.request.urlopen(f"{base}/admin/login/", timeout=5)
        assert login_page.status == 200
        assert urllib.request.urlopen(f"{base}/static/admin/css/base.css", timeout=5).status == 200
        assert "Traceback" not in urllib.request.urlopen(f"{base}/favicon.ico", timeout=5).read().decode(
            "latin-1")  # the icon (after a redirect to the static file), no error page
        # The README's command in a second terminal: no DATABASE_URL, no SECRET_KEY — var/run.env
        # tells manage.py where the running servers are.
        second_terminal = _clean_env(HELENA_VAR_DIR=env["HELENA_VAR_DIR"])
        for name in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"):
            second_terminal.pop(name, None)
        token = subprocess.run(
            [sys.executable, "manage.py", "create_api_token", "sekretariat"], cwd=BASE_DIR,
            env=second_terminal, capture_output=True, text=True, check=True,
        ).stdout.strip()
        request = urllib.request.Request(f"{base}/api/v1/akten", headers={"Authorization": f"Bearer {token}"})
        akten = json.load(urllib.request.urlopen(request, timeout=10))
        assert len(akten) >= 1
        with psycopg.connect(**_admin_conninfo(launcher_db)) as conn:
            total = conn.execute("SELECT count(*) FROM akten_akte").fetchone()[0]
        assert total >= 6 and len(akten) < total
        request = urllib.request.Request(f"{base}/api/v1/knowledge/search?q=517%20ZPO",
                                         headers={"Authorization": f"Bearer {token}"})
        hits = json.load(urllib.request.urlopen(request, timeout=30))
        assert hits[0]["citation"] == "§ 517 ZPO"  # the bundled statutes were loaded
        # An inline run through daphne: it must start and finish after the request has ended.
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        conv = json.load(urllib.request.urlopen(urllib.request.Request(
            f"{base}/api/v1/helena/conversations", data=b"{}", headers=headers, method="POST"), timeout=10))
        message = json.dumps({"text": "Wann endet die Frist?", "mode": "inline"}).encode()
        started = json.load(urllib.request.urlopen(urllib.request.Request(
            f"{base}/api/v1/helena/conversations/{conv['id']}/messages", data=message, headers=headers,
            method="POST"), timeout=10))
        run: dict = {}
        for _ in range(100):
            run = json.load(urllib.request.urlopen(urllib.request.Request(
                f"{base}/api/v1/helena/runs/{started['run_id']}", headers=headers), timeout=10))
            if run["status"] not in ("queued", "running"):
                break
            time.sleep(0.1)
        assert run["status"] == "finished" and run["text"] == "Hallo aus dem Inline-Lauf."
        assert "2 × daphne" in output  # two processes serve the port; the requests above reached them
        # Background runs: the worker runs several at once (its tasks only wait for their runs).
        model_server.respond_with(lambda _request: {"text": "Im Hintergrund erledigt.", "delay": 1.5})
        background = []
        for i in range(3):
            conv = json.load(urllib.request.urlopen(urllib.request.Request(
                f"{base}/api/v1/helena/conversations", data=b"{}", headers=headers, method="POST"),
                timeout=10))
            message = json.dumps({"text": f"Prüfe Akte {i}", "mode": "background"}).encode()
            background.append(json.load(urllib.request.urlopen(urllib.request.Request(
                f"{base}/api/v1/helena/conversations/{conv['id']}/messages", data=message, headers=headers,
                method="POST"), timeout=10))["run_id"])
        with psycopg.connect(**_admin_conninfo(launcher_db)) as conn:
            for _ in range(300):
                rows = conn.execute("SELECT status, mode, started_at, ended_at FROM helena_agentrun "
                                    "WHERE id = ANY(%s::uuid[])", [background]).fetchall()
                if all(status not in ("queued", "running") for status, *_ in rows):
                    break
                time.sleep(0.1)
        assert [(status, mode) for status, mode, *_ in rows] == [("finished", "background")] * 3
        assert max(started for _, _, started, _ in rows) < min(ended for _, _, _, ended in rows)  # overlapped
        output += _a_killed_worker_is_started_again(proc, base=base, headers=headers, server=model_server,
                                                    dbname=launcher_db)
    finally:
        os.kill(proc.pid, signal.SIGINT)  # Ctrl-C; children must be stopped by the launcher itself
        proc.wait(timeout=90)
        model_server.stop()
    assert proc.returncode == 0
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "daphne still listening after Ctrl-C"
    var = tmp_path / "var"
    assert not (var / "run.env").exists()  # gone with the servers: no command reaches a dead one
    assert (var / "secret_key").stat().st_mode & 0o077 == 0 and len((var / "secret_key").read_text()) > 40


def _a_killed_worker_is_started_again(proc: subprocess.Popen, *, base: str, headers: dict[str, str],
                                      server: ScriptedLLMServer, dbname: str) -> str:
    """The worker killed mid-run (the OOM killer): make run starts it again, and the background run
    goes on there from its checkpoint (issue 38). The launcher's output since, up to its line."""
    def research(request: dict) -> dict:
        done = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
        if done < 6:
            return {"delay": 1.0, "tool_calls": [{"name": "calculate_frist", "arguments": {
                "start": "2026-10-01", "dauer": {"tage": done + 1}}}]}
        return {"delay": 0.5, "text": "Nach dem Neustart fertig."}

    server.respond_with(research)
    conv = json.load(urllib.request.urlopen(urllib.request.Request(
        f"{base}/api/v1/helena/conversations", data=b"{}", headers=headers, method="POST"), timeout=10))
    message = json.dumps({"text": "Recherchiere die Fristen.", "mode": "background"}).encode()
    run_id = json.load(urllib.request.urlopen(urllib.request.Request(
        f"{base}/api/v1/helena/conversations/{conv['id']}/messages", data=message, headers=headers,
        method="POST"), timeout=10))["run_id"]
    with psycopg.connect(**_admin_conninfo(dbname)) as conn:
        for _ in range(300):
            results = conn.execute("SELECT count(*) FROM helena_runevent WHERE run_id = %s AND "
                                   "type = 'tool_result'", [run_id]).fetchone()[0]
            if results >= 2:
                break
            time.sleep(0.1)
        owner = conn.execute("SELECT owner FROM helena_agentrun WHERE id = %s", [run_id]).fetchone()[0]
        os.kill(int(owner.split(":")[1]), signal.SIGKILL)
        killed = time.monotonic()
        for _ in range(900):
            status, text = conn.execute("SELECT status, text FROM helena_agentrun WHERE id = %s",
                                        [run_id]).fetchone()
            if status not in ("queued", "running"):
                break
            time.sleep(0.1)
        took = time.monotonic() - killed
        dones = conn.execute("SELECT count(*) FROM helena_runevent WHERE run_id = %s AND type = 'done'",
                             [run_id]).fetchone()[0]
    assert (status, text, dones) == ("finished", "Nach dem Neustart fertig.", 1)
    assert took < 60, f"{took:.1f} s"
    return "".join(_read_until(proc, "starte neu", timeout=5))


@pytest.mark.django_db
def test_check_models_says_in_one_line_when_no_model_answers(settings, server) -> None:
    """`make run` calls `check_models --brief`: one German line when no model server answers, nothing
    when one does; without --brief one line per tier."""
    from io import StringIO

    from django.core.management import call_command

    from helena.infra import settings_cache
    from helena.llm.router import clear_health_cache

    def run(*args: str) -> str:
        settings_cache.clear()
        clear_health_cache()
        out = StringIO()
        call_command("check_models", *args, stdout=out)
        return out.getvalue()

    settings.OLLAMA_HOST = f"http://127.0.0.1:{_free_port()}"
    brief = run("--brief")
    assert brief.strip() == (f"Hinweis: Kein Sprachmodell antwortet ({settings.OLLAMA_HOST}). Helena läuft, "
                             "kann aber erst antworten, wenn ein Modellserver erreichbar ist (README „Ollama "
                             "anbinden“, Admin → Modellstufen).")
    tier1 = f"Stufe 1: {settings.HELENA_TIER1_MODEL} auf {settings.OLLAMA_HOST}"
    assert f"{tier1} – antwortet nicht\n" in run()
    settings.OLLAMA_HOST = server.url
    assert run("--brief") == ""
    full = run()
    assert f"Stufe 1: {settings.HELENA_TIER1_MODEL} auf {server.url} – antwortet\n" in full
    assert full.endswith("Helena kann antworten.\n")


def test_manage_py_without_a_database_says_what_to_do(tmp_path: Path) -> None:
    env = _clean_env(HELENA_VAR_DIR=str(tmp_path / "var"), DEBUG="true")
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=BASE_DIR, env=env,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "DATABASE_URL fehlt. Läuft `make run`?" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1  # the hint alone

    env["DATABASE_URL"] = "sqlite:///helena.infra.db"
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=BASE_DIR, env=env,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert result.stderr.strip() == "Helena: DATABASE_URL muss auf PostgreSQL zeigen (postgres://…)."


def test_process_counts_and_connection_pools_of_a_deployment(monkeypatch: pytest.MonkeyPatch) -> None:
    from config import processes

    per_loop = processes.LOOP_CONNECTIONS
    for count in (1, 2, 5, 12, 22):  # whatever make run is told to start: pools + runner loops fit
        env: dict[str, str] = {}
        processes.share_database_connections(env, processes=count)
        used = (int(env["DB_POOL_MAX_SIZE"]) + per_loop) * count + processes.RESERVED_CONNECTIONS
        assert used <= 100 and int(env["DB_POOL_MAX_SIZE"]) >= processes.MIN_POOL
    with pytest.raises(SystemExit, match="max_connections = 100"):
        processes.share_database_connections({}, processes=23)
    env = {}
    processes.share_database_connections(env, processes=31, max_connections=300)
    assert (int(env["DB_POOL_MAX_SIZE"]) + per_loop) * 31 + processes.RESERVED_CONNECTIONS <= 300
    env = {"DB_POOL_MAX_SIZE": "7"}
    processes.share_database_connections(env, processes=5)
    assert env["DB_POOL_MAX_SIZE"] == "7"  # the operator's value stands
    env = {}
    processes.share_database_connections(env, processes=2)
    assert env["DB_POOL_MAX_SIZE"] == "20"

    monkeypatch.setenv("HELENA_WORKER_PROCESSES", "zwei")
    with pytest.raises(SystemExit, match="ganze Zahl"):
        processes.worker_processes()
    monkeypatch.setenv("HELENA_WORKER_PROCESSES", "0")
    with pytest.raises(SystemExit, match="mindestens 1"):
        processes.worker_processes()
    monkeypatch.setenv("HELENA_WORKER_PROCESSES", "2")
    workers = processes.worker_commands(beat_schedule="/tmp/schedule")
    assert [w.name for w in workers] == ["celery-1", "celery-2"]
    assert "--beat" in workers[0].argv and "--beat" not in workers[1].argv  # one beat only

    monkeypatch.setenv("HELENA_WEB_PROCESSES", "3")
    port = _free_port()
    web = processes.web_commands("127.0.0.1", port)
    try:
        assert len(web) == 3 and all("--fd" in command.argv for command in web)
    finally:
        for command in web:
            command.close_inherited()
