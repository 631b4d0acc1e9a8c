"""Reasoning blocks: Qwen3, QwQ, DeepSeek-R1 (<think>…</think>), Magistral ([THINK]…[/THINK]),
Granite 3.2 and Apriel (reasoning introduced by a sentence), and any other family's markers (_fallback).

Reasoning streams live as Reasoning events (a collapsed "Überlegung"), holding back only what may
be the start of the closing tag. When the chat template pre-fills the opening tag (DeepSeek-R1,
QwQ, the Qwen3 thinking models, Cohere's <|START_THINKING|>), the output starts inside the block and
only a closing marker appears: the parser then starts with a prefilled block, which ends at any
family's closing marker. Whatever looks like a call inside the reasoning is reasoning: the model may
decide against it, so it is never executed.
"""

from __future__ import annotations

from helena.llm.dialects import _markers
from helena.llm.dialects._base import REJECT, Block, Ctx, Emit, Opener, Outcome, Reasoning, Text, held_prefix
from helena.llm.dialects._markers import THINK_CLOSERS

_CALL_TAG = "<tool_call>"
# Openers an answer may also write as words: reasoning only where the output starts.
_PROSE_OPENERS = frozenset({"<thinking>"})
PAIRS = {"<think>": "</think>", "<thinking>": "</thinking>", "[THINK]": "[/THINK]"}
# Reasoning a sentence introduces (vLLM's granite parser; Apriel's template): not a tag, so a
# sentence without its opener is prose, never a stray closer.
SENTENCES = {"Here is my thought process:": ("Here is my response:", "Here's my response:"),
             "Here's my thought process:": ("Here is my response:", "Here's my response:"),
             "Here are my reasoning steps:": ("[BEGIN FINAL RESPONSE]",)}


def _after_whitespace(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


class ThinkBlock(Block):
    """Reasoning up to the closing tag.

    A <tool_call> inside it is held: if the reasoning then closes, the model thought about the
    call and decided on (it is reasoning, shown without its tags); if the output ends with the
    block still open (Qwen3 sometimes calls from inside its reasoning, and Ollama runs such calls),
    the held calls are parsed as calls.
    """

    def __init__(self, ctx: Ctx, opener: str, *, prefilled: bool = False,
                 closers: tuple[str, ...] | None = None) -> None:
        super().__init__(ctx, opener)
        if closers is None:
            closers = THINK_CLOSERS if prefilled else SENTENCES.get(opener) or (PAIRS[opener],)
        self.closers = closers
        self.opened = prefilled
        self.wraps: frozenset[str] = frozenset()  # a closer that opens the answer's wrapper: its closers

    def _close(self, text: str) -> tuple[int, str]:
        """The first closing marker in text: (index, marker), or (-1, "")."""
        found = [(index, close) for close in self.closers if (index := text.find(close)) >= 0]
        return min(found) if found else (-1, "")

    def step(self, text: str, final: bool) -> Outcome:
        if not self.opened:
            if self.opener in _PROSE_OPENERS and not self.ctx.at_start:
                return REJECT  # "Nutzen Sie <thinking> nicht …": a word in the answer, not its reasoning
            self.opened = True
            return Emit(consumed=len(self.opener), done=False)
        index, close = self._close(text)
        held = text.find(_CALL_TAG, 0, index if index >= 0 else len(text))
        if index >= 0:
            opens = _markers.read(close)  # [BEGIN FINAL RESPONSE]: its [END FINAL RESPONSE] goes too
            if isinstance(opens, _markers.Marker) and opens.kind == "wrapper" and not opens.closing:
                self.wraps = frozenset(opens.closers)
            after = _after_whitespace(text, index + len(close))
            reasoning = _untagged(text[:index])
            events = [Reasoning(reasoning)] if reasoning else []
            if after == len(text) and not final:  # the answer's leading blank lines are not text yet
                if held >= 0:
                    return None
                return Emit(consumed=index, events=events, done=False)
            return Emit(consumed=after, events=events)
        if final:
            if held >= 0:
                assert self.ctx.nested is not None
                parser = self.ctx.nested(names=self.ctx.names, types=self.ctx.types)
                tail = [Reasoning(e.text) if isinstance(e, Text) else e
                        for e in (*parser.feed(text[held:]), *parser.finish(truncated=self.ctx.truncated))]
                head = [Reasoning(text[:held])] if text[:held] else []
                return Emit(consumed=len(text), events=[*head, *tail])
            return Emit(consumed=len(text), events=[Reasoning(text)] if text else [])
        keep = held if held >= 0 else held_prefix(text, (*self.closers, _CALL_TAG))
        if not keep:
            return None
        return Emit(consumed=keep, events=[Reasoning(text[:keep])], done=False)


def _untagged(reasoning: str) -> str:
    return reasoning.replace(_CALL_TAG, "").replace("</tool_call>", "")


class StrayClose(Block):
    """A closing tag without its opener: the template pre-filled it, so the text before was reasoning.

    The tag itself is dropped; the parser reports the sighting so the next turn starts prefilled.
    """

    flag = "reasoning_prefilled"

    def step(self, text: str, final: bool) -> Outcome:
        after = _after_whitespace(text, len(self.opener))
        if after == len(text) and not final:
            return None
        return Emit(consumed=after)


OPENERS = [Opener(open_tag, ThinkBlock) for open_tag in (*PAIRS, *SENTENCES)] + [
    Opener(close_tag, StrayClose) for close_tag in PAIRS.values()
]
