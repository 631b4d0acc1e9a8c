"""A conversation for the user to keep: Markdown (as the Aktenvermerk reads) or a PDF of it."""

from __future__ import annotations

from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import timezone

from akten.dokumente.ausgabe.pdf import pdf_aus_html
from akten.dokumente.typen import download_name
from akten.models import User
from config.errors import DomainError
from helena.models import Conversation
from helena.presentation.markdown import render_markdown
from helena.presentation.transcript import als_markdown, runden, zeitpunkt
from helena.tools.sources import akte_titel

FORMATS = ("md", "pdf")


@dataclass(frozen=True)
class Export:
    inhalt: bytes
    dateiname: str
    content_type: str


def export(*, user: User, conversation: Conversation, format: str) -> Export:
    """The whole conversation as `format` ("md" or "pdf"); finished answers only."""
    if format not in FORMATS:
        raise DomainError("Unbekanntes Format. Erlaubt: md, pdf.", code="invalid_message")
    titel = conversation.title or "Gespräch mit Helena"
    kopf = [f"Exportiert am {zeitpunkt(timezone.now())} von {user.get_full_name() or user.get_username()}"]
    if conversation.akte_id:
        kopf.append(akte_titel(conversation.akte))
    text = als_markdown(titel=titel, kopf=kopf, runden=runden(conversation=conversation, user=user))
    stem = f"Gespräch {titel} {timezone.localdate():%Y-%m-%d}"
    if format == "md":
        return Export(text.encode(), download_name(stem, endung="md"), "text/markdown; charset=utf-8")
    html = render_to_string("helena/gespraech_pdf.html", {"titel": titel, "inhalt": render_markdown(text)})
    return Export(pdf_aus_html(html), download_name(stem, endung="pdf"), "application/pdf")
