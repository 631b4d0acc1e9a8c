"""JSON API for conversations and runs (thin: services and selectors do the work)."""

from __future__ import annotations

import io
from datetime import datetime
from typing import Any, Literal

from django.http import FileResponse, HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema, Status

from akten.fristen.eingabe import parse_datum
from akten.lesezugriffe.services import Bereich, Weg, lesen
from akten.selectors import get_akte
from config.errors import DATUM_PATTERN, NOT_BLANK, errors, invalid
from config.schemas import IdIn, file_response
from drafts.api import DraftDetailOut, draft_out
from helena.conversations import records, selectors, services
from helena.conversations.export import export
from helena.models import AgentRun
from helena.proactive import auftraege
from helena.proactive.activity import aktivitaet, aktivitaet_fuer
from helena.proactive.memory import memory_for

router = Router(tags=["Helena"])


class ConversationIn(Schema):
    akte_id: IdIn | None = None
    context_type: Literal["global", "akte", "fristen", "recherche", "entwurf"] | None = None


class IdOut(Schema):
    id: str


class MessageOut(Schema):
    id: str
    role: str
    text: str
    run_id: str | None
    created_at: datetime


class ConversationOut(Schema):
    id: str
    akte_id: str | None
    context_type: str
    title: str
    archiviert: bool
    angeheftet: bool
    messages: list[MessageOut]
    active_runs: list[str]


class ConversationFilter(Schema):
    q: str = Field("", max_length=200, description="Suche in Titeln und Nachrichten (deutsche Volltextsuche)")
    akte_id: IdIn | None = None
    archiviert: Literal["false", "true", "alle"] = Field(
        "false", description="false (Vorgabe): nicht archivierte; true: archivierte; alle: beide")
    von: str | None = Field(None, pattern=DATUM_PATTERN, description="letzte Aktivität ab diesem Tag")
    bis: str | None = Field(None, pattern=DATUM_PATTERN, description="letzte Aktivität bis zu diesem Tag")
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0)


class ConversationListOut(Schema):
    id: str
    titel: str
    erste_frage: str
    akte_id: str | None
    aktenzeichen: str | None
    context_type: str
    archiviert: bool
    angeheftet: bool
    letzte_aktivitaet: datetime
    zustand: Literal["", "laeuft", "fehlgeschlagen", "wartet_auf_antwort"]
    offene_entwuerfe: int


class ConversationPatch(Schema):
    titel: str | None = Field(None, max_length=records.MAX_TITLE_CHARS)
    archiviert: bool | None = None
    angeheftet: bool | None = None


class DeletedOut(Schema):
    ergebnis: Literal["geloescht", "archiviert"]
    message: str


class VermerkIn(Schema):
    run_id: str | None = Field(None, max_length=40, description="nur diese Antwort; sonst das ganze Gespräch")


class ExportQuery(Schema):
    format: Literal["md", "pdf"] = "md"


class MessageIn(Schema):
    text: str = Field(..., max_length=services.MAX_MESSAGE_CHARS,
                      description="Leerraum am Anfang und Ende wird entfernt; eine leere Nachricht "
                                  "beantwortet Helena mit einer Rückfrage.")
    mode: Literal["auto", "inline", "background"] = "auto"


class RunIdOut(Schema):
    run_id: str


class UsageOut(Schema):
    prompt_tokens: int
    completion_tokens: int


class RunOut(Schema):
    id: str
    conversation_id: str
    parent_id: str | None
    status: str
    mode: str
    tier: int
    model: str
    provider: str
    finish_reason: str
    text: str
    usage: UsageOut
    cost: str
    created_at: datetime
    ended_at: datetime | None


def _run_out(run: AgentRun) -> dict:
    return {
        "id": str(run.pk),
        "conversation_id": str(run.conversation_id),
        "parent_id": str(run.parent_id) if run.parent_id else None,
        "status": run.status,
        "mode": run.mode,
        "tier": run.tier,
        "model": run.model,
        "provider": run.provider,
        "finish_reason": run.finish_reason,
        "text": run.text,
        "usage": {"prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens},
        "cost": f"{run.cost:.6f}",
        "created_at": run.created_at,
        "ended_at": run.ended_at,
    }


def _list_out(c: Any) -> dict[str, Any]:
    return {"id": str(c.pk), "titel": c.title, "erste_frage": (c.first_question or "")[:300],
            "akte_id": str(c.akte_id) if c.akte_id else None,
            "aktenzeichen": c.akte.aktenzeichen if c.akte_id else None, "context_type": c.context_type,
            "archiviert": c.archiviert, "angeheftet": c.angeheftet, "letzte_aktivitaet": c.updated_at,
            "zustand": selectors.zustand(c), "offene_entwuerfe": c.offene_entwuerfe or 0}


@router.get("/helena/conversations", response={200: list[ConversationListOut], **errors(404)},
            summary="Meine Gespräche (Suche, Akte, Archiv)")
def list_conversations(request: HttpRequest, response: HttpResponse,
                       filters: Query[ConversationFilter]) -> list[dict[str, Any]]:
    akte_id = None
    if filters.akte_id not in (None, ""):
        akte_id = get_akte(user=request.auth, akte_id=filters.akte_id).pk  # a foreign Akte is 404
    von, bis = (parse_datum(d) if d else None for d in (filters.von, filters.bis))
    if von and bis and von > bis:
        raise invalid("„von“ liegt nach „bis“.")
    found = selectors.conversation_list(user=request.auth, q=filters.q, akte_id=akte_id,
                                        archiviert=_ARCHIVIERT[filters.archiviert], von=von, bis=bis)
    response["X-Total-Count"] = str(found.count())
    return [_list_out(c) for c in found[filters.offset:filters.offset + filters.limit]]


_ARCHIVIERT = {"false": False, "true": True, "alle": None}


def _listed(*, user: Any, conversation_id: str) -> Any:
    return selectors.conversation_list(user=user, archiviert=None).get(
        pk=selectors.get_conversation(user=user, conversation_id=conversation_id).pk)


@router.patch("/helena/conversations/{conversation_id}", response={200: ConversationListOut, **errors(404)},
              summary="Gespräch umbenennen, archivieren, anheften")
def patch_conversation(request: HttpRequest, conversation_id: str, payload: ConversationPatch) -> dict:
    conversation = selectors.get_conversation(user=request.auth, conversation_id=conversation_id)
    records.aendern(conversation=conversation, titel=payload.titel, archiviert=payload.archiviert,
                       angeheftet=payload.angeheftet)
    return _list_out(_listed(user=request.auth, conversation_id=conversation_id))


@router.delete("/helena/conversations/{conversation_id}", response={200: DeletedOut, **errors(404, 409)},
               summary="Gespräch löschen (mit freigegebenen Entwürfen: archivieren)")
def delete_conversation(request: HttpRequest, conversation_id: str) -> dict:
    conversation = selectors.get_conversation(user=request.auth, conversation_id=conversation_id)
    ergebnis = records.loeschen(conversation=conversation)
    return {"ergebnis": ergebnis.art, "message": ergebnis.message}


@router.post("/helena/conversations/{conversation_id}/aktenvermerk",
             response={201: DraftDetailOut, **errors(403, 404)},
             summary="Gespräch (oder eine Antwort) als Aktenvermerk-Entwurf für die Akte",
             openapi_extra={"requestBody": {"required": False, "content": {"application/json": {
                 "schema": {"$ref": "#/components/schemas/VermerkIn"}}}}})
def aktenvermerk(request: HttpRequest, conversation_id: str, payload: VermerkIn | None = None) -> Status:
    conversation = selectors.get_conversation(user=request.auth, conversation_id=conversation_id)
    draft = records.aktenvermerk(user=request.auth, conversation=conversation,
                                    run_id=payload.run_id if payload else None)
    return Status(201, draft_out(draft, request.auth, history=True))


@router.get("/helena/conversations/{conversation_id}/export", response={200: None, **errors(404)},
            summary="Gespräch als Markdown oder PDF",
            openapi_extra=file_response("Das Gespräch als Datei", "text/markdown", "application/pdf"))
def export_conversation(request: HttpRequest, conversation_id: str,
                        query: Query[ExportQuery]) -> HttpResponse:
    conversation = selectors.get_conversation(user=request.auth, conversation_id=conversation_id)
    datei = export(user=request.auth, conversation=conversation, format=query.format)
    records.gelesen(user=request.auth, conversation=conversation, weg=Weg.EXPORT, format=query.format)
    return FileResponse(io.BytesIO(datei.inhalt), as_attachment=True, filename=datei.dateiname,
                        content_type=datei.content_type)


@router.post("/helena/conversations", response={201: IdOut, **errors(404)}, summary="Neue Unterhaltung")
def create_conversation(request: HttpRequest, payload: ConversationIn) -> Status:
    conversation = services.create_conversation(
        user=request.auth, akte_id=payload.akte_id, context_type=payload.context_type
    )
    return Status(201, {"id": str(conversation.pk)})


@router.get("/helena/conversations/{conversation_id}", response={200: ConversationOut, **errors(404)},
             summary="Nachrichten")
def get_conversation(request: HttpRequest, conversation_id: str) -> dict:
    conversation = selectors.get_conversation(user=request.auth, conversation_id=conversation_id)
    messages = list(conversation.messages.all())
    if messages:
        records.gelesen(user=request.auth, conversation=conversation, weg=Weg.API)
    return {
        "id": str(conversation.pk),
        "akte_id": str(conversation.akte_id) if conversation.akte_id else None,
        "context_type": conversation.context_type,
        "title": conversation.title,
        "archiviert": conversation.archiviert,
        "angeheftet": conversation.angeheftet,
        "messages": [
            {
                "id": str(m.pk),
                "role": m.role,
                "text": m.text,
                "run_id": str(m.run_id) if m.run_id else None,
                "created_at": m.created_at,
            }
            for m in messages
        ],
        "active_runs": [
            str(pk)
            for pk in conversation.runs.filter(
                status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING]
            ).values_list("pk", flat=True)
        ],
    }


@router.post(
    "/helena/conversations/{conversation_id}/messages",
    response={202: RunIdOut, **errors(404, 409, 429)},
    summary="Nachricht an Helena (startet einen Lauf)",
)
def post_message(request: HttpRequest, conversation_id: str, payload: MessageIn) -> Status:
    conversation = selectors.get_conversation(user=request.auth, conversation_id=conversation_id)
    run = services.start_run(user=request.auth, conversation=conversation, text=payload.text,
                             mode=payload.mode)
    return Status(202, {"run_id": str(run.pk)})


@router.get("/helena/runs/{run_id}", response={200: RunOut, **errors(404)}, summary="Status eines Laufs")
def get_run(request: HttpRequest, run_id: str) -> dict:
    return _run_out(selectors.get_run(user=request.auth, run_id=run_id))


class EventsFilter(Schema):
    after: int = Field(0, le=2**31 - 1)


@router.get("/helena/runs/{run_id}/events", response={200: list[dict], **errors(404)},
             summary="Ereignisse eines Laufs")
def get_events(request: HttpRequest, run_id: str, filters: Query[EventsFilter]) -> list[dict]:
    run = selectors.get_run(user=request.auth, run_id=run_id)
    return [e.as_dict() for e in selectors.events_of(run=run, after=max(filters.after, 0))]


@router.post("/helena/runs/{run_id}/cancel", response={200: RunOut, **errors(404, 409)},
             summary="Lauf abbrechen")
def cancel(request: HttpRequest, run_id: str) -> dict:
    run = selectors.get_run(user=request.auth, run_id=run_id)
    return _run_out(services.cancel_run(run=run))


@router.post(
    "/helena/runs/{run_id}/continue", response={202: RunIdOut, **errors(404, 409, 429)},
    summary="Im Hintergrund weitermachen",
)
def continue_run(request: HttpRequest, run_id: str) -> Status:
    run = selectors.get_run(user=request.auth, run_id=run_id)
    child = services.continue_in_background(user=request.auth, run=run)
    return Status(202, {"run_id": str(child.pk)})


class AktivitaetOut(Schema):
    zeit: datetime
    art: str
    text: str
    wer: str
    akte_id: str | None
    aktenzeichen: str


@router.get("/akten/{akte_id}/aktivitaet", response={200: list[AktivitaetOut], **errors(404)},
            summary="Was in der Akte geschah, das Neueste zuerst", tags=["Akten"])
def akte_aktivitaet(request: HttpRequest, akte_id: str) -> list[dict]:
    akte = get_akte(user=request.auth, akte_id=akte_id)
    lesen(user=request.auth, akte=akte, weg=Weg.API, bereich=Bereich.AKTIVITAET)
    return [e.as_dict() for e in aktivitaet(user=request.auth, akte_id=akte.pk)]


@router.get("/aktivitaet", response=list[AktivitaetOut],
            summary="Was in meinen Akten in den letzten 14 Tagen geschah, das Neueste zuerst", tags=["Akten"])
def meine_aktivitaet(request: HttpRequest) -> list[dict]:
    return [e.as_dict() for e in aktivitaet_fuer(user=request.auth)]


class TaskIn(Schema):
    auftrag: str = Field(..., max_length=services.MAX_MESSAGE_CHARS, pattern=NOT_BLANK,
                         description="was Helena tun soll")
    akte_id: IdIn | None = Field(None, description="die Akte, um die es geht (du musst sie sehen dürfen)")


class TaskStartedOut(Schema):
    id: str
    run_id: str


class TaskOut(Schema):
    id: str
    auftrag: str
    akte_id: str | None
    status: str
    run_id: str | None
    result: str
    created_at: datetime
    finished_at: datetime | None


@router.post("/helena/tasks", response={202: TaskStartedOut, **errors(404, 429)},
             summary="Auftrag an Helena (läuft im Hintergrund, endet mit einem Hinweis)")
def start_task(request: HttpRequest, payload: TaskIn) -> Status:
    task = auftraege.auftrag_geben(user=request.auth, auftrag=payload.auftrag, akte_id=payload.akte_id)
    return Status(202, {"id": str(task.pk), "run_id": str(task.run_id)})


@router.get("/helena/tasks", response=list[TaskOut], summary="Meine Aufträge an Helena")
def list_tasks(request: HttpRequest) -> list[dict]:
    return [{"id": str(t.pk), "auftrag": t.auftrag, "akte_id": str(t.akte_id) if t.akte_id else None,
             "status": t.status, "run_id": str(t.run_id) if t.run_id else None, "result": t.result,
             "created_at": t.angelegt_am, "finished_at": t.beendet_am}
            for t in selectors.tasks_for(user=request.auth)[:200]]


class GedaechtnisOut(Schema):
    zusammenfassung: str
    risiken: list[str]
    naechste_schritte: list[str]
    offene_fragen: list[str]
    stand: datetime | None
    run_id: str | None


@router.get("/akten/{akte_id}/memory", response={200: GedaechtnisOut, **errors(404)},
            summary="Was Helena über die Akte weiß (leer, bis sie es aufgeschrieben hat)", tags=["Akten"])
def akte_memory(request: HttpRequest, akte_id: str) -> dict:
    akte = get_akte(user=request.auth, akte_id=akte_id)
    lesen(user=request.auth, akte=akte, weg=Weg.API, bereich=Bereich.GEDAECHTNIS)
    memory = memory_for(user=request.auth, akte_id=akte.pk)
    if memory is None:
        return {"zusammenfassung": "", "risiken": [], "naechste_schritte": [], "offene_fragen": [],
                "stand": None, "run_id": None}
    return memory.as_dict()
