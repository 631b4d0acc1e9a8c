"""An offered tool's bare name in the stream: held until what follows decides, shown only as prose.

Small models write calls without any markup, one a line (Gemma 3 1B in BFCL:
`get_current_weather(location='Boston, MA')` then the next), with Mistral's [ARGS] but without
[TOOL_CALLS], with Kimi's `functions.NAME:0` or Laguna's `NAME\\n{…}`, or Gemma 4's bare
`call:NAME{…}`. Every offered name is therefore a marker: it is held (never flashed as text) until
the next character that is not a space says whether a call follows. A name in a sentence
("read_akte liefert die Akte") is released as text at once. A bare pythonic call counts only when
it fills its own line (only whitespace before it on its line, only whitespace, a stop token or a
closing tag after its ")" before the line or the output ends); in a sentence or in `backticks` it
is prose ("Ich habe read_akte(akte_id=3) aufgerufen").
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection

from helena.llm.base import ToolCall
from helena.llm.dialects import _markers, gemma4
from helena.llm.dialects._base import REJECT, Block, Call, Ctx, Emit, Malformed, Opener, Outcome
from helena.llm.dialects._calls import NAME_PREFIXES, coerce_args, known_name, new_id, python_calls
from helena.llm.dialects._jsonish import Incomplete, Invalid, scan_value
from helena.llm.dialects._scan import python_list_end, repair_value
from helena.llm.dialects._tokens import DROPPED
from helena.llm.dialects.mistral import ToolCallsBlock

PREFIXES = (*NAME_PREFIXES, "call:")
_WORD_RE = re.compile(r"(?:functions\.|function\.|tools\.|default_api\.|call:)?[A-Za-z_][\w.\-]*")
_INDEX_RE = re.compile(r":\d+")
_NAME_RE = re.compile(r"[A-Za-z_][\w.\-]*")
_TOKEN_RE = re.compile(r"<[|｜][^<>|｜]{1,48}[|｜]>")
_PARTIAL_TOKEN_RE = re.compile(r"<[|｜]?[^<>|｜]{0,48}[|｜]?")
_MISTRAL = ("[ARGS]", "[CALL_ID]")
_GEMMA_PARTIAL_RE = re.compile(r"call:[\w.\-]*")
_MAX_GAP = 200  # characters between a name and its arguments (spaces, an index, separator tokens)


def literals(names: Collection[str]) -> list[str]:
    """The texts that start a bare call: each name, also after a prefix models put before it."""
    return [prefix + name for name in names for prefix in ("", *PREFIXES) if _NAME_RE.fullmatch(name)]


class NameBlock(Block):
    """From an offered tool's name (the parser checks it starts a word) to a decision."""

    def __init__(self, ctx: Ctx, opener: str, *, in_markup: bool = False) -> None:
        super().__init__(ctx, opener)
        self._seen = 0
        self._end = 0  # where the call's arguments close, once seen
        self._mistral: ToolCallsBlock | None = None
        self.in_markup = in_markup  # inside a tag (<user>NAME(…)</user>): no line of its own needed

    def step(self, text: str, final: bool) -> Outcome:
        if self._mistral is not None:
            return self._mistral.step(text, final)
        if text.startswith("call:"):
            return self._gemma(text, final)
        word = _WORD_RE.match(text)
        assert word is not None
        if word.end() == len(text):
            return REJECT if final else None  # the name may go on ("read_akte" → "read_akten")
        name = known_name(word.group(), self.ctx.names)
        if name is None:
            return REJECT
        after = word.end()
        if text[after] == "(":  # a bare call fills its own line; in a sentence or in `…` it is prose
            return self._python(text, after, final) if self.in_markup or self.ctx.at_line else REJECT
        if text[after] == "[":
            return self._bracket(text, after, final)
        return self._json(text, after, name, final)

    def _gemma(self, text: str, final: bool) -> Outcome:
        if not final and _GEMMA_PARTIAL_RE.fullmatch(text):
            return None  # call:NAME, its "{" still to come
        read = gemma4.call_at(text, 0, self.ctx.names, any_name=False)
        if read is True:
            return self._unfinished(text) if final else None
        if not isinstance(read, tuple):
            return REJECT
        return Emit(consumed=read[1], events=[Call(read[0])])

    def _python(self, text: str, paren: int, final: bool) -> Outcome:
        fresh = text[self._seen:]
        self._seen = len(text)
        if not (final or self._end or ")" in fresh):
            return None  # a call can only end at a closing parenthesis
        end = self._end or python_list_end(text, paren)
        if end is None:
            return self._unfinished(text) if final else None
        self._end = end
        alone = True if self.in_markup else _line_ends(text, end, final)
        if alone is not True:
            return None if alone is None else REJECT  # "read_akte(3) liefert …": prose
        calls = python_calls(text[:end], self.ctx.names)
        if calls:
            return Emit(consumed=end, events=[Call(call) for call in calls])
        try:  # a call of the tool that cannot be read (positional arguments): the model writes it again
            tree = ast.parse(text[:end], mode="eval")
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return REJECT
        if isinstance(tree.body, ast.Call):
            return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text[:end])])
        return REJECT

    def _bracket(self, text: str, at: int, final: bool) -> Outcome:
        rest = text[at:]
        if any(rest.startswith(token) for token in _MISTRAL):
            self._mistral = ToolCallsBlock(self.ctx, "")  # Mistral v11 without its [TOOL_CALLS]
            return self._mistral.step(text, final)
        if not final and any(token.startswith(rest) for token in _MISTRAL):
            return None
        return REJECT

    def _json(self, text: str, at: int, name: str, final: bool) -> Outcome:
        """NAME, maybe an index (Kimi's :0) and separator tokens, then a JSON object: a call."""
        index = _INDEX_RE.match(text, at)
        if index is None and text[at:] == ":" and not final:
            return None  # an index may follow
        pos = index.end() if index else at
        while pos < len(text) and pos - at <= _MAX_GAP:
            token = _TOKEN_RE.match(text, pos)
            if token is not None:
                pos = token.end()
            elif text[pos].isspace():
                pos += 1
            else:
                break
        if pos >= len(text):
            return REJECT if final or pos - at > _MAX_GAP else None
        if not final and _PARTIAL_TOKEN_RE.fullmatch(text, pos):
            return None  # a separator token is still being written
        if text[pos] != "{":
            return REJECT
        try:
            value, end = scan_value(text, pos)
        except Incomplete:
            if not final:
                return None
            if self.ctx.truncated:
                return Emit(consumed=len(text), events=[Malformed("Aufruf abgeschnitten", text, True)])
            value, end = repair_value(text[pos:]), len(text)
            if not isinstance(value, dict):
                return Emit(consumed=end, events=[Malformed("Aufruf unlesbar", text)])
        except Invalid:
            return REJECT
        if not isinstance(value, dict):
            return REJECT
        call = ToolCall(id=new_id(), name=name, arguments=coerce_args(value))
        return Emit(consumed=end, events=[Call(call)])

    def _unfinished(self, text: str) -> Outcome:
        reason = "Aufruf abgeschnitten" if self.ctx.truncated else "Aufruf unvollständig"
        return Emit(consumed=len(text), events=[Malformed(reason, text, self.ctx.truncated)])


def _line_ends(text: str, pos: int, final: bool) -> bool | None:
    """Whether only whitespace follows pos before the line or the output ends (a stop token, a
    closing tag count as an end); None while that is undecided."""
    while pos < len(text) and text[pos] in " \t\r":
        pos += 1
    if pos == len(text):
        return True if final else None
    if text[pos] == "\n":
        return True
    if text[pos] != "<":
        return False
    marker = _markers.read(text[pos:pos + 512])
    if marker is True:
        return False if final else None
    return isinstance(marker, _markers.Marker) and (
        marker.shape == "token" or marker.closing or marker.text in DROPPED)


def pattern(words: Collection[str]) -> str:
    """A regex finding, where a word starts, any of words, or the start of one the text ends in
    (held until it is decided). Built as a trie, a position is given up after a character or two,
    which keeps scanning prose cheap however many tools there are."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def alternatives(node: dict[str, dict], top: bool = False) -> str:
        branches = [re.escape(char) + alternatives(child) for char, child in sorted(node.items()) if char]
        if not top:
            branches.append("" if "" in node else r"\Z")  # a whole word, or an unfinished one at the end
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return r"(?<![\w.:\-])" + alternatives(trie, top=True) if words else ""


def openers(names: Collection[str]) -> list[Opener]:
    return [Opener(literal, NameBlock, needs_tools=True) for literal in literals(names)]
