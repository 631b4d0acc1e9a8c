"""The bounded ReAct loop: think (model turn), act (tools), observe, until an answer or a limit.

Every run ends in a defined state with exactly one `done` event: stop, stall, max_steps,
tool_cap, timeout, cancelled or error. Nothing a model or a tool does crashes the loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from helena.agent import budget
from helena.agent.acting import act, step_summary
from helena.agent.checkpoint import Checkpoint, Save, Suspended, restore, snapshot
from helena.agent.events import Emitter, done_fields, run_started_fields
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
    TRUNCATED_PROMPT,
    TRUNCATED_WARNING,
    announces_lookup,
)
from helena.agent.stall import STALL_MESSAGE, StallDetector
from helena.agent.tooling import Execute, Tool, ToolContext, ToolResult
from helena.llm.base import ChatModel, LLMError, ToolCallFormatError, Turn, Usage
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
    # Durable runs (helena/agent/checkpoint.py): the port keeping checkpoints, how many messages the
    # run started with, the time budget used before this process took over, and the calls whose
    # events the client has already seen (a resumed run repeats the calls, not their events).
    save: Save | None = None
    base: int = 0
    elapsed_before: float = 0.0
    started: float = field(default_factory=time.monotonic)
    announced: set[str] = field(default_factory=set)
    reported: set[str] = field(default_factory=set)
    answered: dict[str, str] = field(default_factory=dict)  # a successful call's key → its first call id
    # The offered tools' schemas (shared by every run, never changed): the same objects every turn
    # let the model clients reuse what they derived from them (ollama_tools).
    _schemas: tuple[tuple[str, ...], list[dict[str, Any]]] | None = None

    @property
    def offered(self) -> dict[str, Tool]:
        return {t.name: t for t in self.tools}

    def schemas(self) -> list[dict[str, Any]]:
        names = tuple(t.name for t in self.tools)
        if self._schemas is None or self._schemas[0] != names:
            self._schemas = (names, [t.offered_schema() for t in self.tools])
        return self._schemas[1]

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise _Stop("cancelled")

    async def checkpoint(self, *, pending: bool) -> None:
        if self.save is not None:
            elapsed = self.elapsed_before + time.monotonic() - self.started
            await self.save(snapshot(self, base=self.base, elapsed=elapsed, pending=pending))

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

    async def final_answer(self, prompt: str) -> None:
        """One last call without tools, so a run never ends with an empty answer."""
        await self.emitter.emit("agent_state", state="thinking", details="Formuliert die Antwort")
        self.reasked = True  # no second chance here: an English answer is better than none
        turn = await self.model_turn(with_tools=False, extra=prompt)
        self.text = turn.text.strip() or self.text
        self.messages.append({"role": "assistant", "content": turn.text})


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
    save: Save | None = None,
    resume: Checkpoint | None = None,
) -> AgentResult:
    """Run the loop over `messages` (system prompt first, the user's message last).

    `execute` runs one tool call (helena.tools.executor.execute in a run, a fake in a unit test);
    `known_names` are every tool's name, so a call of one not offered is never shown raw.

    `question` is the user's message this run answers; `run_started` carries it so that a second
    tab on the conversation shows it without a reload. `answer_language` (helena/runs/setup.py decides):
    "de" always German, an English answer held and asked again; "en" English answers go out.

    `save` keeps a checkpoint after every model turn and its calls; `resume` goes on from one (no
    second `run_started`; the caller has told the client). Suspended from a port ends the call
    without a `done`: the run goes on elsewhere (helena/agent/checkpoint.py).
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
               german_only=answer_language == "de", known_names=set(known_names), save=save,
               base=len(messages))
    if resume is None:
        await emitter.emit("run_started", **run_started_fields(
            mode=mode, tier=tier, model=model.name, provider=model.provider, max_steps=limits.max_steps,
            message=question or None))
    else:
        restore(run, resume)
        run.elapsed_before = resume.elapsed
    pending = resume.pending_calls() if resume is not None else []
    reason: FinishReason = "stop"
    error: LLMError | None = None
    cap_reached = continue_offered = False
    started = time.monotonic()
    try:
        async with asyncio.timeout(max(limits.timeout - run.elapsed_before, 1.0)):
            run.context_window = await model.context_window()
            reason = (await act(run, pending, over_cap=False) if pending else None) or await _loop(run)
    except Suspended:
        raise  # no end here: the run goes on from its checkpoint
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
                               tool=calls[0].name, summary=step_summary(run, calls))
        await run.checkpoint(pending=True)  # the calls are decided: a resumed run makes these
        reason = await act(run, calls, over_cap=over_cap)
        if reason is not None:
            return reason
