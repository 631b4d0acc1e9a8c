"""Read tools over the knowledge base: search_gesetze, search_urteile, search_muster.

Plain async handlers with pydantic parameter models (names as in docs/protocol.md); the agent's tool
registry picks them up. Failures come back as {"error": ...} observations, never exceptions.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from pydantic import BaseModel, ConfigDict, Field

from helena.agent.tooling import Tool, ToolContext, ToolResult
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


# None are bundled: without this an empty list would read as „no such case law exists“.
KEINE_URTEILE = (
    "In dieser Installation sind keine Entscheidungen geladen – das heißt nicht, dass es keine gibt. "
    "Ein Admin kann sie mit „python manage.py load_urteile“ laden."
)


async def search_urteile(params: SearchUrteileParams) -> dict[str, Any]:
    """Court decisions the firm has loaded; with none loaded the answer says so."""
    out = await _run(query=params.query, kind="urteil", gericht=params.gericht, limit=params.limit)
    if out.get("results") == [] and not await sync_to_async(selectors.urteile_geladen)():
        return {"results": [], "urteile_geladen": False, "hinweis": KEINE_URTEILE}
    return out


async def search_muster(params: SearchMusterParams) -> dict[str, Any]:
    """The firm's templates with their {{PLATZHALTER}}."""
    return await _run(query=params.query, kind="muster", limit=params.limit)


# --- as agent tools ------------------------------------------------------------------------------
# Thin wrappers: the functions above keep their dict results; the registry needs (params, ctx) -> ToolResult.

_CORPUS = {"gesetz": "gesetze", "urteil": "urteile", "muster": "muster"}
_NOUNS = {
    "gesetz": ("Norm", "Normen"),
    "urteil": ("Entscheidung", "Entscheidungen"),
    "muster": ("Muster", "Muster"),
}


def _as_result(out: dict[str, Any], *, kind: str) -> ToolResult:
    if "error" in out:
        return ToolResult(
            ok=False, error=out["error"], error_code="invalid_arguments", summary="Suche abgelehnt"
        )
    hits = out.get("results", [])
    singular, plural = _NOUNS[kind]
    summary = f"{len(hits)} {singular if len(hits) == 1 else plural} gefunden" if hits else "Keine Treffer"
    if out.get("urteile_geladen") is False:
        summary = "Keine Entscheidungen geladen"
    return ToolResult(
        ok=True,
        data=out,
        summary=summary,
        sources=[{"corpus": _CORPUS[kind], "citation": _zitat(hit, kind=kind)} for hit in hits],
    )


def _zitat(hit: dict[str, Any], *, kind: str) -> str:
    """„§ 517 ZPO“, „BAG, 12.03.2024 – 2 AZR 1/24“, „Muster „Mandatsbestätigung““."""
    citation = str(hit.get("citation", ""))
    return f"Muster „{citation}“" if kind == "muster" and citation else citation


async def _search_gesetze_tool(params: SearchGesetzeParams, ctx: ToolContext) -> ToolResult:
    return _as_result(await search_gesetze(params), kind="gesetz")


async def _search_urteile_tool(params: SearchUrteileParams, ctx: ToolContext) -> ToolResult:
    return _as_result(await search_urteile(params), kind="urteil")


async def _search_muster_tool(params: SearchMusterParams, ctx: ToolContext) -> ToolResult:
    return _as_result(await search_muster(params), kind="muster")


search_gesetze_tool = Tool(
    name="search_gesetze",
    description=(
        "Search German statutes (BGB, ZPO, …) by citation (\"§ 517 ZPO\") or by the legal concept in "
        "German (\"Schriftform der Kündigung Arbeitsverhältnis\" rather than the user's \"per WhatsApp "
        "gekündigt\"); the search matches wording and meaning. If the results do not fit, search once "
        "more with other legal terms before you answer. Use it whenever an answer depends on the "
        "wording of a norm; cite what it returns, never from memory. Optional gesetz restricts to one "
        "law (e.g. \"BGB\")."
    ),
    kind="read",
    params=SearchGesetzeParams,
    handler=_search_gesetze_tool,
    label="Durchsuche Gesetze",
)

search_urteile_tool = Tool(
    name="search_urteile",
    description=(
        "Search the court decisions the firm has loaded, optionally by court (gericht). Use it for case "
        "law on a legal question. If none are loaded, the result says so: tell the user, and never cite "
        "decisions from memory."
    ),
    kind="read",
    params=SearchUrteileParams,
    handler=_search_urteile_tool,
    label="Durchsuche Urteile",
)

search_muster_tool = Tool(
    name="search_muster",
    description=(
        "Search the firm's document templates (Muster) with their {{PLATZHALTER}}. Use it before drafting "
        "a letter or pleading, so the draft follows the firm's template."
    ),
    kind="read",
    params=SearchMusterParams,
    handler=_search_muster_tool,
    label="Durchsuche Muster",
)
