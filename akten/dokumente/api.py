"""JSON API of the Dokumente (thin): upload into an Akte, metadata and text, the file itself."""

from __future__ import annotations

import io
from datetime import datetime
from typing import Literal

from django.db.models import Prefetch
from django.http import FileResponse, HttpRequest, HttpResponse
from ninja import File, Form, Query, Router, Schema, Status
from ninja.files import UploadedFile

from akten import selectors
from akten.dokumente import services
from akten.dokumente.ausgabe import render
from akten.dokumente.seiten import seiten_von
from akten.lesezugriffe.services import Bereich, Weg, lesen
from akten.models import Dokument, User
from config.errors import errors
from config.schemas import file_response

router = Router(tags=["Dokumente"])

_FILE_RESPONSE = file_response(
    "Die Datei (Original, DOCX oder PDF) als Download",
    "application/pdf", "application/octet-stream", "message/rfc822", "text/plain", "image/png", "image/jpeg",
    "image/tiff", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")


class ExtraktionOut(Schema):
    status: str
    text: str
    fortschritt: int
    hinweis: str
    ocr_seiten: int


class DokumentOut(Schema):
    id: str
    akte_id: str
    titel: str
    status: str
    erstellt_durch: str
    dateiname: str | None
    dateityp: str | None
    mime: str | None
    groesse: int | None
    seiten: int | None
    zeichen: int
    extraktion: ExtraktionOut | None
    quelle_id: str | None
    anhaenge: list[str]
    angelegt_am: datetime


class SeiteOut(Schema):
    nummer: int | None
    text: str


class DokumentDetailOut(DokumentOut):
    text: str
    seiten_text: list[SeiteOut]


def dokument_out(dokument: Dokument) -> dict:
    extraktion = None
    if dokument.hochgeladen:
        extraktion = {
            "status": dokument.extraktion, "text": dokument.get_extraktion_display(),
            "fortschritt": dokument.extraktion_fortschritt, "hinweis": dokument.extraktion_hinweis,
            "ocr_seiten": dokument.ocr_seiten,
        }
    return {
        "id": str(dokument.pk), "akte_id": str(dokument.akte_id), "titel": dokument.titel,
        "status": dokument.status, "erstellt_durch": dokument.erstellt_durch,
        "dateiname": dokument.dateiname or None, "dateityp": dokument.dateityp or None,
        "mime": dokument.mime or None, "groesse": dokument.groesse, "seiten": dokument.seiten,
        "zeichen": len(dokument.inhalt) - dokument.inhalt.count("\f"),
        "extraktion": extraktion, "quelle_id": str(dokument.quelle_id) if dokument.quelle_id else None,
        "anhaenge": [str(a.pk) for a in sorted(dokument.anhaenge.all(), key=lambda a: a.pk)],
        "angelegt_am": dokument.angelegt_am,
    }


@router.post("/akten/{akte_id}/dokumente", response={201: DokumentOut, **errors(403, 404)},
             summary="Dokument hochladen (PDF, DOCX, E-Mail, Text, Bild)")
def upload(request: HttpRequest, akte_id: int, datei: File[UploadedFile],
           titel: Form[str | None] = None) -> Status:
    dokument = services.upload_dokument(user=request.auth, akte_id=akte_id, datei=datei,
                                        name=datei.name or "", groesse=datei.size or 0, titel=titel or "")
    dokument.refresh_from_db()  # the extraction may have run already (HELENA_DOKUMENT_EXTRAKTION=inline)
    return Status(201, dokument_out(dokument))


@router.get("/akten/{akte_id}/dokumente", response={200: list[DokumentOut], **errors(404)},
            summary="Dokumente einer Akte")
def dokumente_list(request: HttpRequest, akte_id: int) -> list[dict]:
    akte = selectors.get_akte(user=request.auth, akte_id=akte_id)
    lesen(user=request.auth, akte=akte, weg=Weg.API, bereich=Bereich.DOKUMENTE)
    anhaenge = Prefetch("anhaenge", queryset=Dokument.objects.only("pk", "quelle_id"))
    dokumente = selectors.dokumente_for(user=request.auth, akte_id=akte.pk).prefetch_related(anhaenge)
    return [dokument_out(d) for d in dokumente[:500]]


@router.get("/dokumente/{dokument_id}", response={200: DokumentDetailOut, **errors(404)},
            summary="Dokument mit Text (Seite für Seite)")
def dokument_detail(request: HttpRequest, dokument_id: int) -> dict:
    dokument = selectors.get_dokument(user=request.auth, dokument_id=dokument_id)
    lesen(user=request.auth, akte=dokument.akte, weg=Weg.API, bereich=Bereich.DOKUMENT, dokument=dokument)
    seiten = seiten_von(inhalt=dokument.inhalt, dateityp=dokument.dateityp)
    return {**dokument_out(dokument), "text": dokument.inhalt.replace("\f", "\n\n"),
            "seiten_text": [{"nummer": s.nummer, "text": s.text} for s in seiten]}


class DateiQuery(Schema):
    format: Literal["original", "docx", "pdf"] = "original"


@router.get("/dokumente/{dokument_id}/datei", response={200: None, **errors(404)},
            summary="Datei: das Original oder das Dokument als DOCX/PDF auf dem Briefkopf",
            openapi_extra=_FILE_RESPONSE)
def dokument_datei(request: HttpRequest, dokument_id: int, query: Query[DateiQuery]) -> HttpResponse:
    dokument = selectors.get_dokument(user=request.auth, dokument_id=dokument_id)
    return datei_response(dokument, query.format, user=request.auth)


def datei_response(dokument: Dokument, format: str, *, user: User) -> HttpResponse:
    """The download: the stored original, or the Dokument rendered (the page views use it too). A file
    that leaves Helena is logged as an export (whether page or API asked), once it could be made."""
    antwort = _datei(dokument, format)
    lesen(user=user, akte=dokument.akte, weg=Weg.EXPORT, bereich=Bereich.DOKUMENT, dokument=dokument,
          format=format)
    return antwort


def _datei(dokument: Dokument, format: str) -> HttpResponse:
    if format == "original":
        original = services.original(dokument)
        return FileResponse(original.datei, as_attachment=True, filename=original.name,
                            content_type=original.mime)
    datei = render(dokument=dokument, format=format)
    return FileResponse(io.BytesIO(datei.inhalt), as_attachment=True, filename=datei.name,
                        content_type=datei.mime)
