"""The text of a Word document as a reader sees it, from the XML itself: python-docx's
`paragraph.text` leaves out tracked insertions (w:ins) and content controls (w:sdt), and on a
redlined contract that turns "zahlt nicht" into "zahlt". Deleted text (w:delText) stays out, text
boxes count once (Word stores them twice: mc:Choice and the mc:Fallback for old readers)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import docx
from docx.text.paragraph import Paragraph
from lxml import etree

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_HEADING = ("heading", "überschrift", "berschrift", "title", "titel")


@dataclass(frozen=True)
class DocxText:
    text: str
    seiten: int | None  # Word's own page count of its last save, where it kept one
    aenderungen: bool  # tracked changes: the text is read with all of them accepted


def _nodes(element: etree._Element) -> Iterator[etree._Element]:
    for child in element:
        if child.tag == _FALLBACK:
            continue
        yield child
        yield from _nodes(child)


def absatz_text(p: etree._Element) -> str:
    parts: list[str] = []
    for node in _nodes(p):
        tag = node.tag
        if tag == f"{W}t":
            parts.append(node.text or "")
        elif tag == f"{W}tab":
            parts.append("\t")
        elif tag in (f"{W}br", f"{W}cr"):
            parts.append("\n")
        elif tag == f"{W}noBreakHyphen":
            parts.append("-")
    return "".join(parts).strip()


def _tabelle(tbl: etree._Element) -> list[str]:
    zeilen: list[str] = []
    for tr in tbl.iter(f"{W}tr"):
        cells: list[str] = []
        for tc in tr.iterchildren(f"{W}tc"):
            text = " ".join(" ".join(absatz_text(p) for p in tc.iter(f"{W}p")).split())
            if not cells or cells[-1] != text:  # a merged cell repeats
                cells.append(text)
        zeilen.append(" | ".join(cells))
    return [*zeilen, ""]


def _blocks(container: etree._Element, document: docx.document.Document) -> Iterator[str]:
    for child in container.iterchildren():
        if child.tag == f"{W}p":
            text = absatz_text(child)
            style = (Paragraph(child, document._body).style.name or "").casefold() if text else ""
            yield from (["", text, ""] if style.startswith(_HEADING) else [text])
        elif child.tag == f"{W}tbl":
            yield from _tabelle(child)
        elif child.tag == f"{W}sdt":  # a content control around whole paragraphs or tables
            content = child.find(f"{W}sdtContent")
            if content is not None:
                yield from _blocks(content, document)


def _seiten(document: docx.document.Document) -> int | None:
    try:
        app = document.part.package.part_related_by(
            "http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties")
    except KeyError:
        return None
    match = re.search(rb"<(?:\w+:)?Pages>(\d+)<", app.blob)
    return int(match.group(1)) if match else None


def lies_docx(pfad: str) -> DocxText:
    document = docx.Document(pfad)
    body = document.element.body
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(_blocks(body, document))).strip()
    aenderungen = next(body.iter(f"{W}ins", f"{W}del"), None) is not None
    return DocxText(text=text, seiten=_seiten(document), aenderungen=aenderungen)


def seitenzahl(pfad: str) -> int | None:
    return _seiten(docx.Document(pfad))
