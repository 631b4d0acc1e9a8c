"""Records of apps above akten that may name a person whose data are deleted (Art. 17 DSGVO), found by the
person's spellings without akten knowing those apps: Helena's conversations and tool calls register a
source here (helena/apps.py), as the Akte page's panels do (akten/panels.py).

What is found is not deleted but listed „zur Prüfung“ in the Löschprotokoll (ids only) and linked in its
admin: a conversation not bound to the deleted Akte is the work of a lawyer on another Mandat (or none),
its text mixes the person with other Mandanten's matters, and deleting it wholesale would destroy
another Mandat's Handakte; a person decides, and the Verwaltung can delete a conversation there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

# (spellings, Akte whose own records are out of scope or None) -> {„Helena-Unterhaltungen“: [ids], …}
Quelle = Callable[[list[str], int | None], dict[str, list[str]]]
_quellen: list[Quelle] = []


def register(quelle: Quelle) -> None:
    """Add a source of records that may name a person (idempotent; in an AppConfig.ready())."""
    if quelle not in _quellen:
        _quellen.append(quelle)


def zur_pruefung(*, schreibweisen: list[str], ausser_akte: int | None = None) -> dict[str, list[str]]:
    """Every registered source's records naming one of the spellings, by kind; the kinds with none left out.
    A source that fails is logged and skipped: the deletion itself must not fail on a search."""
    if not schreibweisen:
        return {}
    gefunden: dict[str, list[str]] = {}
    for quelle in _quellen:
        try:
            for art, ids in quelle(schreibweisen, ausser_akte).items():
                if ids:
                    gefunden.setdefault(art, []).extend(ids)
        except Exception:
            log.exception("Fundstellen aus %s nicht gesucht.", getattr(quelle, "__name__", quelle))
    return gefunden
