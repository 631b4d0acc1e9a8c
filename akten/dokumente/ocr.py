"""Text from a scan: Debian's Tesseract with its German data (tesseract-ocr, tesseract-ocr-deu)
through pytesseract; PDF pages become images through PDFium (pypdfium2). Without Tesseract the
extraction says so ("Text nicht lesbar – OCR nicht verfügbar") instead of pretending."""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import lru_cache

import pypdfium2
import pytesseract
from django.conf import settings
from PIL import Image

DPI = 300  # Tesseract's accuracy drops clearly below ~250 dpi
PAGE_TIMEOUT = 120  # seconds per page; a page that takes longer is not read
# Tesseract's own threads compete with the worker's other tasks on a small server
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


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


def lies_bild(bild: Image.Image) -> str:
    """The text of one page image."""
    command = settings.HELENA_TESSERACT
    pytesseract.pytesseract.tesseract_cmd = shutil.which(command) or command
    graustufen = bild.convert("L")
    return pytesseract.image_to_string(graustufen, lang=settings.HELENA_OCR_SPRACHE, timeout=PAGE_TIMEOUT)


def pdf_seite_als_bild(pfad: str, index: int, *, dpi: int = DPI) -> Image.Image:
    """Page `index` (from 0) of a PDF rendered as an image."""
    pdf = pypdfium2.PdfDocument(pfad)
    try:
        return pdf[index].render(scale=dpi / 72).to_pil()
    finally:
        pdf.close()
