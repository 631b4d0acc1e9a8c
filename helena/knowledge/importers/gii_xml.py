"""Statutes as official XML (gesetze-im-internet.de, one xml.zip per law, gii-norm.dtd), so a
firm can load current law."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from xml.etree import ElementTree as ET

from helena.knowledge.importers.common import (
    GLIEDERUNG_SEP,
    ImportFormatError,
    ParsedGesetz,
    ParsedNorm,
    canonical_abk,
    collapse,
    lower_first,
    norms_for,
    parse_stand_datum,
    sonstige_norm,
)
from helena.knowledge.importers.verzeichnis import split_verzeichnisse

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
        lines = [collapse(line) for line in text.split("\n")]
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
                    self.write(collapse("".join(child.itertext())) + " ")
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
    """An element's text on one line; a <BR/> in a heading is a space ("(zu Artikel 246a) Muster")."""
    if el is None:
        return ""
    parts = [el.text or ""]
    for child in el:
        parts.append(" " if child.tag == "BR" else _inline(child))
        parts.append(child.tail or "")
    return collapse("".join(parts))


MAX_XML_BYTES = 200 * 1024 * 1024  # the BGB is about 10 MB; more is no law, or a zip bomb


def xml_documents(data: bytes | Path) -> list[tuple[str, bytes]]:
    """The XML documents of a file with their names: a bare XML file, or every *.xml in a zip
    (gesetze-im-internet.de's xml.zip holds one, sometimes with images beside it; a firm may zip
    several laws into one)."""
    raw = data.read_bytes() if isinstance(data, Path) else data
    name = data.name if isinstance(data, Path) else "XML"
    if raw[:4] != b"PK\x03\x04":
        return [(name, raw)]  # a bare XML file is fine too
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            members = [m for m in archive.infolist()
                       if m.filename.lower().endswith(".xml") and not m.is_dir()]
            if not members:
                raise ImportFormatError("Das ZIP-Archiv enthält keine XML-Datei.")
            for member in members:
                if member.file_size > MAX_XML_BYTES:
                    groesse = member.file_size // 2**20
                    raise ImportFormatError(f"{member.filename} ist mit {groesse} MB zu groß.")
            return [(member.filename, archive.read(member)) for member in members]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as exc:
        raise ImportFormatError(f"Kein gültiges ZIP-Archiv ({exc}).") from None


def _read_xml_bytes(data: bytes | Path) -> bytes:
    documents = xml_documents(data)
    if len(documents) != 1:
        raise ImportFormatError(f"Das ZIP-Archiv enthält {len(documents)} XML-Dateien statt genau einer.")
    return documents[0][1]


def _root(data: bytes | Path) -> ET.Element:
    raw = _read_xml_bytes(data)
    # ElementTree never loads the external DTD, but an internal subset could expand entities. The
    # official XML is UTF-8; another encoding (UTF-16) could hide a declaration from this check.
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in raw[:200]:
        raise ImportFormatError("Das XML ist nicht UTF-8-kodiert (gesetze-im-internet.de liefert UTF-8).")
    if b"<!ENTITY" in raw:
        raise ImportFormatError("XML mit Entity-Deklarationen wird aus Sicherheitsgründen abgelehnt.")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
        raise ImportFormatError(f"Ungültiges XML ({exc}).") from None
    if root.tag != "dokumente":
        raise ImportFormatError(f"Unerwartetes Wurzelelement <{root.tag}> statt <dokumente>.")
    return root


@dataclass
class _Law:
    """What the norms' metadata say about the whole law (the first that says it wins)."""

    abk: str = ""
    titel: str = ""
    stand_by_type: dict[str, str] = field(default_factory=dict)
    ausfertigung: str = ""
    # "Änderung durch … mWv 12.6.2026 noch nicht berücksichtigt": the text lacks a change in force.
    offen: list[str] = field(default_factory=list)

    def read(self, meta: ET.Element) -> None:
        self.abk = self.abk or _inline(meta.find("amtabk")) or _inline(meta.find("jurabk"))
        self.titel = self.titel or _inline(meta.find("langue")) or _inline(meta.find("kurzue"))
        for angabe in meta.findall("standangabe"):
            typ, kommentar = _inline(angabe.find("standtyp")), _inline(angabe.find("standkommentar"))
            if typ and kommentar:
                self.stand_by_type.setdefault(typ, kommentar)
            if "nicht berücksichtigt" in kommentar and kommentar not in self.offen:
                self.offen.append(kommentar)
        self.ausfertigung = self.ausfertigung or _inline(meta.find("ausfertigung-datum"))

    def stand(self) -> tuple[str, date | None]:
        """The Stand as the law states it ("Stand", else "Neuf"), else its Ausfertigung; with every
        change the text does not contain yet, so that no one takes it for the law in force."""
        for typ in ("Stand", "Neuf"):
            if typ in self.stand_by_type:
                stand = lower_first(self.stand_by_type[typ])
                offen = "".join(f"; Hinweis: {hinweis}" for hinweis in self.offen)
                return f"{stand}{offen}"[:500], parse_stand_datum(stand)
        try:
            datum = date.fromisoformat(self.ausfertigung)
        except ValueError:
            return "", None
        return f"Ausfertigung vom {datum:%d.%m.%Y}", datum


def _enter(stack: list[tuple[int, str]], einheit: ET.Element) -> None:
    """A structural unit (Buch, Abschnitt …): the path of the norms after it changes."""
    kennzahl = _inline(einheit.find("gliederungskennzahl"))
    level = max(len(kennzahl) // 3, 1) if kennzahl.isdigit() else 1
    label = " - ".join(part for part in (_inline(einheit.find("gliederungsbez")),
                                         _inline(einheit.find("gliederungstitel"))) if part)
    while stack and stack[-1][0] >= level:
        stack.pop()
    if label:
        stack.append((level, label))


_ARTIKEL_RE = re.compile(r"^Art(?:ikel|\.)?\s*(?P<nr>\d+[a-z]{0,2})$")
_PARAGRAPH_RE = re.compile(r"^§\s*(?P<nr>\d+[a-z]{0,2})$")


def _texts(norm_el: ET.Element) -> tuple[str, str]:
    """The norm's text (with footnotes printed inside it) and its official footnotes."""
    text_el = norm_el.find("textdaten/text")
    body = _xml_text(text_el.find("Content") if text_el is not None else None)
    notes = _xml_text(text_el.find("Footnotes") if text_el is not None else None)
    fussnoten = _xml_text(norm_el.find("textdaten/fussnoten/Content"))
    return "\n\n".join(part for part in (body, notes) if part), fussnoten


def _norms_of(norm_el: ET.Element, meta: ET.Element, *, gliederung: str, order: int) -> list[ParsedNorm]:
    enbez = _inline(meta.find("enbez"))
    if not enbez or enbez.lower().startswith(("inhaltsübersicht", "inhaltsverzeichnis")):
        return []  # the law's own header norm or its table of contents
    body, fussnoten = _texts(norm_el)
    norm_titel = _inline(meta.find("titel"))
    found = norms_for(label=enbez, titel=norm_titel, text=body, gliederung=gliederung, order=order)
    if not found:
        sonstige = sonstige_norm(heading=f"{enbez} {norm_titel}".strip(), text=body, order=order)
        found = [sonstige] if sonstige else []
    for norm in found:
        norm.fussnoten = fussnoten
    return found


def _artikel_norm(norm_el: ET.Element, meta: ET.Element, einheit: ET.Element, *, gliederung: str,
                  order: int) -> ParsedNorm | None:
    """An article that the XML files as a structural unit (the EGBGB): "Art. 6" with its own text,
    or one of its paragraphs, "Art. 229 § 6", cited as lawyers do ("Art. 229 § 6 EGBGB")."""
    artikel = _ARTIKEL_RE.match(_inline(einheit.find("gliederungsbez")))
    if artikel is None:
        return None
    body, fussnoten = _texts(norm_el)
    enbez = _inline(meta.find("enbez"))
    if enbez:
        paragraph = _PARAGRAPH_RE.match(enbez)
        if paragraph is None:
            return None
        bezeichnung = f"Art. {artikel.group('nr')} § {paragraph.group('nr')}"
        titel = _inline(meta.find("titel"))
    else:
        if not body:
            return None  # an article made of paragraphs: they follow as norms of their own
        bezeichnung = f"Art. {artikel.group('nr')}"
        titel = _inline(einheit.find("gliederungstitel"))
    titel = collapse(titel)
    if titel == "(weggefallen)":
        titel, body = "", body or "(weggefallen)"
    nummer = bezeichnung.removeprefix("Art. ").replace(" ", "").lower()
    return ParsedNorm(bezeichnung, nummer, titel, body, order, gliederung, fussnoten)


_ZU_NORM_RE = re.compile(r"^\(zu (?P<ziel>(?:§|Art\.?)\s*\d+[a-z]?)\b")
_ANNEXES = ("anlage", "anhang")
_TABELLE_RE = re.compile(r"\bTabelle (?P<nr>\d+)\b")


def _eindeutig(normen: list[ParsedNorm]) -> list[ParsedNorm]:
    """Every norm citable by one designation: a norm printed twice in the source once, a second,
    different version of it (SGB XI § 113d) as "(weitere Fassung)"; unnumbered annexes by what
    they belong to ("Anlage zu § 28" SGB XII, "Anhang Tabelle 1" BKatV), else by their place."""
    out: list[ParsedNorm] = []
    seen: dict[str, ParsedNorm] = {}
    counts: dict[str, int] = {}
    for norm in normen:
        first = seen.get(norm.nummer)
        if first is not None and (first.bezeichnung, first.text) == (norm.bezeichnung, norm.text):
            continue
        if first is not None and first.bezeichnung == norm.bezeichnung and norm.nummer not in _ANNEXES:
            fassung = counts[f"{norm.nummer}#"] = counts.get(f"{norm.nummer}#", 1) + 1
            norm.bezeichnung = f"{norm.bezeichnung} ({fassung}. Fassung)" if fassung > 2 \
                else f"{norm.bezeichnung} (weitere Fassung)"
            norm.nummer = f"{norm.nummer}#{fassung}"
        if norm.nummer in _ANNEXES:
            counts[norm.nummer] = counts.get(norm.nummer, 0) + 1
        seen.setdefault(norm.nummer, norm)
        out.append(norm)
    for norm in out:
        if counts.get(norm.nummer, 0) < 2:
            continue
        if tabelle := _TABELLE_RE.search(norm.titel):
            norm.bezeichnung = f"{norm.bezeichnung} Tabelle {tabelle.group('nr')}"
        elif ziel := _ZU_NORM_RE.match(norm.titel):
            norm.bezeichnung = f"{norm.bezeichnung} zu {collapse(ziel.group('ziel'))}"
        else:
            counts[norm.nummer + "#"] = counts.get(norm.nummer + "#", 0) + 1
            norm.bezeichnung = f"{norm.bezeichnung} {counts[norm.nummer + '#']}"
        norm.nummer = norm.bezeichnung.lower().replace(" ", "")
    return out


def parse_gii_xml_zip(data: bytes | Path) -> ParsedGesetz:
    """A statute in the gesetze-im-internet.de XML format (xml.zip with one gii-norm XML)."""
    law = _Law()
    normen: list[ParsedNorm] = []
    stack: list[tuple[int, str]] = []
    for norm_el in _root(data).iter("norm"):
        meta = norm_el.find("metadaten")
        if meta is None:
            continue
        law.read(meta)
        einheit = meta.find("gliederungseinheit")
        gliederung = GLIEDERUNG_SEP.join(label for _, label in stack)
        if einheit is not None:
            _enter(stack, einheit)
            inside = stack if meta.find("enbez") is not None else stack[:-1]  # "Art. 229 § 6" is in Art 229
            artikel = _artikel_norm(norm_el, meta, einheit, order=len(normen) + 1,
                                    gliederung=GLIEDERUNG_SEP.join(label for _, label in inside))
            if artikel is not None:
                normen.append(artikel)
            elif meta.find("enbez") is not None and not _ARTIKEL_RE.match(
                    _inline(einheit.find("gliederungsbez"))):  # an Anlage filed under a unit of its own
                # (a range of repealed paragraphs inside an article, "Art. 234 §§ 8 und 9", is left out)
                normen.extend(_norms_of(norm_el, meta, gliederung=gliederung, order=len(normen) + 1))
            continue
        normen.extend(_norms_of(norm_el, meta, gliederung=gliederung, order=len(normen) + 1))
    if not law.abk:
        raise ImportFormatError("Keine Abkürzung (jurabk/amtabk) im XML gefunden.")
    normen = split_verzeichnisse(_eindeutig(normen))
    stand, stand_datum = law.stand()
    return ParsedGesetz(abk=canonical_abk(law.abk), titel=law.titel or law.abk, stand=stand,
                        stand_datum=stand_datum, quelle="gii_xml", normen=normen)


def parse_gii_xml_files(data: bytes | Path) -> list[ParsedGesetz]:
    """Every law in a file: a bare XML file or a zip with one or more XML files (images beside them
    are ignored). A broken document names itself when the zip holds more than one."""
    documents = xml_documents(data)
    if len(documents) == 1:
        return [parse_gii_xml_zip(documents[0][1])]
    laws: list[ParsedGesetz] = []
    for name, raw in documents:
        try:
            laws.append(parse_gii_xml_zip(raw))
        except ImportFormatError as exc:
            raise ImportFormatError(f"{name}: {exc}") from None
    return laws


@dataclass(frozen=True)
class Kopf:
    """A law's abbreviation and Stand, as its first norm states them."""

    abk: str
    stand: str
    stand_datum: date | None


def law_heads(data: bytes | Path) -> list[Kopf]:
    """The abbreviation and Stand of every law in a file, read from its first norm alone: `make run`
    asks at each start whether the bundled laws are newer than the loaded ones (0.1 s, not 5 s)."""
    heads: list[Kopf] = []
    for name, raw in xml_documents(data):
        start, end = raw.find(b"<norm"), raw.find(b"</norm>")
        if start < 0 or end < start:
            raise ImportFormatError(f"{name}: keine Norm gefunden.")
        law = _Law()
        first = _root(b"<dokumente>" + raw[start:end + len(b"</norm>")] + b"</dokumente>")
        for meta in first.iter("metadaten"):
            law.read(meta)
        if not law.abk:
            raise ImportFormatError(f"{name}: keine Abkürzung (jurabk/amtabk) gefunden.")
        heads.append(Kopf(canonical_abk(law.abk), *law.stand()))
    return heads
