"""Template filters of the firm's pages: `markdown` (the project's one renderer), `zitate` (norm
citations linked in plain text) and the German date and duration formats that cards and Akte pages
must show identically."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString

from akten.fristen import BUNDESLAENDER, format_datum
from helena.presentation import transcript
from helena.presentation.markdown import link_citations, render_markdown

register = template.Library()


@register.filter(name="markdown", is_safe=True)
def markdown_filter(text: Any, zitiert: Any = None) -> SafeString:
    """`{{ text|markdown }}`: rendered and sanitised HTML; `{{ text|markdown:draft.created_at }}` also
    links the norms it cites to their page, which then says whether they changed since."""
    moment = zitiert if isinstance(zitiert, date) else None  # a datetime is a date too
    return render_markdown("" if text is None else str(text), zitiert=moment)


@register.filter(name="zitate", is_safe=True)
def zitate_filter(text: Any, zitiert: Any) -> SafeString:
    """`{{ text|zitate:memory.stand }}`: plain text, escaped, its norm citations linked (as |markdown:…)."""
    if not isinstance(zitiert, date):
        return escape("" if text is None else str(text))
    return link_citations("" if text is None else str(text), zitiert=zitiert)


def _as_date(value: Any) -> date | None:
    if isinstance(value, datetime):
        return timezone.localtime(value).date() if timezone.is_aware(value) else value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and value:
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


@register.filter
def datum_lang(value: Any) -> str:
    """'Freitag, 03.04.2026' – Fristen are read with their weekday in this firm."""
    d = _as_date(value)
    return format_datum(d) if d else ("" if value in (None, "") else str(value))


@register.filter
def bundesland(code: Any) -> str:
    """'NW' → 'Nordrhein-Westfalen': a Bundesland is read by its name, not by its code."""
    return BUNDESLAENDER.get(str(code), str(code)) if code else ""


@register.filter
def zeitpunkt(value: Any) -> str:
    """'03.04.2026 um 14:05 Uhr' in the firm's time zone."""
    if not isinstance(value, datetime):
        return "" if value in (None, "") else str(value)
    return transcript.zeitpunkt(value)


@register.filter
def uhrzeit(value: Any) -> str:
    """'14:30' from a time or an ISO time string ('14:30:00')."""
    if isinstance(value, time):
        return f"{value:%H:%M}"
    if isinstance(value, str) and value:
        return value[:5]
    return ""


def format_dauer(minuten: int) -> str:
    """90 → '1:30 h' (how a Zeiterfassung is read and billed)."""
    stunden, rest = divmod(int(minuten), 60)
    return f"{stunden}:{rest:02d} h"


@register.filter
def dauer_hm(value: Any) -> str:
    """`{{ minuten|dauer_hm }}` → '1:30 h'."""
    try:
        return format_dauer(int(value))
    except (TypeError, ValueError):
        return ""
