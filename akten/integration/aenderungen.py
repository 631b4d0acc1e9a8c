"""What changed since a moment in the records a user may see: the feed another system follows
(GET /aenderungen?seit=), read from the records' history (django-simple-history) and the Dokumente.

One row per change: created, changed (with the fields), deleted, a Frist erledigt or opened again, an
Akte that became visible or was taken away from the user, a Dokument uploaded or changed. A history
row carries the time it was written, not the time its transaction committed: a client should read
with some overlap (`seit` a minute before its last look) and drop what it saw by `schluessel`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import models
from django.db.models import OuterRef, Q, Subquery

from akten.models import Akte, AktenZugriff, Beteiligter, Dokument, Frist, Notiz, User, Zeiterfassung
from akten.selectors import akten_for

QUELLEN: tuple[tuple[str, type[models.Model]], ...] = (
    ("akte", Akte), ("beteiligter", Beteiligter), ("frist", Frist), ("notiz", Notiz),
    ("zeiterfassung", Zeiterfassung))
ART = {"+": "angelegt", "~": "geaendert", "-": "geloescht"}
NIE_GEMELDET = {"id", "summary", "summary_aktualisiert_am"}  # Helena's summary is no record change


def _sichtbar(qs: models.QuerySet, typ: str, user: User) -> models.QuerySet:
    if typ == "notiz":  # a Notiz without an Akte is its author's alone, also for ADMIN
        ohne_akte = Q(akte_id__isnull=True, verfasst_von_id=user.pk)
        if user.sees_all_akten:
            return qs.filter(Q(akte_id__isnull=False) | ohne_akte)
        return qs.filter(Q(akte_id__in=akten_for(user=user).values("pk")) | ohne_akte)
    if user.sees_all_akten:
        return qs
    feld = "id" if typ == "akte" else "akte_id"
    return qs.filter(**{f"{feld}__in": akten_for(user=user).values("pk")})


def _geaenderte_felder(historie: type[models.Model], zeilen: list[Any]) -> dict[int, list[str]]:
    """history_id → the fields that differ from the record's previous history row."""
    vorher = historie._default_manager.in_bulk([z.vorher_id for z in zeilen if z.vorher_id])
    felder = [f for f in historie.tracked_fields if f.name not in NIE_GEMELDET]  # type: ignore[attr-defined]
    ergebnis: dict[int, list[str]] = {}
    for zeile in zeilen:
        alt = vorher.get(zeile.vorher_id)
        if alt is not None:
            ergebnis[zeile.history_id] = [f.name for f in felder
                                          if getattr(alt, f.attname) != getattr(zeile, f.attname)]
    return ergebnis


def _verlauf(typ: str, modell: type[models.Model], *, user: User, seit: datetime, anzahl: int) -> list[dict]:
    historie = modell.history.model  # type: ignore[attr-defined]
    vorher_id = Subquery(historie._default_manager
                         .filter(id=OuterRef("id"), history_id__lt=OuterRef("history_id"))
                         .order_by("-history_id").values("history_id")[:1])
    qs = _sichtbar(historie._default_manager.filter(history_date__gt=seit), typ, user)
    zeilen = list(qs.annotate(vorher_id=vorher_id).select_related("history_user")
                  .order_by("history_date", "history_id")[:anzahl])
    felder = _geaenderte_felder(historie, [z for z in zeilen if z.history_type == "~"])
    aenderungen = []
    for zeile in zeilen:
        geaendert = felder.get(zeile.history_id, [])
        if zeile.history_type == "~" and not geaendert:
            continue  # saved without a change a client could see (Helena's summary, a touch)
        was = ART[zeile.history_type]
        if typ == "frist" and "erledigt" in geaendert:
            was = "erledigt" if zeile.erledigt else "wieder_offen"
        akte_id = zeile.id if typ == "akte" else zeile.akte_id
        aenderungen.append({
            "schluessel": f"{typ}:{zeile.history_id}", "typ": typ, "id": str(zeile.id),
            "akte_id": str(akte_id) if akte_id else None,
            "extern_id": zeile.extern_id, "was": was, "felder": geaendert if was == "geaendert" else [],
            "wann": zeile.history_date, "von": zeile.history_user.username if zeile.history_user else None,
            "grund": (zeile.history_change_reason or "")[:500]})
    return aenderungen


def _zugriffe(*, user: User, seit: datetime, anzahl: int) -> list[dict]:
    """An Akte given to or taken from the user: the other system fetches it or forgets it."""
    if user.sees_all_akten:
        return []
    qs = (AktenZugriff.history.filter(user_id=user.pk, history_date__gt=seit, history_type__in=["+", "-"])
          .select_related("history_user").order_by("history_date", "history_id")[:anzahl])
    return [{"schluessel": f"zugriff:{z.history_id}", "typ": "akte", "id": str(z.akte_id),
             "akte_id": str(z.akte_id), "extern_id": "", "felder": [],
             "was": "zugriff_erhalten" if z.history_type == "+" else "zugriff_entzogen",
             "wann": z.history_date, "von": z.history_user.username if z.history_user else None, "grund": ""}
            for z in qs]


def _dokumente(*, user: User, seit: datetime, anzahl: int) -> list[dict]:
    qs = Dokument.objects.filter(aktualisiert_am__gt=seit)
    if not user.sees_all_akten:
        qs = qs.filter(akte_id__in=akten_for(user=user).values("pk"))
    qs = qs.select_related("erstellt_von").order_by("aktualisiert_am", "pk")[:anzahl]
    return [{"schluessel": f"dokument:{d.pk}:{d.aktualisiert_am.timestamp():.6f}", "typ": "dokument",
             "id": str(d.pk), "akte_id": str(d.akte_id), "extern_id": "", "felder": [],
             "was": "angelegt" if d.angelegt_am > seit else "geaendert", "wann": d.aktualisiert_am,
             "von": d.erstellt_von.username if d.erstellt_von and d.angelegt_am > seit else None, "grund": ""}
            for d in qs]


def aenderungen_seit(*, user: User, seit: datetime, limit: int) -> tuple[list[dict], bool]:
    """(the first `limit` changes after `seit`, oldest first; whether there are more). Changes of one
    moment are never split between two pages, so `seit` = the last row's `wann` continues safely."""
    anzahl = limit + 50
    alle = [*_zugriffe(user=user, seit=seit, anzahl=anzahl), *_dokumente(user=user, seit=seit, anzahl=anzahl)]
    for typ, modell in QUELLEN:
        alle += _verlauf(typ, modell, user=user, seit=seit, anzahl=anzahl)
    alle.sort(key=lambda a: (a["wann"], a["schluessel"]))
    if len(alle) <= limit:
        return alle, False
    ende = limit
    while ende < len(alle) and alle[ende]["wann"] == alle[limit - 1]["wann"]:
        ende += 1
    return alle[:ende], True
