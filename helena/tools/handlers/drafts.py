"""Write tools: each proposes a Draft and nothing else (docs/protocol.md "Every write tool creates a Draft").

A human approves, edits or rejects the draft on its preview card; only drafts.services turns it
into a record. The observation tells the model that nothing was saved yet, and the card goes to
the chat as a `draft_created` event.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field, model_validator

from akten.fristen import format_datum
from akten.lesezugriffe.services import Lesung
from akten.models.dokument import EMPFAENGER_CHOICES
from akten.selectors import get_akte
from config.errors import NotFound
from drafts.cards import render_card  # templates need the app registry; imported late
from drafts.fields import FieldsInvalid
from drafts.fristen import frist_aus_berechnung, vorfrist_for
from drafts.models import Draft
from drafts.services import create_draft
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.knowledge.muster import draft_from_muster
from helena.tools.base import DauerParams
from helena.tools.handlers.akten import akte_not_found
from helena.tools.sources import quelle

_WAITS = (
    "Entwurf angelegt. Er wartet auf die Freigabe durch einen Menschen; in der Akte ist noch nichts "
    "gespeichert. Sag das dem Nutzer und verweise auf die Vorschaukarte."
)


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


def _invalid(message: str) -> ToolResult:
    return ToolResult(ok=False, error_code="invalid_arguments", summary="Ungültige Angaben",
                      error=f"{message} Bitte korrigiere die Angaben und rufe das Werkzeug erneut auf.")


def _propose(*, ctx: ToolContext, kind: str, tool: str, fields: dict[str, Any], akte_id: str | None,
             context: dict[str, Any] | None = None, summary: str) -> ToolResult:
    """Create the pending draft and the card event; failures become observations for the model."""
    try:
        draft = create_draft(user=ctx.user, kind=kind, fields=fields, akte_id=akte_id, run_id=ctx.run_id,
                             conversation_id=ctx.conversation_id, tool=tool, context=context,
                             call_id=ctx.call_id or "")
    except NotFound:
        return akte_not_found(str(akte_id))
    except FieldsInvalid as exc:
        return _invalid(exc.message)
    except PermissionDenied:
        raise  # the executor answers "forbidden"
    berechnung = (context or {}).get("berechnung")
    extra = {"berechnung": berechnung["begruendung"]} if berechnung else {}
    return _proposed(draft=draft, ctx=ctx, summary=summary, extra=extra)


def _proposed(*, draft: Draft, ctx: ToolContext, summary: str, extra: dict[str, Any] | None = None,
              hinweis: str = "", reads: list[Lesung] | None = None) -> ToolResult:
    """What the model and the chat learn of a new draft: its fields and warnings, and its card."""
    data: dict[str, Any] = {
        "draft_id": str(draft.pk),
        "status": "pending",
        "art": draft.get_kind_display(),
        "felder": draft.fields,
        "hinweis": " ".join(filter(None, (_WAITS, hinweis))),
    }
    if draft.warnings:
        data["warnungen"] = draft.warnings
    data.update(extra or {})
    html = render_card(draft=draft, user=ctx.user)
    return ToolResult(
        ok=True, data=data, summary=summary, sources=[quelle(draft)],
        events=[("draft_created", {"draft_id": str(draft.pk), "kind": draft.kind, "html": html})],
        reads=reads or [],
    )


# --------------------------------------------------------------------------- Dokument


class DokumentParams(_Params):
    akte_id: str = Field(description="die Akte, zu der das Dokument gehört")
    titel: str = Field(description="Titel des Dokuments, z. B. 'Klageerwiderung'")
    inhalt: str | None = Field(None, description="der vollständige Text in Markdown (ohne muster_id)")
    muster_id: str | None = Field(
        None, description="id eines Musters aus search_muster: sein Text wird mit der Akte ausgefüllt")
    werte: dict[str, str] | None = Field(
        None, description="mit muster_id: Werte für Platzhalter, die die Akte nicht kennt, "
                          "z. B. {\"KUENDIGUNG_DATUM\": \"03.11.2026\"}")
    empfaenger: Literal[tuple(wert for wert, _ in EMPFAENGER_CHOICES if wert)] | None = Field(  # type: ignore[valid-type]
        None, description="an wen das Dokument geht (eine Rolle der Beteiligten, z. B. 'mandant' für einen "
                          "Brief an die Mandantschaft, 'gericht' für einen Schriftsatz; 'niemand' für einen "
                          "Vermerk): Name und Anschrift setzt der Briefkopf der DOCX/PDF-Fassung, nicht der "
                          "Text. Mit muster_id: nur angeben, um den Empfänger des Musters zu ändern")

    @model_validator(mode="after")
    def _text_or_muster(self) -> DokumentParams:
        if not self.muster_id and not (self.inhalt or "").strip():
            raise ValueError("inhalt (der Text) oder muster_id (ein Muster aus search_muster) angeben")
        return self


def _create_draft_dokument(params: DokumentParams, ctx: ToolContext) -> ToolResult:
    if params.muster_id:
        return _from_muster(params, ctx)
    return _propose(ctx=ctx, kind="dokument", tool="create_draft_dokument", akte_id=params.akte_id,
                    fields={"titel": params.titel, "inhalt": params.inhalt or "",
                            "empfaenger": params.empfaenger or ""},
                    summary=f"Entwurf „{params.titel.strip()[:60]}“ zur Freigabe vorgelegt")


def _from_muster(params: DokumentParams, ctx: ToolContext) -> ToolResult:
    """The Muster filled with the Akte's values; the open placeholders are told, not guessed."""
    try:
        made = draft_from_muster(user=ctx.user, akte_id=params.akte_id, muster_id=params.muster_id or "",
                                 titel=params.titel, werte=params.werte, empfaenger=params.empfaenger,
                                 run_id=ctx.run_id, conversation_id=ctx.conversation_id,
                                 call_id=ctx.call_id or "")
    except NotFound as exc:
        if "Muster" not in exc.message:
            return akte_not_found(params.akte_id)
        return ToolResult(ok=False, error=exc.message, error_code="not_found",
                          summary="Muster nicht gefunden")
    except FieldsInvalid as exc:
        return _invalid(exc.message)
    extra: dict[str, Any] = {"ausgefuellt": made.gefuellt}
    hinweis = ""
    if made.offen:
        extra["offene_platzhalter"] = made.offen
        hinweis = ("Offene Platzhalter stehen noch im Text: frag den Nutzer nach den Werten und lege den "
                   "Entwurf mit werte neu an, statt etwas zu erfinden.")
    titel = made.draft.fields["titel"][:60]
    # the Muster filled with the Akte's Beteiligte and Stammdaten: the model reads them, a read of the Akte
    return _proposed(draft=made.draft, ctx=ctx, extra=extra, hinweis=hinweis,
                     summary=f"Entwurf aus Muster „{titel}“ zur Freigabe vorgelegt",
                     reads=[Lesung.von(made.draft.akte)] if made.draft.akte_id else None)


create_draft_dokument = Tool(
    name="create_draft_dokument",
    description=(
        "Propose a document (letter, Schriftsatz, memo) for an Akte. Creates a DRAFT that a human must "
        "approve; nothing is saved in the Akte until then. inhalt is the full text in Markdown; or give "
        "muster_id (from search_muster) and the template is filled with the Akte's data (Mandant, "
        "Gegner, Gericht, Aktenzeichen, Datum …), werte for placeholders the Akte does not know."
    ),
    kind="write",
    params=DokumentParams,
    handler=sync_to_async(_create_draft_dokument),
    label="Legt Dokumententwurf an",
)


# --------------------------------------------------------------------------- Frist


class FristParams(_Params):
    akte_id: str = Field(description="die Akte der Frist")
    bezeichnung: str = Field(description="z. B. 'Berufungsfrist' oder 'Termin zur mündlichen Verhandlung'")
    datum: str | None = Field(
        None, description="Fristende/Termin (JJJJ-MM-TT). Weglassen, wenn start und dauer angegeben sind."
    )
    typ: Literal["frist", "wiedervorlage", "termin"] = Field("frist")
    start: str | None = Field(
        None, description="auslösendes Ereignis (z. B. Zustellung, JJJJ-MM-TT); mit dauer oder preset"
    )
    dauer: DauerParams | None = Field(None, description="Fristlänge, z. B. {\"monate\": 1}")
    preset: str | None = Field(
        None, description="Standardfrist statt dauer, z. B. berufung, berufungsbegruendung, einspruch_vu"
    )
    notfrist: bool | None = Field(None, description="true, wenn es eine Notfrist ist")
    vorfrist_tage: int | None = Field(None, ge=0, le=366, description="Vorfrist so viele Tage vor dem Ende")
    uhrzeit: str | None = Field(None, description="bei Terminen, HH:MM")

    @model_validator(mode="after")
    def _date_or_computation(self) -> FristParams:
        if self.datum is None and self.start is None:
            raise ValueError("entweder datum oder start mit dauer/preset angeben")
        if self.start is not None and self.dauer is None and self.preset is None:
            raise ValueError("zu start gehört dauer oder preset")
        return self


def _create_draft_frist(params: FristParams, ctx: ToolContext) -> ToolResult:
    try:
        akte = get_akte(user=ctx.user, akte_id=params.akte_id)
    except NotFound:
        return akte_not_found(params.akte_id)
    fields: dict[str, Any] = {"bezeichnung": params.bezeichnung, "typ": params.typ}
    if params.uhrzeit:
        fields["uhrzeit"] = params.uhrzeit
    context: dict[str, Any] = {}
    if params.start is not None:
        # The model must not count days itself: the calculator decides the date.
        try:
            computed, berechnung = frist_aus_berechnung(
                akte=akte, start=params.start,
                dauer=params.dauer.model_dump() if params.dauer else None, preset=params.preset,
                vorfrist_tage=params.vorfrist_tage,
            )
        except FieldsInvalid as exc:
            return _invalid(exc.message)
        if params.datum and params.datum != computed["datum"]:
            berechnung["hinweise"].append(
                f"Das angegebene Datum {params.datum} wurde durch das berechnete Fristende ersetzt."
            )
        fields.update(computed)
        context["berechnung"] = berechnung
    else:
        fields["datum"] = params.datum
        if params.vorfrist_tage is not None or params.typ == "frist":
            vorfrist = vorfrist_for(datum=str(params.datum), akte=akte, tage=params.vorfrist_tage)
            if vorfrist is not None:
                fields["vorfrist"] = vorfrist
    if params.notfrist is not None:
        fields["ist_notfrist"] = params.notfrist
    if fields.get("ist_notfrist") and params.typ != "frist":
        fields["ist_notfrist"] = False
    result = _propose(ctx=ctx, kind="frist", tool="create_draft_frist", akte_id=params.akte_id,
                      fields=fields, context=context, summary="Frist zur Freigabe vorgelegt")
    if result.ok:
        datum = date.fromisoformat(result.data["felder"]["datum"])
        name = params.bezeichnung.strip()[:50]
        result.summary = f"{params.typ.capitalize()} „{name}“ ({format_datum(datum)}) zur Freigabe vorgelegt"
    return result


create_draft_frist = Tool(
    name="create_draft_frist",
    description=(
        "Propose a deadline, hearing or follow-up (Frist/Termin/Wiedervorlage) for an Akte. Creates a DRAFT "
        "a human must approve. Give either datum, or start (the triggering event, e.g. service date) with "
        "dauer or preset: then the firm's calculator computes the end date (§§ 187 ff. BGB, § 222 ZPO, "
        "holidays) – prefer that over computing a date yourself."
    ),
    kind="write",
    params=FristParams,
    handler=sync_to_async(_create_draft_frist),
    label="Legt Fristentwurf an",
)


# --------------------------------------------------------------------------- Notiz, Alert


class NotizParams(_Params):
    inhalt: str = Field(description="Text der Notiz")
    akte_id: str | None = Field(None, description="die Akte; ohne: eine persönliche Notiz")
    titel: str | None = Field(None)


def _create_notiz(params: NotizParams, ctx: ToolContext) -> ToolResult:
    fields = {"inhalt": params.inhalt, "titel": params.titel or ""}
    return _propose(ctx=ctx, kind="notiz", tool="create_notiz", akte_id=params.akte_id, fields=fields,
                    summary="Notiz zur Freigabe vorgelegt")


create_notiz = Tool(
    name="create_notiz",
    description="Propose a note (Notiz), for an Akte or personal. Creates a DRAFT a human must approve.",
    kind="write",
    params=NotizParams,
    handler=sync_to_async(_create_notiz),
    label="Legt Notizentwurf an",
)


class AlertParams(_Params):
    message: str = Field(description="die Meldung")
    severity: Literal["info", "warning", "critical"] = Field(description="info, warning oder critical")
    akte_id: str | None = Field(None)


def _create_alert(params: AlertParams, ctx: ToolContext) -> ToolResult:
    return _propose(ctx=ctx, kind="alert", tool="create_alert", akte_id=params.akte_id,
                    fields={"message": params.message, "severity": params.severity},
                    summary="Hinweis zur Freigabe vorgelegt")


create_alert = Tool(
    name="create_alert",
    description=(
        "Propose an alert (Hinweis) for the team of an Akte, or for the user without akte_id. Creates a "
        "DRAFT a human must approve."
    ),
    kind="write",
    params=AlertParams,
    handler=sync_to_async(_create_alert),
    label="Legt Hinweisentwurf an",
)


# --------------------------------------------------------------------------- Akte update


class AkteUpdateParams(_Params):
    akte_id: str
    summary: str | None = Field(None, description="neue Kurzfassung der Akte (Markdown)")
    status: str | None = Field(None, description="offen, ruhend, archiviert oder geschlossen")
    tags: list[str] | None = Field(None, description="die vollständige neue Liste der Schlagworte")
    rechtsgebiet: str | None = Field(None, description="z. B. arbeitsrecht, mietrecht, verkehrsrecht")


def _update_akte_rag(params: AkteUpdateParams, ctx: ToolContext) -> ToolResult:
    try:
        akte = get_akte(user=ctx.user, akte_id=params.akte_id)
    except NotFound:
        return akte_not_found(params.akte_id)
    fields = {k: v for k, v in params.model_dump(exclude={"akte_id"}).items() if v is not None}
    vorher = {"summary": akte.summary, "status": akte.status, "tags": list(akte.tags),
              "rechtsgebiet": akte.rechtsgebiet}
    return _propose(ctx=ctx, kind="akte_update", tool="update_akte_rag", akte_id=params.akte_id,
                    fields=fields, context={"vorher": {k: vorher[k] for k in fields}},
                    summary=f"Änderung der Akte {akte.aktenzeichen} zur Freigabe vorgelegt")


update_akte_rag = Tool(
    name="update_akte_rag",
    description=(
        "Propose changes to an Akte's summary, status, tags or Rechtsgebiet (what Helena knows about the "
        "case). Creates a DRAFT a human must approve; give only the fields to change."
    ),
    kind="write",
    params=AkteUpdateParams,
    handler=sync_to_async(_update_akte_rag),
    label="Schlägt Aktenänderung vor",
)


# --------------------------------------------------------------------------- Zeiterfassung


class ZeiterfassungParams(_Params):
    akte_id: str
    dauer_minuten: int = Field(description="Dauer in Minuten (1–1440)")
    taetigkeit: str = Field(description="was getan wurde, z. B. 'Entwurf Klageerwiderung'")
    datum: str | None = Field(None, description="JJJJ-MM-TT; ohne: heute")


def _create_draft_zeiterfassung(params: ZeiterfassungParams, ctx: ToolContext) -> ToolResult:
    fields = {"dauer_minuten": params.dauer_minuten, "taetigkeit": params.taetigkeit,
              "datum": params.datum or timezone.localdate(ctx.now()).isoformat()}
    stunden, minuten = divmod(max(params.dauer_minuten, 0), 60)
    return _propose(ctx=ctx, kind="zeiterfassung", tool="create_draft_zeiterfassung", akte_id=params.akte_id,
                    fields=fields, summary=f"Zeiteintrag ({stunden}:{minuten:02d} h) zur Freigabe vorgelegt")


create_draft_zeiterfassung = Tool(
    name="create_draft_zeiterfassung",
    description=(
        "Propose a time entry (Zeiterfassung) for the user's work on an Akte. Creates a DRAFT a human must "
        "approve."
    ),
    kind="write",
    params=ZeiterfassungParams,
    handler=sync_to_async(_create_draft_zeiterfassung),
    label="Legt Zeiteintrag-Entwurf an",
)
