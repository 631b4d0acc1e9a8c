"""This process's runs: its name as an owner of runs, the runs it executes, and whether it is handing
them over (told to stop)."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import threading
from dataclasses import dataclass
from typing import Any

_name: tuple[int, str] | None = None


def owner() -> str:
    """This process as AgentRun.owner: host, pid and a nonce (a pid is reused after a restart)."""
    global _name
    if _name is None or _name[0] != os.getpid():  # a forked child is a process of its own
        _name = (os.getpid(), f"{socket.gethostname()[:80]}:{os.getpid()}:{secrets.token_hex(4)}")
    return _name[1]


@dataclass
class LocalRun:
    loop: asyncio.AbstractEventLoop
    task: asyncio.Task[Any]
    attempt: int
    lost: bool = False  # another process has taken it over: end here without a word
    settled: bool = False  # its outcome is being recorded: no longer a run to hand over or give up


_lock = threading.Lock()
_runs: dict[str, LocalRun] = {}
draining = threading.Event()  # set when the process was told to stop: hand runs over, take none


def register(run_pk: Any, attempt: int) -> LocalRun:
    """The current task executes this run (in this attempt)."""
    local = LocalRun(loop=asyncio.get_running_loop(), task=asyncio.current_task(), attempt=attempt)
    with _lock:
        _runs[str(run_pk)] = local
    return local


def forget(run_pk: Any, local: LocalRun) -> None:
    with _lock:
        if _runs.get(str(run_pk)) is local:
            del _runs[str(run_pk)]


def running() -> dict[str, LocalRun]:
    with _lock:
        return dict(_runs)


def give_up(run_pk: str) -> None:
    """Another process owns the run now: stop this process's task for it, silently."""
    with _lock:
        local = _runs.get(run_pk)
    if local is not None and not local.lost:
        local.lost = True
        local.loop.call_soon_threadsafe(local.task.cancel)
