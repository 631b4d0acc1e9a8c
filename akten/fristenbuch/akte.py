"""The Fristen part of the Akte page: what its template (akten/akte/fristen.html) needs."""

from __future__ import annotations

from datetime import time
from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from akten.erfassung.rechte import darf
from akten.models import Akte, Kanzleieinstellung
from akten.selectors import fristen_for


def fristen_kontext(request: HttpRequest, akte: Akte) -> dict[str, Any]:
    """The Akte's Fristen, open first, and whether the user may keep them."""
    fristen = sorted(fristen_for(user=request.user, akte_id=akte.pk, status="all"),
                     key=lambda f: (f.erledigt, f.datum, f.uhrzeit or time.min))
    return {"fristen": fristen, "heute": timezone.localdate(), "darf_fristen": darf(request.user, "frist"),
            "vier_augen": Kanzleieinstellung.aktuell().vier_augen_notfrist}
