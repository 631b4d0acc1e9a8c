"""Read tools over an Akte's documents: the list with snippets, and one document in full."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from pydantic import BaseModel, ConfigDict, Field

from akten.dokumente.seiten import Seite, seiten_von
from akten.lesezugriffe.services import Bereich, Lesung
from akten.models import Akte, Dokument
from akten.selectors import dokumente_for, get_akte, get_dokument
from config.errors import NotFound
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.knowledge.aktensuche.lexical import Treffer, snippet
from helena.knowledge.aktensuche.search import search_akten
from helena.tools.handlers.akten import akte_not_found, anzahl
from helena.tools.sources import quelle

_MAX_LIST = 50
_MAX_INHALT = 30_000  # characters; beyond that the model's context suffers more than it gains


# --------------------------------------------------------------------------- read_dokumente


class ReadDokumenteParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    akte_id: str = Field(..., description="id der Akte (aus read_akte)")
    query: str | None = Field(
        None, description="nur Dokumente, deren Titel oder Text dies enthält oder dem Sinn nach behandelt")


def _read_dokumente(params: ReadDokumenteParams, ctx: ToolContext) -> ToolResult:
    query = " ".join((params.query or "").split())
    try:
        akte = get_akte(user=ctx.user, akte_id=params.akte_id)
    except NotFound:
        return akte_not_found(params.akte_id)
    if query:
        return _found_dokumente(akte, query, ctx)
    qs = dokumente_for(user=ctx.user, akte_id=akte.pk).order_by("-angelegt_am")
    total = qs.count()
    dokumente = list(qs[:_MAX_LIST])
    data: dict[str, Any] = {
        "akte": {"id": str(akte.pk), "aktenzeichen": akte.aktenzeichen},
        "dokumente": [_eintrag(d, snippet(d.inhalt, None)) for d in dokumente],
        "anzahl": total,
    }
    if total > len(dokumente):
        data["hinweis"] = f"Nur die neuesten {len(dokumente)} von {total}; mit query eingrenzen."
    return _listed(akte, dokumente, data, total)


def _found_dokumente(akte: Akte, query: str, ctx: ToolContext) -> ToolResult:
    """The Akte's Dokumente that contain the words, then those that match in meaning."""
    suche = search_akten(user=ctx.user, query=query, akte_id=akte.pk, dokumente_only=True, per_akte=_MAX_LIST)
    hits: dict[int | None, Treffer] = {}
    for t in (suche.ergebnisse[0].treffer if suche.ergebnisse else []):
        hits.setdefault(t.dokument_id, t)
    dokumente = {d.pk: d for d in Dokument.objects.filter(pk__in=hits, akte=akte).select_related("akte")}
    found = [dokumente[pk] for pk in hits if pk in dokumente]
    data: dict[str, Any] = {
        "akte": {"id": str(akte.pk), "aktenzeichen": akte.aktenzeichen},
        "dokumente": [
            {**_eintrag(d, hits[d.pk].text or snippet(d.inhalt, query)),
             **({"seite": hits[d.pk].seite} if hits[d.pk].seite else {}),
             **({"semantisch": True} if hits[d.pk].semantisch else {})}
            for d in found
        ],
        "anzahl": len(found),
    }
    if any(hits[d.pk].semantisch for d in found):
        data["hinweis"] = ("Dokumente mit semantisch=true enthalten die Wörter nicht, passen aber dem Sinn "
                           "nach; lies sie mit read_dokumente_detail, bevor du dich auf sie stützt.")
    return _listed(akte, found, data, len(found), seiten={d.pk: hits[d.pk].seite for d in found})


def _eintrag(d: Dokument, auszug: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": str(d.pk),
        "titel": d.titel,
        "status": d.status,
        "erstellt_durch": d.erstellt_durch,
        "angelegt_am": d.angelegt_am.date().isoformat(),
        "auszug": auszug,
    }
    if d.hochgeladen:
        out["datei"] = _datei(d)
    return out


def _datei(d: Dokument) -> dict[str, Any]:
    """What Helena needs to know of an upload: its type, pages and whether its text could be read."""
    out: dict[str, Any] = {"typ": d.get_dateityp_display(), "name": d.dateiname,
                           "text": d.get_extraktion_display()}
    if d.seiten:
        out["seiten"] = d.seiten
    if d.quelle_id:
        out["anhang_von"] = str(d.quelle_id)
    return out


def _listed(akte: Akte, dokumente: list[Dokument], data: dict[str, Any], total: int, *,
            seiten: dict[int, int | None] | None = None) -> ToolResult:
    """`seiten`: the page each Dokument was found on, for its citation („S. 2“)."""
    return ToolResult(
        ok=True,
        data=data,
        summary=f"{anzahl(total, 'Dokument', 'Dokumente', kein='Kein')} gefunden",
        sources=[quelle(akte), *(quelle(d, seite=(seiten or {}).get(d.pk)) for d in dokumente)],
        reads=[Lesung.von(akte, bereich=Bereich.DOKUMENTE)],  # with or without query: one Akte's list
    )


read_dokumente = Tool(
    name="read_dokumente",
    description=(
        "List the documents of one Akte with title, status (entwurf/freigegeben) and a short excerpt. "
        "With query: only documents whose title or text contains it, then those about it in other words "
        "(semantisch). Use it to find a document's id; read the full text with read_dokumente_detail."
    ),
    kind="read",
    params=ReadDokumenteParams,
    handler=sync_to_async(_read_dokumente),
    label="Lese Dokumentliste",
)


# --------------------------------------------------------------------------- read_dokumente_detail


class ReadDokumenteDetailParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    dokument_id: str = Field(..., description="id des Dokuments (aus read_dokumente)")
    seite: int | None = Field(None, ge=1, description="ab dieser Seite (bzw. diesem Teil) lesen, bei langen "
                                                      "Dokumenten")


def _dokument_not_found(dokument_id: str) -> ToolResult:
    return ToolResult(
        ok=False,
        error=f"Dokument „{dokument_id}“ nicht gefunden. Nutze read_dokumente, um die id zu finden.",
        error_code="not_found",
        summary="Dokument nicht gefunden",
    )


def _text_hinweis(d: Dokument) -> str | None:
    """Why an upload's text is missing or partial, in words Helena can pass on."""
    if d.text_wird_gelesen:
        return (f"Der Text der Datei wird gerade gelesen ({d.extraktion_fortschritt} %). Sag das dem "
                f"Nutzer und biete an, es gleich noch einmal zu versuchen.")
    if d.extraktion in (Dokument.Extraktion.OCR_FEHLT, Dokument.Extraktion.TEILWEISE,
                        Dokument.Extraktion.LEER, Dokument.Extraktion.FEHLER):
        return (f"{d.get_extraktion_display()}: {d.extraktion_hinweis} Erfinde keinen Inhalt für das, "
                f"was nicht lesbar ist.")
    return None


def _read_dokumente_detail(params: ReadDokumenteDetailParams, ctx: ToolContext) -> ToolResult:
    try:
        dokument = get_dokument(user=ctx.user, dokument_id=params.dokument_id)
    except NotFound:
        return _dokument_not_found(params.dokument_id)
    data: dict[str, Any] = {
        "id": str(dokument.pk),
        "akte": {"id": str(dokument.akte_id), "aktenzeichen": dokument.akte.aktenzeichen},
        "titel": dokument.titel,
        "status": dokument.status,
        "erstellt_durch": dokument.erstellt_durch,
        "angelegt_am": dokument.angelegt_am.date().isoformat(),
    }
    if dokument.hochgeladen:
        data["datei"] = _datei(dokument)
    hinweise = [h for h in [_text_hinweis(dokument)] if h]
    seiten = seiten_von(inhalt=dokument.inhalt, dateityp=dokument.dateityp)
    if seiten[0].nummer is None:  # no pages to cite: a long text is read in parts of _MAX_INHALT
        inhalt = dokument.inhalt
        teile = max(1, -(-len(inhalt) // _MAX_INHALT))
        teil = min(params.seite or 1, teile)
        data["inhalt"] = inhalt[(teil - 1) * _MAX_INHALT:teil * _MAX_INHALT]
        if teile > 1:
            data["teil"] = teil
            weiter = f" Weiter mit seite={teil + 1}." if teil < teile else ""
            hinweise.append(f"Teil {teil} von {teile} des Textes ({len(inhalt)} Zeichen).{weiter}")
    else:
        data["seiten"], weiter = _pages(seiten, von=params.seite or 1)
        if not data["seiten"]:
            hinweise.append(f"Das Dokument hat nur {len(seiten)} Seite(n); lies ab seite=1.")
        hinweise.append("Nenne Fundstellen mit der Seite, z. B. „S. 3“.")
        if weiter:
            hinweise.append(f"Weitere Seiten: read_dokumente_detail mit seite={weiter} (von {len(seiten)}).")
    if not dokument.inhalt.strip() and not dokument.hochgeladen:
        hinweise.append("Das Dokument hat keinen Text.")
    if hinweise:
        data["hinweis"] = " ".join(hinweise)
    return ToolResult(
        ok=True,
        data=data,
        summary=f"Dokument „{dokument.titel[:60]}“ gelesen",
        sources=[quelle(dokument, seite=_gelesen(data.get("seiten")))],
        reads=[Lesung.von(dokument.akte, bereich=Bereich.DOKUMENT, dokument=dokument)],
    )


def _gelesen(seiten: list[dict[str, Any]] | None) -> str | None:
    """The pages read, as cited: „2“ or „2–4“ (None for a text without pages)."""
    if not seiten:
        return None
    erste, letzte = seiten[0]["seite"], seiten[-1]["seite"]
    return str(erste) if erste == letzte else f"{erste}–{letzte}"


def _pages(seiten: list[Seite], *, von: int) -> tuple[list[dict[str, Any]], int | None]:
    """The pages from `von` on that fit the budget (at least one), and the next page to read, if any."""
    out: list[dict[str, Any]] = []
    used = 0
    for seite in seiten[von - 1:]:
        if out and used + len(seite.text) > _MAX_INHALT:
            return out, seite.nummer
        text = seite.text[:_MAX_INHALT]
        out.append({"seite": seite.nummer, "text": text})
        used += len(text)
    return out, None


read_dokumente_detail = Tool(
    name="read_dokumente_detail",
    description=(
        "Read the full text of one document (by its id from read_dokumente). Use it when you need the "
        "actual wording of a letter, pleading or contract, e.g. to quote or summarise it. Uploaded PDFs "
        "and scans come page by page: cite them as „S. 3“; use seite to read on in a long document."
    ),
    kind="read",
    params=ReadDokumenteDetailParams,
    handler=sync_to_async(_read_dokumente_detail),
    label="Lese Dokument",
)
