"""The loop's part of durable runs (helena/agent/checkpoint.py): a checkpoint after every model turn
and after its calls; a run resumed from one goes on without asking the model again for calls it had
decided, executes them under their old ids, shows nothing twice, and ends with one `done`; a port
that suspends the run ends the call without a `done`. Real `ollama` client, scripted server."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync

from helena.agent.checkpoint import Checkpoint, Suspended
from helena.agent.events import Emitter
from helena.agent.loop import Limits, run_agent
from helena.agent.tooling import ToolContext
from helena.tools.executor import execute
from helena.tools.registry import all_tools
from tests.helena.agent.test_loop import LOOKUP, make_model, server, user  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)

PROMPT = [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": "Schlag nach."}]


def _run(model: Any, who: Any, *, save: Any = None, resume: Checkpoint | None = None,
         limits: Limits | None = None) -> tuple[Any, list[dict[str, Any]]]:
    emitter = Emitter(run_id="run-1")

    async def go() -> Any:
        return await run_agent(model=model, messages=list(PROMPT), tools=[LOOKUP], ctx=ToolContext(user=who),
                               emitter=emitter, execute=execute, known_names=all_tools(), save=save,
                               resume=resume, limits=limits)

    result = async_to_sync(go)()
    return result, [e.as_dict() for e in emitter.events]


def test_a_checkpoint_after_every_turn_and_after_its_calls(server, user) -> None:  # noqa: F811
    server.script([{"tool_calls": [{"name": "lookup", "arguments": {"query": "a"}}]},
                   {"tool_calls": [{"name": "lookup", "arguments": {"query": "b"}}]},
                   {"text": "Fertig."}])
    kept: list[dict[str, Any]] = []

    async def save(checkpoint: Checkpoint) -> None:
        kept.append(json.loads(json.dumps(checkpoint.as_dict())))  # what the database keeps

    result, _events = _run(make_model("ollama", server), user, save=save)
    assert result.finish_reason == "stop" and result.text == "Fertig."
    assert [(c["steps"], c["pending"]) for c in kept] == [(1, True), (1, False), (2, True), (2, False)]
    # Only the run's own messages, not the prompt it started with (that is built again).
    assert kept[0]["messages"][0]["role"] == "assistant" and len(kept[0]["messages"]) == 1
    assert [m["role"] for m in kept[-1]["messages"]] == ["assistant", "tool", "assistant", "tool"]
    assert kept[-1]["elapsed"] >= kept[0]["elapsed"] > 0


def test_a_resumed_run_makes_its_pending_calls_once_and_shows_nothing_twice(server, user) -> None:  # noqa: F811
    decided = {"role": "assistant", "content": "",
               "tool_calls": [{"id": "call_alt", "type": "function",
                               "function": {"name": "lookup", "arguments": json.dumps({"query": "frist"})}}]}
    checkpoint = Checkpoint(messages=[decided], steps=1, pending=True, text="", elapsed=1.0,
                            announced=frozenset({"call_alt"}))
    server.script([{"text": "Gefunden: FRIST."}])
    result, events = _run(make_model("ollama", server), user, resume=checkpoint)
    assert result.finish_reason == "stop" and result.text == "Gefunden: FRIST."
    kinds = [e["type"] for e in events]
    assert "run_started" not in kinds  # the run had started before
    assert "tool_call" not in kinds  # announced before the crash: not shown again
    (answered,) = [e for e in events if e["type"] == "tool_result"]
    assert answered["call_id"] == "call_alt"  # the same call, under its id
    assert kinds.count("done") == 1
    # The model was asked once: for the answer, with the pending call's result in the history.
    (request,) = server.requests_to("/api/chat")
    tools = [m for m in request["messages"] if m["role"] == "tool"]
    assert len(tools) == 1 and "FRIST" in tools[0]["content"]


def test_a_call_reported_before_the_crash_is_not_reported_again(server, user) -> None:  # noqa: F811
    decided = {"role": "assistant", "content": "",
               "tool_calls": [{"id": "c1", "type": "function",
                               "function": {"name": "lookup", "arguments": {"query": "x"}}}]}
    checkpoint = Checkpoint(messages=[decided], steps=1, pending=True,
                            announced=frozenset({"c1"}), reported=frozenset({"c1"}))
    server.script([{"text": "Erledigt."}])
    _result, events = _run(make_model("ollama", server), user, resume=checkpoint)
    assert [e["type"] for e in events if e["type"] in ("tool_call", "tool_result")] == []


def test_a_suspending_port_ends_the_call_without_a_done(server, user) -> None:  # noqa: F811
    server.script([{"tool_calls": [{"name": "lookup", "arguments": {"query": "a"}}]}, {"text": "nie"}])

    async def save(checkpoint: Checkpoint) -> None:
        if not checkpoint.pending:
            raise Suspended("handover")

    with pytest.raises(Suspended):
        _run(make_model("ollama", server), user, save=save)
    assert len(server.requests_to("/api/chat")) == 1  # stopped at the step boundary


def test_a_resumed_run_has_only_the_rest_of_its_time(server, user) -> None:  # noqa: F811
    server.script([{"text": "zu spät", "delay": 3}])
    checkpoint = Checkpoint(messages=[], steps=0, elapsed=28.5)
    began = time.monotonic()
    result, events = _run(make_model("ollama", server), user, resume=checkpoint,
                          limits=Limits(max_steps=5, timeout=30.0))
    assert result.finish_reason == "timeout"
    assert time.monotonic() - began < 2.5  # 1.5 s left, not 30
    assert [e["type"] for e in events].count("done") == 1
