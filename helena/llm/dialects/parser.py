"""The streaming parser: model output in, answer text, reasoning and tool calls out.

Text is released the moment it cannot be the start of any dialect's marker; at a possible marker
only the shortest suffix that could still grow into one is held, and released as soon as it is
decided. Every dialect is always on (small models mix formats; markup of any kind must never be
shown), so the profile only says whether the output starts inside a reasoning block. Markup no
family claims is read by its words (_fallback), and an offered tool's name is a marker too
(_names): it is held until what follows says call or prose, so it never flashes as text before a
call. A call repeated with the same arguments in one answer (a model echoing its call) is one call.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Collection, Iterable

from helena.llm.dialects import (
    _fallback,
    _names,
    _think,
    _tokens,
    deepseek,
    gemma,
    gemma4,
    harmony,
    hermes,
    llama,
    mistral,
    qwen3_coder,
)
from helena.llm.dialects._base import (
    REJECT,
    Block,
    Call,
    Ctx,
    Emit,
    Fragment,
    Malformed,
    Opener,
    Reasoning,
    Text,
)

ALL_OPENERS: tuple[Opener, ...] = (
    *_think.OPENERS, *hermes.OPENERS, *qwen3_coder.OPENERS, *llama.OPENERS, *gemma.OPENERS,
    *gemma4.OPENERS, *mistral.OPENERS, *deepseek.OPENERS, *harmony.OPENERS, *_tokens.OPENERS,
    *_fallback.OPENERS,
)
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-")


Tables = tuple[dict[str, list[Opener]], re.Pattern[str], frozenset[str]]


_TABLES: dict[tuple[frozenset[str], int], Tables] = {}


def _tables(names: frozenset[str], openers: tuple[Opener, ...]) -> Tables:
    """Openers by first character, the pattern finding possible markers (a tool's name among them)
    and the characters that start a marker: built once per set of tools for the parser's own
    openers (a firm's tools are the same every turn)."""
    active = [o for o in openers if names or not o.needs_tools]
    # Markers that start with a letter (a tool's name, "functools", Granite's sentence) count where a
    # word starts, found by one trie; the others by their first character.
    marker_chars = "".join(sorted({o.literal[0] for o in active if not o.literal[0].isalpha()}))
    words = [*_names.literals(names), *(o.literal for o in active if o.literal[0].isalpha())]
    by_char: dict[str, list[Opener]] = {}
    for opener in sorted([*active, *_names.openers(names)], key=lambda o: -len(o.literal)):
        by_char.setdefault(opener.literal[0], []).append(opener)
    pattern = "[" + re.escape(marker_chars) + "]"
    if words:  # a name is a marker where a word starts (at the buffer's start: checked in _open)
        pattern += "|" + _names.pattern(words)
    return by_char, re.compile(pattern), frozenset(marker_chars)


class StreamParser:
    """Feed text as it streams (feed), then finish(); each returns the events decided so far.

    `names`: the tools whose calls count when written without markup (bare JSON, code fences).
    `reasoning_first`: the chat template pre-filled "<think>", so the output starts as reasoning.
    After finish(), `flags` tells what was learned about the model (e.g. "reasoning_prefilled").
    """

    def __init__(self, *, names: Collection[str] = (), reasoning_first: bool = False,
                 types: dict[str, dict[str, str]] | None = None,
                 openers: Iterable[Opener] = ALL_OPENERS) -> None:
        self._ctx = Ctx(names=frozenset(names), types=types or {}, nested=StreamParser)
        key = (self._ctx.names, id(openers))
        tables = _TABLES.get(key) if openers is ALL_OPENERS else None
        if tables is None:
            tables = _tables(self._ctx.names, tuple(openers))
            if openers is ALL_OPENERS and len(_TABLES) < 64:
                _TABLES[key] = tables
        self._by_char, self._candidates, self._marker_chars = tables
        self._buf = ""
        self._last = ""  # the last character out of the buffer: whether a name there starts a word
        self._block: Block | None = None
        if reasoning_first:
            self._block = _think.ThinkBlock(self._ctx, "<think>", prefilled=True)
        self._calls: set[str] = set()
        self._shown = False  # answer text other than whitespace is out
        self._blank_line = True  # the answer's current line holds only whitespace so far
        self._noted = 0  # out[_noted:] not yet looked at for the two above
        self._wrapped: frozenset[str] = frozenset()
        self.flags: set[str] = set()
        self.finished = False

    def feed(self, text: str) -> list[Fragment]:
        if not text:
            return []
        self._buf += text
        return self._drain(final=False)

    def finish(self, *, truncated: bool = False) -> list[Fragment]:
        """End of stream; `truncated`: the server cut the output off (an open call is then broken)."""
        if self.finished:
            return []
        self.finished = True
        if truncated:
            self._ctx = dataclasses.replace(self._ctx, truncated=True)
            if self._block is not None:
                self._block.ctx = dataclasses.replace(self._block.ctx, truncated=True)
        return self._drain(final=True)

    # ------------------------------------------------------------------------------------------

    def _match(self, pos: int, final: bool) -> Opener | bool | None:
        """The opener that fully matches at pos (longest first), True to wait, None if none can."""
        buf = self._buf
        rest = len(buf) - pos
        waiting = False
        for opener in self._by_char.get(buf[pos], ()):
            literal = opener.literal
            if rest >= len(literal):
                if buf.startswith(literal, pos):
                    return True if waiting else opener
            elif not final and literal.startswith(buf[pos:]):
                waiting = True  # a longer marker may still be written here
        return True if waiting else None

    def _drain(self, *, final: bool) -> list[Fragment]:
        out: list[Fragment] = []
        self._noted = 0
        while self._buf:
            block = self._block if self._block is not None else self._open(out, final)
            if block is None:
                break
            outcome = block.step(self._buf, final)
            if outcome is REJECT:
                _text(out, self._buf[0])
                self._last = self._buf[0]
                self._buf = self._buf[1:]
                self._block = None
                continue
            if outcome is None:
                if final:  # a block that cannot decide at the end: its text is markup
                    out.append(Malformed("Ende der Ausgabe", self._buf, truncated=self._ctx.truncated))
                    self._buf = ""
                    self._block = None
                break
            assert isinstance(outcome, Emit)
            self._take(block, outcome, out)
            if not (outcome.done or outcome.consumed or outcome.events or final):
                break  # the block waits for more text
        if final and self._block is not None:  # e.g. reasoning that never closed
            outcome = self._block.step("", True)
            if isinstance(outcome, Emit):
                for event in outcome.events:
                    self._emit(out, event)
            self._block = None
        self._note(out)
        return out

    def _open(self, out: list[Fragment], final: bool) -> Block | None:
        """The block that starts at the next possible marker; the text before it goes out. None when
        nothing is to be opened now: all text went out, or a possible marker waits for more text."""
        opener: Opener | bool | None = None
        pos = -1
        buf = self._buf
        for found in self._candidates.finditer(buf):
            start = found.start()
            before = buf[start - 1] if start else self._last
            if buf[start] not in self._marker_chars and before in _WORD_CHARS:
                continue  # a name inside a word ("xread_akte") is none
            opener = self._match(start, final)
            if opener is not None:
                pos = start
                break
        if pos < 0:  # the common case: plain text, all of it out
            _append(out, Text(buf))
            self._last = buf[-1]
            self._buf = ""
            return None
        if pos:
            self._release(out, buf[:pos])
        if opener is True:
            return None  # hold the possible marker until more text decides it
        assert isinstance(opener, Opener)
        self._note(out)
        ctx = dataclasses.replace(self._ctx, at_start=not self._shown, at_line=self._blank_line,
                                  wrapped=self._wrapped)
        self._block = opener.make(ctx, opener.literal)
        return self._block

    def _note(self, out: list[Fragment]) -> None:
        """Whether answer text is out, and whether its current line is blank so far. The last event
        may have grown since it was looked at (text is joined); looking at it again is harmless."""
        for event in out[self._noted:]:
            if isinstance(event, Text):
                text = event.text
                self._shown = self._shown or bool(text.strip())
                newline = text.rfind("\n")
                tail = text[newline + 1:] if newline >= 0 else text
                self._blank_line = (newline >= 0 or self._blank_line) and (not tail or tail.isspace())
            elif isinstance(event, Call | Malformed):
                self._blank_line = True  # a call is gone from the text: what follows starts afresh
        self._noted = max(len(out) - 1, 0)

    def _release(self, out: list[Fragment], text: str) -> None:
        _text(out, text)
        self._last = text[-1]
        self._buf = self._buf[len(text):]

    def _emit(self, out: list[Fragment], event: Fragment) -> None:
        """An event out; a call identical to one already out (an echo) is that call, not another."""
        if isinstance(event, Call):
            arguments = json.dumps(event.call.arguments, sort_keys=True, ensure_ascii=False, default=str)
            key = f"{event.call.name}\0{arguments}"
            if key in self._calls:
                return
            self._calls.add(key)
        _append(out, event)

    def _take(self, block: Block, outcome: Emit, out: list[Fragment]) -> None:
        """A block's events out, the text they account for consumed; a finished block closed."""
        for event in outcome.events:
            self._emit(out, event)
        if outcome.consumed:
            self._last = self._buf[outcome.consumed - 1]
        self._buf = self._buf[outcome.consumed:]
        if outcome.done:
            flag = getattr(block, "flag", None)
            if flag:
                self.flags.add(flag)
            self._wrapped |= getattr(block, "wraps", frozenset())
            self._block = None


def _text(out: list[Fragment], text: str) -> None:
    _append(out, Text(text))


def _append(out: list[Fragment], event: Fragment) -> None:
    """Add an event, joining it to the last one when both are text (or both reasoning)."""
    if isinstance(event, Text | Reasoning):
        if not event.text:
            return
        if out and type(out[-1]) is type(event):
            out[-1] = type(event)(out[-1].text + event.text)  # type: ignore[union-attr]
            return
    out.append(event)


def parse(text: str, *, names: Collection[str] = (), reasoning_first: bool = False,
          truncated: bool = False, types: dict[str, dict[str, str]] | None = None) -> list[Fragment]:
    """The whole output at once: exactly what streaming it in any pieces gives."""
    parser = StreamParser(names=names, reasoning_first=reasoning_first, types=types)
    return merge([*parser.feed(text), *parser.finish(truncated=truncated)])


def merge(events: Iterable[Fragment]) -> list[Fragment]:
    """Adjacent text (and reasoning) events joined: the form two parses are compared in."""
    out: list[Fragment] = []
    for event in events:
        _append(out, event)
    return out


__all__ = ["ALL_OPENERS", "Call", "Fragment", "Malformed", "Reasoning", "StreamParser", "Text", "merge",
           "parse"]
