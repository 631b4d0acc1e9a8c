"""Text from a scan: Debian's Tesseract with its German data (tesseract-ocr, tesseract-ocr-deu)
through pytesseract; PDF pages become images through PDFium (pypdfium2). Without Tesseract the
extraction says so ("Text nicht lesbar – OCR nicht verfügbar") instead of pretending."""

from __future__ import annotations

import logging
import math
import os
import shutil
import subprocess
import threading
from functools import lru_cache

import pypdfium2
import pytesseract
from django.conf import settings
from PIL import Image

log = logging.getLogger(__name__)
DPI = 300  # Tesseract's accuracy drops clearly below ~250 dpi
MAX_PIXELS = 40_000_000  # a page image at most (A4 at 300 dpi is 8.7 Mpx); a poster is scaled down
PAGE_TIMEOUT = 120  # seconds per page; a page that takes longer is not read
# Tesseract's own threads compete with the worker's other tasks on a small server
os.environ.setdefault("OMP_THREAD_LIMIT", "1")
# PDFium must never be called from two threads at once, and the Celery worker runs threads.
_PDFIUM = threading.Lock()


class SeiteNichtLesbar(Exception):
    """One page Tesseract could not read in time (or at all): the others still count."""


@lru_cache(maxsize=4)
def _languages(command: str) -> frozenset[str]:
    path = shutil.which(command)
    if path is None:
        return frozenset()
    try:
        out = subprocess.run([path, "--list-langs"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(line.strip() for line in out.stdout.splitlines()[1:] if line.strip())


def verfuegbar() -> bool:
    """Tesseract is installed with the language Helena reads (settings.HELENA_OCR_SPRACHE)."""
    wanted = settings.HELENA_OCR_SPRACHE.split("+")
    return all(lang in _languages(settings.HELENA_TESSERACT) for lang in wanted)


def verkleinert(bild: Image.Image) -> Image.Image:
    """A page image of at most MAX_PIXELS, in grey (what Tesseract reads best and fastest)."""
    pixels = bild.width * bild.height
    if pixels > MAX_PIXELS:
        factor = math.sqrt(MAX_PIXELS / pixels)
        bild = bild.resize((max(1, int(bild.width * factor)), max(1, int(bild.height * factor))))
    return bild.convert("L")


def lies_bild(bild: Image.Image) -> str:
    """The text of one page image; SeiteNichtLesbar when Tesseract fails or takes too long."""
    command = settings.HELENA_TESSERACT
    pytesseract.pytesseract.tesseract_cmd = shutil.which(command) or command
    try:
        return pytesseract.image_to_string(verkleinert(bild), lang=settings.HELENA_OCR_SPRACHE,
                                           timeout=PAGE_TIMEOUT)
    except (RuntimeError, pytesseract.TesseractError, OSError) as exc:  # RuntimeError: the timeout
        log.warning("OCR of a page failed: %s", exc)
        raise SeiteNichtLesbar(str(exc)) from exc


def pdf_seite_als_bild(pfad: str, index: int, *, dpi: int = DPI) -> Image.Image:
    """Page `index` (from 0) of a PDF as an image, at `dpi` but never above MAX_PIXELS."""
    with _PDFIUM:
        pdf = pypdfium2.PdfDocument(pfad)
        try:
            page = pdf[index]
            width, height = page.get_size()  # in points
            scale = min(dpi / 72, math.sqrt(MAX_PIXELS / max(width * height, 1.0)))
            return page.render(scale=scale).to_pil()
        finally:
            pdf.close()
