"""JSON API of the DSGVO requests (thin): the Auskunft of a Beteiligter as JSON or PDF, Löschung
vormerken and the mark taken back. The same services and rules as the pages (ANWALT, ADMIN; a
Beteiligter of an Akte one may not see is a 404)."""

from __future__ import annotations

from datetime import date
from typing import Literal, cast

from django.http import HttpRequest, HttpResponse, JsonResponse
from ninja import Field, Query, Router, Schema, Status

from akten.datenschutz.auskunft import auskunft, pruefblatt
from akten.datenschutz.loeschung import frueheste_loeschung, loeschung_vormerken, loeschvormerkung_aufheben
from akten.datenschutz.pdf import auskunft_pdf
from akten.datenschutz.person import akte_des_beteiligten
from akten.fristenbuch.selectors import tag_aus
from config.errors import DATUM_PATTERN, errors
from config.schemas import file_response

router = Router(tags=["Datenschutz"])

_AUSKUNFT = file_response("Die Auskunft nach Art. 15 DSGVO als JSON-Datei oder als PDF auf dem Briefkopf",
                          "application/json", "application/pdf")


class AuskunftQuery(Schema):
    format: Literal["json", "pdf", "pruefblatt"] = Field(
        "json", description="json: die Auskunft für die Person, maschinenlesbar; pdf: dieselbe zum "
                            "Versand auf dem Briefkopf; pruefblatt: das interne Prüfblatt der Kanzlei dazu "
                            "(JSON, nicht zum Versand: vollständig oder nicht, was vor dem Versand zu prüfen "
                            "ist, Namensvettern)")


@router.get("/beteiligte/{beteiligter_id}/auskunft", response={200: None, **errors(403, 404)},
            summary="Auskunft nach Art. 15 DSGVO über die Person eines Beteiligten", openapi_extra=_AUSKUNFT)
def auskunft_erteilen(request: HttpRequest, beteiligter_id: int, query: Query[AuskunftQuery]) -> HttpResponse:
    akte_id = akte_des_beteiligten(user=request.auth, beteiligter_id=beteiligter_id)
    if query.format == "pruefblatt":
        blatt = pruefblatt(user=request.auth, akte_id=akte_id, beteiligter_id=beteiligter_id)
        antwort = JsonResponse(blatt, json_dumps_params={"ensure_ascii": False})
        antwort["Cache-Control"] = "no-store"
        return antwort
    daten = auskunft(user=request.auth, akte_id=akte_id, beteiligter_id=beteiligter_id)
    if query.format == "pdf":
        antwort = HttpResponse(auskunft_pdf(daten), content_type="application/pdf")
        antwort["Content-Disposition"] = 'attachment; filename="Auskunft-Art15.pdf"'
    else:
        antwort = JsonResponse(daten, json_dumps_params={"ensure_ascii": False})
    antwort["Cache-Control"] = "no-store"
    return antwort


class LoeschungIn(Schema):
    antrag_am: str = Field(..., pattern=DATUM_PATTERN,
                           description="Tag des Antrags (JJJJ-MM-TT), nicht in der Zukunft")
    begruendung: str = Field("", max_length=5000, description="wie der Antrag kam, was entschieden ist")
    weitere_beteiligte: list[int] = Field(
        [], max_length=200,
        description="Ids weiterer Einträge derselben Person (nur solche, die die Auskunft als dieselbe "
                    "Person führt), die mit vorgemerkt werden; sie werden allein "
                    "gelöscht, nie ihre ganze Akte")


class VormerkungOut(Schema):
    beteiligter_id: str
    akte_id: str
    aktenzeichen: str
    antrag_am: date
    loeschung_ab: date | None = Field(..., description="frühester Löschtag nach § 50 Abs. 1 BRAO; null, "
                                                       "solange die Akte nicht abgeschlossen ist")


@router.post("/beteiligte/{beteiligter_id}/loeschung",
             response={201: list[VormerkungOut], **errors(403, 404)},
             summary="Löschung vormerken (Art. 17 DSGVO; gelöscht wird nach Ablauf von § 50 BRAO)")
def loeschung_beantragen(request: HttpRequest, beteiligter_id: int, daten: LoeschungIn) -> Status:
    akte_id = akte_des_beteiligten(user=request.auth, beteiligter_id=beteiligter_id)
    antrag_am = cast(date, tag_aus(daten.antrag_am, "antrag_am"))  # required: a day or a German 422
    vormerkungen = loeschung_vormerken(user=request.auth, akte_id=akte_id, beteiligter_id=beteiligter_id,
                                       antrag_am=antrag_am,
                                       begruendung=daten.begruendung, weitere=daten.weitere_beteiligte)
    return Status(201, [{"beteiligter_id": str(v.beteiligter_id), "akte_id": str(v.beteiligter.akte_id),
                  "aktenzeichen": v.beteiligter.akte.aktenzeichen, "antrag_am": v.antrag_am,
                  "loeschung_ab": frueheste_loeschung(v.beteiligter.akte)} for v in vormerkungen])


class AufhebenQuery(Schema):
    grund: str = Field("", max_length=500, description="warum aufgehoben (im Verlauf; ohne Namen)")


@router.delete("/beteiligte/{beteiligter_id}/loeschung", response={204: None, **errors(403, 404)},
               summary="Löschvormerkung aufheben")
def loeschvormerkung_zuruecknehmen(request: HttpRequest, beteiligter_id: int,
                                   query: Query[AufhebenQuery]) -> Status:
    akte_id = akte_des_beteiligten(user=request.auth, beteiligter_id=beteiligter_id)
    loeschvormerkung_aufheben(user=request.auth, akte_id=akte_id, beteiligter_id=beteiligter_id,
                              grund=query.grund)
    return Status(204, None)
