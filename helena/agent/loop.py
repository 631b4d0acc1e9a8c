"""The bounded ReAct loop: think (model turn), act (tools), observe, until an answer or a limit.

Every run ends in a defined state with exactly one `done` event: stop, stall, max_steps,
tool_cap, timeout, cancelled or error. Nothing a model or a tool does crashes the loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from helena.agent import budget
from helena.agent.events import Emitter
from helena.agent.guard import PARSE_ERROR_HINT, guard_turn
from helena.agent.stall import STALL_MESSAGE, StallDetector, canonical
from helena.llm.base import ChatModel, LLMError, ToolCall, ToolCallFormatError, Turn, Usage
from helena.tools.base import Tool, ToolContext, ToolResult

log = logging.getLogger(__name__)

Mode = Literal["inline", "background"]
FinishReason = Literal["stop", "stall", "max_steps", "tool_cap", "timeout", "cancelled", "error",
                       "waiting_on_user"]

CONTINUE_OFFER = "Ich bin noch nicht fertig. Möchtest du, dass ich im Hintergrund weitermache?"
FINAL_ANSWER_PROMPT = (
    "Du hast keine weiteren Schritte mehr. Beantworte die Frage jetzt mit dem, was du bisher "
    "herausgefunden hast, und sag offen, was noch fehlt."
)
TOOL_CAP_PROMPT = (
    "Du hast in einem Schritt mehr Werkzeuge aufgerufen als erlaubt; nur die ersten wurden "
    "ausgeführt. Antworte jetzt mit dem, was du hast."
)
# Markers of a tool call written as text: hold such text back until the guard has looked at it.
_TOOL_TEXT_MARKERS = ("<tool_call", '{"name"', "{'name'", '{"function"', "```json", "[TOOL_CALLS]",
                      "<|tool_call|>", '[{"name"', "<think>")
# Reasoning models (qwen3, deepseek-r1) may put their thinking into the content: never shown.
_THINK_RE = re.compile(r"<think>.*?(?:</think>|\Z)\s*", re.DOTALL)


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


Execute = Callable[..., Awaitable[ToolResult]]


async def _default_execute(**kwargs: Any) -> ToolResult:
    from helena.tools.executor import execute

    return await execute(**kwargs)


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
    use_guard: bool
    messages: list[dict[str, Any]]
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    partial: str = ""  # text of the turn being streamed, kept if the run is cut short
    steps: int = 0
    context_window: int = 8192
    cache: dict[tuple[str, str], ToolResult] = field(default_factory=dict)
    stall: StallDetector = field(default_factory=StallDetector)
    paused: bool = False  # a tool asked the user (ask_user); the run ends waiting for the answer
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
        """One streamed model call; text deltas go out live unless they look like a tool call."""
        messages = list(self.messages)
        if extra:
            messages.append({"role": "user", "content": extra})
        sent = budget.fit(messages, context_window=self.context_window)
        schemas = self.schemas() if with_tools and self.tools else None
        for attempt in (1, 2):
            try:
                return await self._stream(sent, schemas)
            except ToolCallFormatError:
                if attempt == 2 or not schemas:
                    raise
                sent = [*sent, {"role": "user", "content": PARSE_ERROR_HINT}]
        raise AssertionError("unreachable")

    async def _stream(self, messages: list[dict[str, Any]], schemas: list[dict] | None) -> Turn:
        turn = Turn()
        held = False
        shown = 0
        shown_text = ""
        async for chunk in self.model.stream(messages=messages, tools=schemas):
            self.check_cancel()
            if chunk.kind == "text" and chunk.text:
                turn.text += chunk.text
                self.partial = turn.text
                if self.use_guard and not held and any(m in turn.text for m in _TOOL_TEXT_MARKERS):
                    held = True
                if not held:
                    await self.emitter.emit("text", delta=turn.text[shown:])
                    shown = len(turn.text)
                    shown_text = turn.text
            elif chunk.kind == "tool_call" and chunk.tool_call is not None:
                turn.tool_calls.append(chunk.tool_call)
            elif chunk.kind == "end":
                turn.usage = chunk.usage or Usage()
                turn.finish_reason = chunk.finish_reason
        self.usage.prompt_tokens += turn.usage.prompt_tokens
        self.usage.completion_tokens += turn.usage.completion_tokens
        if self.use_guard:
            turn = guard_turn(turn, known_tools=set(self.offered) | _all_tool_names())
            turn.text = _THINK_RE.sub("", turn.text)
        if held:
            # The guard removed the tool-call text; what is left after the part already shown is
            # prose for the user.
            rest = turn.text[shown:] if turn.text[:shown] == shown_text else ""
            if rest.strip():
                await self.emitter.emit("text", delta=rest)
        return turn

    async def run_tools(self, calls: list[ToolCall]) -> None:
        """Execute one turn's calls concurrently (cached per run), report each, feed results back."""
        for call in calls:
            await self.emitter.emit("tool_call", call_id=call.id, tool=call.name,
                                    arguments=call.arguments, step=self.steps)
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
        for key, task in tasks.items():
            if task.result().ok:
                self.cache[key] = task.result()

        for call in calls:
            key = (call.name, canonical(call.arguments))
            result = tasks[key].result() if key in tasks else self.cache[key]
            observation = result.observation()
            payload = {"call_id": call.id, "tool": call.name, "ok": result.ok,
                       "summary": result.summary or ("ok" if result.ok else (result.error or "Fehler"))}
            if result.sources:
                payload["source"] = result.sources
            if not result.ok:
                payload["error"] = result.error
            await self.emitter.emit("tool_result", **payload)
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
        turn = await self.model_turn(with_tools=False, extra=prompt)
        self.text = turn.text.strip() or self.text
        self.messages.append({"role": "assistant", "content": turn.text})


def _all_tool_names() -> set[str]:
    try:
        from helena.tools.registry import all_tools

        return set(all_tools())
    except Exception:  # registry not importable in a bare unit test
        return set()


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
    cancel: asyncio.Event | None = None,
    execute: Execute | None = None,
    question: str = "",
) -> AgentResult:
    """Run the loop over `messages` (system prompt first, the user's message last).

    `question` is the user's message this run answers; `run_started` carries it so that a second
    tab on the conversation shows it without a reload.
    """
    limits = limits or LIMITS[mode]
    cancel = cancel or asyncio.Event()
    run = _Run(model=model, tools=tools, ctx=ctx, mode=mode, limits=limits, emitter=emitter,
               cancel=cancel, execute=execute or _default_execute, use_guard=model.provider == "ollama",
               messages=list(messages))
    ctx.cancel = cancel
    ctx.model, ctx.emit, ctx.offered, ctx.execute = model, emitter.emit, run.offered, run.execute
    started: dict[str, Any] = {"message": question} if question else {}
    await emitter.emit("run_started", mode=mode, tier=tier, model=model.name, provider=model.provider,
                       max_steps=limits.max_steps, **started)
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
        "done", finish_reason=reason, text=run.text,
        usage={"prompt_tokens": run.usage.prompt_tokens, "completion_tokens": run.usage.completion_tokens},
        cap_reached=cap_reached, continue_offered=continue_offered,
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
