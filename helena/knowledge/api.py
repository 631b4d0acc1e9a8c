"""JSON API for the knowledge base (any logged-in role; the corpus is not client data)."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from config.errors import NOT_BLANK, errors
from helena.knowledge import query, selectors

router = Router(tags=["Wissen"])


class SucheFilter(Schema):
    q: str = Field(..., max_length=query.MAX_QUERY_CHARS, pattern=NOT_BLANK,
                   description="Frage, Stichworte oder Zitat (z. B. „§ 626 BGB“)")
    kind: Literal["gesetz", "urteil", "muster"] | None = None
    gesetz: str | None = None
    gericht: str | None = None
    kategorie: str | None = None
    limit: int = Field(10, ge=1, le=selectors.MAX_LIMIT)


class TrefferOut(Schema):
    kind: str
    id: str
    title: str
    citation: str
    snippet: str
    score: float
    source: str


class NormOut(Schema):
    citation: str
    gesetz: str
    gesetz_titel: str
    bezeichnung: str
    titel: str
    gliederung: str
    text: str
    source: str


@router.get("/knowledge/search", response=list[TrefferOut], summary="Gesetze, Entscheidungen, Muster suchen")
def knowledge_search(request: HttpRequest, filters: Query[SucheFilter]) -> list[dict]:
    hits = selectors.search(
        query=filters.q, kind=filters.kind, gesetz=filters.gesetz, gericht=filters.gericht,
        kategorie=filters.kategorie, limit=filters.limit,
    )
    return [{**hit.as_dict(), "id": str(hit.id)} for hit in hits]


@router.get("/knowledge/normen/{gesetz}/{bezeichnung}", response={200: NormOut, **errors(404)},
             summary="Volltext einer Norm")
def knowledge_norm(request: HttpRequest, gesetz: str, bezeichnung: str) -> dict:
    norm = selectors.get_norm(gesetz=gesetz, bezeichnung=bezeichnung)
    return {
        "citation": norm.citation,
        "gesetz": norm.gesetz.abk,
        "gesetz_titel": norm.gesetz.titel,
        "bezeichnung": norm.bezeichnung,
        "titel": norm.titel,
        "gliederung": norm.gliederung,
        "text": norm.text,
        "source": norm.gesetz.source_label,
    }
