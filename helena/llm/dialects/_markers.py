"""Markers no family module claims, read by their shape and their words.

Models keep inventing markup: namespaced tags (<seed:think>, <minimax:tool_call>, <｜DSML｜invoke>),
special tokens (<|begin_of_thought|>, <|START_ACTION|>, <|tool_calls_section_begin|>), Gemma 4's
half-open tokens (<|tool_response>, <turn|>), bracket tokens ([BEGIN FINAL RESPONSE]) and Kimi's
◁think▷. What a marker holds is written in its name, in the same few words across families
(vLLM's, SGLang's, llama.cpp's and Ollama's parsers list them), so the words decide: reasoning
never reaches the answer, a call is read as a call, a wrapper around the answer is dropped, and
any other token is dropped as markup. XML-style tags and bracket tokens are shapes prose also has
(<Anrede>, <b>, [TEXT]); where they stand decides whether they are markup (see _fallback).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["think", "call", "wrapper", "hidden", "other"]
Shape = Literal["xml", "token", "bracket", "angle"]

_THINK_WORDS = frozenset({"think", "thinking", "thought", "thoughts", "reasoning", "reason", "reflect",
                          "reflection", "analysis", "cot", "inner", "internal", "scratchpad", "monologue"})
_CALL_WORDS = frozenset({"tool", "tools", "toolcall", "toolcalls", "call", "calls", "function", "functions",
                         "functioncall", "functioncalls", "invoke", "action", "plugin", "functools"})
_RESULT_WORDS = frozenset({"response", "result", "results", "output", "outputs", "observation"})
_WRAPPER_WORDS = frozenset({"response", "answer", "solution", "final", "output", "text", "antwort"})
# Parts of a call's inside (a separator, an argument's key or value): never a block of their own.
_INNER_WORDS = frozenset({"sep", "argument", "arguments", "arg", "args", "param", "parameter", "key",
                          "value", "escape", "message", "constrain", "name", "id"})
_CLOSE_WORDS = frozenset({"end", "close", "suffix", "stop", "eot", "eom", "eos"})
_SWAPS = (("begin", "end"), ("start", "end"), ("open", "close"), ("prefix", "suffix"))
_WORD_SPLIT_RE = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])")

# The shapes a marker has. A name is letters, digits and _ . - : (namespaces), or a |NS| prefix.
_ATTR = r"""\s+[\w:.\-]+\s*=\s*(?:"[^"<>]*"|'[^'<>]*')"""  # key="value": prose words are no attributes
_ATTR_PARTIAL = r"""\s+(?:[\w:.\-]+(?:\s*(?:=\s*(?:"[^"<>]*|'[^'<>]*)?)?)?)?"""
_NAME = r"[A-Za-z_][\w:.\-]{0,48}"
XML_RE = re.compile(
    rf"<(?P<slash>/)?(?P<name>(?:[|｜][\w.\-]{{1,24}}[|｜])?{_NAME})(?P<attrs>(?:{_ATTR}){{0,8}})\s*(?P<self>/)?>"
)
XML_PARTIAL_RE = re.compile(
    rf"</?(?:[|｜](?:[\w.\-]{{1,24}}(?:[|｜](?:{_NAME}(?:{_ATTR}){{0,8}}(?:{_ATTR_PARTIAL})?)?)?)?"
    rf"|{_NAME}(?:{_ATTR}){{0,8}}(?:{_ATTR_PARTIAL})?)?\s*/?"
)
TOKEN_RE = re.compile(r"<(?P<lbar>[|｜])?(?P<name>/?[\w.\-▁]{1,48}?)(?P<rbar>[|｜])?>")
TOKEN_PARTIAL_RE = re.compile(r"<[|｜]?/?[\w.\-▁]{0,48}[|｜]?")
BRACKET_RE = re.compile(r"\[(?P<name>/?[A-Z][A-Z0-9_ ]{1,40})\]")
BRACKET_PARTIAL_RE = re.compile(r"\[/?(?:[A-Z][A-Z0-9_ ]{0,40})?")
ANGLE_RE = re.compile(r"◁(?P<name>/?[\w.\-]{1,24})▷")
ANGLE_PARTIAL_RE = re.compile(r"◁/?[\w.\-]{0,24}")

# What ends a reasoning the chat template opened (the output starts inside it): every family's
# closing marker for reasoning, so a prefilled block ends at whichever the model writes.
THINK_CLOSERS = ("</think>", "</thinking>", "</thought>", "</reasoning>", "</seed:think>", "[/THINK]",
                 "◁/think▷", "<|END_THINKING|>", "<|end_of_thought|>", "<channel|>",
                 "[BEGIN FINAL RESPONSE]")


@dataclass(frozen=True, slots=True)
class Marker:
    """One marker: its text, what it holds, whether it closes a span, and what would close it."""

    text: str
    kind: Kind
    closing: bool
    closers: tuple[str, ...]
    shape: Shape = "xml"
    html: bool = False


def words(name: str) -> list[str]:
    return [w.lower() for w in _WORD_SPLIT_RE.split(name) if w]


def classify(name: str) -> tuple[Kind, bool]:
    """(kind, closing) of a marker named `name` (without its brackets)."""
    parts = words(name)
    found = set(parts)
    closing = name.startswith("/") or bool(found & _CLOSE_WORDS)
    if found & _CALL_WORDS and found & _RESULT_WORDS:
        return "hidden", closing
    if found & _THINK_WORDS:
        return "think", closing
    if found & _INNER_WORDS:
        return "other", closing
    if found & _CALL_WORDS:
        return "call", closing
    if found & _WRAPPER_WORDS:
        return "wrapper", closing
    return "other", closing


_HTML = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "dd", "del", "details",
    "div", "dl", "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li",
    "mark", "ol", "p", "pre", "q", "s", "small", "span", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
})


def _swapped(name: str) -> list[str]:
    out = []
    for before, after in _SWAPS:
        pattern = re.compile(rf"(?<![A-Za-z]){before}(?![a-z])", re.I)
        if pattern.search(name):
            out.append(pattern.sub(lambda m, a=after: a.upper() if m.group().isupper() else (
                a.capitalize() if m.group()[0].isupper() else a), name))
    return out


def xml(match: re.Match[str]) -> Marker:
    name = match.group("name")
    kind, _ = classify(name)
    closing = bool(match.group("slash"))
    html = name.lower() in _HTML
    return Marker(match.group(), kind, closing, () if closing else (f"</{name}>",), "xml", html)


def token(match: re.Match[str]) -> Marker:
    """<|name|>, <｜name｜>, and Gemma 4's half-open <|name> (opens) and <name|> (closes)."""
    name = match.group("name")
    left, right = match.group("lbar"), match.group("rbar")
    kind, closing = classify(name)
    if left and not right:  # <|name>
        return Marker(match.group(), kind, closing, (f"<{name}|>",) if not closing else (), "token")
    if right and not left:  # <name|>
        return Marker(match.group(), kind, True, (), "token")
    names = _swapped(name) or [f"/{name}", f"end_{name}", f"{name}_end"]
    closers = () if closing else tuple(f"<{left}{n}{right}>" for n in names)
    return Marker(match.group(), kind, closing, closers, "token")


def bracket(match: re.Match[str]) -> Marker:
    name = match.group("name")
    kind, closing = classify(name)
    closers = (f"[/{name}]", *(f"[{n}]" for n in _swapped(name)), f"[END_{name}]", f"[END {name}]")
    return Marker(match.group(), kind, closing, () if closing else closers, "bracket")


def angle(match: re.Match[str]) -> Marker:
    name = match.group("name")
    kind, closing = classify(name)
    return Marker(match.group(), kind, closing, () if closing else (f"◁/{name}▷",), "angle")


def read(text: str) -> Marker | bool | None:
    """The marker text starts with; True if text may still grow into one; None if it cannot."""
    first = text[0]
    if first == "[":
        shapes = ((BRACKET_RE, bracket, BRACKET_PARTIAL_RE),)
    elif first == "◁":
        shapes = ((ANGLE_RE, angle, ANGLE_PARTIAL_RE),)
    elif len(text) > 1 and text[1] in "|｜":
        shapes = ((TOKEN_RE, token, TOKEN_PARTIAL_RE), (XML_RE, xml, XML_PARTIAL_RE))
    else:
        shapes = ((XML_RE, xml, XML_PARTIAL_RE), (TOKEN_RE, token, TOKEN_PARTIAL_RE))
    waiting = False
    for pattern, make, partial in shapes:
        match = pattern.match(text)
        if match:
            marker = make(match)
            if make is token and not (match.group("lbar") or match.group("rbar")):
                continue  # <name> without bars is the XML shape
            return marker
        if partial.fullmatch(text):
            waiting = True
    return True if waiting else None
