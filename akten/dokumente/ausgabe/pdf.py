"""The PDF: the letterhead as HTML (templates/akten/dokument_pdf.html, the same fields as the Word
template) rendered by WeasyPrint in this process, with Debian's pango and fonts; no office suite.

The PDF follows the built-in layout even where an admin uploaded a Word template of their own: it
uses that template's fields (the Briefkopf), not its design. docs/dokumente.md says why.

Nothing is fetched while rendering: the URL fetcher refuses every URL (http, file, data), so a
text cannot make the server read a local file or call into the network through an image or a
stylesheet. (markdown.py turns images into text before that; this is the second lock.)
"""

from __future__ import annotations

import logging

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from markdown_it.token import Token
from weasyprint import HTML
from weasyprint.urls import URLFetcher

from akten.dokumente.ausgabe import markdown
from akten.dokumente.ausgabe.kontext import Briefkontext

MIME = "application/pdf"
TEMPLATE = "akten/dokument_pdf.html"

logger = logging.getLogger(__name__)


class KeinAbruf(URLFetcher):
    """Refuses every URL. WeasyPrint logs the refusal and renders on without the resource."""

    def fetch(self, url: str, headers: dict | None = None):
        logger.warning("PDF: Abruf von %s verweigert", url[:200])
        raise ValueError(f"Externe Ressourcen sind gesperrt: {url[:200]}")


def render_pdf(*, kontext: Briefkontext, seiten: list[list[Token]]) -> bytes:
    html = render_to_string(TEMPLATE, {
        "k": kontext,
        # markdown-it escapes every text and renders no raw HTML (markdown.py)
        "seiten": [mark_safe(markdown.html(tokens)) for tokens in seiten],
    })
    return pdf_aus_html(html)


def pdf_aus_html(html: str) -> bytes:
    return HTML(string=html, url_fetcher=KeinAbruf()).write_pdf()
