"""JSON API for Akten, Fristen and the legal calculators (thin: selectors and pure functions)."""

from __future__ import annotations

import math
from datetime import date
from decimal import Decimal
from typing import Any, Literal

from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema
from pydantic import ConfigDict

from akten import fristen, kosten, selectors, services
from akten.erfassung import fristen as frist_dienst
from akten.erfassung.fristen import VERMERK_MAX
from akten.fristenbuch.selectors import fristen_im_buch, tag_aus
from akten.lesezugriffe.services import Bereich, Weg, lesen
from akten.models import User
from akten.schemas import (
    AkteDetailOut,
    AkteOut,
    AlertOut,
    FristOut,
    MeOut,
    akte_out,
    alert_out,
    beteiligter_out,
    frist_out,
)
from config.errors import BETRAG_PATTERN, DATUM_PATTERN, NOT_BLANK, errors, invalid

router = Router(tags=["Kanzlei"])


@router.get("/me", response=MeOut, summary="Angemeldeter Benutzer")
def me(request: HttpRequest) -> dict:
    user: User = request.auth
    return {"username": user.username, "role": user.role, "name": user.get_full_name() or user.username}


class AktenFilter(Schema):
    q: str | None = None
    status: Literal["offen", "ruhend", "archiviert", "geschlossen"] | None = None
    limit: int = Field(100, ge=1, le=500)
    offset: int = Field(0, ge=0, le=10**9)
    extern_id: str | None = Field(None, max_length=100, description="nur die Akte mit dieser externen ID")


@router.get("/akten", response=list[AkteOut], summary="Akten, die ich sehen darf")
def akten_list(request: HttpRequest, response: HttpResponse, filters: Query[AktenFilter]) -> list[dict]:
    if not 1 <= filters.limit <= 500 or filters.offset < 0:
        raise invalid("limit muss zwischen 1 und 500 liegen, offset darf nicht negativ sein.")
    qs = selectors.akten_for(user=request.auth, query=filters.q, status=filters.status)
    if filters.extern_id is not None:
        qs = qs.filter(extern_id=filters.extern_id.strip())
    response["X-Total-Count"] = str(qs.count())
    return [akte_out(a) for a in qs[filters.offset : filters.offset + filters.limit]]


@router.get("/akten/{akte_id}", response={200: AkteDetailOut, **errors(404)},
             summary="Eine Akte mit Beteiligten und Fristen")
def akte_detail(request: HttpRequest, response: HttpResponse, akte_id: str) -> dict:
    akte = selectors.get_akte(user=request.auth, akte_id=akte_id)
    lesen(user=request.auth, akte=akte, weg=Weg.API)
    response["ETag"] = f'"{akte.version}"'
    fristen = selectors.fristen_for(user=request.auth, akte_id=akte.pk, status="active")
    minutes = akte.zeiterfassungen.aggregate(s=Sum("dauer_minuten"))["s"] or 0
    return {
        **akte_out(akte),
        "summary": akte.summary,
        "beteiligte": [beteiligter_out(b) for b in akte.beteiligte.all()],
        "fristen": [frist_out(f) for f in fristen],
        "dokumente": [
            {"id": str(d.pk), "titel": d.titel, "status": d.status, "erstellt_durch": d.erstellt_durch,
             "angelegt_am": d.angelegt_am}
            for d in akte.dokumente.all()
        ],
        "zeit_minuten_gesamt": minutes,
    }


class FristenFilter(Schema):
    status: Literal["active", "past", "all"] | None = Field(
        None, description="active: offen (Vorgabe ohne `erledigt`), past: erledigt oder vorbei, all: alle")
    akte_id: str | None = None
    von: str | None = Field(None, pattern=DATUM_PATTERN, description="ab diesem Tag (JJJJ-MM-TT)")
    bis: str | None = Field(None, pattern=DATUM_PATTERN, description="bis einschließlich diesem Tag")
    verantwortlich: str | None = Field(None, max_length=150,
                                       description="Benutzername, Benutzer-ID oder „me“/„ich“ (du selbst)")
    typ: Literal["frist", "termin", "wiedervorlage"] | None = None
    erledigt: bool | None = Field(None, description="nur erledigte (true) oder offene (false)")


@router.get("/fristen", response={200: list[FristOut], **errors(404)},
            summary="Fristen, Termine und Wiedervorlagen meiner Akten (Fristenbuch)")
def fristen_list(request: HttpRequest, filters: Query[FristenFilter]) -> list[dict]:
    auswahl = filters.model_dump()
    auswahl.update(von=tag_aus(filters.von, "von"), bis=tag_aus(filters.bis, "bis"))
    qs = fristen_im_buch(user=request.auth, **auswahl)
    zeilen = [frist_out(f) for f in qs[:2000]]
    if filters.akte_id is not None:  # one Akte's Fristen are a read of it; the whole Fristenbuch is a list
        lesen(user=request.auth, akte=selectors.get_akte(user=request.auth, akte_id=filters.akte_id),
              weg=Weg.API, bereich=Bereich.FRISTEN)
    return zeilen


class FristVermerkIn(Schema):
    vermerk: str = Field(..., min_length=1, max_length=VERMERK_MAX, pattern=NOT_BLANK,
                         description="was getan wurde, z. B. „Berufung per beA eingelegt am 12.03.2026“")


class FristGrundIn(Schema):
    grund: str = Field(..., min_length=1, max_length=VERMERK_MAX, pattern=NOT_BLANK,
                       description="warum die Frist wieder offen ist")


FRIST_AKTION = {200: FristOut, **errors(403, 404, 409, 422)}


@router.post("/akten/{akte_id}/fristen/{frist_id}/erledigt", response=FRIST_AKTION,
             summary="Frist mit Vermerk erledigen (Notfrist: wartet ggf. auf eine zweite Person)")
def frist_erledigt(request: HttpRequest, akte_id: str, frist_id: str, payload: FristVermerkIn) -> dict:
    return frist_out(frist_dienst.frist_erledigen(user=request.auth, akte_id=akte_id, frist_id=frist_id,
                                                  vermerk=payload.vermerk))


@router.post("/akten/{akte_id}/fristen/{frist_id}/bestaetigen", response=FRIST_AKTION,
             summary="Erledigung einer Notfrist bestätigen (Vier-Augen-Prinzip, zweite Person)")
def frist_bestaetigen(request: HttpRequest, akte_id: str, frist_id: str) -> dict:
    return frist_out(frist_dienst.frist_bestaetigen(user=request.auth, akte_id=akte_id, frist_id=frist_id))


@router.post("/akten/{akte_id}/fristen/{frist_id}/wieder-oeffnen", response=FRIST_AKTION,
             summary="Erledigte Frist mit Grund wieder öffnen")
def frist_wieder_oeffnen(request: HttpRequest, akte_id: str, frist_id: str, payload: FristGrundIn) -> dict:
    return frist_out(frist_dienst.frist_wieder_oeffnen(user=request.auth, akte_id=akte_id, frist_id=frist_id,
                                                       grund=payload.grund))


# --- Hinweise ----------------------------------------------------------------------------


class AlertFilter(Schema):
    gelesen: bool | None = Field(None, description="nur gelesene (true) oder ungelesene (false)")
    akte_id: str | None = Field(None, description="nur Hinweise zu dieser Akte")


@router.get("/alerts", response={200: list[AlertOut], **errors(404)}, summary="Meine Hinweise")
def alerts_list(request: HttpRequest, filters: Query[AlertFilter]) -> list[dict]:
    qs = selectors.alerts_for(user=request.auth)
    if filters.gelesen is not None:
        qs = qs.filter(gelesen=filters.gelesen)
    if filters.akte_id is not None:
        qs = qs.filter(akte=selectors.get_akte(user=request.auth, akte_id=filters.akte_id))
    return [alert_out(a) for a in qs[:500]]


@router.post("/alerts/{alert_id}/gelesen", response={200: AlertOut, **errors(404)},
             summary="Hinweis als gelesen markieren")
def alert_gelesen(request: HttpRequest, alert_id: str) -> dict:
    return alert_out(services.mark_alert_read(user=request.auth, alert_id=alert_id))


# --- legal calculators -------------------------------------------------------------------


def _exact(value: Any) -> Any:
    """JSON numbers arrive as floats; repr() recovers the digits the client wrote, exactly."""
    if isinstance(value, float) and math.isfinite(value):
        return Decimal(repr(value))
    if isinstance(value, list):
        return [_exact(v) for v in value]
    if isinstance(value, dict):
        return {k: _exact(v) for k, v in value.items()}
    return value


# What akten.fristen.parse_dauer accepts, for the document (it checks and explains in German itself).
DAUER_SCHEMA = {
    "type": "object", "minProperties": 1, "additionalProperties": False,
    "properties": {unit: {"type": "integer", "minimum": 0} for unit in ("tage", "wochen", "monate", "jahre")},
}


class FristBerechnenIn(Schema):
    """Either `dauer` or `preset` (anyOf in the document); the calendar checks (a 31 February, a
    Frist beyond the year 9999) are 422 with a German reason."""

    model_config = ConfigDict(
        json_schema_extra={"anyOf": [{"required": ["dauer"], "properties": {"dauer": {"type": "object"}}},
                                     {"required": ["preset"], "properties": {"preset": {"type": "string"}}}]})

    start: str = Field(..., pattern=DATUM_PATTERN, description="Ereignistag bzw. Fristbeginn, JJJJ-MM-TT")
    dauer: dict[str, Any] | None = Field(None, description='z. B. {"monate": 1} oder {"wochen": 2}',
                                         json_schema_extra=DAUER_SCHEMA)
    preset: Literal[tuple(fristen.PRESETS)] | None = Field(  # type: ignore[valid-type]
        None, description="statt dauer: " + ", ".join(fristen.PRESETS))
    bundesland: str | None = Field(None, description="BW, BY, BE, … TH (Feiertage des Gerichtsorts)")
    fristbeginn: Literal["ereignis", "tagesbeginn"] = "ereignis"
    vorfrist_tage: int | None = Field(None, ge=0, le=366, description="Vorfrist so viele Tage vor Fristende")


class VerschiebungOut(Schema):
    datum: date
    grund: str


class FristartOut(Schema):
    key: str
    bezeichnung: str
    dauer_text: str
    norm: str
    notfrist: bool
    hinweis: str


class FristBerechnenOut(Schema):
    start: date
    dauer_text: str
    preset: FristartOut | None = None
    ende: date
    begruendung: str
    verschoben: list[VerschiebungOut]
    unverschobenes_ende: date
    hinweise: list[str]
    notfrist: bool
    vorfrist: dict[str, Any] | None
    bundesland: str | None


@router.post("/fristen/berechnen", response=FristBerechnenOut, summary="Frist berechnen (§§ 187 ff. BGB)")
def frist_berechnen(request: HttpRequest, payload: FristBerechnenIn) -> dict:
    result = fristen.berechne(
        start=payload.start, dauer=payload.dauer, preset=payload.preset, bundesland=payload.bundesland,
        fristbeginn=payload.fristbeginn, vorfrist_tage=payload.vorfrist_tage,
    )
    return result.as_dict()


# What akten.kosten.parse_betrag / parse_satz accept, for the document: a positive amount with at
# most two decimals, as text ("5000.50", "5000,50") or a JSON number; which rate a number permits is
# the calculator's check (422 with the statute's range).
BETRAG_SCHEMA = {"anyOf": [{"type": "string", "pattern": BETRAG_PATTERN},
                           {"type": "integer", "minimum": 1}, {"type": "number", "exclusiveMinimum": 0}]}
SATZ_SCHEMA = {"anyOf": [{"type": "string", "pattern": BETRAG_PATTERN},
                         {"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]}
GEBUEHR_NUMMERN = sorted({*kosten.VV_RVG, *kosten.KV_GKG})


def _nummer_schema(schema: dict[str, Any]) -> None:
    """A fee number as text or integer, one of those the calculator knows."""
    schema.pop("anyOf", None)
    schema["enum"] = [*GEBUEHR_NUMMERN, *(int(nr) for nr in GEBUEHR_NUMMERN if nr.isdigit())]


class GebuehrIn(Schema):
    nr: str | int = Field(..., json_schema_extra=_nummer_schema, description="Nummer aus VV RVG oder KV GKG")
    satz: Any = Field(None, json_schema_extra=SATZ_SCHEMA)


class RvgIn(Schema):
    gegenstandswert: Any = Field(..., description='Dezimalzahl, am besten als Text: "5000.00"',
                                 json_schema_extra=BETRAG_SCHEMA)
    gebuehren: list[GebuehrIn] = Field(..., description='z. B. [{"nr": "3100"}, {"nr": "3104"}]')
    auftragsdatum: str | None = Field(None, pattern=DATUM_PATTERN,
                                      description="wählt die Tabelle (2021 oder 2025)")
    auslagenpauschale: bool = True
    ust: bool = True


class PositionOut(Schema):
    nr: str
    bezeichnung: str
    satz: str
    betrag: str


class RvgOut(Schema):
    tabelle: str
    gebuehr_1_0: str
    positionen: list[PositionOut]
    auslagenpauschale: str
    netto: str
    ust: str
    gesamt: str
    hinweise: list[str]


def _gebuehren(items: list[GebuehrIn]) -> list[dict[str, Any]]:
    return [{"nr": str(g.nr)} | ({} if g.satz is None else {"satz": _exact(g.satz)}) for g in items]


@router.post("/kosten/rvg", response=RvgOut, summary="Rechtsanwaltsvergütung nach RVG")
def kosten_rvg(request: HttpRequest, payload: RvgIn) -> dict:
    result = kosten.berechne_rvg(
        gegenstandswert=_exact(payload.gegenstandswert),
        gebuehren=_gebuehren(payload.gebuehren),
        auftragsdatum=fristen.parse_datum(payload.auftragsdatum) if payload.auftragsdatum else None,
        auslagenpauschale=payload.auslagenpauschale,
        ust=payload.ust,
    )
    return result.as_dict()


class GkgIn(Schema):
    gegenstandswert: Any = Field(..., description='Streitwert, am besten als Text: "5000.00"',
                                 json_schema_extra=BETRAG_SCHEMA)
    gebuehren: list[GebuehrIn] | None = Field(None, description='Vorgabe: [{"nr": "1210"}] (3,0)')
    stichtag: str | None = Field(None, pattern=DATUM_PATTERN,
                                 description="Eingang des Verfahrens; wählt die Tabelle")


class GkgOut(Schema):
    tabelle: str
    gebuehr_1_0: str
    positionen: list[PositionOut]
    gesamt: str
    hinweise: list[str]


@router.post("/kosten/gkg", response=GkgOut, summary="Gerichtskosten nach GKG")
def kosten_gkg(request: HttpRequest, payload: GkgIn) -> dict:
    result = kosten.berechne_gkg(
        gegenstandswert=_exact(payload.gegenstandswert),
        gebuehren=None if payload.gebuehren is None else _gebuehren(payload.gebuehren),
        stichtag=fristen.parse_datum(payload.stichtag) if payload.stichtag else None,
    )
    return result.as_dict()
