"""One task of the model check through the real agent loop, measured and judged.

The loop is helena.agent.loop.run_agent with the real system prompt and the registry's tools (their
answers from the Prüfakte); the model is the one a run of the tier gets (the service resolves and
books it). On the way, every model call is timed (first token, tokens per second) and the loop's own
events say which calls it recognised, in which turn, and what the user would have read.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Collection
from dataclasses import asdict, dataclass, field
from typing import Any

from akten.fristen import format_datum
from helena.agent.events import Emitter, Event
from helena.agent.language import ENGLISH_ONLY_NOTE, language_of
from helena.agent.loop import LIMITS, Limits, run_agent
from helena.agent.nudges import GERMAN_PROMPT, NUDGE_PROMPT
from helena.agent.prompts import system_prompt
from helena.agent.tooling import ToolContext
from helena.llm.base import ChatModel, Chunk, LLMError, ModelHTTPError, ModelUnavailable
from helena.llm.wrappers.base import WrapperModel
from helena.model_check.pruefakte import AKTE_ID, Pruefakte, Werkzeugkasten
from helena.model_check.tasks import Task
from helena.tools.registry import all_tools

MAX_STEPS = 6
USER_NAME = "Kim Beispiel"  # the made-up colleague who asks
CHAT_SECONDS = LIMITS["inline"].timeout  # the loop's default; the check reads the admin's setting

# Markup a dialect parser should have taken out, and the meta-talk of a model thinking aloud.
MARKUP_RE = re.compile(
    r"</?tool_call>|</?think>|<\|[a-z_]+\|>|\[/?(?:TOOL_CALLS|THINK|ARGS)\]|<function[=>]|<｜|```tool_code"
    r"|\{\s*\"name\"\s*:\s*\"[a-z_]+\"\s*,\s*\"(?:arguments|parameters)\"")
REASONING_RE = re.compile(
    r"\b(?:the user (?:wants|asks|is asking|said)|let me (?:think|check)|i need to (?:call|use|check)"
    r"|der (?:nutzer|benutzer|anwender) (?:möchte|fragt|will))\b", re.I)


@dataclass
class ModelCall:
    """One streamed model call, timed."""

    first_token: float | None = None  # seconds from the request to the first text, reasoning or call
    duration: float = 0.0
    tokens: int = 0  # completion tokens as the server counts them (else the chunks)
    chunks: int = 0
    streamed: bool = False  # text or reasoning came in pieces (a call-only turn has no speed to measure)
    reasoning_chars: int = 0


class MeasuringModel(WrapperModel):
    """Passes the stream through and times it: the first token and the tokens per second."""

    def __init__(self, inner: ChatModel) -> None:
        super().__init__(inner)
        self.calls: list[ModelCall] = []
        self.error: LLMError | None = None  # the last model error (its status, whether it was a timeout)

    async def stream(self, *, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                     temperature: float | None = None,
                     tool_names: Collection[str] | None = None) -> AsyncIterator[Chunk]:
        started = time.monotonic()
        call = ModelCall()
        self.calls.append(call)
        chunks = self.inner.stream(messages=messages, tools=tools, temperature=temperature,
                                   tool_names=tool_names)
        try:
            async for chunk in chunks:
                now = time.monotonic() - started
                if (chunk.kind in ("text", "reasoning") and chunk.text) or chunk.kind == "tool_call":
                    call.first_token = now if call.first_token is None else call.first_token
                    call.chunks += 1
                    call.streamed = call.streamed or chunk.kind != "tool_call"
                if chunk.kind == "reasoning":
                    call.reasoning_chars += len(chunk.text)
                if chunk.kind == "end":
                    call.tokens = (chunk.usage.completion_tokens if chunk.usage else 0) or call.chunks
                    call.duration = now
                yield chunk
        except LLMError as exc:
            self.error = exc
            raise
        finally:
            call.duration = call.duration or time.monotonic() - started
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()


@dataclass
class TaskResult:
    """What one task showed; German texts for the report."""

    key: str
    title: str
    tier2: bool
    finish_reason: str
    answer: str
    elapsed: float
    calls: list[dict[str, Any]] = field(default_factory=list)  # name, arguments, step, ok, error
    calls_ok: bool | None = None  # None: the task does not judge calls
    call_problem: str = ""
    german: bool | None = None  # None: there was no answer
    leak: str = ""  # markup or reasoning the user would have read
    answer_ok: bool = False
    answer_problem: str = ""
    error: str = ""
    error_code: str = ""
    error_status: int | None = None  # the HTTP status of a model error (404: not pulled, 401: the key)
    error_timeout: bool = False  # the model did not answer in time (the loop's limit or the client's)
    too_slow: str = ""  # tier 1: longer than a chat run may take (German, with the admin's limit)
    chat_seconds: float = CHAT_SECONDS  # the admin's limit of a chat run when the task ran
    first_token: float | None = None
    tokens_per_second: float | None = None
    reasoning_chars: int = 0
    malformed: bool = False  # a call could not be read (the dialect may be wrong)
    notes: list[str] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        """Solved, however long it took."""
        return (self.calls_ok is not False and self.german is True and not self.leak and self.answer_ok
                and not self.error)

    @property
    def passed(self) -> bool:
        return self.solved and not self.too_slow

    @property
    def silent(self) -> bool:
        """The model gave nothing at all: no token, no call."""
        return self.first_token is None and not self.calls

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed}


async def run_task(task: Task, *, model: ChatModel, akte: Pruefakte, tier: int,
                   chat_seconds: float = CHAT_SECONDS) -> TaskResult:
    """The task as one run of the loop; never raises for what the model does. `chat_seconds` is the
    admin's limit of a chat run (HelenaSettings.inline_timeout_s): a tier-1 task that takes longer
    fails, as a lawyer's chat would have been cut off."""
    box = Werkzeugkasten(akte, fail_first=task.fail_first)
    tools = box.tools()
    prompt = system_prompt(
        tools=tools, today=format_datum(akte.today), user_name=USER_NAME, role="ANWALT",
        akte=akte.prompt_facts() if task.akte else None, context_type="akte" if task.akte else "global",
        not_set_up=box.not_set_up(), answer_language="de")
    measuring = MeasuringModel(model)
    emitter = Emitter(run_id=f"modellpruefung-{task.key}")
    started = time.monotonic()
    result = await run_agent(
        model=measuring,
        messages=[{"role": "system", "content": prompt}, {"role": "user", "content": task.prompt}],
        tools=tools, ctx=ToolContext(user=None, akte_id=int(AKTE_ID) if task.akte else None), emitter=emitter,
        mode="background", tier=tier, limits=Limits(max_steps=MAX_STEPS, timeout=task.timeout),
        execute=box.execute, known_names=frozenset(all_tools()), question=task.prompt,
        # Always German (seed 001), as the firm's default: the English question tests exactly this.
        answer_language="de")
    outcome = TaskResult(key=task.key, title=task.title, tier2=task.tier2, finish_reason=result.finish_reason,
                         answer=result.text.strip(), elapsed=time.monotonic() - started,
                         chat_seconds=chat_seconds)
    _judge(outcome, task=task, events=emitter.events, messages=result.messages)
    _model_error(outcome, measuring.error)
    _measure(outcome, measuring.calls)
    _time(outcome, tier=tier, chat_seconds=chat_seconds)
    return outcome


def _model_error(outcome: TaskResult, error: LLMError | None) -> None:
    if error is None or outcome.error_code == "timeout":
        return
    if isinstance(error, ModelHTTPError):
        outcome.error_status = error.status
    if isinstance(error, ModelUnavailable) and "timeout" in error.detail.casefold():
        outcome.error_timeout = True  # the client gave up waiting (httpx ReadTimeout, APITimeoutError)


def _judge(outcome: TaskResult, *, task: Task, events: list[Event], messages: list[dict[str, Any]]) -> None:
    outcome.calls = calls_of(events)
    outcome.calls_ok, outcome.call_problem = check_calls(task, outcome.calls)
    if task.same_turn and outcome.calls_ok:
        steps = {c["step"] for c in outcome.calls}
        if len(steps) > 1:
            outcome.notes.append("Aufrufe nacheinander statt in einem Zug")
    for event in events:
        if event.type == "error":
            outcome.error = str(event.data.get("message", ""))
            outcome.error_code = str(event.data.get("code", ""))
        elif event.type == "warning" and event.data.get("code") in ("tool_call_format", "truncated"):
            outcome.malformed = True
    if outcome.finish_reason == "timeout":
        outcome.error, outcome.error_code = f"Zeitlimit ({task.timeout:.0f} s) überschritten", "timeout"
        outcome.error_timeout = True
    shown = "".join(str(e.data.get("delta", "")) for e in events if e.type == "text")
    outcome.leak = leak_in(f"{shown}\n{outcome.answer}")
    if outcome.answer:  # an English answer the loop let through comes after a German note
        outcome.german = (not outcome.answer.startswith(ENGLISH_ONLY_NOTE)
                          and language_of(outcome.answer, final=True) == "de")
    outcome.answer_ok = bool(outcome.answer) and task.answer(outcome.answer)
    if not outcome.answer_ok:
        outcome.answer_problem = f"nennt nicht {task.answer_wanted}" if outcome.answer else "keine Antwort"
    if outcome.malformed:
        outcome.notes.append("ein Aufruf war nicht lesbar")
    if any(m.get("content") == NUDGE_PROMPT for m in messages):
        outcome.notes.append("kündigte einen Aufruf nur an")
    if any(m.get("content") == GERMAN_PROMPT for m in messages) and outcome.german:
        outcome.notes.append("erst auf Nachfrage auf Deutsch")


def _measure(outcome: TaskResult, calls: list[ModelCall]) -> None:
    """The first token, and tokens per second over the turns that streamed text or reasoning only: a
    turn that is nothing but a call comes in one piece at its end, and its tokens over the moment
    between its first and last chunk would make a crawling model look fast."""
    timed = [c for c in calls if c.first_token is not None]
    if timed:
        outcome.first_token = timed[0].first_token
    streamed = [c for c in timed if c.streamed]
    generating = sum(max(c.duration - (c.first_token or 0.0), 0.0) for c in streamed)
    tokens = sum(c.tokens for c in streamed)
    outcome.tokens_per_second = tokens / generating if generating > 0 and tokens else None
    outcome.reasoning_chars = sum(c.reasoning_chars for c in calls)


def _time(outcome: TaskResult, *, tier: int, chat_seconds: float) -> None:
    """Longer than a chat run may take: tier 1 serves the chat, so there the task fails; elsewhere a
    note. The tasks tier 1 does not need (the long text, several steps) run in the background."""
    if outcome.elapsed <= chat_seconds or outcome.tier2:
        return
    if tier == 1:
        outcome.too_slow = (f"dauerte {outcome.elapsed:.0f} s, ein Chat-Lauf darf {chat_seconds:.0f} s "
                            "(Helena-Einstellungen → Zeitlimit im Chat)")
    else:
        outcome.notes.append(f"länger als ein Chat-Lauf dauern darf ({chat_seconds:.0f} s)")


def calls_of(events: list[Event]) -> list[dict[str, Any]]:
    """The calls the loop recognised, in order, with the turn (step) and whether the tool answered."""
    calls: list[dict[str, Any]] = []
    pending: dict[str, dict[str, Any]] = {}  # a server may reuse an id in the next turn: the latest counts
    for event in events:
        if event.type == "tool_call":
            call = {"name": event.data["tool"], "arguments": event.data["arguments"],
                    "step": event.data["step"], "ok": None, "error": ""}
            calls.append(call)
            pending[event.data["call_id"]] = call
        elif event.type == "tool_result" and event.data.get("call_id") in pending:
            answered = pending[event.data["call_id"]]
            answered.update(ok=event.data.get("ok"), error=event.data.get("error") or "")
    return calls


def check_calls(task: Task, calls: list[dict[str, Any]]) -> tuple[bool | None, str]:
    """Were the calls the task needs made, with the right arguments? (ok, what was wrong, German)"""
    if task.no_tool:
        names = ", ".join(dict.fromkeys(c["name"] for c in calls))
        return (False, f"rief {names} auf, obwohl kein Werkzeug nötig war") if calls else (True, "")
    if not task.calls:
        return None, ""
    if not calls:
        return False, "kein Werkzeugaufruf (erwartet: " + "; ".join(e.wanted for e in task.calls) + ")"
    failed = next((i for i, c in enumerate(calls) if c["ok"] is False), None)
    problems = []
    for expected in task.calls:
        candidates = [c for i, c in enumerate(calls) if c["name"] in expected.tools
                      and (not expected.after_error or (failed is not None and i > failed))]
        if any(isinstance(c["arguments"], dict) and not expected.check(c["arguments"]) for c in candidates):
            continue
        if candidates:
            last = candidates[-1]
            wrong = (expected.check(last["arguments"]) if isinstance(last["arguments"], dict)
                     else "Argumente nicht lesbar")
            problems.append(f"{last['name']}: {wrong}")
        else:
            problems.append(f"fehlt: {expected.wanted}")
    return (not problems), "; ".join(problems)


def leak_in(text: str) -> str:
    """What of a model's markup or thinking aloud a text shows (German), or ""."""
    markup = MARKUP_RE.search(text)
    if markup:
        return f"Markup „{markup.group(0)[:30]}“"
    thinking = REASONING_RE.search(text)
    return f"Überlegung („{thinking.group(0)}“)" if thinking else ""
