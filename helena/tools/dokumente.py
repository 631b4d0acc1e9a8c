"""Read tools over an Akte's documents: the list with snippets, and one document in full."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from pydantic import BaseModel, ConfigDict, Field

from akten.models import Dokument
from akten.selectors import dokumente_for, get_akte, get_dokument
from config.errors import NotFound
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.tools.akten import akte_not_found, akte_source, anzahl, snippet

_DOKUMENT_TABLE = Dokument._meta.db_table
_MAX_LIST = 50
_MAX_INHALT = 30_000  # characters; beyond that the model's context suffers more than it gains


def dokument_source(dokument_id: int | str) -> dict[str, str]:
    return {"table": _DOKUMENT_TABLE, "id": str(dokument_id)}


# --------------------------------------------------------------------------- read_dokumente


class ReadDokumenteParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    akte_id: str = Field(..., description="id der Akte (aus read_akte)")
    query: str | None = Field(None, description="nur Dokumente, deren Titel oder Text dies enthält")


def _read_dokumente(params: ReadDokumenteParams, ctx: ToolContext) -> ToolResult:
    try:
        akte = get_akte(user=ctx.user, akte_id=params.akte_id)
        qs = dokumente_for(user=ctx.user, akte_id=akte.pk, query=params.query or None)
        qs = qs.order_by("-angelegt_am")
    except NotFound:
        return akte_not_found(params.akte_id)
    total = qs.count()
    dokumente = list(qs[:_MAX_LIST])
    data: dict[str, Any] = {
        "akte": {"id": str(akte.pk), "aktenzeichen": akte.aktenzeichen},
        "dokumente": [
            {
                "id": str(d.pk),
                "titel": d.titel,
                "status": d.status,
                "erstellt_durch": d.erstellt_durch,
                "angelegt_am": d.angelegt_am.date().isoformat(),
                "auszug": snippet(d.inhalt, params.query),
            }
            for d in dokumente
        ],
        "anzahl": total,
    }
    if total > len(dokumente):
        data["hinweis"] = f"Nur die neuesten {len(dokumente)} von {total}; mit query eingrenzen."
    return ToolResult(
        ok=True,
        data=data,
        summary=f"{anzahl(total, 'Dokument', 'Dokumente', kein='Kein')} gefunden",
        sources=[akte_source(akte.pk), *(dokument_source(d.pk) for d in dokumente)],
    )


read_dokumente = Tool(
    name="read_dokumente",
    description=(
        "List the documents of one Akte with title, status (entwurf/freigegeben) and a short excerpt, "
        "optionally filtered by a word in title or text. Use it to find a document's id; read the full "
        "text with read_dokumente_detail."
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


def _read_dokumente_detail(params: ReadDokumenteDetailParams, ctx: ToolContext) -> ToolResult:
    try:
        dokument = get_dokument(user=ctx.user, dokument_id=params.dokument_id)
    except NotFound:
        return ToolResult(
            ok=False,
            error=(
                f"Dokument „{params.dokument_id}“ nicht gefunden. Nutze read_dokumente, um die id zu finden."
            ),
            error_code="not_found",
            summary="Dokument nicht gefunden",
        )
    inhalt = dokument.inhalt
    data: dict[str, Any] = {
        "id": str(dokument.pk),
        "akte": {"id": str(dokument.akte_id), "aktenzeichen": dokument.akte.aktenzeichen},
        "titel": dokument.titel,
        "status": dokument.status,
        "erstellt_durch": dokument.erstellt_durch,
        "angelegt_am": dokument.angelegt_am.date().isoformat(),
        "datei": dokument.datei.name or None,
        "inhalt": inhalt[:_MAX_INHALT],
    }
    if len(inhalt) > _MAX_INHALT:
        data["hinweis"] = f"Inhalt gekürzt auf {_MAX_INHALT} von {len(inhalt)} Zeichen."
    if not inhalt.strip():
        data["hinweis"] = "Das Dokument hat keinen erfassten Text (evtl. nur eine Datei)."
    return ToolResult(
        ok=True,
        data=data,
        summary=f"Dokument „{dokument.titel[:60]}“ gelesen",
        sources=[dokument_source(dokument.pk)],
    )


read_dokumente_detail = Tool(
    name="read_dokumente_detail",
    description=(
        "Read the full text of one document (by its id from read_dokumente). Use it when you need the "
        "actual wording of a letter, pleading or contract, e.g. to quote or summarise it."
    ),
    kind="read",
    params=ReadDokumenteDetailParams,
    handler=sync_to_async(_read_dokumente_detail),
    label="Lese Dokument",
)
