"""Statutes as Markdown (bundestag/gesetze, bundled in corpus/gesetze/)."""

from __future__ import annotations

import re
from datetime import date
from itertools import pairwise

from helena.knowledge.importers.common import (
    GLIEDERUNG_SEP,
    NORM_HEAD_RE,
    WRAP_COLUMNS,
    ZU_NORM_RE,
    ImportFormatError,
    ParsedGesetz,
    ParsedNorm,
    canonical_abk,
    collapse,
    norms_for,
    parse_stand_datum,
    sonstige_norm,
)
from helena.knowledge.importers.verzeichnis import split_verzeichnisse

# --- Markdown (bundestag/gesetze) -----------------------------------------------------------

_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FOOTNOTE_DEF_RE = re.compile(r"^\[\^[^\]]+\]:\s*")
_FOOTNOTE_REF_RE = re.compile(r"\[\^[^\]]+\]")
_HR_RE = re.compile(r"^\s*-{3,}\s*$")
_MD_ESCAPE_RE = re.compile(r"\\([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")
_INNER_SPACE_RE = re.compile(r"(?<=\S)[ \t]{2,}")
_ROW_START_RE = re.compile(r"^\*\s+\*(?:\s+(.*))?$")
_CELL_RE = re.compile(r"^ {4}\*(?:\s+(.*))?$")
_HARD = "\x00"  # marks a line that must keep its line break
_CONJUNCTIONS = frozenset({"und", "oder", "bis", "sowie", "bzw.", "noch", "als"})
_STAND_TERMS = (
    ("Zuletzt geändert durch", "zuletzt geändert durch"),
    ("Geändert durch", "geändert durch"),
    ("Neugefasst durch", "neugefasst durch"),
)


def _md_inline(text: str) -> str:
    return _MD_ESCAPE_RE.sub(r"\1", text.replace("**", ""))


def _join_cell(lines: list[str]) -> str:
    """A table cell wrapped in a narrow column: "Gegen-" + "standswert" → "Gegenstandswert"."""
    out = ""
    for line in (_md_inline(line.strip()) for line in lines):
        if not line:
            continue
        word = line.split(" ", 1)[0]
        if out.endswith("-") and word[:1].islower() and word not in _CONJUNCTIONS:
            out = out[:-1] + line
        else:
            out = f"{out} {line}".strip()
        out = _INNER_SPACE_RE.sub(" ", out)
    return out


def _table_rows(lines: list[str]) -> list[str]:
    """pandoc writes tables as nested lists ("*    *   cell" starts a row, "    *   cell" adds a cell).

    Rows become "cell | cell | cell" lines marked with _HARD so they are never joined.
    """
    out: list[str] = []
    cells: list[list[str]] | None = None

    def end_row() -> None:
        nonlocal cells
        if cells is not None:
            row = " | ".join(c for c in (_join_cell(cell) for cell in cells) if c)
            if row:
                out.append(_HARD + row)
        cells = None

    for line in lines:
        row_start = _ROW_START_RE.match(line)
        if row_start:
            end_row()
            cells = [[row_start.group(1) or ""]]
        elif cells is not None and (cell := _CELL_RE.match(line)):
            cells.append([cell.group(1) or ""])
        elif cells is not None and (not line.strip() or line.startswith("        ")):
            cells[-1].append(line)
        else:
            end_row()
            out.append(line)
    end_row()
    return out


def _md_body_to_text(lines: list[str]) -> str:
    """Markdown body → plain text: paragraphs kept, soft wraps undone, markup removed."""
    cleaned: list[str] = []
    for raw in lines:
        line = raw.rstrip()
        if _HR_RE.match(line):
            line = ""
        elif _FOOTNOTE_DEF_RE.match(line):
            line = _FOOTNOTE_DEF_RE.sub("", line)  # "[^id]: **Amtlicher Hinweis:** …" → the note
        else:
            line = _FOOTNOTE_REF_RE.sub("", line).rstrip()
        cleaned.append(line)
    if any(_ROW_START_RE.match(line) for line in cleaned):
        cleaned = _table_rows(cleaned)

    paragraphs: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if not block:
            return
        first = block[0].removeprefix(_HARD)
        indent = len(first) - len(first.lstrip())
        out = " " * indent + _INNER_SPACE_RE.sub(" ", _md_inline(first.strip()))
        for prev, line in pairwise(block):
            hard = line.startswith(_HARD) or prev.startswith(_HARD)
            line = line.removeprefix(_HARD)
            stripped = line.strip()
            first_word = stripped.split(" ", 1)[0]
            content = _INNER_SPACE_RE.sub(" ", _md_inline(stripped))
            if not hard and len(prev.rstrip()) + 1 + len(first_word) > WRAP_COLUMNS:
                out += " " + content  # soft wrap: the word did not fit
            else:
                out += "\n" + " " * (len(line) - len(line.lstrip())) + content  # a real line break
        if out.strip():
            paragraphs.append(out.rstrip())
        block.clear()

    for line in cleaned:
        if line.strip():
            block.append(line)
        else:
            flush()
    flush()
    return "\n\n".join(paragraphs).strip("\n")


def _front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    if not lines or lines[0].strip() != "---":
        return {}, 0
    meta: dict[str, str] = {}
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return meta, i + 1
        key, sep, value = line.partition(":")
        if sep:
            meta[key.strip()] = value.strip()
    raise ImportFormatError("Front Matter ohne abschließendes „---“.")


def _definitions(lines: list[str]) -> dict[str, str]:
    """pandoc definition lists ("Term\\n:   value"), the first value per term."""
    defs: dict[str, str] = {}
    term = ""
    key: str | None = None  # the term whose value continues on indented lines
    for line in lines:
        if line.startswith(":") and term:
            key = term if term not in defs else None
            if key:
                defs[key] = line[1:].strip()
        elif line.startswith("    ") and key:
            defs[key] = f"{defs[key]} {line.strip()}".strip()
        elif line.strip():
            term, key = line.strip(), None
    return defs


def _md_stand(defs: dict[str, str]) -> tuple[str, date | None]:
    for term, label in _STAND_TERMS:
        value = defs.get(term, "").strip().rstrip(";").strip()
        if value:
            return f"{label} {value}", parse_stand_datum(value)
    ausfertigung = defs.get("Ausfertigungsdatum", "").strip()
    try:
        datum = date.fromisoformat(ausfertigung)
    except ValueError:
        return "", None
    return f"Ausfertigung vom {datum:%d.%m.%Y}", datum


def parse_markdown_gesetz(text: str) -> ParsedGesetz:
    """A statute in the bundestag/gesetze Markdown layout (see corpus/README.md)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    meta, start = _front_matter(lines)

    # Sections: (level, heading, body lines); level 0 is text before the first heading.
    sections: list[tuple[int, str, list[str]]] = [(0, "", [])]
    for line in lines[start:]:
        match = _HEADING_RE.match(line)
        if match:
            sections.append((len(match.group(1)), _md_inline(collapse(match.group(2))), []))
        else:
            sections[-1][2].append(line)

    title_heading = next((h for level, h, _ in sections if level == 1), "")
    abk = meta.get("jurabk") or meta.get("slug") or ""
    if not abk:
        match = re.search(r"\(([^()]+)\)\s*$", title_heading)
        abk = match.group(1) if match else ""
    if not abk:
        raise ImportFormatError("Keine Abkürzung (jurabk) im Front Matter gefunden.")
    titel = meta.get("Title") or re.sub(r"\s*\([^()]*\)\s*$", "", title_heading) or abk
    front_body = [line for level, _, body in sections if level <= 1 for line in body]
    stand, stand_datum = _md_stand(_definitions(front_body))

    normen: list[ParsedNorm] = []
    stack: list[tuple[int, str]] = []
    anlage: ParsedNorm | None = None  # inside an Anlage, sub-headings are part of its text
    anlage_extra: list[str] = []

    def close_anlage() -> None:
        nonlocal anlage
        if anlage is not None and anlage_extra:
            extra = _md_body_to_text(anlage_extra)
            anlage.text = "\n\n".join(t for t in (anlage.text, extra) if t)
        anlage = None
        anlage_extra.clear()

    for level, heading, body in sections:
        if level <= 1:
            continue
        is_norm = bool(NORM_HEAD_RE.match(heading))
        # Headings go no deeper than ######: a norm there may sit *inside* a ###### Kapitel.
        closes = level + 1 if is_norm and level == 6 else level
        while stack and stack[-1][0] >= closes:
            stack.pop()
        body_text = _md_body_to_text(body)
        order = len(normen) + 1
        gliederung = GLIEDERUNG_SEP.join(h for _, h in stack)
        if is_norm:
            close_anlage()
            normen.extend(norms_for(
                label=heading, titel="", text=body_text, gliederung=gliederung, order=order
            ))
            continue
        sonstige = sonstige_norm(heading=heading, text=body_text, order=order)
        if sonstige is not None:
            close_anlage()
            _take_zu_note(previous=normen[-1] if normen else None, norm=sonstige)
            normen.append(sonstige)
            if sonstige.bezeichnung.startswith(("Anlage", "Anhang")):
                anlage = sonstige
            continue
        if anlage is not None:
            anlage_extra.extend(["", heading, "", *body])
            continue
        stack.append((level, heading))
    close_anlage()
    normen = split_verzeichnisse(normen)
    return ParsedGesetz(
        abk=canonical_abk(abk),
        titel=collapse(titel),
        stand=stand,
        stand_datum=stand_datum,
        quelle="markdown",
        normen=normen,
    )


def _take_zu_note(*, previous: ParsedNorm | None, norm: ParsedNorm) -> None:
    """pandoc sometimes leaves an Anlage's "(zu § 193 …)" at the end of the norm before it."""
    if previous is None or not previous.text or "(zu " in norm.titel:
        return
    head, _, last = previous.text.rpartition("\n\n")
    if ZU_NORM_RE.match(last.strip()):
        previous.text = head.rstrip()
        norm.titel = f"{last.strip()} {norm.titel}".strip()
