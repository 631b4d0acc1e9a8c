"""The streaming parser: model output in, answer text, reasoning and tool calls out.

Text is released the moment it cannot be the start of any dialect's marker; at a possible marker
only the shortest suffix that could still grow into one is held, and released as soon as it is
decided. Every dialect is always on (small models mix formats; markup of any kind must never be
shown), so the profile only says whether the output starts inside a reasoning block.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Iterable

from helena.llm.dialects import _think, _tokens, deepseek, gemma, harmony, hermes, llama, mistral, qwen3_coder
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
    *mistral.OPENERS, *deepseek.OPENERS, *harmony.OPENERS, *_tokens.OPENERS,
)


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
        active = [o for o in openers if self._ctx.names or not o.needs_tools]
        self._by_char: dict[str, list[Opener]] = {}
        for opener in sorted(active, key=lambda o: -len(o.literal)):
            self._by_char.setdefault(opener.literal[0], []).append(opener)
        self._candidates = re.compile("[" + re.escape("".join(self._by_char)) + "]")
        self._buf = ""
        self._block: Block | None = None
        if reasoning_first:
            self._block = _think.ThinkBlock(self._ctx, "<think>", prefilled=True)
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
                self._block.ctx = self._ctx
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
        while self._buf:
            block = self._block if self._block is not None else self._open(out, final)
            if block is None:
                break
            outcome = block.step(self._buf, final)
            if outcome is REJECT:
                _text(out, self._buf[0])
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
                    _append(out, event)
            self._block = None
        return out

    def _open(self, out: list[Fragment], final: bool) -> Block | None:
        """The block that starts at the next possible marker; the text before it goes out. None when
        nothing is to be opened now: all text went out, or a possible marker waits for more text."""
        opener: Opener | bool | None = None
        pos = -1
        for found in self._candidates.finditer(self._buf):
            opener = self._match(found.start(), final)
            if opener is not None:
                pos = found.start()
                break
        if pos < 0:
            _text(out, self._buf)
            self._buf = ""
            return None
        if pos:
            _text(out, self._buf[:pos])
            self._buf = self._buf[pos:]
        if opener is True:
            return None  # hold the possible marker until more text decides it
        assert isinstance(opener, Opener)
        self._block = opener.make(self._ctx, opener.literal)
        return self._block

    def _take(self, block: Block, outcome: Emit, out: list[Fragment]) -> None:
        """A block's events out, the text they account for consumed; a finished block closed."""
        for event in outcome.events:
            _append(out, event)
        self._buf = self._buf[outcome.consumed:]
        if outcome.done:
            flag = getattr(block, "flag", None)
            if flag:
                self.flags.add(flag)
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
