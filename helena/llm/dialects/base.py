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
from typing import ClassVar

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


Event = Text | Reasoning | Call | Malformed


@dataclass(frozen=True, slots=True)
class Ctx:
    """What every block may know: the tool names that count as calls, and how the stream ended."""

    names: frozenset[str]
    truncated: bool = False  # set for the final step when the server cut the output off (length)
    # tool -> parameter -> JSON schema type, for dialects that write every value as text (XML)
    types: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)


@dataclass(slots=True)
class Emit:
    """Events of a block and the characters of the held text they account for."""

    consumed: int
    events: list[Event] = field(default_factory=list)
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
    first = end
    for marker in markers:
        for length in range(min(len(marker) - 1, end - start), 0, -1):
            if marker.startswith(text[end - length:]):
                first = min(first, end - length)
                break
    return first


class Passthrough:
    """Text that was held as a possible call and turned out not to be one, streamed as prose.

    A rejected JSON value is passed on up to its closing bracket (so an object nested in it is not
    taken for a call); a rejected code fence up to its closing fence (so that fence does not open a
    new one). Nothing is held back meanwhile.
    """

    def __init__(self, *, fence: bool) -> None:
        self.fence = fence
        self.depth = 0
        self.quoted = False
        self.escaped = False
        self.pos = 0  # how far the held text was passed on (the block drops what it consumed)

    def step(self, text: str, final: bool) -> Emit | None:
        if self.fence:
            close = text.find("```", 3 if self.pos == 0 else 0)
            if close >= 0:
                return Emit(consumed=close + 3, events=[Text(text[:close + 3])])
            keep = held_prefix(text, ("```",), 3 if self.pos == 0 else 0)
            if final:
                keep = len(text)
            self.pos += keep
            return Emit(consumed=keep, events=[Text(text[:keep])] if keep else [], done=final)
        for index, char in enumerate(text):
            if self.quoted:
                if self.escaped:
                    self.escaped = False
                elif char == "\\":
                    self.escaped = True
                elif char == '"':
                    self.quoted = False
                continue
            if char == "<" or (char == "\n" and text.startswith("\n\n", index)):
                return Emit(consumed=index, events=[Text(text[:index])] if index else [])
            if char == '"':
                self.quoted = True
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth <= 0:
                    return Emit(consumed=index + 1, events=[Text(text[:index + 1])])
        self.pos += len(text)
        return Emit(consumed=len(text), events=[Text(text)] if text else [], done=final)
