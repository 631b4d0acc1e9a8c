"""The Dokument's text as markdown-it tokens, page by page: what the DOCX and the PDF renderer both
read, so a heading, a list or a table comes out alike in both.

A written Dokument is Markdown (CommonMark + tables + strikethrough, raw HTML off: `<script>` stays
visible text). An uploaded one is extracted text: no Markdown (a "1." or "*" of a scanned letter
is no list), every line break kept. Both may hold form feeds (the pages of an upload): each page is
parsed on its own and the renderers put a page break between them.

Two things are decided here for both formats: an image becomes its alt text (nothing is fetched,
the reader still sees that something was meant), and a link shows its address after the text
(the Schriftsatz is printed; a click is not possible on paper).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from akten.dokumente.seiten import SEITENUMBRUCH
from akten.dokumente.typen import bereinigt

# "§ 623" stays on one line: a non-breaking space after § and §§ (and Art.) before the number.
_PARAGRAF = re.compile(r"(§§?|\bArt\.) (?=\d)")

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_markdown.enable(["table", "strikethrough"])
_klartext = MarkdownIt("zero").enable(["newline"])  # paragraphs and line breaks, nothing else


def seiten(text: str, *, markdown: bool, titel: str = "") -> list[list[Token]]:
    """The block tokens of each page (empty pages at the start and the end left out). A first
    heading equal to the title is dropped: the letterhead prints the title already (Helena's drafts
    tend to start with it)."""
    parser = _markdown if markdown else _klartext
    texte = bereinigt(text).split(SEITENUMBRUCH)
    while len(texte) > 1 and not texte[-1].strip():  # pdftotext ends with a form feed
        texte.pop()
    while len(texte) > 1 and not texte[0].strip():
        texte.pop(0)
    ergebnis = []
    for seite in texte:
        tokens = parser.parse(seite)
        for token in tokens:
            if token.type == "inline" and token.children is not None:
                token.children = _inline(token.children, zeilen_behalten=not markdown)
        ergebnis.append(tokens)
    if markdown and ergebnis:
        ergebnis[0] = _ohne_titel(ergebnis[0], titel)
    return ergebnis


def html(tokens: list[Token]) -> str:
    """One page as HTML (markdown-it escapes all text; raw HTML is off in both parsers)."""
    return _markdown.renderer.render(tokens, _markdown.options, {})


def _inline(children: list[Token], *, zeilen_behalten: bool) -> list[Token]:
    """Images → their alt text, links → text plus "(address)", "§ 623" unbreakable, and for plain
    text every line break a hard one."""
    ergebnis: list[Token] = []
    link_start = 0
    for token in children:
        if token.type == "image":
            alt = "".join(c.content for c in token.children or []) or "Bild"
            ergebnis.append(_text(f"[Bild: {alt}]"))
            continue
        if token.type == "softbreak" and zeilen_behalten:
            token = Token("hardbreak", "br", 0)
        elif token.type == "text":
            token.content = _PARAGRAF.sub("\\1\u00a0", token.content)
        ergebnis.append(token)
        if token.type == "link_open":
            link_start = len(ergebnis)
        elif token.type == "link_close":
            ziel = str(ergebnis[link_start - 1].attrGet("href") or "")
            sichtbar = "".join(t.content for t in ergebnis[link_start:-1])
            if ziel and ziel.removeprefix("mailto:") != sichtbar:
                ergebnis.append(_text(f" ({ziel})"))
    return ergebnis


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _ohne_titel(tokens: list[Token], titel: str) -> list[Token]:
    if (len(tokens) >= 3 and tokens[0].type == "heading_open" and tokens[0].tag == "h1"
            and " ".join(tokens[1].content.split()).casefold() == " ".join(titel.split()).casefold()):
        return tokens[3:]
    return tokens
