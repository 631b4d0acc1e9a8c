"""The parts of the streaming parser every dialect shares: events, blocks and their outcomes.

A dialect contributes openers (literal markers such as "<tool_call>" or a bare "{") and, for each,
a Block that takes over the undecided text from its opener on. The parser feeds a block the text
held since its opener; the block answers with an Outcome: wait for more, reject (the opener was
prose after all), or emit events and say how much text it consumed. A block's answer must depend
only on the text and on whether the stream has ended, never on how the text was split: that is
what makes the parse of a stream equal to the parse of the whole text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from helena.llm.base import ToolCall


@dataclass(frozen=True, slots=True)
class Text:
    """Answer text: safe to show."""

    text: str


@dataclass(frozen=True, slots=True)
class Reasoning:
    """The model's private reasoning: shown only as a collapsed "Überlegung", never as answer."""

    text: str


@dataclass(frozen=True, slots=True)
class Call:
    call: ToolCall


@dataclass(frozen=True, slots=True)
class Malformed:
    """A call's markup that could not be read (or was cut off): never shown, never executed."""

    reason: str
    raw: str
    truncated: bool = False


Fragment = Text | Reasoning | Call | Malformed


@dataclass(frozen=True, slots=True)
class Ctx:
    """What every block may know: the tool names that count as calls, and how the stream ended."""

    names: frozenset[str]
    truncated: bool = False  # set for the final step when the server cut the output off (length)
    # tool -> parameter -> JSON schema type, for dialects that write every value as text (XML)
    types: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)
    # A fresh parser, nested(names=, types=), for content read on its own (a code block, a harmony
    # final answer): the StreamParser, which builds on this module and hands itself in here.
    nested: Callable[..., Any] | None = field(default=None, compare=False)
    # Where the block's opener stands: before any answer text (only whitespace, reasoning or calls
    # so far), at the start of a line (only whitespace before it on its line), and the closers of
    # a wrapper that opened the output (they go too). Markup that prose also writes counts by these.
    at_start: bool = True
    at_line: bool = True
    wrapped: frozenset[str] = frozenset()


@dataclass(slots=True)
class Emit:
    """Events of a block and the characters of the held text they account for."""

    consumed: int
    events: list[Fragment] = field(default_factory=list)
    done: bool = True


class _Reject:
    """The opener was not one: its first character is text, the scan goes on behind it."""

    _instance: ClassVar[_Reject | None] = None

    def __repr__(self) -> str:
        return "REJECT"


REJECT = _Reject()
Outcome = Emit | _Reject | None  # None: wait for more text


class Block:
    """A span that began at an opener; subclasses implement step()."""

    def __init__(self, ctx: Ctx, opener: str) -> None:
        self.ctx = ctx
        self.opener = opener

    def step(self, text: str, final: bool) -> Outcome:
        """Decide about `text` (everything held since the opener, opener included)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Opener:
    """A marker that may start a block; `needs_tools`: only when tools can be called at all."""

    literal: str
    make: Callable[[Ctx, str], Block]
    needs_tools: bool = False


def held_prefix(text: str, markers: tuple[str, ...], start: int = 0) -> int:
    """The first index from which text[i:] may still grow into one of the markers (len(text) if none).

    Used by streaming blocks (reasoning, harmony channels) to release everything that cannot be
    the start of their closing marker.
    """
    end = len(text)
    longest = max(len(marker) for marker in markers) - 1
    firsts = {marker[0] for marker in markers}
    for index in range(max(start, end - longest), end):  # only a marker's first character starts one
        if text[index] in firsts:
            tail = text[index:]
            if any(marker.startswith(tail) for marker in markers):
                return index
    return end


_STRONG = ("[TOOL_CALLS]", "[THINK]")


class Passthrough:
    """Text that was held as a possible call and turned out not to be one, streamed as prose.

    A rejected JSON value is passed on up to its closing bracket (so an object nested in it is not
    taken for a call), but never past a blank line or a character that may open markup ("<", "`",
    "[TOOL_CALLS]"): the scanner looks at those again. A code block is passed on up to its closing
    fence (so that fence does not open a new one), its content read by a parser for markup only.
    Nothing is held back meanwhile but a possible marker.
    """

    def __init__(self, *, fence: bool, nested: Callable[..., Any] | None = None) -> None:
        self.fence = fence
        self.nested = nested
        self.depth = 0
        self.quoted = False
        self.escaped = False
        self.prev = ""
        self.started = False
        self.inner: Any = None  # the markup-only parser of a code block's content

    def step(self, text: str, final: bool) -> Emit | None:
        if self.fence:
            return self._fence(text, final)
        for index, char in enumerate(text):
            first = not self.started and index == 0
            if not first and (char in "<`" or (char == "\n" and self.prev == "\n")
                              or (char == "[" and _strong_at(text, index))):
                self.started = True
                return Emit(consumed=index, events=[Text(text[:index])] if index else [])
            self.prev = char
            if self.quoted:
                if self.escaped:
                    self.escaped = False
                elif char == "\\":
                    self.escaped = True
                elif char == '"':
                    self.quoted = False
                continue
            if char == '"':
                self.quoted = True
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth <= 0:
                    return Emit(consumed=index + 1, events=[Text(text[:index + 1])])
        self.started = self.started or bool(text)
        return Emit(consumed=len(text), events=[Text(text)] if text else [], done=final)

    def _fence(self, text: str, final: bool) -> Emit | None:
        if self.inner is None:
            assert self.nested is not None, "a code block needs the parser"
            newline = text.find("\n")
            self.inner = self.nested(names=())
            end = newline + 1 if newline >= 0 else len(text)
            return Emit(consumed=end, events=[Text(text[:end])], done=final)
        close = text.find("```")
        if close >= 0:
            events = [*self.inner.feed(text[:close]), *self.inner.finish(), Text("```")]
            return Emit(consumed=close + 3, events=events)
        keep = len(text) if final else held_prefix(text, ("```",))
        events = self.inner.feed(text[:keep])
        if final:
            events += self.inner.finish()
        return Emit(consumed=keep, events=events, done=final)


def _strong_at(text: str, index: int) -> bool:
    rest = text[index:index + 12]
    return any(marker.startswith(rest) or rest.startswith(marker) for marker in _STRONG)
