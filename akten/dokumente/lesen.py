"""Reading the text of an uploaded file, page by page where it has pages: a PDF's text layer
(pypdf) with OCR for the pages that have none, a DOCX in reading order with its tables (python-docx),
an e-mail's headers and body with its attachments handed back as files of their own, plain text,
and images through OCR. Pure functions of a file: the Dokument is written by services.py."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import docx
import nh3
import pypdf
from docx.table import Table
from PIL import Image, ImageSequence

from akten.dokumente import ocr
from akten.dokumente.seiten import SEITENUMBRUCH
from akten.dokumente.typen import DateiAbgelehnt, decode_text, parse_mail

log = logging.getLogger(__name__)
MIN_TEXT = 20  # characters; a page with fewer in its text layer is a scan (or a blank page)

Fortschritt = Callable[[int, int], None]  # (done, total)


@dataclass
class Anhang:
    name: str
    daten: bytes


@dataclass
class Gelesen:
    seiten: list[str]
    ocr_seiten: int = 0
    unlesbar: list[int] = field(default_factory=list)  # page numbers without text for want of OCR
    anhaenge: list[Anhang] = field(default_factory=list)
    seitenzahl: int | None = None  # the document's pages where they are known


# --------------------------------------------------------------------------- checks at upload


def pruefe(pfad: Path, dateityp: str, *, name: str) -> int | None:
    """Open the file as what it claims to be: its page count, or DateiAbgelehnt (broken, locked)."""
    try:
        if dateityp == "pdf":
            reader = pypdf.PdfReader(str(pfad))
            if reader.is_encrypted and not reader.decrypt(""):
                raise DateiAbgelehnt(f"„{name}“ ist passwortgeschützt; bitte ohne Passwort hochladen.",
                                     code="datei_verschluesselt")
            return len(reader.pages)
        if dateityp == "docx":
            return _docx_seiten(docx.Document(str(pfad)))
        if dateityp == "bild":
            with Image.open(pfad) as bild:
                bild.verify()
            with Image.open(pfad) as bild:
                return getattr(bild, "n_frames", 1)
        return None
    except DateiAbgelehnt:
        raise
    except Exception as exc:  # every library has its own errors for a broken file
        log.info("upload %s refused: %r", name, exc)
        raise DateiAbgelehnt(f"„{name}“ ist beschädigt oder unvollständig und lässt sich nicht öffnen.",
                             code="datei_beschaedigt") from None


# --------------------------------------------------------------------------- reading


def lies(pfad: Path, dateityp: str, *, fortschritt: Fortschritt | None = None) -> Gelesen:
    melde = fortschritt or (lambda done, total: None)
    if dateityp == "pdf":
        return _pdf(pfad, melde)
    if dateityp == "docx":
        return _docx(pfad)
    if dateityp == "eml":
        return _mail(pfad.read_bytes())
    if dateityp == "bild":
        return _bild(pfad, melde)
    text = decode_text(pfad.read_bytes()) or ""
    seiten = text.replace("\r\n", "\n").split(SEITENUMBRUCH)
    return Gelesen(seiten=seiten, seitenzahl=len(seiten) if len(seiten) > 1 else None)


def _pdf(pfad: Path, melde: Fortschritt) -> Gelesen:
    reader = pypdf.PdfReader(str(pfad))
    if reader.is_encrypted:
        reader.decrypt("")
    total = len(reader.pages)
    gelesen = Gelesen(seiten=[], seitenzahl=total)
    kann_ocr = ocr.verfuegbar()
    for index, page in enumerate(reader.pages):
        text = _tidy(page.extract_text() or "")
        if len(text) < MIN_TEXT:
            if kann_ocr:
                text = _tidy(ocr.lies_bild(ocr.pdf_seite_als_bild(str(pfad), index))) or text
                gelesen.ocr_seiten += 1
            elif not text:
                gelesen.unlesbar.append(index + 1)
        gelesen.seiten.append(text)
        melde(index + 1, total)
    return gelesen


def _bild(pfad: Path, melde: Fortschritt) -> Gelesen:
    with Image.open(pfad) as bild:
        frames = [frame.copy() for frame in ImageSequence.Iterator(bild)]
    gelesen = Gelesen(seiten=[], seitenzahl=len(frames))
    if not ocr.verfuegbar():
        gelesen.seiten = ["" for _ in frames]
        gelesen.unlesbar = list(range(1, len(frames) + 1))
        return gelesen
    for index, frame in enumerate(frames):
        gelesen.seiten.append(_tidy(ocr.lies_bild(frame)))
        gelesen.ocr_seiten += 1
        melde(index + 1, len(frames))
    return gelesen


def _docx_seiten(document: docx.document.Document) -> int | None:
    """Word's own page count of its last save (docProps/app.xml), where it kept one."""
    try:
        app = document.part.package.part_related_by(
            "http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties")
    except KeyError:
        return None
    match = re.search(rb"<(?:\w+:)?Pages>(\d+)<", app.blob)
    return int(match.group(1)) if match else None


def _docx(pfad: Path) -> Gelesen:
    """Paragraphs and tables in reading order; a table row as cells joined by " | "."""
    document = docx.Document(str(pfad))
    zeilen: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                cells: list[str] = []
                for cell in row.cells:
                    text = " ".join(cell.text.split())
                    if not cells or cells[-1] != text:  # a merged cell repeats in python-docx
                        cells.append(text)
                zeilen.append(" | ".join(cells))
            zeilen.append("")
        else:
            text = block.text.strip()
            style = (block.style.name if block.style is not None else "") or ""
            if text and style.startswith(("Heading", "Überschrift", "Title", "Titel")):
                zeilen.extend(["", text, ""])
            else:
                zeilen.append(text)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(zeilen)).strip()
    return Gelesen(seiten=[text], seitenzahl=_docx_seiten(document))


def html_zu_text(markup: str) -> str:
    """The text of an HTML mail body: tags gone, block ends as line breaks, entities decoded."""
    markup = re.sub(r"(?is)<(script|style|head)\b.*?</\1>", " ", markup)
    markup = re.sub(r"(?i)<br\s*/?>|</(p|div|tr|li|h\d|table|blockquote)>", "\n", markup)
    text = html.unescape(nh3.clean(markup, tags=set()))
    return re.sub(r"[ \t]+", " ", re.sub(r"\n\s*\n+", "\n\n", text)).strip()


_MAIL_KOPF = (("Von", "From"), ("An", "To"), ("Cc", "Cc"), ("Datum", "Date"), ("Betreff", "Subject"))


def _mail(data: bytes) -> Gelesen:
    message = parse_mail(data)
    kopf = [f"{label}: {message[key]}" for label, key in _MAIL_KOPF if message[key]]
    body = message.get_body(preferencelist=("plain", "html"))
    text = ""
    if body is not None:
        try:
            content = body.get_content()
        except (LookupError, UnicodeError, ValueError):
            content = (body.get_payload(decode=True) or b"").decode("utf-8", "replace")
        text = html_zu_text(content) if body.get_content_subtype() == "html" else content
    anhaenge: list[Anhang] = []
    for part in message.iter_attachments():
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload()[0] if isinstance(part.get_payload(), list) else part.get_payload()
            name = part.get_filename() or f"{inner['Subject'] or 'Weitergeleitete Nachricht'}.eml"
            anhaenge.append(Anhang(name, inner.as_bytes()))
            continue
        payload = part.get_payload(decode=True)
        if payload:
            anhaenge.append(Anhang(part.get_filename() or "Anhang", payload))
    if anhaenge:
        kopf.append("Anhänge: " + ", ".join(a.name for a in anhaenge))
    return Gelesen(seiten=["\n".join(kopf) + "\n\n" + _tidy(text)], anhaenge=anhaenge)


def _tidy(text: str) -> str:
    text = text.replace(SEITENUMBRUCH, "\n").replace("\r\n", "\n").replace("\x00", "")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.split("\n"))).strip()
