"""The bounded ReAct loop: think (model turn), act (tools), observe, until an answer or a limit.

Every run ends in a defined state with exactly one `done` event: stop, stall, max_steps,
tool_cap, timeout, cancelled or error. Nothing a model or a tool does crashes the loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from helena.agent import budget
from helena.agent.events import Emitter, done_fields, run_started_fields, tool_call_fields, tool_result_fields
from helena.agent.language import AnswerLanguage, Gate
from helena.agent.nudges import (
    ANSWER_PROMPT,
    CONTINUE_OFFER,
    CUT_ANSWER_WARNING,
    FINAL_ANSWER_PROMPT,
    GERMAN_PROMPT,
    GUARD_FAILED_WARNING,
    NUDGE_PROMPT,
    PARSE_ERROR_HINT,
    TOOL_CAP_PROMPT,
    TRUNCATED_PROMPT,
    TRUNCATED_WARNING,
    announces_lookup,
)
from helena.agent.stall import STALL_MESSAGE, StallDetector, canonical
from helena.agent.tooling import Execute, Tool, ToolContext, ToolResult
from helena.llm.base import ChatModel, LLMError, ToolCall, ToolCallFormatError, Turn, Usage
from helena.llm.dialects import normalize_call

log = logging.getLogger(__name__)

Mode = Literal["inline", "background"]
FinishReason = Literal["stop", "stall", "max_steps", "tool_cap", "timeout", "cancelled", "error",
                       "waiting_on_user"]

@dataclass(frozen=True)
class Limits:
    max_steps: int
    timeout: float
    max_tool_calls_per_turn: int = 8


LIMITS: dict[Mode, Limits] = {
    "inline": Limits(max_steps=5, timeout=30.0),
    "background": Limits(max_steps=20, timeout=180.0),
}


@dataclass
class AgentResult:
    finish_reason: FinishReason
    text: str
    usage: Usage
    steps: int
    messages: list[dict[str, Any]]
    cap_reached: bool = False
    continue_offered: bool = False
    error: str | None = None
    events: list[Any] = field(default_factory=list)


class _Stop(Exception):
    def __init__(self, reason: FinishReason, error: LLMError | None = None) -> None:
        self.reason = reason
        self.error = error


@dataclass
class _Run:
    model: ChatModel
    tools: list[Tool]
    ctx: ToolContext
    mode: Mode
    limits: Limits
    emitter: Emitter
    cancel: asyncio.Event
    execute: Execute
    german_only: bool  # Helena answers in German: an English answer is asked again (run_agent)
    known_names: set[str]  # every tool's name: a call of one not offered is still never shown raw
    messages: list[dict[str, Any]]
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    partial: str = ""  # text of the turn being streamed, kept if the run is cut short
    steps: int = 0
    context_window: int = 8192
    cache: dict[tuple[str, str], ToolResult] = field(default_factory=dict)
    stall: StallDetector = field(default_factory=StallDetector)
    paused: bool = False  # a tool asked the user (ask_user); the run ends waiting for the answer
    english: bool = False  # the last turn's text was English (and not shown)
    reasked: bool = False  # asked again for German (once a run): English now shows, after a note
    answer_asked: bool = False  # asked for an answer after a turn that only thought (once a run)
    nudged: bool = False  # an announced lookup without a call got its nudge (once a run)
    # The offered tools' schemas, built once per set of tools: the same list objects every turn let
    # the model clients reuse what they derived from them (ollama_tools).
    _schemas: tuple[tuple[str, ...], list[dict[str, Any]]] | None = None

    @property
    def offered(self) -> dict[str, Tool]:
        return {t.name: t for t in self.tools}

    def schemas(self) -> list[dict[str, Any]]:
        names = tuple(t.name for t in self.tools)
        if self._schemas is None or self._schemas[0] != names:
            self._schemas = (names, [t.schema() for t in self.tools])
        return self._schemas[1]

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise _Stop("cancelled")

    async def model_turn(self, *, with_tools: bool, extra: str | None = None) -> Turn:
        """One streamed model call: text goes out live, reasoning as a collapsed step, calls whole.

        A call the model wrote but that could not be read (or was cut off by the length limit) gets
        one retry with a hint; a second failure leaves the turn's `malformed` set for the loop.
        """
        messages = list(self.messages)
        if extra:
            messages.append({"role": "user", "content": extra})
        sent = budget.fit(messages, context_window=self.context_window)
        schemas = self.schemas() if with_tools and self.tools else None
        turn = Turn()
        for attempt in (1, 2):
            try:
                turn = await self._stream(sent, schemas)
            except ToolCallFormatError as exc:  # the server could not parse the model's call
                if not schemas:
                    raise
                if attempt == 2:  # like an unreadable call of ours: it counts toward escalation
                    return Turn(malformed=[str(exc)])
                sent = [*sent, {"role": "user", "content": PARSE_ERROR_HINT}]
                continue
            if not turn.malformed or turn.tool_calls or not schemas:
                return turn
            truncated = turn.finish_reason == "length"
            if truncated:
                await self.emitter.emit("warning", code="truncated", message=TRUNCATED_WARNING)
            if attempt == 1:
                sent = [*sent, {"role": "assistant", "content": turn.text},
                        {"role": "user", "content": TRUNCATED_PROMPT if truncated else PARSE_ERROR_HINT}]
        return turn

    async def _stream(self, messages: list[dict[str, Any]], schemas: list[dict] | None) -> Turn:
        turn = Turn()
        gate = Gate(active=self.german_only)
        names = set(self.offered) | self.known_names
        async for chunk in self.model.stream(messages=messages, tools=schemas, tool_names=names):
            self.check_cancel()
            if chunk.kind == "text" and chunk.text:
                turn.text += chunk.text
                self.partial = turn.text
                shown = gate.feed(chunk.text)
                if shown:
                    await self.emitter.emit("text", delta=shown)
            elif chunk.kind == "reasoning" and chunk.text:
                turn.reasoning += chunk.text
                await self.emitter.emit("reasoning", delta=chunk.text)
            elif chunk.kind == "tool_call" and chunk.tool_call is not None:
                turn.tool_calls.append(normalize_call(chunk.tool_call, names))
            elif chunk.kind == "malformed":
                turn.malformed.append(chunk.text)
            elif chunk.kind == "end":
                turn.usage = chunk.usage or Usage()
                turn.finish_reason = chunk.finish_reason
        self.usage.prompt_tokens += turn.usage.prompt_tokens
        self.usage.completion_tokens += turn.usage.completion_tokens
        rest = gate.finish(last_chance=self.reasked and not turn.tool_calls)
        if rest:
            await self.emitter.emit("text", delta=rest)
        self.english = gate.verdict == "en"
        if self.english and rest:  # no second chance: the English answer as shown, after a German note
            turn.text = rest
        return turn

    async def run_tools(self, calls: list[ToolCall]) -> None:
        """Execute one turn's calls concurrently (cached per run), report each, feed results back."""
        for call in calls:
            await self.emitter.emit("tool_call", **tool_call_fields(
                call_id=call.id, tool=call.name, arguments=call.arguments, step=self.steps))
            self.stall.record_call(call.name, call.arguments)

        async def execute(call: ToolCall) -> ToolResult:
            try:
                return await self.execute(name=call.name, arguments=call.arguments,
                                          ctx=dataclasses.replace(self.ctx, call_id=call.id),
                                          offered=self.offered)
            except Exception as exc:  # the executor reports failures itself; this is the last net
                log.exception("tool %s crashed", call.name)
                return ToolResult(ok=False, error=f"Werkzeugfehler: {type(exc).__name__}",
                                  error_code="tool_failed")

        # Identical calls (in this turn or earlier in the run) execute once: a repeated
        # create_draft_* must not propose the same record twice.
        tasks: dict[tuple[str, str], asyncio.Task[ToolResult]] = {}
        fresh: set[tuple[str, str]] = set()
        for call in calls:
            key = (call.name, canonical(call.arguments))
            if key not in tasks and key not in self.cache:
                tasks[key] = asyncio.ensure_future(execute(call))
                fresh.add(key)
        if tasks:
            await asyncio.gather(*tasks.values())
        if self.ctx.record_reads is not None and self.ctx.reads:
            await self.ctx.record_reads()  # the step's reads for the read log: one INSERT
        for key, task in tasks.items():
            if task.result().ok:
                self.cache[key] = task.result()

        for call in calls:
            key = (call.name, canonical(call.arguments))
            result = tasks[key].result() if key in tasks else self.cache[key]
            observation = result.observation()
            await self.emitter.emit("tool_result", **tool_result_fields(call_id=call.id, tool=call.name,
                                                                        result=result))
            if key in fresh:  # extra events (a draft's card) once, not for the repeats
                fresh.discard(key)
                for event_type, data in result.events:
                    await self.emitter.emit(event_type, **data)
            if result.pause:
                self.paused = True
            content = budget.clip_tool_result(json.dumps(observation, ensure_ascii=False, default=str),
                                              context_window=self.context_window)
            self.messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                                  "content": content})
            self.stall.record_result(call.name, result.ok, observation)

    async def final_answer(self, prompt: str) -> None:
        """One last call without tools, so a run never ends with an empty answer."""
        await self.emitter.emit("agent_state", state="thinking", details="Formuliert die Antwort")
        self.reasked = True  # no second chance here: an English answer is better than none
        turn = await self.model_turn(with_tools=False, extra=prompt)
        self.text = turn.text.strip() or self.text
        self.messages.append({"role": "assistant", "content": turn.text})


def _step_summary(run: _Run, calls: list[ToolCall]) -> str:
    labels = []
    for call in calls:
        tool = run.offered.get(call.name)
        label = (tool.label if tool and tool.label else call.name)
        query = call.arguments.get("query") if isinstance(call.arguments, dict) else None
        labels.append(f"{label}: {query}" if isinstance(query, str) and query else label)
    return f"Schritt {run.steps}/{run.limits.max_steps}: " + ", ".join(dict.fromkeys(labels)) + " …"


async def run_agent(
    *,
    model: ChatModel,
    messages: list[dict[str, Any]],
    tools: list[Tool],
    ctx: ToolContext,
    emitter: Emitter,
    mode: Mode = "inline",
    tier: int = 1,
    limits: Limits | None = None,
    execute: Execute,
    known_names: Collection[str] = (),
    cancel: asyncio.Event | None = None,
    question: str = "",
    answer_language: AnswerLanguage = "de",
) -> AgentResult:
    """Run the loop over `messages` (system prompt first, the user's message last).

    `execute` runs one tool call (helena.tools.executor.execute in a run, a fake in a unit test);
    `known_names` are every tool's name, so a call of one not offered is never shown raw.

    `question` is the user's message this run answers; `run_started` carries it so that a second
    tab on the conversation shows it without a reload. `answer_language` (helena/runs/setup.py decides):
    "de" always German, an English answer held and asked again; "en" English answers go out.
    """
    limits = limits or LIMITS[mode]
    cancel = cancel or asyncio.Event()
    offered = {t.name: t for t in tools}
    # The tools' view of this run: the caller's context (who, which Akte, the run's ports) plus what
    # a meta tool needs to think and act within the run. A copy: the caller's stays as it was.
    ctx = dataclasses.replace(ctx, cancel=cancel, model=model, emit=emitter.emit, offered=offered,
                              execute=execute)
    run = _Run(model=model, tools=tools, ctx=ctx, mode=mode, limits=limits, emitter=emitter,
               cancel=cancel, execute=execute, messages=list(messages),
               german_only=answer_language == "de", known_names=set(known_names))
    await emitter.emit("run_started", **run_started_fields(
        mode=mode, tier=tier, model=model.name, provider=model.provider, max_steps=limits.max_steps,
        message=question or None))
    reason: FinishReason = "stop"
    error: LLMError | None = None
    cap_reached = continue_offered = False
    started = time.monotonic()
    try:
        async with asyncio.timeout(limits.timeout):
            run.context_window = await model.context_window()
            reason = await _loop(run)
    except _Stop as stop:
        reason, error = stop.reason, stop.error
    except TimeoutError:
        reason = "timeout"
    except LLMError as exc:
        reason, error = "error", exc
    except Exception as exc:  # never let a bug leave a run without its `done`
        log.exception("agent loop failed")
        reason, error = "error", LLMError("Bei der Bearbeitung ist ein interner Fehler aufgetreten.",
                                          detail=repr(exc))
    if reason in ("max_steps", "tool_cap"):
        cap_reached = True
        if mode == "inline" and reason == "max_steps":
            continue_offered = True
            run.text = f"{run.text}\n\n{CONTINUE_OFFER}".strip()
    if reason in ("timeout", "cancelled") and not run.text:
        run.text = run.partial.strip()
    if reason == "timeout" and not run.text:
        run.text = "Die Zeit für diese Anfrage ist abgelaufen, bevor ich eine Antwort formulieren konnte."
    if error is not None:
        await emitter.emit("error", code=error.code, message=str(error))
    await emitter.emit("agent_state", state="idle")
    await emitter.emit(
        "done", **done_fields(finish_reason=reason, text=run.text, prompt_tokens=run.usage.prompt_tokens,
                              completion_tokens=run.usage.completion_tokens, cap_reached=cap_reached,
                              continue_offered=continue_offered),
    )
    log.info("run %s finished: %s after %d steps in %.1fs", emitter.run_id, reason, run.steps,
             time.monotonic() - started)
    return AgentResult(finish_reason=reason, text=run.text, usage=run.usage, steps=run.steps,
                       messages=run.messages, cap_reached=cap_reached, continue_offered=continue_offered,
                       error=str(error) if error else None, events=list(emitter.events))


async def _loop(run: _Run) -> FinishReason:
    while True:
        run.check_cancel()
        if run.steps >= run.limits.max_steps:
            await run.final_answer(FINAL_ANSWER_PROMPT)
            return "max_steps"
        run.steps += 1
        await run.emitter.emit("agent_state", state="thinking")
        turn = await run.model_turn(with_tools=True)
        run.check_cancel()
        if not turn.tool_calls:
            if turn.malformed:  # the retry did not help either: the next tier may (escalation)
                await run.emitter.emit("warning", code="tool_call_format", message=GUARD_FAILED_WARNING)
                await run.final_answer(STALL_MESSAGE)
                return "stall"
            silent = not turn.text.strip() and bool(turn.reasoning.strip())  # thought, never answered
            if (run.english and not run.reasked) or (silent and not run.answer_asked):
                run.reasked, run.answer_asked = run.reasked or run.english, run.answer_asked or silent
                run.messages += [{"role": "assistant", "content": turn.text},
                                 {"role": "user", "content": GERMAN_PROMPT if run.english else ANSWER_PROMPT}]
                continue
            if run.tools and not run.nudged and announces_lookup(turn.text):
                run.nudged = True
                run.messages += [{"role": "assistant", "content": turn.text},
                                 {"role": "user", "content": NUDGE_PROMPT}]
                continue
            if turn.finish_reason == "length":
                await run.emitter.emit("warning", code="truncated", message=CUT_ANSWER_WARNING)
            run.text = turn.text.strip()
            run.messages.append({"role": "assistant", "content": turn.text})
            return "stop"
        calls = turn.tool_calls
        over_cap = len(calls) > run.limits.max_tool_calls_per_turn
        if over_cap:
            await run.emitter.emit(
                "warning", code="tool_cap",
                message=f"Zu viele Werkzeugaufrufe in einem Schritt ({len(calls)}); "
                        f"nur die ersten {run.limits.max_tool_calls_per_turn} werden ausgeführt.",
            )
            calls = calls[: run.limits.max_tool_calls_per_turn]
        if not run.english:  # an English preamble to a call was not shown and is not the answer
            run.text = turn.text.strip() or run.text
        run.messages.append({"role": "assistant", "content": turn.text or "",
                             "tool_calls": [c.as_message() for c in calls]})
        await run.emitter.emit("step", step=run.steps, max_steps=run.limits.max_steps,
                               tool=calls[0].name, summary=_step_summary(run, calls))
        await run.emitter.emit("agent_state", state="executing_tool",
                               details=", ".join(dict.fromkeys(c.name for c in calls)))
        await run.run_tools(calls)
        run.check_cancel()
        if run.paused:  # ask_user: the question is out, the answer starts the next run
            await run.emitter.emit("agent_state", state="waiting_on_user")
            run.text = turn.text.strip()
            return "waiting_on_user"
        if over_cap:
            await run.final_answer(TOOL_CAP_PROMPT)
            return "tool_cap"
        if run.stall.stalled:
            await run.emitter.emit("warning", code="stall", message=f"Schleife erkannt: {run.stall.reason}.")
            await run.final_answer(STALL_MESSAGE)
            return "stall"
