"""How a tool cites what it read: a source as one line, as a lawyer cites it. The tools write the
citation when they read a record (`quelle`); the chat (helena.presentation.chat_history, chat.js)
and the transcripts (helena.presentation.transcript: the export and the Aktenvermerk) show it.

A source of the firm's records is {"table", "id"} (what helena.llm.pii.touched reads) plus its citation in
"title", written by the tool when it reads the record (`quelle`): „Akte 12/26 Meier ./. Stahlbau
GmbH“, „Klageerwiderung, S. 2 (Akte 12/26)“, „Entwurf: Frist „Berufungsbegründung“ …“. Statutes
and decisions carry their "citation" („§ 517 ZPO“, „BAG, 12.03.2024 – 2 AZR 1/24“). Sources stored
before there were titles are cited from the database (`quellen_texte`); a table name or an id is
never shown.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Q

from akten.models import Akte, Dokument, Frist, Zeiterfassung
from akten.selectors import akten_for
from drafts.models import Draft

Datensatz = Akte | Dokument | Frist | Zeiterfassung | Draft
_MODELLE: dict[str, type[Datensatz]] = {
    model._meta.db_table: model for model in (Akte, Dokument, Frist, Zeiterfassung, Draft)}
_NICHT_MEHR_DA = {Akte: "Akte", Dokument: "Dokument", Frist: "Frist", Zeiterfassung: "Zeiterfassung",
                  Draft: "Entwurf"}


# --------------------------------------------------------------------------- citing the firm's records


def akte_titel(akte: Akte) -> str:
    """„Akte 12/26 Meier ./. Stahlbau GmbH“."""
    return f"Akte {akte.aktenzeichen} {akte.kurzrubrum}".strip()


def zitat(record: Datensatz, *, seite: int | str | None = None) -> str:
    """A record as a lawyer cites it; `seite` („2“, „2–4“) for a Dokument's pages."""
    if isinstance(record, Akte):
        return akte_titel(record)
    if isinstance(record, Draft):
        titel = f" „{record.title}“" if record.title else ""
        in_akte = f" (Akte {record.akte.aktenzeichen})" if record.akte_id else ""
        return f"Entwurf: {record.get_kind_display()}{titel}{in_akte}"
    in_akte = f" (Akte {record.akte.aktenzeichen})"
    if isinstance(record, Dokument):
        return f"{record.titel}{f', S. {seite}' if seite else ''}{in_akte}"
    if isinstance(record, Zeiterfassung):
        return f"Zeiterfassung{in_akte}"
    art = "Notfrist" if record.ist_notfrist else record.get_typ_display()
    wann = f"bis {record.datum:%d.%m.%Y}" if record.typ == Frist.Typ.FRIST else f"am {record.datum:%d.%m.%Y}"
    uhr = f", {record.uhrzeit:%H:%M} Uhr" if record.uhrzeit else ""
    return f"{art} „{record.bezeichnung}“ {wann}{uhr}{in_akte}"


def quelle(record: Datensatz, *, seite: int | str | None = None) -> dict[str, str]:
    """The source a tool result gives for a record: what privacy reads, and its citation."""
    return {"table": record._meta.db_table, "id": str(record.pk), "title": zitat(record, seite=seite)}


# --------------------------------------------------------------------------- a source as a line


def shown(value: Any) -> str:
    """A value as a person reads it: text as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def source_text(source: Any) -> str:
    """One source of a tool result as a line: its citation or title (a web page with its address)."""
    if not isinstance(source, dict):
        return shown(source)
    if source.get("citation"):
        return str(source["citation"])
    if source.get("title") and source.get("url"):
        return f"{source['title']} ({source['url']})"
    for key in ("title", "url"):
        if source.get(key):
            return str(source[key])
    model = _MODELLE.get(str(source.get("table")))
    return f"{_NICHT_MEHR_DA[model]} (nicht mehr vorhanden)" if model else ""


def quellen_texte(sources: Iterable[Any], *, user: Any) -> list[str]:
    """The sources as lines, each once, in order; a record source stored without its title is cited
    from the database (one query per table), only if `user` may see it now — else „nicht einsehbar“:
    an Aktenzeichen or a title must not reach someone whose access was taken away."""
    sources = list(sources)
    fehlend: dict[str, set[Any]] = defaultdict(set)
    for source in filter(_ohne_titel, sources):
        model = _MODELLE.get(str(source.get("table")))
        if model is not None and (pk := _pk(model, source.get("id"))) is not None:
            fehlend[model._meta.db_table].add(pk)
    gefunden: dict[tuple[str, str], str] = {}
    sichtbar = akten_for(user=user)
    for table, pks in fehlend.items():
        model = _MODELLE[table]
        if model is Akte:
            records = sichtbar.filter(pk__in=pks)
        else:
            mine = Q(akte__in=sichtbar) | (Q(akte__isnull=True, requested_by=user) if model is Draft else Q())
            records = model.objects.filter(mine, pk__in=pks).select_related("akte")
        gefunden.update(((table, str(r.pk)), zitat(r)) for r in records)
        verborgen = model.objects.filter(pk__in=[pk for pk in pks if (table, str(pk)) not in gefunden])
        gefunden.update(((table, str(pk)), f"{_NICHT_MEHR_DA[model]} (nicht einsehbar)")
                        for pk in verborgen.values_list("pk", flat=True))
    zeilen: list[str] = []
    for source in sources:
        zeile = (gefunden.get((str(source.get("table")), str(source.get("id")))) if _ohne_titel(source)
                 else None) or source_text(source)
        if zeile and zeile not in zeilen:
            zeilen.append(zeile)
    return zeilen


def _ohne_titel(source: Any) -> bool:
    return isinstance(source, dict) and not any(source.get(k) for k in ("citation", "title", "url"))


def _pk(model: type[Datensatz], value: Any) -> Any:
    try:
        return model._meta.pk.to_python(value)
    except (TypeError, ValueError, ValidationError):
        return None
