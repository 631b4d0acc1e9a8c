"""The write API (thin): POST/PATCH of Akten and POST of their parties, Fristen, Notizen and times
through akten/erfassung (roles, scoping, validation, Kollisionsprüfung, history), each POST
idempotent with an `Idempotency-Key`; GET /aenderungen for the systems that follow.

The operations join akten.api's router: django-ninja serves one path from one router, and
/akten and /akten/{id} are read there."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from ninja import Field, Header, Query, Schema, Status

from akten.api import router
from akten.erfassung.akten import akte_aendern, akte_anlegen
from akten.erfassung.beteiligte import beteiligter_anlegen
from akten.erfassung.fristen import frist_anlegen
from akten.erfassung.notizen import notiz_anlegen
from akten.erfassung.rechte import pruefe
from akten.erfassung.zeiten import zeit_erfassen
from akten.fristenbuch.selectors import person
from akten.integration.aenderungen import aenderungen_seit
from akten.integration.idempotenz import einmalig
from akten.integration.schemas import (
    AenderungOut,
    AkteAenderungIn,
    AkteIn,
    BeteiligterIn,
    FristIn,
    NotizIn,
    NotizOut,
    ZeitIn,
    ZeitOut,
    json_antwort,
    notiz_out,
    zeit_out,
)
from akten.lesezugriffe.services import Bereich, Weg, lesen
from akten.models import Akte, Beteiligter, Frist, Notiz, Zeiterfassung
from akten.schemas import AkteOut, BeteiligterOut, FristOut, akte_out, beteiligter_out, frist_out
from akten.selectors import get_akte, notizen_for, zeiterfassung_for
from config.errors import NotFound, errors, invalid

TAGS = ["Kanzlei: Schreiben"]

IDEMPOTENCY = Header(None, alias="Idempotency-Key", max_length=255,
                     description="derselbe Schlüssel mit demselben Inhalt: die erste Antwort noch einmal, "
                                 "nichts Neues")


def _personen(user: Any, daten: dict[str, Any], *felder: str) -> dict[str, Any]:
    for feld in felder:
        if feld in daten:
            daten[feld] = person(user=user, wert=daten[feld], feld=feld)
    return daten


def _stammdaten(user: Any, daten: dict[str, Any]) -> dict[str, Any]:
    if daten.get("gegenstandswert") is not None:
        daten["gegenstandswert"] = Decimal(daten["gegenstandswert"].strip().replace(",", "."))
    return _personen(user, daten, "anwalt", "sachbearbeiter")


def _noch_erlaubt(request: HttpRequest, art: str, modell: type[Model],
                  akte_id: str | None = None) -> Callable[[dict], None]:
    """A kept answer again only as the caller's rights are now: the Akte still visible, the role still
    allowed, the record still there."""
    def pruefen(antwort: dict) -> None:
        if akte_id is not None:
            get_akte(user=request.auth, akte_id=akte_id)
        pruefe(request.auth, art)
        if art == "akte":
            get_akte(user=request.auth, akte_id=antwort["id"])
        elif not modell._default_manager.filter(pk=antwort["id"]).exists():
            raise NotFound("Den mit diesem Idempotency-Key angelegten Eintrag gibt es nicht mehr.")
    return pruefen


def _antwort(request: HttpRequest, response: HttpResponse, schluessel: str | None, erzeugen: Any,
             noch_erlaubt: Callable[[dict], None]) -> Status:
    status, antwort, wiederholt = einmalig(request, schluessel=schluessel, erzeugen=erzeugen,
                                           noch_erlaubt=noch_erlaubt)
    if wiederholt:
        response["Idempotent-Replayed"] = "true"
    return Status(status, antwort)


def _versionen(if_match: str | None, version: str | None) -> set[str] | None:
    """What the Akte's version must be: each strong tag of If-Match (RFC 9110: „*“ any, a weak tag
    none) and the body's `version`; None when neither asks."""
    erwartet: set[str] | None = None
    if if_match is not None and if_match.strip() != "*":
        erwartet = {tag[1:-1] for tag in (t.strip() for t in if_match.split(","))
                    if len(tag) >= 2 and tag.startswith('"') and tag.endswith('"')}
    if version is not None:
        erwartet = {version} if erwartet is None else erwartet & {version}
    return erwartet


@router.post("/akten", tags=TAGS, response={201: AkteOut, **errors(403, 409, 422)}, summary="Akte anlegen")
def akte_neu(request: HttpRequest, response: HttpResponse, payload: AkteIn,
             idempotency_key: str | None = IDEMPOTENCY) -> Status:
    def erzeugen() -> tuple[int, dict]:
        daten = _stammdaten(request.auth, payload.model_dump(exclude_none=True))
        akte = akte_anlegen(user=request.auth, daten=daten, grund="über die API angelegt")
        return 201, json_antwort(AkteOut, akte_out(akte))
    antwort = _antwort(request, response, idempotency_key, erzeugen, _noch_erlaubt(request, "akte", Akte))
    response["ETag"] = f'"{antwort.value["version"]}"'
    return antwort


@router.patch("/akten/{akte_id}", tags=TAGS, response={200: AkteOut, **errors(403, 404, 409, 422)},
              summary="Akte ändern (nur die gesendeten Felder; If-Match oder `version` gegen Überschreiben)")
def akte_patch(request: HttpRequest, response: HttpResponse, akte_id: str, payload: AkteAenderungIn,
               if_match: str | None = Header(None, alias="If-Match", max_length=100)) -> dict:
    aenderungen = payload.model_dump(exclude_unset=True)
    version = _versionen(if_match, aenderungen.pop("version", None))
    for pflicht in ("kurzrubrum", "aktenzeichen", "rechtsgebiet", "status"):
        if pflicht in aenderungen and aenderungen[pflicht] is None:
            raise invalid(f"„{pflicht}“ kann nicht leer sein.", field=pflicht)
    for text in ("wegen", "bundesland", "extern_id"):
        if text in aenderungen and aenderungen[text] is None:
            aenderungen[text] = ""
    if aenderungen.get("tags", []) is None:
        aenderungen["tags"] = []
    akte = akte_aendern(user=request.auth, akte_id=akte_id, version=version, grund="über die API geändert",
                        aenderungen=_stammdaten(request.auth, aenderungen))
    response["ETag"] = f'"{akte.version}"'
    return akte_out(akte)


@router.post("/akten/{akte_id}/beteiligte", tags=TAGS,
             response={201: BeteiligterOut, **errors(403, 404, 409, 422)},
             summary="Beteiligte/n erfassen (mit Kollisionsprüfung: 409 `kollision` mit den Treffern)")
def beteiligter_neu(request: HttpRequest, response: HttpResponse, akte_id: str, payload: BeteiligterIn,
                    idempotency_key: str | None = IDEMPOTENCY) -> Status:
    def erzeugen() -> tuple[int, dict]:
        daten = payload.model_dump(exclude={"kollision_bestaetigt", "kollision_begruendung"})
        beteiligter = beteiligter_anlegen(user=request.auth, akte_id=akte_id, daten=daten, anlass="api",
                                          grund="über die API angelegt",
                                          kollision_bestaetigt=payload.kollision_bestaetigt,
                                          kollision_begruendung=payload.kollision_begruendung)
        return 201, json_antwort(BeteiligterOut, beteiligter_out(beteiligter))
    return _antwort(request, response, idempotency_key, erzeugen,
                    _noch_erlaubt(request, "beteiligter", Beteiligter, akte_id))


@router.post("/akten/{akte_id}/fristen", tags=TAGS, response={201: FristOut, **errors(403, 404, 409, 422)},
             summary="Frist, Termin oder Wiedervorlage anlegen")
def frist_neu(request: HttpRequest, response: HttpResponse, akte_id: str, payload: FristIn,
              idempotency_key: str | None = IDEMPOTENCY) -> Status:
    def erzeugen() -> tuple[int, dict]:
        daten = _personen(request.auth, payload.model_dump(exclude_none=True), "verantwortlich")
        frist = frist_anlegen(user=request.auth, akte_id=akte_id, daten=daten, grund="über die API angelegt")
        return 201, json_antwort(FristOut, frist_out(frist))
    return _antwort(request, response, idempotency_key, erzeugen,
                    _noch_erlaubt(request, "frist", Frist, akte_id))


@router.post("/akten/{akte_id}/notizen", tags=TAGS, response={201: NotizOut, **errors(403, 404, 409, 422)},
             summary="Notiz schreiben")
def notiz_neu(request: HttpRequest, response: HttpResponse, akte_id: str, payload: NotizIn,
              idempotency_key: str | None = IDEMPOTENCY) -> Status:
    def erzeugen() -> tuple[int, dict]:
        notiz = notiz_anlegen(user=request.auth, akte_id=akte_id, titel=payload.titel, inhalt=payload.inhalt,
                              extern_id=payload.extern_id, grund="über die API angelegt")
        return 201, json_antwort(NotizOut, notiz_out(notiz))
    return _antwort(request, response, idempotency_key, erzeugen,
                    _noch_erlaubt(request, "notiz", Notiz, akte_id))


@router.post("/akten/{akte_id}/zeiten", tags=TAGS, response={201: ZeitOut, **errors(403, 404, 409, 422)},
             summary="Zeit erfassen")
def zeit_neu(request: HttpRequest, response: HttpResponse, akte_id: str, payload: ZeitIn,
             idempotency_key: str | None = IDEMPOTENCY) -> Status:
    def erzeugen() -> tuple[int, dict]:
        zeit = zeit_erfassen(user=request.auth, akte_id=akte_id, daten=payload.model_dump(exclude_none=True),
                             grund="über die API angelegt")
        return 201, json_antwort(ZeitOut, zeit_out(zeit))
    return _antwort(request, response, idempotency_key, erzeugen,
                    _noch_erlaubt(request, "zeiterfassung", Zeiterfassung, akte_id))


@router.get("/akten/{akte_id}/notizen", tags=TAGS, response={200: list[NotizOut], **errors(404)},
            summary="Notizen einer Akte, neueste zuerst")
def notizen_list(request: HttpRequest, akte_id: str) -> list[dict]:
    akte = get_akte(user=request.auth, akte_id=akte_id)
    lesen(user=request.auth, akte=akte, weg=Weg.API, bereich=Bereich.NOTIZEN)
    return [notiz_out(n) for n in notizen_for(user=request.auth, akte_id=akte.pk)
            .select_related("verfasst_von")[:2000]]


@router.get("/akten/{akte_id}/zeiten", tags=TAGS, response={200: list[ZeitOut], **errors(404)},
            summary="Zeiterfassung einer Akte, neueste zuerst")
def zeiten_list(request: HttpRequest, akte_id: str) -> list[dict]:
    akte = get_akte(user=request.auth, akte_id=akte_id)
    lesen(user=request.auth, akte=akte, weg=Weg.API, bereich=Bereich.ZEITEN)
    return [zeit_out(z) for z in zeiterfassung_for(user=request.auth, akte_id=akte.pk)[:5000]]


class AenderungenFilter(Schema):
    seit: str = Field(..., max_length=40, json_schema_extra={"format": "date-time"},
                      description="ISO 8601, z. B. 2026-11-28T09:00:00+01:00 (ohne Zeitzone: deutsche Zeit; "
                                  "ein Tag allein: dessen Beginn); ausschließlich")
    limit: int = Field(500, ge=1, le=2000)


def _zeitpunkt(text: str) -> datetime:
    """ISO 8601 only: a number („0.5“) is no moment a client means. An offset's „+“ that came through
    a URL unencoded arrives as a space („…09:00:00 01:00“): read as the „+“ it was."""
    text = re.sub(r"(T[\d:.]+) (\d{2}:?\d{2})$", r"\1+\2", text.strip())
    try:
        seit = datetime.fromisoformat(text)
    except ValueError:
        raise invalid(f"„seit“ ist kein Zeitpunkt nach ISO 8601 (z. B. 2026-11-28T09:00:00+01:00): "
                      f"„{text[:40]}“.", field="seit") from None
    if timezone.is_naive(seit):
        seit = timezone.make_aware(seit)
    try:  # in UTC: PostgreSQL takes no offset beyond ±16 hours, ISO 8601 allows ±24
        return seit.astimezone(UTC)
    except OverflowError:  # a moment before the year 1 or after 9999 in UTC
        return datetime.min.replace(tzinfo=UTC) if seit.year < 5000 else datetime.max.replace(tzinfo=UTC)


@router.get("/aenderungen", tags=TAGS, response={200: list[AenderungOut], **errors(422)},
            summary="Was sich seit einem Zeitpunkt geändert hat (in Akten, die ich sehen darf)")
def aenderungen(request: HttpRequest, response: HttpResponse,
                filters: Query[AenderungenFilter]) -> list[dict]:
    seit = _zeitpunkt(filters.seit)
    zeilen, mehr = aenderungen_seit(user=request.auth, seit=seit, limit=filters.limit)
    response["X-Weitere"] = "true" if mehr else "false"
    return [{**zeile, "wann": zeile["wann"].isoformat()} for zeile in zeilen]

