"""Parsers for the knowledge base sources; pure functions, no database access.

- statutes as Markdown (bundestag/gesetze, bundled in corpus/gesetze/),
- statutes as official XML (gesetze-im-internet.de, one xml.zip per law), so a firm can load current law,
- decisions as JSON lines (Open Legal Data dump).

Both statute parsers produce the same ParsedGesetz, so citation lookup (Norm.nummer) and the
Gliederung path look alike whatever the source was.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path
from xml.etree import ElementTree as ET

GLIEDERUNG_SEP = " › "
WEGGEFALLEN = "(weggefallen)"
# Upper bound for expanding "§§ 3 bis 6" into single norms; larger ranges are kept as one norm.
MAX_RANGE = 200
# The Markdown corpus is wrapped at 70 columns: a shorter line followed by a word that would have fit
# is a real line break (measured over the whole corpus).
WRAP_COLUMNS = 70

# Lengths of the model fields, so a bad source line becomes a problem instead of a DB error.
MAX_GERICHT = 300
MAX_AKTENZEICHEN = 200
MAX_TYP = 100
MAX_ECLI = 200
MAX_QUELLE = 300


class ImportFormatError(ValueError):
    """A source file we cannot read; the message is German and meant for the user."""


@dataclass
class ParsedNorm:
    bezeichnung: str
    nummer: str
    titel: str
    text: str
    order: int
    gliederung: str


@dataclass
class ParsedGesetz:
    abk: str
    titel: str
    stand: str
    stand_datum: date | None
    quelle: str
    normen: list[ParsedNorm] = field(default_factory=list)


@dataclass
class ParsedUrteil:
    gericht: str
    datum: date | None
    aktenzeichen: str
    typ: str
    leitsatz: str
    text: str
    ecli: str
    quelle: str


@dataclass(frozen=True)
class ImportProblem:
    line_no: int
    message: str

    def __str__(self) -> str:
        return f"Zeile {self.line_no}: {self.message}"


# --- shared helpers -------------------------------------------------------------------------

_STAND_DATE_RE = re.compile(r"\bv(?:om|\.)\s*(\d{1,2})\.\s*(\d{1,2})\.\s*(\d{4})")
_YEAR_SUFFIX_RE = re.compile(r"\s+\d{4}$")
# juris abbreviations that differ from what lawyers cite (and what gesetze-im-internet.de calls amtabk).
_CITED_ABK = {"WoEigG": "WEG"}

_NORM_HEAD_RE = re.compile(
    r"""^(?:\(XXXX\)\s*)?
    (?P<kind>§§?|Art(?:ikel|\.)?)\s*
    (?P<nums>\d+[a-z]{0,2}(?:\s*(?:bis|und|u\.|,)\s*\d+[a-z]{0,2})*)
    (?![\w.])\s*(?P<titel>.*)$""",
    re.VERBOSE,
)
_NUM_RE = re.compile(r"(\d+)([a-z]{0,2})")
# Units outside the §/Art numbering that still carry text worth finding.
_SONSTIGE_RE = re.compile(
    r"^(?P<bez>(?:Eingangsformel|Präambel|Schlu(?:ß|ss)formel)\b"
    r"|(?:Anlage|Anhang)\b(?:\s+(?:EV|[0-9]+[a-z]?|[IVX]+)(?![\w]))?)(?P<rest>.*)$"
)
_ZU_NORM_RE = re.compile(r"^\(zu (?:§|Art)[^)]*\)$")


def canonical_abk(abk: str) -> str:
    """The abbreviation lawyers cite: juris adds a year to re-enacted laws ("GKG 2004" → "GKG")."""
    abk = " ".join(abk.split())
    abk = _CITED_ABK.get(abk, abk)
    return _YEAR_SUFFIX_RE.sub("", abk) or abk


def parse_stand_datum(stand: str) -> date | None:
    """The first "v. 7.5.2021" in a Stand note, None if there is none or it is no real date."""
    match = _STAND_DATE_RE.search(stand)
    if not match:
        return None
    day, month, year = (int(g) for g in match.groups())
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _lower_first(text: str) -> str:
    """"Zuletzt geändert durch …" reads as "Stand: zuletzt geändert durch …" in source labels."""
    return text[:1].lower() + text[1:] if text[:1].isupper() and text[1:2].islower() else text


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _range_numbers(nums: str) -> list[str]:
    """"3 bis 6" → 3, 4, 5, 6; "707a bis 707c" → 707a, 707b, 707c; "178 und 179" → both.

    An empty list means the range is too odd or too long to expand (kept as one norm then).
    """
    parts = re.split(r"\s*(bis|und|u\.|,)\s*", nums.strip())
    out: list[str] = []
    for i in range(0, len(parts), 2):
        value = parts[i].lower()
        if i >= 2 and parts[i - 1] == "bis" and out:
            start = _NUM_RE.fullmatch(out[-1])
            end = _NUM_RE.fullmatch(value)
            if not start or not end:
                return []
            s_num, s_letter = int(start.group(1)), start.group(2)
            e_num, e_letter = int(end.group(1)), end.group(2)
            if s_num == e_num:
                if len(s_letter) > 1 or len(e_letter) != 1 or (s_letter and s_letter >= e_letter):
                    return []
                first = chr(ord(s_letter) + 1) if s_letter else "a"
                out.extend(f"{s_num}{chr(c)}" for c in range(ord(first), ord(e_letter) + 1))
            elif s_num < e_num and e_num - s_num <= MAX_RANGE:
                out.extend(str(n) for n in range(s_num + 1, e_num + 1))
                if e_letter:
                    out.append(value)
            else:
                return []
        else:
            out.append(value)
    return out if len(out) <= MAX_RANGE else []


def _norms_for(
    *, label: str, titel: str, text: str, gliederung: str, order: int
) -> list[ParsedNorm]:
    """One ParsedNorm per citable number of a heading/enbez like "§ 1", "Art 3", "§§ 3 bis 6".

    Ranges are expanded so that a citation of "§ 5 BGB" finds "(weggefallen)" instead of nothing.
    Returns [] if the label is not a §/Art designation.
    """
    match = _NORM_HEAD_RE.match(label.strip())
    if not match:
        return []
    kind = "Art." if match.group("kind").startswith("Art") else "§"
    titel = _clean_titel(" ".join(part for part in (match.group("titel"), titel) if part))
    if titel == WEGGEFALLEN:
        titel = ""
        if not text or text == "-":
            text = WEGGEFALLEN
    elif text == "-":
        text = ""
    nums = _collapse(match.group("nums"))
    if re.search(r"bis|und|u\.|,", nums):
        numbers = _range_numbers(nums)
        if numbers:
            return [
                ParsedNorm(f"{kind} {nummer}", nummer, titel, text, order + i, gliederung)
                for i, nummer in enumerate(numbers)
            ]
        # Too odd to expand: one norm, citable by its first number.
        prefix = "§§" if kind == "§" else kind
        first = _NUM_RE.match(nums).group(0).lower()
        return [ParsedNorm(f"{prefix} {nums}", first, titel, text, order, gliederung)]
    nummer = nums.lower()
    return [ParsedNorm(f"{kind} {nummer}", nummer, titel, text, order, gliederung)]


def _sonstige_norm(*, heading: str, text: str, order: int) -> ParsedNorm | None:
    """Eingangsformel, Präambel, Anlage 1 …: citable by name ("Anlage 1 RVG" → nummer "anlage1")."""
    match = _SONSTIGE_RE.match(heading)
    if not match:
        return None
    bezeichnung = _collapse(match.group("bez"))
    titel = _clean_titel(match.group("rest").strip(" -"))
    if titel == WEGGEFALLEN:
        titel = ""
        text = text if text and text != "-" else WEGGEFALLEN
    nummer = bezeichnung.lower().replace(" ", "")
    return ParsedNorm(bezeichnung, nummer, titel, text, order, "")


def _clean_titel(titel: str) -> str:
    # "*)" marks a footnote that the norm text carries itself.
    return _collapse(re.sub(r"\s*\*\)\s*$", "", titel))


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
            sections.append((len(match.group(1)), _md_inline(_collapse(match.group(2))), []))
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
        is_norm = bool(_NORM_HEAD_RE.match(heading))
        # Headings go no deeper than ######: a norm there may sit *inside* a ###### Kapitel.
        closes = level + 1 if is_norm and level == 6 else level
        while stack and stack[-1][0] >= closes:
            stack.pop()
        body_text = _md_body_to_text(body)
        order = len(normen) + 1
        gliederung = GLIEDERUNG_SEP.join(h for _, h in stack)
        if is_norm:
            close_anlage()
            normen.extend(_norms_for(
                label=heading, titel="", text=body_text, gliederung=gliederung, order=order
            ))
            continue
        sonstige = _sonstige_norm(heading=heading, text=body_text, order=order)
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
    for i, norm in enumerate(normen, start=1):
        norm.order = i
    return ParsedGesetz(
        abk=canonical_abk(abk),
        titel=_collapse(titel),
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
    if _ZU_NORM_RE.match(last.strip()):
        previous.text = head.rstrip()
        norm.titel = f"{last.strip()} {norm.titel}".strip()


# --- XML (gesetze-im-internet.de, gii-norm.dtd) ---------------------------------------------


class _XmlText:
    """Readable text from <Content>: paragraphs for P/list items/table rows, line breaks for BR."""

    BLOCKS = frozenset({"P", "pre", "Footnote", "Title", "Subtitle", "Ident"})
    SKIP = frozenset({"FnR", "img", "IMG", "kommentar", "Revision", "TOC", "noindex", "FILE"})

    def __init__(self) -> None:
        self.paragraphs: list[tuple[int, str]] = []
        self.buf: list[str] = []
        self.indent = 0

    def brk(self, indent: int) -> None:
        text = "".join(self.buf)
        lines = [_collapse(line) for line in text.split("\n")]
        text = "\n".join(line for line in lines if line)
        if text:
            self.paragraphs.append((self.indent, text))
        self.buf.clear()
        self.indent = indent

    def write(self, text: str | None, *, pre: bool = False) -> None:
        if text:
            self.buf.append(text if pre else re.sub(r"\s+", " ", text))

    def render(self, el: ET.Element, depth: int) -> None:
        tag = el.tag
        if tag in self.SKIP:
            return
        if tag == "BR":
            self.buf.append("\n")
        elif tag == "DL":
            self.brk(depth)
            for child in el:
                if child.tag == "DT":
                    self.brk(depth)
                    self.write(_collapse("".join(child.itertext())) + " ")
                elif child.tag == "DD":
                    self.write(child.text)
                    for sub in child:
                        self.render(sub, depth + 1)
                        self.write(sub.tail)
                    self.brk(depth + 1)
            self.brk(depth)
        elif tag == "table":
            self.brk(depth)
            rows = (" | ".join(c for c in (_inline(entry) for entry in row.iter("entry")) if c)
                    for row in el.iter("row"))
            self.buf.append("\n".join(row for row in rows if row))
            self.brk(depth)
        elif tag == "pre":
            self.brk(depth)
            self.buf.append(_pre_text(el))
            self.brk(depth)
        elif tag in self.BLOCKS:
            self.brk(depth)
            self.write(el.text)
            for child in el:
                self.render(child, depth)
                self.write(child.tail)
            self.brk(depth)
        else:
            self.write(el.text)
            for child in el:
                self.render(child, depth)
                self.write(child.tail)

    def text(self) -> str:
        self.brk(0)
        return "\n\n".join("    " * indent + para.replace("\n", "\n" + "    " * indent)
                           for indent, para in self.paragraphs)


def _pre_text(el: ET.Element) -> str:
    parts = [el.text or ""]
    for child in el:
        parts.append("\n" if child.tag == "BR" else _pre_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _xml_text(el: ET.Element | None) -> str:
    if el is None:
        return ""
    renderer = _XmlText()
    renderer.render(el, 0)
    return renderer.text()


def _inline(el: ET.Element | None) -> str:
    return _collapse("".join(el.itertext())) if el is not None else ""


def _read_xml_bytes(data: bytes | Path) -> bytes:
    raw = data.read_bytes() if isinstance(data, Path) else data
    if raw[:4] != b"PK\x03\x04":
        return raw  # a bare XML file is fine too
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            names = [n for n in archive.namelist() if n.lower().endswith(".xml")]
            if len(names) != 1:
                raise ImportFormatError(f"Das ZIP-Archiv enthält {len(names)} XML-Dateien statt genau einer.")
            return archive.read(names[0])
    except zipfile.BadZipFile as exc:
        raise ImportFormatError(f"Kein gültiges ZIP-Archiv ({exc}).") from None


def parse_gii_xml_zip(data: bytes | Path) -> ParsedGesetz:
    """A statute in the gesetze-im-internet.de XML format (xml.zip with one gii-norm XML)."""
    raw = _read_xml_bytes(data)
    # ElementTree never loads the external DTD, but an internal subset could expand entities.
    if b"<!ENTITY" in raw:
        raise ImportFormatError("XML mit Entity-Deklarationen wird aus Sicherheitsgründen abgelehnt.")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
        raise ImportFormatError(f"Ungültiges XML ({exc}).") from None
    if root.tag != "dokumente":
        raise ImportFormatError(f"Unerwartetes Wurzelelement <{root.tag}> statt <dokumente>.")

    abk = titel = ""
    stand_by_type: dict[str, str] = {}
    ausfertigung = ""
    normen: list[ParsedNorm] = []
    stack: list[tuple[int, str]] = []

    for norm_el in root.iter("norm"):
        meta = norm_el.find("metadaten")
        if meta is None:
            continue
        if not abk:
            abk = _inline(meta.find("amtabk")) or _inline(meta.find("jurabk"))
        if not titel:
            titel = _inline(meta.find("langue")) or _inline(meta.find("kurzue"))
        for angabe in meta.findall("standangabe"):
            typ = _inline(angabe.find("standtyp"))
            kommentar = _inline(angabe.find("standkommentar"))
            if typ and kommentar:
                stand_by_type.setdefault(typ, kommentar)
        ausfertigung = ausfertigung or _inline(meta.find("ausfertigung-datum"))

        einheit = meta.find("gliederungseinheit")
        if einheit is not None:
            kennzahl = _inline(einheit.find("gliederungskennzahl"))
            level = max(len(kennzahl) // 3, 1) if kennzahl.isdigit() else 1
            label = " - ".join(
                part for part in (_inline(einheit.find("gliederungsbez")),
                                  _inline(einheit.find("gliederungstitel"))) if part
            )
            while stack and stack[-1][0] >= level:
                stack.pop()
            if label:
                stack.append((level, label))
            continue

        enbez = _inline(meta.find("enbez"))
        if not enbez or enbez.lower().startswith(("inhaltsübersicht", "inhaltsverzeichnis")):
            continue  # the law's own header norm or its table of contents
        text_el = norm_el.find("textdaten/text")
        body = _xml_text(text_el.find("Content") if text_el is not None else None)
        notes = _xml_text(text_el.find("Footnotes") if text_el is not None else None)
        body = "\n\n".join(part for part in (body, notes) if part)
        norm_titel = _inline(meta.find("titel"))
        order = len(normen) + 1
        gliederung = GLIEDERUNG_SEP.join(label for _, label in stack)
        found = _norms_for(label=enbez, titel=norm_titel, text=body, gliederung=gliederung, order=order)
        if not found:
            sonstige = _sonstige_norm(heading=f"{enbez} {norm_titel}".strip(), text=body, order=order)
            found = [sonstige] if sonstige else []
        normen.extend(found)

    if not abk:
        raise ImportFormatError("Keine Abkürzung (jurabk/amtabk) im XML gefunden.")
    for i, norm in enumerate(normen, start=1):
        norm.order = i
    stand, stand_datum = "", None
    for typ in ("Stand", "Neuf"):
        if typ in stand_by_type:
            stand = _lower_first(stand_by_type[typ])
            stand_datum = parse_stand_datum(stand)
            break
    else:
        try:
            stand_datum = date.fromisoformat(ausfertigung)
            stand = f"Ausfertigung vom {stand_datum:%d.%m.%Y}"
        except ValueError:
            pass
    return ParsedGesetz(
        abk=canonical_abk(abk),
        titel=titel or abk,
        stand=stand,
        stand_datum=stand_datum,
        quelle="gii_xml",
        normen=normen,
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
            lines = [_collapse(line) for line in para.split("\n")]
            para = "\n".join(line for line in lines if line)
            if para:
                paragraphs.append(para)
        return "\n\n".join(paragraphs)

    def leitsatz(self) -> str:
        for heading, body in self.sections:
            if re.fullmatch(r"leits(?:atz|ätze)\s*:?", _collapse("".join(heading)), re.IGNORECASE):
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
    return _collapse(value) if isinstance(value, str) else ""


def _problem(line_no: int, message: str) -> ImportProblem:
    return ImportProblem(line_no=line_no, message=message)


def parse_urteil(obj: object, *, line_no: int) -> ParsedUrteil | ImportProblem:
    """One Open Legal Data case object → ParsedUrteil (or the reason it is unusable)."""
    if not isinstance(obj, dict):
        return _problem(line_no, "Kein JSON-Objekt.")
    gericht = _court_name(obj.get("court"))
    if not gericht:
        return _problem(line_no, "Gericht fehlt.")
    aktenzeichen = _collapse(str(obj.get("file_number") or ""))
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
    ecli = _collapse(str(obj.get("ecli") or ""))
    typ = _collapse(str(obj.get("type") or ""))
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


def _nummer(bezeichnung: str) -> str:
    """'§ 573c' / 'Art. 3' / 'Art 3' → the Norm.nummer used for citations ('573c', '3')."""
    value = re.sub(r"^(§+|art(?:ikel|\.)?)[\s\-_.]*", "", bezeichnung.strip().lower())
    return value.replace(" ", "")


def load_sachregister(directory: Path, abk: str) -> dict[str, str]:
    """The everyday and practice keywords for one law: nummer → keywords as one text.

    Files are `<abk>.json` or `<abk>_<teil>.json` (large laws are indexed in parts), each a JSON
    object {"§ 573c": ["Mieter kündigt", "Kündigungsfrist Wohnung", …]}. Bad entries are
    skipped, never fatal: the register only helps the search.
    """
    register: dict[str, list[str]] = {}
    stem = abk.lower()
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        if path.stem != stem and not path.stem.startswith(stem + "_"):
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for bezeichnung, keywords in data.items() if isinstance(data, dict) else ():
            if isinstance(bezeichnung, str) and isinstance(keywords, list):
                words = [k.strip() for k in keywords if isinstance(k, str) and k.strip()]
                register.setdefault(_nummer(bezeichnung), []).extend(words)
    return {nummer: " · ".join(words) for nummer, words in register.items() if words}
