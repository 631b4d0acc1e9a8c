"""Reading the text of an uploaded file, page by page where it has pages: a PDF's text layer
(pypdf) with OCR for the pages that have none, a DOCX (docx_text.py), an e-mail with its attachments
handed back as files of their own (mail.py), plain text, and images through OCR. Pure functions of
a file: the Dokument is written by services.py."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pypdf
from PIL import Image, ImageSequence

from akten.dokumente import ocr
from akten.dokumente.docx_text import lies_docx, seitenzahl
from akten.dokumente.mail import Anhang, lies_mail
from akten.dokumente.seiten import SEITENUMBRUCH
from akten.dokumente.typen import DateiAbgelehnt, bereinigt, decode_text

log = logging.getLogger(__name__)
MIN_TEXT = 20  # characters; a page with fewer in its text layer is a scan (or a blank page)
MAX_SEITEN = 2000  # pages of one upload: a whole Handakte fits, a denial of service does not

Fortschritt = Callable[[int, int], None]  # (done, total)

__all__ = ["Anhang", "Gelesen", "lies", "pruefe"]


@dataclass
class Gelesen:
    seiten: list[str]
    ocr_seiten: int = 0
    ohne_ocr: list[int] = field(default_factory=list)  # scanned pages unread: no Tesseract here
    fehlgeschlagen: list[int] = field(default_factory=list)  # pages Tesseract could not read
    anhaenge: list[Anhang] = field(default_factory=list)
    seitenzahl: int | None = None  # the document's pages where they are known
    hinweis: str = ""


# --------------------------------------------------------------------------- checks at upload


def _zu_viele(name: str, seiten: int) -> DateiAbgelehnt:
    return DateiAbgelehnt(f"„{name}“ hat {seiten} Seiten; ich lese höchstens {MAX_SEITEN} Seiten je Datei. "
                          f"Bitte teile die Datei.", code="zu_viele_seiten")


def pruefe(pfad: Path, dateityp: str, *, name: str) -> int | None:
    """Open the file as what it claims to be: its page count, or DateiAbgelehnt (broken, locked,
    too many pages)."""
    try:
        seiten: int | None = None
        if dateityp == "pdf":
            reader = pypdf.PdfReader(str(pfad))
            if reader.is_encrypted and not reader.decrypt(""):
                raise DateiAbgelehnt(f"„{name}“ ist passwortgeschützt; bitte ohne Passwort hochladen.",
                                     code="datei_verschluesselt")
            seiten = len(reader.pages)
        elif dateityp == "docx":
            seiten = seitenzahl(str(pfad))
        elif dateityp == "bild":
            with Image.open(pfad) as bild:  # Pillow refuses a decompression bomb here
                bild.verify()
            with Image.open(pfad) as bild:
                seiten = getattr(bild, "n_frames", 1)
    except DateiAbgelehnt:
        raise
    except Exception as exc:  # every library has its own errors for a broken file
        log.info("upload %s refused: %r", name, exc)
        raise DateiAbgelehnt(f"„{name}“ ist beschädigt oder unvollständig und lässt sich nicht öffnen.",
                             code="datei_beschaedigt") from None
    if seiten is not None and dateityp != "docx" and seiten > MAX_SEITEN:
        raise _zu_viele(name, seiten)
    return seiten


# --------------------------------------------------------------------------- reading


def lies(pfad: Path, dateityp: str, *, fortschritt: Fortschritt | None = None) -> Gelesen:
    melde = fortschritt or (lambda done, total: None)
    if dateityp == "pdf":
        gelesen = _pdf(pfad, melde)
    elif dateityp == "docx":
        docx_text = lies_docx(str(pfad))
        gelesen = Gelesen(seiten=[docx_text.text], seitenzahl=docx_text.seiten)
        if docx_text.aenderungen:
            gelesen.hinweis = ("Das Dokument enthält nachverfolgte Änderungen; gelesen ist die Fassung mit "
                               "allen Änderungen angenommen.")
    elif dateityp == "eml":
        mail = lies_mail(pfad.read_bytes())
        gelesen = Gelesen(seiten=[mail.text], anhaenge=mail.anhaenge)
    elif dateityp == "bild":
        gelesen = _bild(pfad, melde)
    else:
        seiten = (decode_text(pfad.read_bytes()) or "").split(SEITENUMBRUCH)
        while len(seiten) > 1 and not seiten[-1].strip():  # a file ending in a form feed
            seiten.pop()
        gelesen = Gelesen(seiten=seiten, seitenzahl=len(seiten) if len(seiten) > 1 else None)
    gelesen.seiten = [_tidy(s) for s in gelesen.seiten]
    return gelesen


def _ocr(gelesen: Gelesen, nummer: int, bild: Callable[[], Image.Image]) -> str:
    """One scanned page through Tesseract; a page it cannot read is noted, not fatal."""
    if not ocr.verfuegbar():
        gelesen.ohne_ocr.append(nummer)
        return ""
    try:
        text = ocr.lies_bild(bild())
    except ocr.SeiteNichtLesbar:
        gelesen.fehlgeschlagen.append(nummer)
        return ""
    gelesen.ocr_seiten += 1
    return text


def _pdf(pfad: Path, melde: Fortschritt) -> Gelesen:
    reader = pypdf.PdfReader(str(pfad))
    if reader.is_encrypted:
        reader.decrypt("")
    total = len(reader.pages)
    gelesen = Gelesen(seiten=[], seitenzahl=total)
    for index, page in enumerate(reader.pages[:MAX_SEITEN]):
        text = _tidy(page.extract_text() or "")
        if len(text) < MIN_TEXT:
            scan = _ocr(gelesen, index + 1, lambda i=index: ocr.pdf_seite_als_bild(str(pfad), i))
            text = _tidy(scan) or text
        gelesen.seiten.append(text)
        melde(index + 1, total)
    return gelesen


def _bild(pfad: Path, melde: Fortschritt) -> Gelesen:
    """An image, or a multi-page TIFF (a fax) frame by frame: one page in memory at a time."""
    with Image.open(pfad) as bild:
        total = min(getattr(bild, "n_frames", 1), MAX_SEITEN)
        gelesen = Gelesen(seiten=[], seitenzahl=total)
        for index, frame in enumerate(ImageSequence.Iterator(bild)):
            if index >= total:
                break
            if frame.width * frame.height > Image.MAX_IMAGE_PIXELS:  # Pillow checks the first frame only
                gelesen.fehlgeschlagen.append(index + 1)
                gelesen.seiten.append("")
                continue
            gelesen.seiten.append(_ocr(gelesen, index + 1, lambda f=frame: f.copy()))
            melde(index + 1, total)
    return gelesen


def _tidy(text: str) -> str:
    """No form feeds inside a page (they separate pages), no control characters PostgreSQL or a
    DOCX cannot hold, no runs of blank lines."""
    text = bereinigt(text.replace(SEITENUMBRUCH, "\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.split("\n"))).strip()
