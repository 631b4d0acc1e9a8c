"""Read tool over the recorded working time of one Akte, with totals."""

from __future__ import annotations

from datetime import date
from typing import Any

from asgiref.sync import sync_to_async
from pydantic import BaseModel, ConfigDict, Field

from akten.fristen import FristError, parse_datum
from akten.lesezugriffe.services import Bereich, Lesung
from akten.selectors import get_akte, zeiterfassung_for
from config.errors import NotFound
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.tools.handlers.akten import akte_not_found, anzahl, person
from helena.tools.sources import quelle

_MAX = 200


class ReadZeiterfassungParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    akte_id: str = Field(..., description="id der Akte (aus read_akte)")
    von: str | None = Field(None, description="ab diesem Datum (JJJJ-MM-TT oder TT.MM.JJJJ)")
    bis: str | None = Field(None, description="bis einschließlich diesem Datum")


def stunden(minuten: int) -> str:
    """'3:45 h' — how the firm writes durations."""
    return f"{minuten // 60}:{minuten % 60:02d} h"


def _datum(value: str | None, name: str) -> date | None:
    if value is None or not value.strip():
        return None
    try:
        return parse_datum(value.strip())
    except FristError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _read_zeiterfassung(params: ReadZeiterfassungParams, ctx: ToolContext) -> ToolResult:
    try:
        von, bis = _datum(params.von, "von"), _datum(params.bis, "bis")
    except ValueError as exc:
        return ToolResult(
            ok=False, error=str(exc), error_code="invalid_arguments", summary="Ungültiges Datum"
        )
    if von and bis and von > bis:
        return ToolResult(
            ok=False,
            error="„von“ liegt nach „bis“.",
            error_code="invalid_arguments",
            summary="Ungültiger Zeitraum",
        )
    try:
        akte = get_akte(user=ctx.user, akte_id=params.akte_id)
        eintraege = list(zeiterfassung_for(user=ctx.user, akte_id=akte.pk, von=von, bis=bis))
    except NotFound:
        return akte_not_found(params.akte_id)
    summe = sum(z.dauer_minuten for z in eintraege)
    abrechenbar = sum(z.dauer_minuten for z in eintraege if z.abrechenbar)
    data: dict[str, Any] = {
        "akte": {"id": str(akte.pk), "aktenzeichen": akte.aktenzeichen},
        "zeitraum": {"von": von.isoformat() if von else None, "bis": bis.isoformat() if bis else None},
        "eintraege": [
            {
                "id": str(z.pk),
                "datum": z.datum.isoformat(),
                "mitarbeiter": person(z.user),
                "dauer_minuten": z.dauer_minuten,
                "taetigkeit": z.taetigkeit,
                "abrechenbar": z.abrechenbar,
            }
            for z in eintraege[:_MAX]
        ],
        "anzahl": len(eintraege),
        "summe_minuten": summe,
        "summe": stunden(summe),
        "abrechenbar_minuten": abrechenbar,
    }
    if len(eintraege) > _MAX:
        data["hinweis"] = f"Nur die neuesten {_MAX} Einträge gezeigt; die Summen gelten für alle."
    return ToolResult(
        ok=True,
        data=data,
        summary=f"{anzahl(len(eintraege), 'Eintrag', 'Einträge', kein='Kein')}, {stunden(summe)}",
        sources=[quelle(z) for z in eintraege[:_MAX]],
        reads=[Lesung.von(akte, bereich=Bereich.ZEITEN)],
    )


read_zeiterfassung = Tool(
    name="read_zeiterfassung",
    description=(
        "List the recorded working time (Zeiterfassung) of one Akte, optionally between von and bis, "
        "with the total and billable minutes. Use it for questions about effort spent or for billing."
    ),
    kind="read",
    params=ReadZeiterfassungParams,
    handler=sync_to_async(_read_zeiterfassung),
    label="Lese Zeiterfassung",
)
