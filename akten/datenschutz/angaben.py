"""Information for the Auskunft (Art. 15 DSGVO) that only apps above akten know, without akten knowing
those apps: Helena registers whether a model outside the firm (a cloud tier) is switched on, so that the
Auskunft can say what Art. 15 Abs. 2 DSGVO asks for a transfer to a third country (helena/apps.py), as
akten/datenschutz/fundstellen.py does for the records a deletion lists.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

# () -> German paragraphs for the Auskunft (none: nothing to say)
Quelle = Callable[[], list[str]]
_quellen: list[Quelle] = []


def register(quelle: Quelle) -> None:
    """Add a source of paragraphs (idempotent; in an AppConfig.ready())."""
    if quelle not in _quellen:
        _quellen.append(quelle)


def drittland() -> list[str]:
    """Every registered source's paragraphs on transfers to third countries (Art. 15 Abs. 2 DSGVO). A
    source that fails is logged and skipped, and the Auskunft says so: better a note to check than none."""
    absaetze: list[str] = []
    for quelle in _quellen:
        try:
            absaetze += quelle()
        except Exception:
            log.exception("Angaben aus %s nicht ermittelt.", getattr(quelle, "__name__", quelle))
            absaetze.append("Ob Daten an Stellen außerhalb der EU übermittelt werden, konnte nicht "
                            "automatisch ermittelt werden; die Kanzlei prüft das vor dem Versand.")
    return absaetze
