"""The drafts' section of the Akte page (akten/panels.py): what waits for a decision, as the same
cards the chat shows."""

from __future__ import annotations

from django.http import HttpRequest

from akten.models import Akte
from akten.panels import Panel
from drafts.cards import render_card
from drafts.models import Draft
from drafts.selectors import drafts_for


def pending_drafts(request: HttpRequest, akte: Akte) -> Panel | None:
    pending = drafts_for(user=request.user, akte_id=akte.pk, status=Draft.Status.PENDING)
    cards = [render_card(draft=d, user=request.user, request=request) for d in pending]
    if not cards:
        return None
    return Panel(slug="drafts", title="Entwürfe von Helena, die auf Freigabe warten", parts=cards)
