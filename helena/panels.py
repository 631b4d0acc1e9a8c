"""Helena's sections of the Akte page (akten/panels.py): a task for Helena, the activity feed."""

from __future__ import annotations

from django.http import HttpRequest
from django.template.loader import render_to_string

from akten.models import Akte
from akten.panels import Panel
from helena.aktivitaet import aktivitaet

SHOWN = 15


def activity(request: HttpRequest, akte: Akte) -> Panel | None:
    entries = aktivitaet(user=request.user, akte_id=akte.pk, limit=SHOWN)
    if not entries:
        return None
    html = render_to_string("helena/_aktivitaet.html", {"eintraege": entries}, request=request)
    return Panel(slug="aktivitaet", title="Aktivität", parts=[html])


def auftrag_form(request: HttpRequest, akte: Akte) -> Panel:
    html = render_to_string("helena/_auftrag_form.html", {"akte": akte}, request=request)
    return Panel(slug="auftrag", title="Auftrag an Helena", parts=[html])
