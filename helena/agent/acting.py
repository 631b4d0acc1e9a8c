"""Acting on a model turn: the turn's tool calls executed (concurrently, each identical call once a
run), reported to the client and fed back to the model, then judged: an end, or another turn.

A resumed run (helena/agent/checkpoint.py) repeats the calls of a turn that was cut off between its
calls and their results; what the client saw of them before is not shown again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from typing import TYPE_CHECKING

from helena.agent import budget
from helena.agent.checkpoint import Suspended
from helena.agent.events import tool_call_fields, tool_result_fields
from helena.agent.nudges import TOOL_CAP_PROMPT
from helena.agent.stall import STALL_MESSAGE, canonical
from helena.agent.tooling import ToolResult
from helena.llm.base import ToolCall

if TYPE_CHECKING:
    from helena.agent.loop import FinishReason, _Run

log = logging.getLogger(__name__)


def step_summary(run: _Run, calls: list[ToolCall]) -> str:
    labels = []
    for call in calls:
        tool = run.offered.get(call.name)
        label = (tool.label if tool and tool.label else call.name)
        query = call.arguments.get("query") if isinstance(call.arguments, dict) else None
        labels.append(f"{label}: {query}" if isinstance(query, str) and query else label)
    return f"Schritt {run.steps}/{run.limits.max_steps}: " + ", ".join(dict.fromkeys(labels)) + " …"


async def _execute(run: _Run, call: ToolCall) -> ToolResult:
    # An identical call answered before the run was resumed (its result is not cached here) goes under
    # that call's id: a draft it proposed is found again, not proposed twice.
    call_id = run.answered.get(_key_text(call), call.id)
    try:
        return await run.execute(name=call.name, arguments=call.arguments,
                                 ctx=dataclasses.replace(run.ctx, call_id=call_id), offered=run.offered)
    except Suspended:
        raise
    except Exception as exc:  # the executor reports failures itself; this is the last net
        log.exception("tool %s crashed", call.name)
        return ToolResult(ok=False, error=f"Werkzeugfehler: {type(exc).__name__}", error_code="tool_failed")


def _key_text(call: ToolCall) -> str:
    return f"{call.name}:{canonical(call.arguments)}"


async def run_tools(run: _Run, calls: list[ToolCall]) -> None:
    """Execute one turn's calls concurrently (cached per run), report each, feed results back."""
    for call in calls:
        if call.id not in run.announced:
            await run.emitter.emit("tool_call", **tool_call_fields(
                call_id=call.id, tool=call.name, arguments=call.arguments, step=run.steps))
        run.stall.record_call(call.name, call.arguments)

    # Identical calls (in this turn or earlier in the run) execute once: a repeated
    # create_draft_* must not propose the same record twice.
    fresh: dict[tuple[str, str], ToolCall] = {}
    for call in calls:
        key = (call.name, canonical(call.arguments))
        if key not in fresh and key not in run.cache:
            fresh[key] = call
    results: dict[tuple[str, str], ToolResult] = {}
    if len(fresh) == 1:  # awaited right here: a tool that never waits lets no other task run first
        [(key, call)] = fresh.items()
        results[key] = await _execute(run, call)
    elif fresh:
        done = await asyncio.gather(*(_execute(run, call) for call in fresh.values()))
        results = dict(zip(fresh, done, strict=True))
    if run.ctx.record_reads is not None and run.ctx.reads:
        await run.ctx.record_reads()  # the step's reads for the read log: one INSERT
    for key, result in results.items():
        if result.ok:
            run.cache[key] = result
    for call in calls:
        if (call.name, canonical(call.arguments)) in run.cache:
            run.answered.setdefault(_key_text(call), call.id)

    await _report(run, calls, results, set(fresh))


async def _report(run: _Run, calls: list[ToolCall], results: dict[tuple[str, str], ToolResult],
                  fresh: set[tuple[str, str]]) -> None:
    """Each call's result to the client (once: not what it saw before a resume) and to the model."""
    for call in calls:
        key = (call.name, canonical(call.arguments))
        result = results[key] if key in results else run.cache[key]
        observation = result.observation()
        shown = call.id in run.reported  # answered before the process was lost: seen already
        if not shown:
            await run.emitter.emit("tool_result", **tool_result_fields(call_id=call.id, tool=call.name,
                                                                        result=result))
        if key in fresh:  # extra events (a draft's card) once, not for the repeats
            fresh.discard(key)
            for event_type, data in ([] if shown else result.events):
                await run.emitter.emit(event_type, **data)
        if result.pause:
            run.paused = True
        content = budget.clip_tool_result(json.dumps(observation, ensure_ascii=False, default=str),
                                          context_window=run.context_window)
        run.messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                              "content": content})
        run.stall.record_result(call.name, result.ok, observation)


async def act(run: _Run, calls: list[ToolCall], *, over_cap: bool) -> FinishReason | None:
    """Execute a turn's calls and judge the outcome: a reason to end, or None to think again."""
    await run.emitter.emit("agent_state", state="executing_tool",
                           details=", ".join(dict.fromkeys(c.name for c in calls)))
    await run_tools(run, calls)
    run.check_cancel()
    if run.paused:  # ask_user: the question is out, the answer starts the next run
        await run.emitter.emit("agent_state", state="waiting_on_user")
        run.text = str(run.messages[-len(calls) - 1].get("content") or "").strip()
        return "waiting_on_user"
    if over_cap:
        await run.final_answer(TOOL_CAP_PROMPT)
        return "tool_cap"
    if run.stall.stalled:
        await run.emitter.emit("warning", code="stall", message=f"Schleife erkannt: {run.stall.reason}.")
        await run.final_answer(STALL_MESSAGE)
        return "stall"
    # The run goes on: keep where it is. Not before a pause or an end is decided — a run resumed from
    # the earlier checkpoint makes the same calls again (a question or draft found by its call id)
    # and comes to the same decision.
    await run.checkpoint(pending=False)
    return None
