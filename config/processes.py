"""The server processes of a deployment, as `make run` (config.launcher) and the benchmarks start them.

A Python process computes on one core at a time (the GIL): one daphne serving every socket and
every inline run, or one worker running every background run, is the limit of a machine however
many cores it has. So there may be several of each:

- HELENA_WEB_PROCESSES daphne processes serve one port. Each gets a listening socket of its own,
  bound with SO_REUSEPORT, so the kernel spreads new connections over them. A request, a socket
  and an inline run may each land in a different process: everything they share is in PostgreSQL
  and Redis (run events reach every process's sockets through Redis pub/sub).
- HELENA_WORKER_PROCESSES Celery workers, each running up to HELENA_WORKER_THREADS background runs
  at once (the threads pool, config/settings.py: a run is a task on the worker's runner loop, and
  the task thread only waits for it; see helena.tasks). The first one also runs the beat (the sweep
  of stale runs).
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass, field


def _count(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name} muss eine ganze Zahl sein, nicht „{raw}“.") from None
    if value < 1:
        raise SystemExit(f"{name} muss mindestens 1 sein.")
    return value


def web_processes() -> int:
    """One daphne per core, at most 4 (each holds up to DB_POOL_MAX_SIZE database connections);
    one where the kernel cannot spread a port's connections (no SO_REUSEPORT)."""
    if not sys.platform.startswith("linux") or not hasattr(socket, "SO_REUSEPORT"):
        return 1
    return _count("HELENA_WEB_PROCESSES", min(4, os.cpu_count() or 1))


def worker_processes() -> int:
    return _count("HELENA_WORKER_PROCESSES", 1)


RESERVED_CONNECTIONS = 10  # migrations, psql, an admin's shell, the sweep
MIN_POOL = 2  # a process with fewer waits for its own connections
LOOP_CONNECTIONS = 2  # a process's runner loop: one for its runs' events, one for their other statements


def share_database_connections(env: dict[str, str], *, processes: int, max_connections: int = 100) -> None:
    """Unless DB_POOL_MAX_SIZE is set: size each process's connection pool so that all of them fit
    into the database's max_connections: per process the pool plus the connections of its runner
    loop (helena/infra/loop_db.py), RESERVED_CONNECTIONS left for everything else, at most 20 per
    pool. A Celery worker's threads (HELENA_WORKER_THREADS) borrow from the pool only while a
    query runs, so their number does not count. Too many processes for the database: a German
    SystemExit that says what to change, instead of runs failing later."""
    if "DB_POOL_MAX_SIZE" in env:
        return
    processes = max(1, processes)
    free = max_connections - RESERVED_CONNECTIONS - LOOP_CONNECTIONS * processes
    per_process = min(20, free // processes)
    if per_process < MIN_POOL:
        raise SystemExit(
            f"{processes} Prozesse passen nicht in max_connections = {max_connections} der Datenbank (je "
            f"Prozess {MIN_POOL} Verbindungen für den Pool und {LOOP_CONNECTIONS} für die Läufe, "
            f"{RESERVED_CONNECTIONS} in Reserve). Weniger Prozesse starten (HELENA_WEB_PROCESSES, "
            f"HELENA_WORKER_PROCESSES) oder max_connections in PostgreSQL erhöhen.")
    env["DB_POOL_MAX_SIZE"] = str(per_process)


@dataclass
class Command:
    """One process to start: its argv and the listening socket it inherits, if any."""

    name: str
    argv: list[str]
    pass_fds: tuple[int, ...] = ()
    sockets: list[socket.socket] = field(default_factory=list)

    def close_inherited(self) -> None:
        """After the child started: the parent does not serve on the socket itself."""
        for sock in self.sockets:
            sock.close()


def _listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


DAPHNE = [sys.executable, "-m", "config.webserver"]  # daphne on uvloop


def web_commands(host: str, port: int, *, processes: int | None = None) -> list[Command]:
    """daphne processes sharing host:port (one with `-b -p` when there is one), each on uvloop
    (config/webserver.py)."""
    count = web_processes() if processes is None else processes
    app = "config.asgi:application"
    if count == 1:
        return [Command("daphne", [*DAPHNE, "-b", host, "-p", str(port), app])]
    commands = []
    for index in range(count):
        sock = _listening_socket(host, port)
        commands.append(Command(f"daphne-{index + 1}",
                                [*DAPHNE, "--fd", str(sock.fileno()), app],
                                pass_fds=(sock.fileno(),), sockets=[sock]))
    return commands


def worker_commands(*, processes: int | None = None, threads: int | None = None, beat_schedule: str = "",
                    loglevel: str = "INFO", quiet: bool = False) -> list[Command]:
    """Celery workers; with beat_schedule, the first one also runs the beat. `threads` overrides
    HELENA_WORKER_THREADS (the settings' worker_concurrency)."""
    count = worker_processes() if processes is None else processes
    commands = []
    for index in range(count):
        argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", loglevel,
                "-n", f"helena-{index + 1}@%h"]
        if threads is not None:
            argv += ["--concurrency", str(threads)]
        if beat_schedule and index == 0:
            argv += ["--beat", "--schedule", beat_schedule]
        if quiet:
            argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        commands.append(Command(f"celery-{index + 1}" if count > 1 else "celery", argv))
    return commands
