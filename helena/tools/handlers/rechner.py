"""Legal calculators as tools: Fristberechnung (akten.fristen) and RVG/GKG fees (akten.kosten).

The model must never do date or fee arithmetic itself; these tools do it with the firm's tested code.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from datetime import date
from decimal import Decimal
from typing import Any, Literal, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from akten import kosten
from akten.fristen import PRESETS, FristError, berechne, parse_datum
from akten.kosten import KV_GKG, VV_RVG, KostenError, berechne_gkg, berechne_rvg
from akten.selectors import get_akte
from config.errors import NotFound
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.tools.base import DauerParams


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace $ref/$defs by the definitions: local models (Ollama) ignore references."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = resolve(copy.deepcopy(defs[ref.removeprefix("#/$defs/")]))
            return {**target, **{k: resolve(v) for k, v in node.items() if k != "$ref"}}
        return {k: resolve(v) for k, v in node.items()}

    return resolve(schema)


class _InlineSchema(BaseModel):
    """Parameters with nested models: their JSON schema is offered without references."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _inline_refs(super().model_json_schema(*args, **kwargs))


P = TypeVar("P", bound=BaseModel)


def _on_the_loop_unless(
    reads_records: Callable[[P, ToolContext], bool], compute: Callable[[P, ToolContext], ToolResult],
) -> Callable[[P, ToolContext], Awaitable[ToolResult]]:
    """A calculator's handler: arithmetic alone runs right on the event loop; only a call that must
    read the Akte goes to the run's database thread. The hop there and back cost 3–7 ms a call for
    0.04 ms of arithmetic, each step of a run waiting for it (bench/agent_overhead.py)."""
    off_the_loop = sync_to_async(compute)

    async def handler(params: P, ctx: ToolContext) -> ToolResult:
        if reads_records(params, ctx):
            return await off_the_loop(params, ctx)
        return compute(params, ctx)

    return handler


# --------------------------------------------------------------------------- calculate_frist


class CalculateFristParams(_InlineSchema):
    """The options of POST /fristen/berechnen, so the chat computes exactly what the calculator does."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    start: str = Field(..., description="Ereignistag, z. B. Tag der Zustellung (JJJJ-MM-TT oder TT.MM.JJJJ); "
                                        "bei fristbeginn=tagesbeginn der erste Tag der Frist")
    dauer: DauerParams | None = Field(None, description="z. B. {\"monate\": 1} für die Berufungsfrist")
    preset: Literal[tuple(PRESETS)] | None = Field(  # type: ignore[valid-type]
        None, description="statt dauer eine vordefinierte Frist: " + ", ".join(PRESETS))
    fristbeginn: Literal["ereignis", "tagesbeginn"] = Field(
        "ereignis",
        description="ereignis: der Ereignistag zählt nicht mit (§ 187 Abs. 1 BGB, z. B. Zustellung); "
                    "tagesbeginn: die Frist beginnt mit dem Anfang des Tages (§ 187 Abs. 2 BGB, z. B. "
                    "Lebensalter, Beginn eines Arbeits- oder Mietverhältnisses)",
    )
    vorfrist_tage: int | None = Field(None, ge=0, le=366, description="Vorfrist so viele Tage vor Fristende")
    bundesland: str | None = Field(
        None,
        description="Bundesland des Gerichts (NW, BY, …); ohne: das der Akte im Fokus bzw. des Kanzleisitzes",
    )


def _bundesland(params: CalculateFristParams, ctx: ToolContext) -> tuple[str, str]:
    """(Bundesland, where it came from): given, else the focused Akte (if visible), else the firm's seat."""
    if params.bundesland and params.bundesland.strip():
        return params.bundesland.strip(), "angegeben"
    if ctx.akte_id is not None:
        try:
            akte = get_akte(user=ctx.user, akte_id=ctx.akte_id)
        except NotFound:
            pass
        else:
            return akte.bundesland, f"Akte {akte.aktenzeichen}"
    return settings.KANZLEI_BUNDESLAND, "Kanzleisitz"


def _bundesland_from_akte(params: CalculateFristParams, ctx: ToolContext) -> bool:
    """Whether _bundesland() reads the Akte in focus (no Bundesland given)."""
    return not (params.bundesland or "").strip() and ctx.akte_id is not None


def _calculate_frist(params: CalculateFristParams, ctx: ToolContext) -> ToolResult:
    bundesland, quelle = _bundesland(params, ctx)
    try:
        ergebnis = berechne(
            start=params.start, dauer=params.dauer.model_dump() if params.dauer else None,
            preset=params.preset, bundesland=bundesland, fristbeginn=params.fristbeginn,
            vorfrist_tage=params.vorfrist_tage,
        )
    except FristError as exc:
        return ToolResult(
            ok=False, error=str(exc), error_code="invalid_arguments", summary="Frist nicht berechenbar"
        )
    data = {**ergebnis.as_dict(), "bundesland_quelle": quelle}
    return ToolResult(
        ok=True,
        data=data,
        summary=f"Frist endet am {ergebnis.ende:%d.%m.%Y}",
        sources=[
            {"corpus": "gesetze", "citation": "§ 188 BGB"},
            {"corpus": "gesetze", "citation": "§ 222 ZPO"},
        ],
    )


calculate_frist = Tool(
    name="calculate_frist",
    description=(
        "Compute the end of a deadline (Frist) from a start event and a duration under §§ 187, 188, 193 "
        "BGB and § 222 ZPO, including weekends and public holidays of the Bundesland, with a German "
        "explanation. ALWAYS use this instead of computing dates yourself. Give dauer or a preset; "
        "fristbeginn=tagesbeginn for a Frist that starts at the beginning of a day (§ 187 Abs. 2 BGB); "
        "vorfrist_tage adds a Vorfrist. Without bundesland the Bundesland of the Akte in focus (or of the "
        "firm) is used."
    ),
    kind="read",
    params=CalculateFristParams,
    handler=_on_the_loop_unless(_bundesland_from_akte, _calculate_frist),
    label="Berechne Frist",
)


# --------------------------------------------------------------------------- get_kosten_rules


class GebuehrParams(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    nr: str = Field(..., description="Nummer aus VV RVG (z. B. 3100) oder KV GKG (z. B. 1210)")
    satz: str | None = Field(None, description="Gebührensatz, z. B. 1.3; ohne: der Regelsatz")


class GetKostenRulesParams(_InlineSchema):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    gegenstandswert: str | None = Field(None, description="in EUR, z. B. 5000; ohne: nur die Regeln")
    gebuehren: list[GebuehrParams] | None = Field(
        None, description="ohne: Verfahrens- und Terminsgebühr (3100, 3104)"
    )
    auftragsdatum: str | None = Field(
        None, description="Tag des Auftrags (JJJJ-MM-TT); wählt die RVG-Tabelle (§ 60 RVG). Ohne: das "
                          "Auftragsdatum der Akte, sonst heute")
    anhaengigkeit: str | None = Field(
        None, description="Tag der Anhängigkeit (JJJJ-MM-TT); wählt die GKG-Tabelle (§ 71 GKG). Ohne: heute")
    akte_id: str | None = Field(None, description="Akte, deren Auftragsdatum gilt; ohne: die Akte im Fokus")


def _auftragsdatum(params: GetKostenRulesParams, ctx: ToolContext, heute: date) -> tuple[date, str]:
    """(Auftragsdatum, where it came from): given, else the Akte's (named or in focus), else today."""
    if params.auftragsdatum and params.auftragsdatum.strip():
        return parse_datum(params.auftragsdatum), "angegeben"
    akte_id = params.akte_id or ctx.akte_id
    if akte_id:
        akte = get_akte(user=ctx.user, akte_id=akte_id)  # NotFound: the executor's "nicht gefunden"
        if akte.auftragsdatum:
            return akte.auftragsdatum, f"Auftragsdatum der Akte {akte.aktenzeichen}"
        return heute, f"heute (die Akte {akte.aktenzeichen} nennt kein Auftragsdatum)"
    return heute, "heute (kein Auftragsdatum angegeben)"


_STANDARD_GEBUEHREN = [GebuehrParams(nr="3100"), GebuehrParams(nr="3104")]


def eur(betrag: Decimal) -> str:
    """German money format for texts people read: 1.078,44 EUR."""
    return f"{betrag:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".") + " EUR"


def _tatbestand(t: kosten.Gebuehrentatbestand) -> dict[str, Any]:
    out: dict[str, Any] = {"nr": t.nr, "bezeichnung": t.bezeichnung, "satz": str(t.satz), "art": t.art}
    if t.art == "rahmen":
        out["rahmen"] = f"{t.min_satz} bis {t.max_satz}"
    if t.art == "erhoehung":
        out["erhoehung"] = f"je weiterem Auftraggeber {t.schritt}, höchstens {t.max_satz}"
    return out


def _tabelle(t: Any, gesetz: str) -> dict[str, Any]:
    untergrenze = 500
    stufen = []
    for stufe in t.stufen:
        stufen.append(
            {
                "von": str(untergrenze),
                "bis": None if stufe.bis is None else str(stufe.bis),
                "je_angefangene": str(stufe.schritt),
                "zuwachs": str(stufe.zuwachs),
            }
        )
        untergrenze = stufe.bis
    return {
        "gesetz": gesetz,
        "bezeichnung": t.bezeichnung,
        "gueltig_ab": t.gueltig_ab.isoformat(),
        "gueltig_bis": t.gueltig_bis.isoformat() if t.gueltig_bis else None,
        "gebuehr_bis_500": str(t.grundbetrag),
        "stufen": stufen,
    }


def _regeln() -> dict[str, Any]:
    # The statute tables are module-private in akten.kosten; read, never changed, here.
    tabellen = [_tabelle(t, "RVG") for t in kosten.RVG_TABELLEN] + [
        _tabelle(t, "GKG") for t in kosten.GKG_TABELLEN
    ]
    return {
        "vv_rvg": [_tatbestand(t) for t in VV_RVG.values()],
        "auslagen_rvg": [
            {"nr": "7002", "bezeichnung": kosten.RVG_AUSLAGEN["7002"],
             "regel": f"{kosten.AUSLAGENPAUSCHALE_ANTEIL:.0%} der Gebühren, höchstens "
                      f"{eur(kosten.AUSLAGENPAUSCHALE_HOECHSTBETRAG)}"},
            {"nr": "7008", "bezeichnung": kosten.RVG_AUSLAGEN["7008"],
             "regel": f"{kosten.UST_SATZ:.0%} auf Gebühren und Auslagen"},
        ],
        "kv_gkg": [_tatbestand(t) for t in KV_GKG.values()],
        "tabellen": tabellen,
        "regeln": [
            "Die 1,0-Gebühr ergibt sich aus der Wertgebührentabelle (§ 13 RVG, § 34 GKG); jeder "
            "angefangene Schritt zählt voll.",
            "Maßgeblich ist die Tabelle am Tag des Auftrags (§ 60 RVG) bzw. der Anhängigkeit (§ 71 GKG): "
            "bis 31.05.2025 die Tabelle 2021, ab 01.06.2025 die Tabelle 2025.",
            f"Mindestbetrag einer Gebühr: {eur(kosten.MINDESTBETRAG)} (§ 13 Abs. 2 RVG, § 34 Abs. 2 GKG).",
            f"Höchster Gegenstandswert: {eur(kosten.HOECHSTWERT)} (§ 22 Abs. 2 RVG, § 39 Abs. 2 GKG).",
            "Gerichtskosten sind umsatzsteuerfrei.",
        ],
        "hinweis": "Mit gegenstandswert (und optional gebuehren) berechnet dieses Werkzeug die Gebühren.",
    }


def _posten(gebuehren: list[GebuehrParams]) -> list[dict[str, str]]:
    return [{"nr": g.nr.strip(), **({"satz": g.satz} if g.satz not in (None, "") else {})} for g in gebuehren]


def _auftragsdatum_from_akte(params: GetKostenRulesParams, ctx: ToolContext) -> bool:
    """Whether _auftragsdatum() reads an Akte (fees computed, no Auftragsdatum given)."""
    computes = bool((params.gegenstandswert or "").strip())
    return computes and not (params.auftragsdatum or "").strip() and bool(params.akte_id or ctx.akte_id)


def _get_kosten_rules(params: GetKostenRulesParams, ctx: ToolContext) -> ToolResult:
    quellen = [{"corpus": "gesetze", "citation": "§ 13 RVG"}, {"corpus": "gesetze", "citation": "§ 34 GKG"}]
    if params.gegenstandswert is None or not params.gegenstandswert.strip():
        return ToolResult(
            ok=True, data=_regeln(), summary="Gebührenregeln RVG/GKG abgerufen", sources=quellen
        )
    heute = timezone.localdate(ctx.now())
    try:
        auftrag, auftrag_quelle = _auftragsdatum(params, ctx, heute)
        stichtag = parse_datum(params.anhaengigkeit) if params.anhaengigkeit else heute
    except FristError as exc:
        return ToolResult(ok=False, error=str(exc), error_code="invalid_arguments",
                          summary="Ungültiges Datum")
    hinweise = [
        f"RVG-Tabelle nach dem Auftragsdatum {auftrag:%d.%m.%Y} ({auftrag_quelle}) gewählt (§ 60 RVG: vor "
        "dem 01.06.2025 die Tabelle 2021, ab dann die Tabelle 2025).",
        f"GKG-Tabelle nach dem Tag der Anhängigkeit {stichtag:%d.%m.%Y}"
        + ("" if params.anhaengigkeit else " (heute angenommen)") + " gewählt (§ 71 GKG).",
    ]
    gebuehren = params.gebuehren or _STANDARD_GEBUEHREN
    if not params.gebuehren:
        hinweise.append(
            "Keine Gebühren angegeben: Verfahrensgebühr (3100) und Terminsgebühr (3104) angesetzt."
        )
    rvg_posten = [p for p in _posten(gebuehren) if p["nr"] not in KV_GKG]
    gkg_posten = [p for p in _posten(gebuehren) if p["nr"] in KV_GKG]
    data: dict[str, Any] = {"auftragsdatum": auftrag.isoformat(), "stichtag": stichtag.isoformat(),
                            "rvg": None, "gkg": None, "hinweise": hinweise}
    teile: list[str] = []
    try:
        if rvg_posten:
            rvg = berechne_rvg(
                gegenstandswert=params.gegenstandswert.strip(), gebuehren=rvg_posten, auftragsdatum=auftrag
            )
            data["gegenstandswert"] = f"{rvg.gegenstandswert:.2f}"
            data["rvg"] = rvg.as_dict()
            teile.append(f"Anwaltsgebühren {eur(rvg.gesamt)}")
        gkg = berechne_gkg(
            gegenstandswert=params.gegenstandswert.strip(), gebuehren=gkg_posten or None, stichtag=stichtag
        )
    except KostenError as exc:
        return ToolResult(
            ok=False, error=str(exc), error_code="invalid_arguments", summary="Kosten nicht berechenbar"
        )
    data.setdefault("gegenstandswert", f"{gkg.gegenstandswert:.2f}")
    data["gkg"] = gkg.as_dict()
    teile.append(f"Gerichtsgebühr {eur(gkg.gesamt)}")
    return ToolResult(ok=True, data=data, summary=", ".join(teile), sources=quellen)


get_kosten_rules = Tool(
    name="get_kosten_rules",
    description=(
        "Lawyer (RVG) and court (GKG) fees. Without gegenstandswert: the rules - VV RVG / KV GKG numbers "
        "with their rates and the fee tables 2021/2025. With gegenstandswert: the computed fees (default "
        "3100 + 3104 with Auslagenpauschale and 19 % USt) and the court fee (KV 1210 unless other KV GKG "
        "numbers are given). The RVG table is chosen by the Auftragsdatum (given, else the Akte's, else "
        "today), the GKG table by the Anhängigkeit (default today). ALWAYS use this instead of computing "
        "fees yourself."
    ),
    kind="read",
    params=GetKostenRulesParams,
    handler=_on_the_loop_unless(_auftragsdatum_from_akte, _get_kosten_rules),
    label="Berechne Kosten",
)
