"""A Dokument as DOCX or PDF on the Kanzlei's letterhead.

    markdown.py  the text as markdown-it tokens, page by page (shared by both formats)
    kontext.py   the letterhead's fields: Briefkopf, Akte, Beteiligte, today
    docx.py      DOCX: the Word template filled by docxtpl, the text as a subdocument
    vorlage.py   the built-in Word template, and the check of an uploaded one
    pdf.py       PDF: an HTML letterhead rendered by WeasyPrint, nothing fetched

A written Dokument's text is Markdown; an upload's is its extracted text (pages split by form
feeds), rendered as plain text with its line breaks.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from akten.dokumente.ausgabe import markdown
from akten.dokumente.ausgabe.docx import MIME as DOCX_MIME
from akten.dokumente.ausgabe.docx import render_docx
from akten.dokumente.ausgabe.kontext import briefkontext
from akten.dokumente.ausgabe.vorlage import eingebaute_vorlage
from akten.dokumente.typen import download_name
from akten.models import Briefkopf, Dokument
from config.errors import DomainError

logger = logging.getLogger(__name__)
# WeasyPrint reports each step at INFO (a dozen lines per PDF, three more on import): set before
# pdf.py imports it.
logging.getLogger("weasyprint.progress").setLevel(logging.WARNING)

FORMATE = ("docx", "pdf")
MAX_ZEICHEN = 400_000  # about 130 pages of a Schriftsatz


@dataclass(frozen=True)
class Ausgabe:
    inhalt: bytes
    name: str  # the download name, e.g. "Klageerwiderung.pdf"
    mime: str


def render(*, dokument: Dokument, format: str) -> Ausgabe:
    if format not in FORMATE:
        raise DomainError(f"Unbekanntes Format „{format}“: möglich sind DOCX und PDF.", code="format")
    if not dokument.inhalt.strip():
        raise DomainError("Das Dokument hat keinen Text, den man als DOCX oder PDF ausgeben könnte.",
                          code="kein_text")
    if len(dokument.inhalt) > MAX_ZEICHEN:  # rendered in the request: minutes and gigabytes beyond
        laenge, hoechstens = (f"{n:,}".replace(",", ".") for n in (len(dokument.inhalt), MAX_ZEICHEN))
        raise DomainError(f"Das Dokument ist mit {laenge} Zeichen zu lang für eine DOCX- oder PDF-Fassung "
                          f"(höchstens {hoechstens}); lade das Original.", code="zu_lang")
    briefkopf = Briefkopf.current()
    kontext = briefkontext(dokument, briefkopf)
    seiten = markdown.seiten(dokument.inhalt, markdown=not dokument.hochgeladen, titel=dokument.titel)
    name = download_name(dokument.titel, endung=format)
    if format == "pdf":
        # WeasyPrint loads pango (~0.4 s, ~25 MB): only in a process that is asked for a PDF.
        from akten.dokumente.ausgabe.pdf import MIME, render_pdf  # noqa: PLC0415

        return Ausgabe(inhalt=render_pdf(kontext=kontext, seiten=seiten), name=name, mime=MIME)
    inhalt = render_docx(vorlage=_vorlage(briefkopf), kontext=kontext, seiten=seiten)
    return Ausgabe(inhalt=inhalt, name=name, mime=DOCX_MIME)


def _vorlage(briefkopf: Briefkopf) -> bytes:
    """The admin's template, else the built-in one. A template that vanished from the storage must
    not stop a lawyer's download: the built-in one stands in, and the log says why."""
    if not briefkopf.vorlage:
        return eingebaute_vorlage()
    try:
        with briefkopf.vorlage.open("rb") as datei:
            return datei.read()
    except OSError:
        logger.exception("Word-Vorlage des Briefkopfs nicht lesbar: %s", briefkopf.vorlage.name)
        return eingebaute_vorlage()
