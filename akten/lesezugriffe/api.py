"""GET /akten/{id}/zugriffe (thin): the Akte's read log for its Anwalt and ADMIN, paged like the other
lists (limit/offset, header X-Total-Count). Joins akten.api's router: operations under /akten/… live
there (django-ninja serves one path from one router)."""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Schema

from akten.api import router
from akten.lesezugriffe.selectors import Filter, lesezugriffe, protokoll_akte
from akten.models import Lesezugriff
from config.errors import DATUM_PATTERN, errors


class LesezugriffFilter(Schema):
    person: str | None = Field(None, max_length=150,
                               description="nur diese Person: Benutzername, Benutzer-ID oder „ich“")
    von: str | None = Field(None, pattern=DATUM_PATTERN, description="ab diesem Tag (JJJJ-MM-TT)")
    bis: str | None = Field(None, pattern=DATUM_PATTERN, description="bis einschließlich diesem Tag")
    weg: Lesezugriff.Weg | None = Field(None, description="seite, api, helena oder export")
    limit: int = Field(100, ge=1, le=500)
    offset: int = Field(0, ge=0, le=10**9)


class LesezugriffOut(Schema):
    id: str
    zeitpunkt: datetime
    person: str
    benutzer: str | None = Field(description="Benutzername; null, wenn der Benutzer gelöscht ist")
    weg: str
    weg_text: str
    bereich: str
    bereich_text: str
    objekt_id: str | None
    dokument_id: str | None
    dokument_titel: str
    format: str
    run_id: str | None


def lesezugriff_out(z: Lesezugriff) -> dict:
    return {
        "id": str(z.pk), "zeitpunkt": z.zeitpunkt, "person": z.person,
        "benutzer": z.user.username if z.user_id else None,
        "weg": z.weg, "weg_text": z.get_weg_display(),
        "bereich": z.bereich, "bereich_text": z.get_bereich_display(),
        "objekt_id": None if z.objekt_id is None else str(z.objekt_id),
        "dokument_id": None if z.dokument_id is None else str(z.dokument_id),
        "dokument_titel": z.dokument_titel, "format": z.format,
        "run_id": None if z.run_id is None else str(z.run_id),
    }


@router.get("/akten/{akte_id}/zugriffe", response={200: list[LesezugriffOut], **errors(403, 404)},
            summary="Wer die Akte gelesen hat (nur Anwalt/Anwältin der Akte und Administration)")
def zugriffe_list(request: HttpRequest, response: HttpResponse, akte_id: str,
                  filters: Query[LesezugriffFilter]) -> list[dict]:
    akte = protokoll_akte(user=request.auth, akte_id=akte_id)  # 404, 403 before any filter is read
    auswahl = Filter.aus(user=request.auth, person_wert=filters.person, von=filters.von, bis=filters.bis,
                         weg=filters.weg)
    qs = lesezugriffe(user=request.auth, akte=akte, filter=auswahl).select_related("user")
    response["X-Total-Count"] = str(qs.count())
    return [lesezugriff_out(z) for z in qs[filters.offset:filters.offset + filters.limit]]
