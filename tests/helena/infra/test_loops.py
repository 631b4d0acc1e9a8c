"""The loops that live as long as their process (daphne's, the runners') run on uvloop unless the
admin turns it off (helena/infra/loops.py, config/webserver.py)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest

from config.processes import DAPHNE
from helena.infra.loops import new_loop
from helena.runs import dispatch

uvloop = pytest.importorskip("uvloop")  # none for Windows: there the loops stay asyncio's


@pytest.mark.parametrize(("setting", "expected"), [(None, uvloop.Loop), ("0", asyncio.SelectorEventLoop),
                                                    ("off", asyncio.SelectorEventLoop)])
def test_new_loop_is_uvloop_unless_turned_off(monkeypatch, setting, expected) -> None:
    if setting is None:
        monkeypatch.delenv("HELENA_UVLOOP", raising=False)
    else:
        monkeypatch.setenv("HELENA_UVLOOP", setting)
    loop = new_loop()
    try:
        assert type(loop) is expected or isinstance(loop, expected)
        assert loop.run_until_complete(asyncio.sleep(0, result="ok")) == "ok"
    finally:
        loop.close()


PROBE = """
import runpy, sys, types

def entrypoint():  # instead of serving: the loop under the reactor daphne.server runs on
    import daphne.server
    from twisted.internet import reactor
    print(type(reactor._asyncioEventloop).__module__)

cli = types.ModuleType("daphne.cli")
cli.CommandLineInterface = types.SimpleNamespace(entrypoint=entrypoint)
sys.modules["daphne.cli"] = cli
runpy.run_module("config.webserver", run_name="__main__")
"""


@pytest.mark.parametrize(("setting", "module"), [("1", "uvloop"), ("0", "asyncio.unix_events")])
def test_daphne_started_as_make_run_does_runs_on_the_loop_chosen(setting, module) -> None:
    assert DAPHNE[1:] == ["-m", "config.webserver"]
    env = {**os.environ, "HELENA_UVLOOP": setting}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == module


def test_the_runner_runs_on_uvloop_and_stops_before_the_interpreter_winds_down(monkeypatch) -> None:
    """The loop of inline runs (and of a worker's runs): uvloop's; at exit it is stopped and its
    thread ended (dispatch._stop_at_exit, registered with atexit), not left running into the
    interpreter's finalisation."""
    monkeypatch.delenv("HELENA_UVLOOP", raising=False)
    monkeypatch.setattr(dispatch.watch, "start", lambda **_kwargs: None)  # no heartbeat thread here
    registered: list[tuple] = []
    monkeypatch.setattr(dispatch.atexit, "register", lambda *args: registered.append(args))
    runner = dispatch.InlineRunner()

    async def loop_type() -> type:
        return type(asyncio.get_running_loop())

    assert runner.submit(loop_type()).result(10) is uvloop.Loop
    [(stop, loop, thread)] = registered
    assert isinstance(thread, threading.Thread) and thread.is_alive()
    stop(loop, thread)
    assert not thread.is_alive() and not loop.is_running()
    loop.close()
