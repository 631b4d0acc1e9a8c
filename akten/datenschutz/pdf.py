"""The Auskunft as a PDF on the firm's letterhead (WeasyPrint through akten/dokumente/ausgabe/pdf.py:
nothing fetched while rendering)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from akten.dokumente.ausgabe.kontext import datum_lang
from akten.dokumente.ausgabe.pdf import pdf_aus_html
from akten.models import Briefkopf

TEMPLATE = "datenschutz/auskunft_pdf.html"


def _datum(wert: str | None) -> str:
    """An ISO date or time of the JSON as a German date („3. März 2026“, „03.03.2026 14:05“)."""
    if not wert:
        return ""
    if "T" in wert:
        return f"{timezone.localtime(datetime.fromisoformat(wert)):%d.%m.%Y %H:%M}"
    return f"{date.fromisoformat(wert):%d.%m.%Y}"


def _lesbar(daten: dict[str, Any]) -> dict[str, Any]:
    """Dates of the JSON in German for the template (the JSON keeps ISO)."""
    def umschreiben(wert: Any, schluessel: str = "") -> Any:
        if isinstance(wert, dict):
            return {k: umschreiben(v, k) for k, v in wert.items()}
        if isinstance(wert, list):
            return [umschreiben(v) for v in wert]
        if isinstance(wert, str) and (schluessel.endswith(("_am", "datum", "loeschung", "vorgemerkt"))):
            return _datum(wert)
        return wert
    return umschreiben(daten)


def auskunft_pdf(daten: dict[str, Any]) -> bytes:
    briefkopf = Briefkopf.current()
    erstellt = datetime.fromisoformat(daten["erstellt_am"])
    html = render_to_string(TEMPLATE, {
        "a": _lesbar(daten), "briefkopf": briefkopf, "kontakt": briefkopf.kontaktzeilen(),
        "datum": datum_lang(timezone.localtime(erstellt).date()),
    })
    return pdf_aus_html(html)
