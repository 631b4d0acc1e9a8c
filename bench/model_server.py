"""The scripted model server in a process of its own, as a real Ollama would be.

In the bench's own process its threads (one per streaming answer) competed for the GIL with the
bench's clients: a token the server wrote late, or a client read late, counted as Helena's latency
or overhead. Here it only shares the machine's cores, as Ollama does.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
from multiprocessing.connection import Connection
from typing import Any


def _serve(responder: str, conn: Connection) -> None:
    from tests.scripted_llm_server import start_scripted_server

    module, name = responder.split(":")
    server = start_scripted_server()
    responder_module = importlib.import_module(module)
    server.respond_with(getattr(responder_module, name))
    server.models = list(getattr(responder_module, "MODELS", []))  # what /api/tags lists
    conn.send(server.url)
    try:
        while True:
            command = conn.recv()
            if command == "log":
                server.chunk_log = []
                conn.send(None)
            elif command == "take":
                taken, server.chunk_log = server.chunk_log or [], None
                conn.send(taken)
            else:
                break
    finally:
        server.stop()


class ModelServerProcess:
    """`responder` as "module:function", a Responder (tests/scripted_llm_server.py) at module level."""

    def __init__(self, responder: str, *, timeout: float = 60) -> None:
        context = multiprocessing.get_context("spawn")  # no threads or connections of ours inherited
        self._conn, child = context.Pipe()
        self._proc = context.Process(target=_serve, args=(responder, child), name="model-server", daemon=True)
        self._proc.start()
        if not self._conn.poll(timeout):
            self.stop()
            raise SystemExit("Der Modellserver-Prozess ist nicht gestartet.")
        self.url: str = self._conn.recv()

    def start_chunk_log(self) -> None:
        """Record (epoch seconds, raw chunk) of every chunk streamed from now on."""
        self._conn.send("log")
        self._conn.recv()

    def take_chunk_log(self) -> list[tuple[float, bytes]]:
        """What was recorded since start_chunk_log(); recording stops."""
        self._conn.send("take")
        log: list[tuple[float, bytes]] = self._conn.recv()
        return log

    def stop(self) -> None:
        if self._proc.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError):
                self._conn.send("stop")
            self._proc.join(timeout=10)
            if self._proc.is_alive():
                self._proc.kill()

    def __enter__(self) -> ModelServerProcess:
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.stop()
