"""Markup no family module knows, decided by what it says (see _markers) and what follows it.

    reasoning   <seed:think>, <reasoning>, <|begin_of_thought|>, <|START_THINKING|>, ◁think▷ …
                → streamed as reasoning up to its closing marker (or the end), never as answer
    a call      <minimax:tool_call>, <|tool_calls_section_begin|>, <TOOLCALL>, <|START_ACTION|>,
                <function_calls>, [TOOL_REQUEST] … → its inside read by _payload; unreadable → Malformed
    a wrapper   <response>, <answer>, <|begin_of_solution|>, <|START_TEXT|>, [BEGIN FINAL RESPONSE]
                → the marker is dropped, what it wraps is read as usual
    a tool's    <tool_response>, <|tool_response> → hidden like reasoning (the model made it up)
    result
    any other   token (<|im_start|>, <turn|>) → dropped as markup; a closing marker alone → dropped

Tags and bracket tokens are shapes prose has too (<Text>, [ANTWORT DES BEKLAGTEN]), so for them
the position decides: a wrapper goes only where it opens the output (then its closer goes too,
wherever it stands), a reasoning marker is reasoning only there, a call marker is call markup where
it opens the output or a line; anywhere else each is text, like any unknown tag (<user>, <Anrede>),
unless a call of an offered tool follows it: then tag, call and closing tag are a call (Poolside
Laguna writes <user>NAME …</user>). Special tokens (<|…|>, ◁…▷) count anywhere. HTML tags are
always text. A bracket token ([ANLAGE K1]) is text unless its words say otherwise;
a '[' that starts no token may start a call list (llama). A word that introduces calls (functools[)
goes when a call follows.
"""

from __future__ import annotations

import re

from helena.llm.dialects import _markers, _payload
from helena.llm.dialects._base import REJECT, Block, Call, Ctx, Emit, Malformed, Opener, Outcome
from helena.llm.dialects._calls import known_name
from helena.llm.dialects._markers import Marker
from helena.llm.dialects._names import NameBlock
from helena.llm.dialects._scan import json_call
from helena.llm.dialects._think import ThinkBlock
from helena.llm.dialects.llama import ListBlock

_MAX_MARKER = 512
_IDENT_RE = re.compile(r"[A-Za-z_]")


class MarkerBlock(Block):
    """Reads the marker at the opener and hands over to the block its words ask for."""

    flag: str | None = None
    wraps: frozenset[str] = frozenset()  # the closers of a wrapper this marker opened

    def __init__(self, ctx: Ctx, opener: str) -> None:
        super().__init__(ctx, opener)
        self.inner: Block | None = None

    def step(self, text: str, final: bool) -> Outcome:
        if self.inner is not None:
            return self.inner.step(text, final)
        marker = _markers.read(text[:_MAX_MARKER])
        if marker is True and not final and len(text) < _MAX_MARKER:
            return None
        if not isinstance(marker, Marker):
            if text[0] == "[" and self.ctx.names:  # no bracket token: maybe a call list
                return self._hand_over(ListBlock(self.ctx, "["), text, final)
            return REJECT
        if marker.html:
            return REJECT
        inner = self._block(marker)
        if inner is None:
            return REJECT
        if isinstance(inner, Emit):
            return inner
        return self._hand_over(inner, text, final)

    def _hand_over(self, inner: Block, text: str, final: bool) -> Outcome:
        self.inner = inner
        return inner.step(text, final)

    def _block(self, marker: Marker) -> Block | Emit | None:
        """The block for a marker, an Emit dropping it, or None when it is text."""
        drop = Emit(consumed=len(marker.text))
        kind, ctx = marker.kind, self.ctx
        prose_shape = marker.shape in ("xml", "bracket")  # shapes prose has too: text unless told
        if marker.closing:
            if kind == "think":
                self.flag = "reasoning_prefilled"  # the template opened it: the next turn starts inside
            unpaired = kind == "wrapper" and marker.text not in ctx.wrapped  # <answer>Ja</answer> in prose
            return None if prose_shape and (kind == "other" or unpaired) else drop
        if kind == "hidden" or (kind == "think" and (ctx.at_start or not prose_shape)):
            return ThinkBlock(ctx, marker.text, closers=marker.closers or ("\0",))
        if kind == "call" and (ctx.at_line or not prose_shape):
            return CallBlock(ctx, marker.text, marker.closers)
        if kind == "wrapper" and (ctx.at_start or not prose_shape):
            self.wraps = frozenset(marker.closers)  # its closer goes too, wherever it stands
            return drop
        if not prose_shape:
            return drop
        if (marker.shape == "bracket" and kind != "call") or marker.text.endswith("/>"):
            return None
        # In prose (<Text>, <Analysis>, [TEXT], <Tool>): text, unless an offered tool's call follows.
        return AroundCall(ctx, marker.text, marker.closers, element=_payload._element(marker))


class CallBlock(Block):
    """A call's markup up to its closing marker (or the next opener, or the end): its inside is calls.

    Any name counts here (the executor answers "unknown tool"), and an inside that holds no
    readable call is reported as unreadable, so the model is asked again.
    """

    def __init__(self, ctx: Ctx, opener: str, closers: tuple[str, ...]) -> None:
        super().__init__(ctx, opener)
        self.closers = closers
        self.element = _payload._element(Marker(opener, "call", False, closers))
        self._searched = len(opener)

    def step(self, text: str, final: bool) -> Outcome:
        start = len(self.opener)
        search = max(start, self._searched - 64)
        self._searched = len(text)
        ends = [(index, len(close)) for close in self.closers if (index := text.find(close, search)) >= 0]
        following = -1 if self.element else text.find(self.opener, search)
        if following >= 0:
            ends.append((following, 0))
        if not ends and not final:
            return None
        if not ends and self.ctx.truncated:
            return Emit(consumed=len(text), events=[Malformed("Aufruf abgeschnitten", text, truncated=True)])
        index, length = min(ends) if ends else (len(text), 0)
        end = index + length
        payload = text[:end] if self.element else text[start:index]
        calls = _payload.read_calls(payload, self.ctx, any_name=True)
        if calls is None:
            return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
        return Emit(consumed=end, events=[Call(call) for call in calls])


class AroundCall(Block):
    """An unknown tag (<user>), or a marker prose writes too: text, unless a call of an offered tool
    follows at once.

    Only the start of what follows is looked at before deciding "text"; a call is held up to the
    tag's closing marker (or the end) and read with offered names only. A call's own element
    (<invoke name="x">) counts when it names an offered tool.
    """

    def __init__(self, ctx: Ctx, opener: str, closers: tuple[str, ...], *, element: bool = False) -> None:
        super().__init__(ctx, opener)
        self.closers = closers
        self.element = element
        self.holding = False

    def step(self, text: str, final: bool) -> Outcome:
        start = len(self.opener)
        if not self.holding:
            verdict = self._named(text) if self.element else self._starts_call(text, start, final)
            if verdict is not True:
                return verdict
            self.holding = True
        ends = [(index, len(close)) for close in self.closers if (index := text.find(close, start)) >= 0]
        if not ends and not final:
            return None
        index, length = min(ends) if ends else (len(text), 0)
        payload = text[:index + length] if self.element else text[start:index]
        calls = _payload.read_calls(payload, self.ctx, any_name=False)
        if not calls:
            return REJECT  # text after all: its parts are read again as usual
        return Emit(consumed=index + length, events=[Call(call) for call in calls])

    def _named(self, text: str) -> Outcome | bool:
        match = _payload._INVOKE_RE.match(text)
        return True if match and known_name(match.group("name"), self.ctx.names) else REJECT

    def _starts_call(self, text: str, start: int, final: bool) -> Outcome | bool:
        """True if a call of an offered tool may start after the tag; None to wait; REJECT if not."""
        pos = start
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return REJECT if final or not self.ctx.names else None
        char = text[pos]
        if char in "{[":
            verdict = json_call(text, pos, self.ctx.names, final=final)
            return None if verdict.kind == "wait" else True if verdict.kind != "no" else REJECT
        if char == "<":
            marker = _markers.read(text[pos:pos + _MAX_MARKER])
            if marker is True:
                return REJECT if final else None
            call = isinstance(marker, Marker) and (marker.kind == "call" or _payload._element(marker))
            return True if call else REJECT
        if _IDENT_RE.match(char):
            inner = NameBlock(self.ctx, "", in_markup=True)
            outcome = inner.step(text[pos:], final)
            if outcome is None or isinstance(outcome, Emit):
                return None if outcome is None else True
            return True if _glm_pairs_follow(text, pos, self.ctx, final) else REJECT
        return REJECT


class CallPrefix(Block):
    """A word that introduces calls, Phi-4-mini's and FireFunction's functools[…]: dropped when the
    call list follows (it is then read as usual), text otherwise."""

    def step(self, text: str, final: bool) -> Outcome:
        rest = text[len(self.opener):]
        if not rest:
            return REJECT if final else None
        return Emit(consumed=len(self.opener)) if rest[0] == "[" else REJECT


def _glm_pairs_follow(text: str, pos: int, ctx: Ctx, final: bool) -> bool:
    """NAME then <arg_key>: GLM's call body (Laguna writes it inside <user>)."""
    match = re.compile(r"([A-Za-z_][\w.\-]*)\s*<arg_key>").match(text, pos)
    return bool(match) and match.group(1) in ctx.names


OPENERS = [*(Opener(char, MarkerBlock) for char in ("<", "[", "◁")),
           Opener("functools", CallPrefix, needs_tools=True)]
