"""The Akte page's document actions (thin): upload one or several files (a form, or one file per
request from the drop zone's script, answered as JSON), and the download of a Dokument as its
original, DOCX or PDF — always through the permission check, never from the media folder."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from akten.dokumente.api import datei_response, dokument_out
from akten.dokumente.services import check_may_file, upload_dokument
from akten.selectors import get_dokument
from config.errors import DomainError

FORMATS = ("original", "docx", "pdf")


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@login_required
@require_POST
def hochladen(request: HttpRequest, akte_id: int) -> HttpResponse:
    """Each file on its own: one refused file does not stop the others, and each is told."""
    dateien = request.FILES.getlist("datei")
    try:
        check_may_file(user=request.user, akte_id=akte_id)  # NotFound → 404 page, Forbidden → 403
        if not dateien:
            raise DomainError("Bitte wähle mindestens eine Datei aus.", code="keine_datei")
    except DomainError as exc:
        if _wants_json(request):
            return JsonResponse({"detail": exc.message, "code": exc.code}, status=exc.status)
        raise
    titel = request.POST.get("titel", "") if len(dateien) == 1 else ""
    ergebnisse = []
    for datei in dateien:
        try:
            dokument = upload_dokument(user=request.user, akte_id=akte_id, datei=datei, name=datei.name or "",
                                       groesse=datei.size or 0, titel=titel)
        except DomainError as exc:
            ergebnisse.append((False, exc.message, exc))
            continue
        ergebnisse.append((True, f"„{dokument.titel}“ hochgeladen.", dokument))
    if _wants_json(request):
        ok, meldung, obj = ergebnisse[0]
        if not ok:
            return JsonResponse({"detail": meldung, "code": obj.code}, status=obj.status)
        obj.refresh_from_db()
        return JsonResponse({"meldung": meldung, "dokument": dokument_out(obj)}, status=201)
    for ok, meldung, _ in ergebnisse:
        (messages.success if ok else messages.error)(request, meldung)
    return redirect(reverse("akten:detail", args=[akte_id]) + "#h-dokumente")


@login_required
@require_GET
def datei(request: HttpRequest, dokument_id: int) -> HttpResponse:
    format = request.GET.get("format", "original")
    if format not in FORMATS:
        raise DomainError("Unbekanntes Format: möglich sind original, docx und pdf.", code="format")
    return datei_response(get_dokument(user=request.user, dokument_id=dokument_id), format, user=request.user)
