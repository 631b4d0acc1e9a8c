"""One streamed turn of a real server, parsed: what both providers share.

A provider yields raw parts as its server sends them (content text, a separate reasoning field,
structured tool calls, the end); this turns them into the Chunks the agent sees: content runs
through the dialect parser, structured calls are repaired, and a server that refuses tools gets
the same turn again with prompt-based tool calling (remembered per model, helena/llm/learned.py).

A pre-filled "<think>" that is only guessed (from the model's name, or learned from an earlier
stream) never hides an answer: the output is held until "</think>" (or another family's closing
marker) confirms it, and a stream that ends with the reasoning never closed is the answer, parsed as
if nothing were pre-filled (_Guess).

A call is one call however often the turn carries it: a server's structured call and the same call
in the content (a model echoing it), or the previous turn's call written again before the answer.
An echo the answer does not follow (all the turn says, or a retry after a sentence) is passed on:
the loop then sees the repetition.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import aclosing, suppress
from dataclasses import dataclass
from typing import Any, Literal

from helena.llm import learned
from helena.llm.base import Chunk, FinishReason, ModelHTTPError, ToolCall, Usage
from helena.llm.dialects import (
    THINK_CLOSERS,
    Call,
    Fragment,
    Malformed,
    Reasoning,
    Text,
    normalize_call,
    profiles,
    render_prompt,
    tool_types,
    tools_unsupported,
)
from helena.llm.dialects.parser import StreamParser

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Raw:
    """A part as the server sent it. finish: the server's reason on the end part ("length" …)."""

    kind: Literal["content", "reasoning", "call", "cut", "end"]  # cut: a call cut off mid-arguments
    text: str = ""
    call: ToolCall | None = None
    usage: Usage | None = None
    finish: str | None = None


RawStream = Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], AsyncIterator[Raw]]


def chunks_of(events: list[Fragment]) -> list[Chunk]:
    """Parser events as the Chunks of the ChatModel protocol."""
    out = []
    for event in events:
        if isinstance(event, Text):
            out.append(Chunk(kind="text", text=event.text))
        elif isinstance(event, Reasoning):
            out.append(Chunk(kind="reasoning", text=event.text))
        elif isinstance(event, Call):
            out.append(Chunk(kind="tool_call", tool_call=event.call))
        elif isinstance(event, Malformed):
            log.warning("unreadable tool call (%s): %.300r", event.reason, event.raw)
            out.append(Chunk(kind="malformed", text=event.reason, detail=event.raw[:2000]))
    return out


async def parsed_turn(*, raw: RawStream, key: tuple[str, str, str], profile: profiles.Profile,
                      messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                      tool_names: Collection[str] | None) -> AsyncIterator[Chunk]:
    """Chunks of one turn; ends with exactly one end chunk (finish "tool_calls" if a call came)."""
    await learned.arefresh()
    profile = profiles.with_learned(profile, key)
    offered = {(tool.get("function") or {}).get("name", "") for tool in tools or []}
    names = frozenset(offered | set(tool_names or ()))
    prompt_mode = bool(tools) and not profile.native_tools
    while True:
        sent_messages = messages
        if prompt_mode:
            sent_messages = render_prompt(messages, tools or [], profile.prompt_format)
        turn = _Turn(profile, names, tool_types(tools), echoes=_answered_calls(messages, names))
        try:
            async with aclosing(raw(sent_messages, None if prompt_mode else tools)) as parts:
                async for part in parts:
                    for chunk in turn.chunks(part):
                        yield chunk
        except ModelHTTPError as exc:
            refused = tools_unsupported(exc.detail or str(exc))
            if prompt_mode or not tools or turn.produced or not refused:
                raise
            log.info("%s refuses tools (%s): prompt-based tool calling from now on", key, exc.detail[:200])
            await learned.alearn(key, profiles.NO_TOOLS,
                                 f"Der Server lehnte Werkzeuge ab (HTTP {exc.status}): {exc.detail[:200]}")
            prompt_mode = True
            continue
        for fact, why in turn.facts():
            await learned.alearn(key, fact, why)
        return


STRAY_CLOSE = "„</think>“ ohne „<think>“ in der Ausgabe: die Vorlage belegt die Überlegung vor"
NEVER_CLOSED = ("Die vermutete Überlegung wurde nie geschlossen: der Text war die Antwort; die Vermutung "
                "ist verworfen")
SERVER_REASONING = "Der Server liefert die Überlegung in einem eigenen Feld: die Ausgabe ist die Antwort"


def _call_key(call: ToolCall) -> str:
    arguments = call.arguments
    if isinstance(arguments, str):
        with suppress(ValueError):
            arguments = json.loads(arguments) if arguments.strip() else {}
    return call.name + "\0" + json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


def _answered_calls(messages: list[dict[str, Any]], names: frozenset[str]) -> frozenset[str]:
    """The calls of the last assistant message when only their results follow it: what a model
    that echoes its call would write again."""
    keys: set[str] = set()
    for message in reversed(messages):
        if message.get("role") == "tool":
            continue
        if message.get("role") == "assistant":
            for raw in message.get("tool_calls") or []:
                function = raw.get("function") or {}
                arguments = function.get("arguments") or {}
                call = ToolCall(id="", name=function.get("name", ""), arguments=arguments)
                keys.add(_call_key(normalize_call(call, names)))
        break
    return frozenset(keys)


class _Turn:
    """One attempt's state: raw parts in, Chunks out."""

    def __init__(self, profile: profiles.Profile, names: frozenset[str],
                 types: dict[str, dict[str, str]], echoes: frozenset[str] = frozenset()) -> None:
        self.echoes = echoes
        self.seen: set[str] = set()  # the calls out so far
        self.held: list[Chunk] = []  # echoes of the last turn's calls, out unless an answer follows
        self.answered = False  # text came after an echo: the echo was noise before the answer
        self.names = names
        self.types = types
        self.prefilled = profile.reasoning_prefilled
        self.parser = self._parser(prefilled=self.prefilled)
        guessed = profile.reasoning_prefilled and not profile.prefill_known
        self.guess: _Guess | None = _Guess() if guessed else None
        self.content = False  # content came (a reasoning field after it says nothing about a pre-fill)
        self.produced = False
        self.saw_call = False
        self.refuted = ""  # why a guessed pre-fill was dropped

    def _parser(self, *, prefilled: bool) -> StreamParser:
        return StreamParser(names=self.names, reasoning_first=prefilled, types=self.types)

    def facts(self) -> list[tuple[str, str]]:
        """What this turn taught about the model: (fact, why in German)."""
        out = [(flag, STRAY_CLOSE if flag == profiles.PREFILLED else "in der Ausgabe gesehen")
               for flag in self.parser.flags]
        if self.refuted:
            out.append((profiles.NOT_PREFILLED, self.refuted))
        return out

    def chunks(self, part: Raw) -> list[Chunk]:
        if part.kind == "content":
            self.content = True
            chunks = self._content(part.text)
        elif part.kind == "reasoning":
            if not self.content and self.prefilled:
                # The server took the reasoning out of the content itself: the content is the answer.
                self._reparse(prefilled=False)
                if self.guess is not None:
                    self.guess, self.refuted = None, SERVER_REASONING
            chunks = [Chunk(kind="reasoning", text=part.text)] if part.text else []
        elif part.kind == "cut":
            chunks = chunks_of([Malformed("Aufruf abgeschnitten", part.text, truncated=True)])
        elif part.kind == "call" and part.call is not None:
            chunks = [Chunk(kind="tool_call", tool_call=normalize_call(part.call, self.names))]
        else:
            truncated = part.finish == "length"
            chunks = self._ended(truncated) + chunks_of(self.parser.finish(truncated=truncated))
        chunks = self._once(chunks)
        if part.kind == "end":
            if not self.answered and not self.saw_call and not any(c.kind == "tool_call" for c in chunks):
                chunks = self.held + chunks  # the echo is all there is: the loop sees the repetition
            elif self.held:
                log.info("dropped %d echo(es) of the last turn's call(s)", len(self.held))
            called = self.saw_call or any(c.kind == "tool_call" for c in chunks)
            finish: FinishReason = ("tool_calls" if called else "length" if truncated
                                    else "error" if part.finish == "error" else "stop")
            chunks.append(Chunk(kind="end", usage=part.usage or Usage(), finish_reason=finish))
        if chunks:
            self.produced = True
            self.saw_call = self.saw_call or any(c.kind == "tool_call" for c in chunks)
        return chunks

    def _once(self, chunks: list[Chunk]) -> list[Chunk]:
        """Each call once; an echo of the last turn's call held until the end shows what it is."""
        out = []
        for chunk in chunks:
            if chunk.kind == "text" and chunk.text.strip() and self.held:
                self.answered = True
            if chunk.kind != "tool_call" or chunk.tool_call is None:
                out.append(chunk)
                continue
            key = _call_key(chunk.tool_call)
            if key in self.seen:
                continue
            self.seen.add(key)
            if key in self.echoes:
                self.held.append(chunk)
            else:
                out.append(chunk)
        return out

    def _content(self, text: str) -> list[Chunk]:
        guess = self.guess
        if guess is None:
            return chunks_of(self.parser.feed(text))
        verdict = guess.feed(text)
        if verdict == "wait":
            return []
        if verdict == "own_opener":  # the model opened "<think>" itself: nothing pre-filled this turn
            self.guess = None
            self._reparse(prefilled=False)
            return chunks_of(self.parser.feed(guess.raw))
        fresh = chunks_of(self.parser.feed(guess.raw[guess.fed:]))
        guess.fed = len(guess.raw)
        # Closed: "</think>" came, or the parser's pre-filled block ended at another closing marker.
        if verdict == "hold" and all(chunk.kind == "reasoning" for chunk in fresh):
            guess.held += fresh
            return []
        self.guess = None  # what was held goes out as reasoning, the rest live
        return [*guess.held, *fresh]

    def _reparse(self, *, prefilled: bool) -> None:
        self.parser = self._parser(prefilled=prefilled)
        self.prefilled = prefilled

    def _ended(self, truncated: bool) -> list[Chunk]:
        """At the end: a guessed pre-fill whose reasoning never closed was wrong; its text is the
        answer (what was held as reasoning is dropped and the output parsed as if nothing were
        pre-filled). A cut-off stream does not tell, so only a whole one refutes the guess."""
        guess, self.guess = self.guess, None
        if guess is None:
            return []
        self._reparse(prefilled=False)
        if guess.raw.strip() and not truncated:
            self.refuted = NEVER_CLOSED
        return chunks_of(self.parser.feed(guess.raw))


class _Guess:
    """The content of a turn under a guessed pre-fill, held until it shows which it is."""

    CLOSERS = THINK_CLOSERS  # "</think>", and what other families close their reasoning with
    OPEN = "<think>"

    def __init__(self) -> None:
        self.raw = ""
        self.fed = 0  # how much of raw went into the pre-filled parser
        self.held: list[Chunk] = []  # its chunks, not shown yet
        self.opener_possible = True  # the output may still start with the model's own "<think>"

    def feed(self, text: str) -> Literal["wait", "hold", "confirmed", "own_opener"]:
        """wait: nothing to parse yet (whitespace, or what may become "<think>"); hold: reasoning so
        far, not shown; confirmed: "</think>" came; own_opener: the output starts with "<think>"."""
        scan = max(0, len(self.raw) - max(len(close) for close in self.CLOSERS) + 1)
        self.raw += text
        if self.opener_possible:
            start = self.raw.lstrip()
            if start.startswith(self.OPEN):
                return "own_opener"
            if self.OPEN.startswith(start):
                return "wait"
            self.opener_possible = False
            scan = 0
        tail = self.raw[scan:]
        return "confirmed" if any(close in tail for close in self.CLOSERS) else "hold"
