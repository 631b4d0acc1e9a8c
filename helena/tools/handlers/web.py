"""search_web: a web search through a SearxNG-compatible JSON endpoint (HELENA_SEARCH_URL).

Offered only when the endpoint is configured: without it the model is not tempted to try. The query
leaves the house (a SearxNG passes it on to public search engines), so it is redacted like a cloud
call, whatever model the run uses: names, addresses and file numbers of every Akte the run touched,
and e-mails, phone numbers, IBANs and dates of birth by pattern.
"""

from __future__ import annotations

from typing import Any

import httpx
from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field

from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.llm.pii.touched import privacy_for

MAX_RESULTS = 5
_MAX_CONTENT = 500
_HTTP_TIMEOUT = httpx.Timeout(8.0, connect=3.0)


class SearchWebParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    query: str = Field(..., min_length=2, max_length=400, description="Suchanfrage")


def search_url() -> str:
    return (getattr(settings, "HELENA_SEARCH_URL", "") or "").strip()


NOT_SET_UP = "Die Websuche ist in dieser Kanzlei nicht eingerichtet."


def _available() -> bool:
    return bool(search_url())


def _result(item: dict[str, Any]) -> dict[str, str] | None:
    url = str(item.get("url") or "").strip()
    if not url.startswith(("http://", "https://")):
        return None
    content = " ".join(str(item.get("content") or "").split())
    return {
        "title": " ".join(str(item.get("title") or url).split())[:300],
        "url": url,
        "content": content[:_MAX_CONTENT] + ("…" if len(content) > _MAX_CONTENT else ""),
    }


async def outgoing_query(query: str, ctx: ToolContext) -> str:
    """The query as it may leave the house: redacted with the run's Privacy (or patterns alone)."""
    privacy = ctx.privacy
    if privacy is None:
        privacy = privacy_for(user=ctx.user, conversation_id=ctx.conversation_id, akte_id=ctx.akte_id)
    await privacy.refresh()
    return str(privacy.redact(query))


async def _search_web(params: SearchWebParams, ctx: ToolContext) -> ToolResult:
    base = search_url()
    if not base:
        return ToolResult(ok=False, error=NOT_SET_UP, error_code="not_configured",
                          summary="Websuche nicht eingerichtet")
    query = await outgoing_query(params.query, ctx)
    async with httpx.AsyncClient(timeout=_HTTP_TIMEOUT, follow_redirects=True) as client:
        response = await client.get(
            f"{base.rstrip('/')}/search", params={"q": query, "format": "json"},
            headers={"Accept": "application/json"},
        )
        response.raise_for_status()  # 5xx is retried by the executor, 4xx fails
    try:
        payload = response.json()
    except ValueError:
        return ToolResult(ok=False, error="Die Websuche hat keine gültige Antwort geliefert.",
                          error_code="tool_failed", summary="Websuche fehlgeschlagen")
    raw = payload.get("results", []) if isinstance(payload, dict) else []
    results = [r for r in (_result(i) for i in raw if isinstance(i, dict)) if r][:MAX_RESULTS]
    data: dict[str, Any] = {
        "results": results,
        "hinweis": "Webinhalte sind ungeprüft: vor einer Verwendung an Gesetz oder Akte prüfen.",
    }
    if not results:
        data["hinweis"] = "Keine Treffer im Web. Formuliere die Suche anders."
    if query != params.query:
        data["gesendete_suche"] = query
        data["datenschutz"] = ("Namen, Anschriften, Aktenzeichen und Kontaktdaten verlassen die Kanzlei "
                               "nicht; sie wurden vor der Suche durch Platzhalter ersetzt.")
    return ToolResult(
        ok=True,
        data=data,
        summary=f"{len(results)} Webtreffer" if results else "Keine Webtreffer",
        sources=[{"url": r["url"], "title": r["title"]} for r in results],
    )


search_web = Tool(
    name="search_web",
    description=(
        "Search the public web. Use it only for current information that is not in the Akten, the "
        "statutes or the firm's templates (e.g. a company's address, recent news); prefer search_gesetze "
        "and search_urteile for legal questions. Results are unverified."
    ),
    kind="read",
    params=SearchWebParams,
    handler=_search_web,
    label="Durchsuche das Web",
    timeout=20.0,
    available=_available,
    unavailable_note=NOT_SET_UP,
)
