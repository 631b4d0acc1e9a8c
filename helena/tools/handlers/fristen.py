"""Read tool over deadlines (Fristen, Termine, Wiedervorlagen) of the Akten the user may see."""

from __future__ import annotations

from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from akten.lesezugriffe.services import Bereich, Lesung
from akten.selectors import fristen_for, get_akte
from config.errors import NotFound
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.tools.handlers.akten import akte_not_found, anzahl
from helena.tools.sources import quelle

_MAX = 100
_WAS = {"active": "offene ", "past": "vergangene ", "all": ""}


class ReadFristenParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    akte_id: str | None = Field(None, description="nur Fristen dieser Akte; ohne: alle sichtbaren Akten")
    status: Literal["active", "past", "all"] = Field(
        "active", description="active: offen (auch überfällige), past: erledigt oder vorbei, all: alle"
    )


def _read_fristen(params: ReadFristenParams, ctx: ToolContext) -> ToolResult:
    heute = timezone.localdate(ctx.now())
    akte_id = params.akte_id if params.akte_id not in (None, "") else None
    try:
        qs = fristen_for(user=ctx.user, akte_id=akte_id, status=params.status, heute=heute)
        total = qs.count()
    except NotFound:
        return akte_not_found(str(params.akte_id))
    if params.status == "past":
        qs = qs.order_by("-datum", "-uhrzeit")  # the most recent first
    fristen = list(qs[:_MAX])
    items: list[dict[str, Any]] = [
        {
            "id": str(f.pk),
            "akte_id": str(f.akte_id),
            "aktenzeichen": f.akte.aktenzeichen,
            "typ": f.typ,
            "bezeichnung": f.bezeichnung,
            "datum": f.datum.isoformat(),
            "uhrzeit": f.uhrzeit.isoformat(timespec="minutes") if f.uhrzeit else None,
            "vorfrist": f.vorfrist.isoformat() if f.vorfrist else None,
            "notfrist": f.ist_notfrist,
            "erledigt": f.erledigt,
            "ueberfaellig": not f.erledigt and f.datum < heute,
            "bundesland": f.effektives_bundesland,
        }
        for f in fristen
    ]
    data: dict[str, Any] = {"fristen": items, "anzahl": total, "heute": heute.isoformat()}
    if total > len(items):
        data["hinweis"] = f"Nur {len(items)} von {total} gezeigt; mit akte_id eingrenzen."
    ueberfaellig = sum(1 for i in items if i["ueberfaellig"])
    summary = f"{anzahl(total, _WAS[params.status] + 'Frist', _WAS[params.status] + 'Fristen')} gefunden"
    if ueberfaellig:
        summary += f", davon {ueberfaellig} überfällig"
    # One Akte's Fristen are a read of it; the Fristen of all Akten are a list (as the Fristenbuch).
    reads = [] if akte_id is None else [Lesung.von(
        fristen[0].akte if fristen else get_akte(user=ctx.user, akte_id=akte_id), bereich=Bereich.FRISTEN)]
    return ToolResult(
        ok=True,
        data=data,
        summary=summary,
        sources=[quelle(f) for f in fristen],
        reads=reads,
    )


read_fristen = Tool(
    name="read_fristen",
    description=(
        "List deadlines, hearings and follow-ups (Fristen/Termine/Wiedervorlagen) of one Akte or of all "
        "Akten the user may see. status: active (open, including overdue; default), past (done or over), "
        "all. Use it for questions like 'what is due this week' or 'which deadlines does case X have'."
    ),
    kind="read",
    params=ReadFristenParams,
    handler=sync_to_async(_read_fristen),
    label="Lese Fristen",
)
