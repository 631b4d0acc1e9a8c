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
