"""JSON API for drafts: list, one draft, approve (optionally with edited fields), reject.

Thin: drafts.selectors for reads, drafts.services for decisions. A draft the user may not see is
404; one they see but may not decide is 403; a second decision is 409; refused fields are 422.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema
from ninja.errors import HttpError

from akten.lesezugriffe.services import Weg
from akten.models import User
from akten.schemas import PersonOut, person_out
from akten.selectors import get_akte
from config.errors import errors, invalid
from drafts import selectors, services
from drafts.models import Draft, DraftEvent

router = Router(tags=["Entwürfe"])

DraftKind = Literal["dokument", "frist", "notiz", "alert", "akte_update", "zeiterfassung"]
DraftStatus = Literal["pending", "approved", "rejected"]


class RecordOut(Schema):
    type: str
    id: str
    url: str | None = None


class DraftEventOut(Schema):
    action: str
    user: PersonOut | None
    at: datetime
    details: dict[str, Any]


class DraftOut(Schema):
    id: str
    kind: DraftKind
    kind_label: str
    status: DraftStatus
    title: str
    akte_id: str | None
    aktenzeichen: str | None
    fields: dict[str, Any]
    warnings: list[str]
    berechnung: dict[str, Any] | None
    requested_by: PersonOut
    run_id: str | None
    conversation_id: str | None
    created_at: datetime
    decided_by: PersonOut | None
    decided_at: datetime | None
    record: RecordOut | None
    rejection_reason: str
    feedback: str
    may_decide: bool


HISTORY_SHOWN = 50  # newest decisions in a draft's detail; the rest via /drafts/{id}/history


class DraftDetailOut(DraftOut):
    history: list[DraftEventOut]  # the first event (created) and the newest ones, oldest first
    history_total: int  # all events; more than shown when refused decisions piled up


class HistoryFilter(Schema):
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0, le=10**9)


class HistoryPage(Schema):
    total: int
    items: list[DraftEventOut]


class DraftFilter(Schema):
    status: DraftStatus | None = None
    akte_id: str | None = None
    kind: DraftKind | None = None
    limit: int = Field(100, ge=1, le=500)
    offset: int = Field(0, ge=0, le=10**9)


class RejectIn(Schema):
    reason: str | None = None
    feedback: str | None = None


def draft_out(draft: Draft, user: User, *, history: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(draft.pk),
        "kind": draft.kind,
        "kind_label": draft.get_kind_display(),
        "status": draft.status,
        "title": draft.title,
        "akte_id": str(draft.akte_id) if draft.akte_id else None,
        "aktenzeichen": draft.akte.aktenzeichen if draft.akte_id else None,
        "fields": draft.fields,
        "warnings": draft.warnings or [],
        "berechnung": (draft.context or {}).get("berechnung"),
        "requested_by": person_out(draft.requested_by),
        "run_id": str(draft.run_id) if draft.run_id else None,
        "conversation_id": str(draft.conversation_id) if draft.conversation_id else None,
        "created_at": draft.created_at,
        "decided_by": person_out(draft.decided_by),
        "decided_at": draft.decided_at,
        "record": {"type": draft.record_type, "id": draft.record_id, "url": draft.record_url()}
        if draft.record_id else None,
        "rejection_reason": draft.rejection_reason,
        "feedback": draft.feedback,
        "may_decide": draft.is_pending and selectors.may_decide(user=user, draft=draft),
    }
    if history:
        events = DraftEvent.objects.filter(draft=draft).select_related("user")
        total = events.count()
        shown = list(events[:1]) + list(reversed(events.order_by("-at", "-pk")[:HISTORY_SHOWN - 1]))
        data["history"] = [_event_out(e) for e in dict.fromkeys(shown)]
        data["history_total"] = total
    return data


def _event_out(event: DraftEvent) -> dict[str, Any]:
    return {"action": event.action, "user": person_out(event.user), "at": event.at, "details": event.details}


def _json_body(request: HttpRequest) -> dict[str, Any] | None:
    """The optional JSON body. A form (the text check has read it, a multipart stream cannot be read
    twice) is no JSON: empty it means "nothing", with fields it is refused."""
    if request.content_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
        if request.POST or request.FILES:
            raise HttpError(400, "Die Anfrage ist kein gültiges JSON.")
        return None
    if not request.body or not request.body.strip():
        return None
    try:
        body = json.loads(request.body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise HttpError(400, "Die Anfrage ist kein gültiges JSON.") from None
    if body is None:
        return None
    if not isinstance(body, dict):
        raise invalid("Der Inhalt muss ein JSON-Objekt sein.")
    return body


@router.get("/drafts", response={200: list[DraftOut], **errors(404)}, summary="Entwürfe, die ich sehen darf")
def drafts_list(request: HttpRequest, response: HttpResponse, filters: Query[DraftFilter]) -> list[dict]:
    if not 1 <= filters.limit <= 500 or filters.offset < 0:
        raise invalid("limit muss zwischen 1 und 500 liegen, offset darf nicht negativ sein.")
    if filters.akte_id not in (None, ""):
        get_akte(user=request.auth, akte_id=filters.akte_id)  # a foreign Akte is 404, like everywhere
    qs = selectors.drafts_for(user=request.auth, status=filters.status, akte_id=filters.akte_id,
                              kind=filters.kind)
    response["X-Total-Count"] = str(qs.count())
    return [draft_out(d, request.auth) for d in qs[filters.offset : filters.offset + filters.limit]]


@router.get("/drafts/{draft_id}", response={200: DraftDetailOut, **errors(404)},
             summary="Ein Entwurf mit Verlauf")
def draft_detail(request: HttpRequest, draft_id: str) -> dict:
    draft = selectors.get_draft(user=request.auth, draft_id=draft_id)
    services.gelesen(user=request.auth, drafts=[draft], weg=Weg.API)
    return draft_out(draft, request.auth, history=True)


@router.get("/drafts/{draft_id}/history", response={200: HistoryPage, **errors(404)},
             summary="Verlauf eines Entwurfs, seitenweise")
def draft_history(request: HttpRequest, draft_id: str, page: Query[HistoryFilter]) -> dict:
    """Every decision and refused attempt, oldest first: the audit is kept whole, read in pages."""
    draft = selectors.get_draft(user=request.auth, draft_id=draft_id)
    events = DraftEvent.objects.filter(draft=draft).select_related("user")
    return {"total": events.count(),
            "items": [_event_out(e) for e in events[page.offset:page.offset + page.limit]]}


@router.post(
    "/drafts/{draft_id}/approve",
    response={200: DraftDetailOut, **errors(403, 404, 409)},
    summary="Entwurf freigeben (legt den Datensatz an)",
    description=(
        "Optionaler Body: geänderte Felder, entweder als {\"fields\": {...}} oder direkt als Objekt "
        "(z. B. {\"datum\": \"2026-12-01\"}). 200 beim ersten Entscheid, 409 wenn bereits entschieden."
    ),
    openapi_extra={"requestBody": {"required": False, "content": {"application/json": {
        "schema": {"type": "object", "additionalProperties": True}}}}},
)
def draft_approve(request: HttpRequest, draft_id: str) -> dict:
    body = _json_body(request)
    edited = body.get("fields", body) if body is not None and set(body) == {"fields"} else body
    draft = services.approve_draft(user=request.auth, draft=draft_id, edited_fields=edited)
    return draft_out(draft, request.auth, history=True)


@router.post("/drafts/{draft_id}/reject", response={200: DraftDetailOut, **errors(403, 404, 409)},
             summary="Entwurf ablehnen",
             openapi_extra={"requestBody": {"required": False, "content": {"application/json": {
                 "schema": {"$ref": "#/components/schemas/RejectIn"}}}}})
def draft_reject(request: HttpRequest, draft_id: str, payload: RejectIn | None = None) -> dict:
    payload = payload or RejectIn()
    draft = services.reject_draft(user=request.auth, draft=draft_id, reason=payload.reason or "",
                                  feedback=payload.feedback or "")
    return draft_out(draft, request.auth, history=True)
