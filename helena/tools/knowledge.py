"""Read tools over the knowledge base: search_gesetze, search_urteile, search_muster.

Plain async handlers with pydantic parameter models (names as in PROTOCOL.md); the agent's tool
registry picks them up. Failures come back as {"error": ...} observations, never exceptions.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from pydantic import BaseModel, ConfigDict, Field

from helena.knowledge import selectors


class SearchGesetzeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(..., description="Frage oder Zitat, z. B. „Berufungsfrist“ oder „§ 517 ZPO“")
    gesetz: str | None = Field(None, description="nur in diesem Gesetz suchen, z. B. „BGB“")
    limit: int = Field(5, ge=1, le=20)


class SearchUrteileParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(..., description="Suchbegriffe oder Frage")
    gericht: str | None = Field(None, description="z. B. „BAG“ oder „Landgericht Köln“")
    limit: int = Field(5, ge=1, le=20)


class SearchMusterParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(..., description="z. B. „Fristverlängerung“ oder „Vollmacht“")
    limit: int = Field(5, ge=1, le=20)


async def _run(**kwargs: Any) -> dict[str, Any]:
    try:
        hits = await sync_to_async(selectors.search)(**kwargs)
    except selectors.SucheError as exc:
        return {"error": str(exc)}
    if not hits:
        return {"results": [], "hinweis": "Keine Treffer. Formuliere die Suche anders oder allgemeiner."}
    return {"results": [hit.as_dict() for hit in hits]}


async def search_gesetze(params: SearchGesetzeParams) -> dict[str, Any]:
    """Statutes: citations first, then the norms that best answer the question."""
    return await _run(query=params.query, kind="gesetz", gesetz=params.gesetz, limit=params.limit)


async def search_urteile(params: SearchUrteileParams) -> dict[str, Any]:
    """Court decisions the firm has loaded (none are bundled: an empty result is honest)."""
    return await _run(query=params.query, kind="urteil", gericht=params.gericht, limit=params.limit)


async def search_muster(params: SearchMusterParams) -> dict[str, Any]:
    """The firm's templates with their {{PLATZHALTER}}."""
    return await _run(query=params.query, kind="muster", limit=params.limit)
