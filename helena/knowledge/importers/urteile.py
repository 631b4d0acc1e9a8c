"""Decisions as JSON lines (the Open Legal Data dump)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import date
from html.parser import HTMLParser

from helena.knowledge.importers.common import (
    MAX_AKTENZEICHEN,
    MAX_ECLI,
    MAX_GERICHT,
    MAX_QUELLE,
    MAX_TYP,
    ImportProblem,
    ParsedUrteil,
    collapse,
)

# --- decisions (Open Legal Data JSON lines) -------------------------------------------------


class _HtmlText(HTMLParser):
    """HTML → text with paragraph breaks; remembers each heading's section to find the Leitsatz."""

    BLOCK = frozenset({
        "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd",
        "blockquote", "section", "table", "ul", "ol", "dl", "hr", "pre",
    })
    HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
    SKIP = frozenset({"script", "style", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.in_heading = False
        # (heading text parts, body parts) per heading, in document order
        self.sections: list[tuple[list[str], list[str]]] = []

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        if self.sections:
            heading, body = self.sections[-1]
            (heading if self.in_heading else body).append(text)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIP:
            self.skip += 1
        elif tag == "br":
            self._emit("\n")
        elif tag in self.BLOCK:
            self._emit("\n\n")
        if tag in self.HEADINGS:
            self.sections.append(([], []))
            self.in_heading = True

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(self.skip - 1, 0)
        elif tag in self.BLOCK:
            self._emit("\n\n")
        if tag in self.HEADINGS:
            self.in_heading = False

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._emit(data)

    @staticmethod
    def normalise(parts: list[str]) -> str:
        paragraphs = []
        for para in re.split(r"\n\s*\n", "".join(parts).replace("\xa0", " ")):
            lines = [collapse(line) for line in para.split("\n")]
            para = "\n".join(line for line in lines if line)
            if para:
                paragraphs.append(para)
        return "\n\n".join(paragraphs)

    def leitsatz(self) -> str:
        for heading, body in self.sections:
            if re.fullmatch(r"leits(?:atz|ätze)\s*:?", collapse("".join(heading)), re.IGNORECASE):
                return self.normalise(body)
        return ""


def html_to_text(html: str) -> tuple[str, str]:
    """(text, leitsatz) from a decision's HTML; leitsatz is "" when there is no such section."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    return parser.normalise(parser.parts), parser.leitsatz()


def _court_name(value: object) -> str:
    if isinstance(value, dict):
        value = value.get("name") or ""
    return collapse(value) if isinstance(value, str) else ""


def _problem(line_no: int, message: str) -> ImportProblem:
    return ImportProblem(line_no=line_no, message=message)


def parse_urteil(obj: object, *, line_no: int) -> ParsedUrteil | ImportProblem:
    """One Open Legal Data case object → ParsedUrteil (or the reason it is unusable)."""
    if not isinstance(obj, dict):
        return _problem(line_no, "Kein JSON-Objekt.")
    gericht = _court_name(obj.get("court"))
    if not gericht:
        return _problem(line_no, "Gericht fehlt.")
    aktenzeichen = collapse(str(obj.get("file_number") or ""))
    if not aktenzeichen:
        return _problem(line_no, "Aktenzeichen (file_number) fehlt.")
    raw_date = obj.get("date")
    datum: date | None = None
    if raw_date not in (None, ""):
        try:
            datum = date.fromisoformat(str(raw_date)[:10]) if isinstance(raw_date, str) else None
        except ValueError:
            datum = None
        if datum is None:
            return _problem(line_no, f"Ungültiges Datum „{str(raw_date)[:40]}“ (erwartet JJJJ-MM-TT).")
    ecli = collapse(str(obj.get("ecli") or ""))
    typ = collapse(str(obj.get("type") or ""))
    for label, value, limit in (
        ("Gericht", gericht, MAX_GERICHT), ("Aktenzeichen", aktenzeichen, MAX_AKTENZEICHEN),
        ("ECLI", ecli, MAX_ECLI), ("Typ", typ, MAX_TYP),
    ):
        if len(value) > limit:
            return _problem(line_no, f"{label} ist länger als {limit} Zeichen.")
    content = obj.get("content") or ""
    if not isinstance(content, str):
        return _problem(line_no, "Inhalt (content) ist kein Text.")
    text, leitsatz = html_to_text(content)
    for key in ("leitsatz", "abstract"):
        value = obj.get(key)
        if isinstance(value, str) and value.strip():
            leitsatz = html_to_text(value)[0] if "<" in value else value.strip()
            break
    slug, case_id = obj.get("slug"), obj.get("id")
    if slug:
        quelle = f"https://de.openlegaldata.io/case/{slug}"
    elif case_id:
        quelle = f"https://de.openlegaldata.io/api/cases/{case_id}/"
    else:
        quelle = "Open Legal Data"
    return ParsedUrteil(
        gericht=gericht,
        datum=datum,
        aktenzeichen=aktenzeichen,
        typ=typ,
        leitsatz=leitsatz,
        text=text,
        ecli=ecli,
        quelle=quelle[:MAX_QUELLE],
    )


def parse_urteile_jsonl(lines: Iterable[str | bytes]) -> Iterator[ParsedUrteil | ImportProblem]:
    """Stream an Open Legal Data dump line by line; bad lines become ImportProblems, never errors."""
    for line_no, line in enumerate(lines, start=1):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                yield _problem(line_no, "Zeile ist kein gültiges UTF-8.")
                continue
        line = line.lstrip("\ufeff")
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield _problem(line_no, f"Kein gültiges JSON (Fehler bei Zeichen {exc.colno}).")
            continue
        yield parse_urteil(obj, line_no=line_no)
