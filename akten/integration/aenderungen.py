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


def _zeile(typ: str, zeile: Any, geaendert: list[str]) -> dict:
    was = ART[zeile.history_type]
    if typ == "frist" and "erledigt" in geaendert:
        was = "erledigt" if zeile.erledigt else "wieder_offen"
    akte_id = zeile.id if typ == "akte" else zeile.akte_id
    return {"schluessel": f"{typ}:{zeile.history_id}", "typ": typ, "id": str(zeile.id),
            "akte_id": str(akte_id) if akte_id else None, "extern_id": zeile.extern_id, "was": was,
            "felder": geaendert if was in {"geaendert", "erledigt", "wieder_offen"} else [],
            "wann": zeile.history_date, "von": zeile.history_user.username if zeile.history_user else None,
            "grund": (zeile.history_change_reason or "")[:500]}


def _verlauf(typ: str, modell: type[models.Model], *, user: User, seit: datetime,
             anzahl: int) -> tuple[list[dict], bool]:
    """(at least `anzahl` reportable changes of one record type after `seit`, or all there are;
    whether more follow). Saves without a change a client could see (Helena's summary) are skipped
    before counting, and the last moment is read whole, so the caller can cut there safely."""
    historie = modell.history.model  # type: ignore[attr-defined]
    vorher_id = Subquery(historie._default_manager
                         .filter(id=OuterRef("id"), history_id__lt=OuterRef("history_id"))
                         .order_by("-history_id").values("history_id")[:1])
    basis = (_sichtbar(historie._default_manager.filter(history_date__gt=seit), typ, user)
             .annotate(vorher_id=vorher_id).select_related("history_user")
             .order_by("history_date", "history_id"))
    aenderungen: list[dict] = []
    nach: tuple[datetime, int] | None = None
    while True:
        qs = basis if nach is None else basis.filter(
            Q(history_date__gt=nach[0]) | Q(history_date=nach[0], history_id__gt=nach[1]))
        zeilen = list(qs[:anzahl])
        felder = _geaenderte_felder(historie, [z for z in zeilen if z.history_type == "~"])
        for zeile in zeilen:
            geaendert = felder.get(zeile.history_id, [])
            if zeile.history_type != "~" or geaendert:  # else saved without a visible change
                aenderungen.append(_zeile(typ, zeile, geaendert))
        if len(zeilen) < anzahl:
            return aenderungen, False
        nach = (zeilen[-1].history_date, zeilen[-1].history_id)
        if len(aenderungen) >= anzahl:  # enough: the rest of the last moment too, then stop
            rest = list(basis.filter(history_date=nach[0], history_id__gt=nach[1]))
            felder = _geaenderte_felder(historie, [z for z in rest if z.history_type == "~"])
            aenderungen += [_zeile(typ, z, felder.get(z.history_id, [])) for z in rest
                            if z.history_type != "~" or felder.get(z.history_id)]
            return aenderungen, True


def _bis_moment_ende(qs: models.QuerySet, feld: str, anzahl: int) -> tuple[list[Any], bool]:
    """The first `anzahl` rows by `feld` (then pk), and all others of the last moment; whether more."""
    zeilen = list(qs.order_by(feld, "pk")[:anzahl])
    if len(zeilen) < anzahl:
        return zeilen, False
    letzte = zeilen[-1]
    return zeilen + list(qs.filter(**{feld: getattr(letzte, feld), "pk__gt": letzte.pk}).order_by("pk")), True


def _zugriffe(*, user: User, seit: datetime, anzahl: int) -> tuple[list[dict], bool]:
    """An Akte given to or taken from the user: the other system fetches it or forgets it."""
    if user.sees_all_akten:
        return [], False
    qs = (AktenZugriff.history.filter(user_id=user.pk, history_date__gt=seit, history_type__in=["+", "-"])
          .select_related("history_user"))
    zeilen, mehr = _bis_moment_ende(qs, "history_date", anzahl)
    return [{"schluessel": f"zugriff:{z.history_id}", "typ": "akte", "id": str(z.akte_id),
             "akte_id": str(z.akte_id), "extern_id": "", "felder": [],
             "was": "zugriff_erhalten" if z.history_type == "+" else "zugriff_entzogen",
             "wann": z.history_date, "von": z.history_user.username if z.history_user else None, "grund": ""}
            for z in zeilen], mehr


def _dokumente(*, user: User, seit: datetime, anzahl: int) -> tuple[list[dict], bool]:
    qs = Dokument.objects.filter(aktualisiert_am__gt=seit)
    if not user.sees_all_akten:
        qs = qs.filter(akte_id__in=akten_for(user=user).values("pk"))
    zeilen, mehr = _bis_moment_ende(qs.select_related("erstellt_von"), "aktualisiert_am", anzahl)
    return [{"schluessel": f"dokument:{d.pk}:{d.aktualisiert_am.timestamp():.6f}", "typ": "dokument",
             "id": str(d.pk), "akte_id": str(d.akte_id), "extern_id": "", "felder": [],
             "was": "angelegt" if d.angelegt_am > seit else "geaendert", "wann": d.aktualisiert_am,
             "von": d.erstellt_von.username if d.erstellt_von and d.angelegt_am > seit else None, "grund": ""}
            for d in zeilen], mehr


def aenderungen_seit(*, user: User, seit: datetime, limit: int) -> tuple[list[dict], bool]:
    """(the first `limit` changes after `seit`, oldest first; whether there are more). Changes of one
    moment are never split between two pages, so `seit` = the last row's `wann` continues safely: a
    source that has more is cut at its last moment, and every other source at that moment too."""
    quellen = [_zugriffe(user=user, seit=seit, anzahl=limit), _dokumente(user=user, seit=seit, anzahl=limit)]
    quellen += [_verlauf(typ, modell, user=user, seit=seit, anzahl=limit) for typ, modell in QUELLEN]
    grenzen = [zeilen[-1]["wann"] for zeilen, mehr in quellen if mehr]
    alle = [zeile for zeilen, _ in quellen for zeile in zeilen]
    if grenzen:
        alle = [zeile for zeile in alle if zeile["wann"] <= min(grenzen)]
    alle.sort(key=lambda a: (a["wann"], a["schluessel"]))
    if len(alle) <= limit:
        return alle, bool(grenzen)
    ende = limit
    while ende < len(alle) and alle[ende]["wann"] == alle[limit - 1]["wann"]:
        ende += 1
    return alle[:ende], True
