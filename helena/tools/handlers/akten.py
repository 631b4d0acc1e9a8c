"""Read tools over the Akten the user may see: list, one Akte in full, and a search across everything.

All reads go through akten.selectors, so a foreign Akte is "nicht gefunden" exactly like a missing one.
"""

from __future__ import annotations

from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.db.models import Sum
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from akten.lesezugriffe.services import Lesung
from akten.models import Akte, Beteiligter, User
from akten.selectors import akten_for, dokumente_for, fristen_for, get_akte, zeiterfassung_for
from config.errors import NotFound
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.knowledge.aktensuche.search import lesungen, search_akten
from helena.tools.sources import quelle


def akte_not_found(akte_id: str) -> ToolResult:
    """The same answer for a missing, foreign or malformed id, so nothing leaks."""
    return ToolResult(
        ok=False,
        error=(
            f"Akte „{akte_id}“ nicht gefunden. Nutze read_akte oder search_alle_akten, um die Akte zu finden."
        ),
        error_code="not_found",
        summary="Akte nicht gefunden",
    )


def anzahl(n: int, singular: str, plural: str, *, kein: str = "Keine") -> str:
    """German count phrase: 'Keine Akte', '1 Akte', '3 Akten' (kein="Kein" for neuter nouns)."""
    if n == 0:
        return f"{kein} {singular}"
    return f"{n} {singular if n == 1 else plural}"


def person(user: User | None) -> str | None:
    if user is None:
        return None
    return user.get_full_name() or user.username


def akte_kurz(akte: Akte) -> dict[str, Any]:
    return {
        "id": str(akte.pk),
        "aktenzeichen": akte.aktenzeichen,
        "kurzrubrum": akte.kurzrubrum,
        "wegen": akte.wegen,
        "rechtsgebiet": akte.get_rechtsgebiet_display(),
        "status": akte.status,
        "anwalt": person(akte.anwalt),
    }


# --------------------------------------------------------------------------- read_akte


class ReadAkteParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    query: str | None = Field(
        None, description="Aktenzeichen, Name eines Beteiligten, Stichwort aus Rubrum/wegen oder Schlagwort"
    )
    status: Literal["offen", "ruhend", "archiviert", "geschlossen"] | None = Field(
        None, description="nur Akten mit diesem Status"
    )
    limit: int = Field(20, ge=1, le=100)


def _read_akte(params: ReadAkteParams, ctx: ToolContext) -> ToolResult:
    qs = akten_for(user=ctx.user, query=params.query or None, status=params.status)
    total = qs.count()
    akten = list(qs[: params.limit])
    data: dict[str, Any] = {"akten": [akte_kurz(a) for a in akten], "anzahl": total}
    if total > len(akten):
        data["hinweis"] = f"{total} Treffer, nur die ersten {len(akten)} gezeigt; Suche eingrenzen."
    if not akten:
        data["hinweis"] = "Keine Akte gefunden. Versuche search_alle_akten für eine Volltextsuche."
    return ToolResult(
        ok=True,
        data=data,
        summary=f"{anzahl(total, 'Akte', 'Akten')} gefunden",
        sources=[quelle(a) for a in akten],
    )


read_akte = Tool(
    name="read_akte",
    description=(
        "List the case files (Akten) the user may see, compactly (id, Aktenzeichen, Kurzrubrum, wegen, "
        "status). Use it to find an Akte's id by Aktenzeichen, party name or keyword, or to get an "
        "overview. For full details of one Akte use read_akte_detail; to search inside documents and "
        "notes use search_alle_akten."
    ),
    kind="read",
    params=ReadAkteParams,
    handler=sync_to_async(_read_akte),
    label="Durchsuche Akten",
)


# --------------------------------------------------------------------------- read_akte_detail


class ReadAkteDetailParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    akte_id: str = Field(..., description="id der Akte (aus read_akte), nicht das Aktenzeichen")


def _beteiligter(b: Beteiligter) -> dict[str, Any]:
    out = {"rolle": b.get_rolle_display(), "name": b.name}
    if b.anrede:
        out["anrede"] = b.get_anrede_display()
    for key in ("anschrift", "telefon", "email", "aktenzeichen_extern", "notiz"):
        if value := getattr(b, key):
            out[key] = value
    return out


def _read_akte_detail(params: ReadAkteDetailParams, ctx: ToolContext) -> ToolResult:
    try:
        akte = get_akte(user=ctx.user, akte_id=params.akte_id)
    except NotFound:
        return akte_not_found(params.akte_id)
    heute = timezone.localdate(ctx.now())
    fristen = fristen_for(user=ctx.user, akte_id=akte.pk, status="active", heute=heute)
    dokumente = dokumente_for(user=ctx.user, akte_id=akte.pk).order_by("-angelegt_am")
    minuten = zeiterfassung_for(user=ctx.user, akte_id=akte.pk).aggregate(s=Sum("dauer_minuten"))["s"] or 0
    data = {
        **akte_kurz(akte),
        "sachbearbeiter": person(akte.sachbearbeiter),
        "gegenstandswert": None if akte.gegenstandswert is None else f"{akte.gegenstandswert:.2f}",
        "auftragsdatum": akte.auftragsdatum.isoformat() if akte.auftragsdatum else None,
        "bundesland": akte.bundesland,
        "schlagworte": list(akte.tags),
        "zusammenfassung": akte.summary,
        "angelegt_am": akte.angelegt_am.date().isoformat(),
        "beteiligte": [_beteiligter(b) for b in akte.beteiligte.all()],
        "offene_fristen": [
            {
                "id": str(f.pk),
                "typ": f.typ,
                "bezeichnung": f.bezeichnung,
                "datum": f.datum.isoformat(),
                "uhrzeit": f.uhrzeit.isoformat(timespec="minutes") if f.uhrzeit else None,
                "notfrist": f.ist_notfrist,
                "ueberfaellig": f.datum < heute,
            }
            for f in fristen
        ],
        "dokumente": [
            {
                "id": str(d.pk),
                "titel": d.titel,
                "status": d.status,
                "angelegt_am": d.angelegt_am.date().isoformat(),
            }
            for d in dokumente
        ],
        "zeit_summe_minuten": minuten,
    }
    return ToolResult(
        ok=True, data=data, summary=f"Akte {akte.aktenzeichen} gelesen", sources=[quelle(akte)],
        reads=[Lesung.von(akte)],
    )


read_akte_detail = Tool(
    name="read_akte_detail",
    description=(
        "Read one Akte in full: parties (Beteiligte), open deadlines (Fristen), document titles, "
        "Helena's summary, Gegenstandswert, Bundesland and the total recorded time. Use it before "
        "answering questions about a specific case. Needs the Akte's id (find it with read_akte)."
    ),
    kind="read",
    params=ReadAkteDetailParams,
    handler=sync_to_async(_read_akte_detail),
    label="Lese Akte",
)


# --------------------------------------------------------------------------- search_alle_akten


class SearchAlleAktenParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    query: str = Field(..., description="Suchbegriff, z. B. ein Name, ein Begriff aus einem Schriftsatz")
    limit: int = Field(10, ge=1, le=50)


def _search_alle_akten(params: SearchAlleAktenParams, ctx: ToolContext) -> ToolResult:
    query = " ".join(params.query.split())
    if len(query) < 2:
        return ToolResult(
            ok=False,
            error="Bitte einen Suchbegriff mit mindestens zwei Zeichen angeben.",
            error_code="invalid_arguments",
            summary="Suchbegriff zu kurz",
        )
    suche = search_akten(user=ctx.user, query=query, limit=params.limit)
    results = [
        {
            **{k: v for k, v in akte_kurz(e.akte).items() if k in ("id", "aktenzeichen", "kurzrubrum")},
            "treffer": [t.as_dict() for t in e.treffer],
            **({"weitere_treffer": e.weitere} if e.weitere else {}),
        }
        for e in suche.ergebnisse
    ]
    data: dict[str, Any] = {"ergebnisse": results, "anzahl": suche.anzahl}
    if suche.nur_woerter:
        data["hinweis"] = "Die genaue Wortfolge kam nicht vor; Treffer für einzelne Wörter."
    if any(t.semantisch for e in suche.ergebnisse for t in e.treffer):
        data["hinweis_semantisch"] = (
            "Treffer mit semantisch=true passen dem Sinn nach, enthalten die Wörter aber nicht; prüfe sie "
            "mit read_dokumente_detail, bevor du dich auf sie stützt.")
    if not results:
        data["hinweis"] = "Keine Treffer in den Akten, die du sehen darfst."
    return ToolResult(
        ok=True,
        data=data,
        summary=f"{anzahl(suche.anzahl, 'Akte', 'Akten')} gefunden",
        sources=[quelle(e.akte) for e in suche.ergebnisse],
        reads=lesungen(suche),  # a hit quoting a Dokument, a Notiz or the summary is a read
    )


search_alle_akten = Tool(
    name="search_alle_akten",
    description=(
        "Search across all Akten the user may see: Aktenzeichen, Kurzrubrum, wegen, tags, Helena's "
        "summary, parties, document titles and texts, and notes. Finds exact words (names, "
        "Aktenzeichen) and passages that mean the same in other words (marked semantisch). Returns "
        "each matching Akte with where it matched. Use it when you do not know which Akte is meant, "
        "or to find every case mentioning a name or topic."
    ),
    kind="read",
    params=SearchAlleAktenParams,
    handler=sync_to_async(_search_alle_akten),
    label="Durchsuche alle Akten",
)
