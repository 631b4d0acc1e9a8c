"""Writes of drafts: propose, approve (creating the real record exactly once), reject.

This is the only place where something Helena proposed becomes a record of the firm, and only
on a human's decision. A decision takes a row lock on the draft, so concurrent approvals create
one record and the others are refused as already decided (HTTP 409).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone

from akten.dokumente.services import schriftstueck_anlegen
from akten.erfassung.akten import akte_aendern
from akten.erfassung.fristen import frist_anlegen
from akten.erfassung.notizen import notiz_anlegen
from akten.erfassung.zeiten import zeit_erfassen
from akten.lesezugriffe.services import Bereich, Lesung, speichern
from akten.models import User
from akten.selectors import get_akte
from akten.services import hinweis_geben
from config.errors import DomainError
from drafts.fields import KINDS_WITH_AKTE, LABELS, TOOL_FOR_KIND, FieldsInvalid, validate_fields
from drafts.models import Draft, DraftEvent
from drafts.roles import kinds_decidable_by, may_make
from drafts.selectors import get_draft, may_decide
from drafts.warnungen import warnungen_fuer

logger = logging.getLogger(__name__)

__all__ = [
    "AlreadyDecided",
    "DecisionForbidden",
    "FieldsInvalid",
    "approve_draft",
    "create_draft",
    "reject_draft",
]


class DecisionForbidden(DomainError, PermissionDenied):
    """The user sees the draft but may not decide it (role) – HTTP 403."""

    status, code = 403, "forbidden"


class AlreadyDecided(DomainError):
    """The draft was approved or rejected before – HTTP 409."""

    status, code = 409, "already_decided"

    def __init__(self, draft: Draft) -> None:
        verb = "freigegeben" if draft.status == Draft.Status.APPROVED else "abgelehnt"
        person = draft.decided_by
        who = (person.get_full_name() or person.username) if person else "jemandem"
        when = timezone.localtime(draft.decided_at).strftime("%d.%m.%Y %H:%M") if draft.decided_at else ""
        super().__init__(f"Dieser Entwurf wurde bereits {verb} (von {who}, {when} Uhr).",
                         draft_status=draft.status)
        self.draft = draft


# --------------------------------------------------------------------------- propose


def create_draft(
    *,
    user: User,
    kind: str,
    fields: dict[str, Any],
    akte_id: int | str | None = None,
    run_id: str | None = None,
    conversation_id: int | str | None = None,
    tool: str = "",
    context: dict[str, Any] | None = None,
    call_id: str = "",
) -> Draft:
    """A pending draft proposed for `user`; nothing else is written.

    NotFound if the Akte is not visible to the user, PermissionDenied if their role may not use
    the tool that makes this kind, FieldsInvalid for fields the record would refuse. A run's tool
    call (`call_id`) proposes one draft: the same call made again — by a run resumed after its
    process died — gets the draft it proposed before (helena/runs/durable).
    """
    if kind not in TOOL_FOR_KIND:
        raise FieldsInvalid(f"Unbekannte Entwurfsart „{kind}“.")
    if not may_make(user, kind):
        raise PermissionDenied("Deine Rolle darf solche Entwürfe nicht anlegen.")
    akte = None
    if akte_id not in (None, ""):
        akte = get_akte(user=user, akte_id=akte_id)
    elif kind in KINDS_WITH_AKTE:
        raise FieldsInvalid("Für diesen Entwurf muss eine Akte angegeben werden (akte_id).")
    if run_id and call_id:  # found again only by a user who may still make it, for that Akte
        earlier = Draft.objects.filter(run_id=run_id, call_id=call_id[:100], requested_by=user).first()
        if earlier is not None:
            return earlier
    clean = validate_fields(kind, fields)
    context = dict(context or {})
    draft = Draft(
        kind=kind, fields=clean, context=context, akte=akte, requested_by=user, run_id=run_id,
        conversation_id=conversation_id, tool=tool or TOOL_FOR_KIND[kind],
        call_id=call_id[:100] if run_id else "",
        warnings=warnungen_fuer(kind=kind, fields=clean, akte=akte, context=context),
    )
    try:
        with transaction.atomic():
            draft.save()
            DraftEvent.objects.create(draft=draft, action=DraftEvent.Action.CREATED, user=user,
                                      details={"fields": clean, "run_id": run_id})
    except IntegrityError:
        # The same call made at the same moment elsewhere (a process that lost its run to another):
        # one draft, the one that was first.
        earlier = Draft.objects.filter(run_id=run_id, call_id=draft.call_id, requested_by=user).first()
        if not draft.call_id or earlier is None:
            raise
        return earlier
    return draft


# --------------------------------------------------------------------------- decide


def _refuse(draft: Draft, user: User, grund: str) -> None:
    DraftEvent.objects.create(draft=draft, action=DraftEvent.Action.REFUSED, user=user,
                              details={"grund": grund})


def _check_may_decide(*, user: User, draft: Draft) -> None:
    if may_decide(user=user, draft=draft):
        return
    if draft.kind not in kinds_decidable_by(user):
        message = (f"Deine Rolle darf Entwürfe der Art „{draft.get_kind_display()}“ nicht freigeben "
                   f"oder ablehnen.")
    else:
        message = "Diesen Entwurf kann nur die Person entscheiden, für die er vorgeschlagen wurde."
    _refuse(draft, user, message)
    raise DecisionForbidden(message)


def _locked(*, user: User, draft: Draft | str) -> Draft:
    """The draft, visible to the user, locked for this transaction; refused attempts are audited."""
    visible = get_draft(user=user, draft_id=draft.pk if isinstance(draft, Draft) else draft)
    # of=self: the nullable joins (Akte, decider) cannot be locked and need not be.
    locking = Draft.objects.select_for_update(of=("self",)).select_related("akte", "decided_by")
    return locking.get(pk=visible.pk)


def _changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        key: {"alt": old.get(key), "neu": value}
        for key, value in new.items()
        if old.get(key) != value
    }


def _create_record(*, draft: Draft, fields: dict[str, Any], user: User) -> tuple[str, str]:
    """The real record for an approved draft, written by the same service as the pages' forms
    (akten/erfassung): one rule per record. Returns (record_type, record_id)."""
    kind = draft.kind
    akte_id = draft.akte_id
    if kind == Draft.Kind.DOKUMENT:
        record = schriftstueck_anlegen(akte=draft.akte, titel=fields["titel"], inhalt=fields["inhalt"],
                                       empfaenger=fields.get("empfaenger", ""),
                                       erstellt_von=draft.requested_by, freigegeben_von=user)
    elif kind == Draft.Kind.FRIST:
        berechnung = (draft.context or {}).get("berechnung") or None
        notiz = f"Von Helena vorgeschlagen, freigegeben von {user.get_full_name() or user.username}."
        if berechnung and berechnung.get("begruendung"):
            notiz += "\n" + berechnung["begruendung"]
        record = frist_anlegen(user=user, akte_id=akte_id, grund="Entwurf von Helena freigegeben", daten={
            "typ": fields["typ"], "bezeichnung": fields["bezeichnung"], "datum": fields["datum"],
            "uhrzeit": fields.get("uhrzeit"), "vorfrist": fields.get("vorfrist"),
            "ist_notfrist": fields["ist_notfrist"], "verantwortlich": draft.requested_by, "notiz": notiz,
            "berechnung": berechnung})
    elif kind == Draft.Kind.NOTIZ:
        record = notiz_anlegen(user=user, akte_id=akte_id, titel=fields["titel"], inhalt=fields["inhalt"],
                               verfasser=draft.requested_by, grund="Entwurf von Helena freigegeben")
    elif kind == Draft.Kind.ALERT:
        record = hinweis_geben(akte=draft.akte, message=fields["message"], severity=fields["severity"],
                               empfaenger=None if draft.akte_id else draft.requested_by)
    elif kind == Draft.Kind.AKTE_UPDATE:
        aenderungen = {name: fields[name] for name in ("summary", "status", "tags", "rechtsgebiet")
                       if fields.get(name) is not None}
        record = akte_aendern(user=user, akte_id=akte_id, aenderungen=aenderungen,
                              grund="Entwurf von Helena freigegeben")
    elif kind == Draft.Kind.ZEITERFASSUNG:
        record = zeit_erfassen(user=user, akte_id=akte_id, fuer=draft.requested_by,
                               grund="Entwurf von Helena freigegeben", daten={
            "datum": fields["datum"], "dauer_minuten": fields["dauer_minuten"],
            "taetigkeit": fields["taetigkeit"], "abrechenbar": fields["abrechenbar"]})
    else:  # pragma: no cover - kinds are a closed set
        raise FieldsInvalid(f"Unbekannte Entwurfsart „{kind}“.")
    return type(record).__name__.lower(), str(record.pk)


def _refusal(*, user: User, draft: Draft) -> DecisionForbidden | AlreadyDecided | None:
    """Why `user` may not decide the locked draft now (audited), or None; shared by approve/reject."""
    try:
        _check_may_decide(user=user, draft=draft)
    except DecisionForbidden as exc:
        return exc
    if not draft.is_pending:
        _refuse(draft, user, "bereits entschieden")
        return AlreadyDecided(draft)
    return None


def approve_draft(*, user: User, draft: Draft | str, edited_fields: dict[str, Any] | None = None) -> Draft:
    """Create the draft's record once, with the (optionally edited) fields, and mark it approved.

    NotFound (cannot see it), DecisionForbidden (may not decide), AlreadyDecided (decided
    before), FieldsInvalid (edited fields refused); in each case nothing changes.
    """
    if edited_fields is not None and not isinstance(edited_fields, dict):
        raise FieldsInvalid("Die geänderten Angaben müssen ein JSON-Objekt sein.")
    with transaction.atomic():
        locked = _locked(user=user, draft=draft)
        refused = _refusal(user=user, draft=locked)
        if refused is None:
            fields = validate_fields(locked.kind, {**locked.fields, **(edited_fields or {})})
            changes = _changes(locked.fields, fields)
            if changes:
                DraftEvent.objects.create(draft=locked, action=DraftEvent.Action.EDITED, user=user,
                                          details={"changes": changes,
                                                   "felder": [LABELS.get(k, k) for k in changes]})
            locked.warnings = warnungen_fuer(kind=locked.kind, fields=fields, akte=locked.akte,
                                            context=locked.context or {})
            record_type, record_id = _create_record(draft=locked, fields=fields, user=user)
            locked.fields = fields
            locked.status = Draft.Status.APPROVED
            locked.decided_by = user
            locked.decided_at = timezone.now()
            locked.record_type, locked.record_id = record_type, record_id
            locked.save(update_fields=["fields", "status", "decided_by", "decided_at", "record_type",
                                       "record_id", "warnings"])
            DraftEvent.objects.create(draft=locked, action=DraftEvent.Action.APPROVED, user=user,
                                      details={"record": {"type": record_type, "id": record_id},
                                               "warnings": locked.warnings})
    if refused is not None:  # the refusal is audited (committed above); the caller gets 403/409
        raise refused
    logger.info("draft %s (%s) approved by %s → %s %s", locked.pk, locked.kind, user, record_type, record_id)
    return locked


def reject_draft(*, user: User, draft: Draft | str, reason: str = "", feedback: str = "") -> Draft:
    """Mark the draft rejected with the reason (shown to Helena and the team); nothing else changes."""
    reason = (reason or "").strip()
    feedback = (feedback or "").strip()
    if len(reason) > 2000 or len(feedback) > 2000:
        raise FieldsInvalid("Ablehnungsgrund und Rückmeldung dürfen höchstens 2000 Zeichen lang sein.")
    with transaction.atomic():
        locked = _locked(user=user, draft=draft)
        refused = _refusal(user=user, draft=locked)
        if refused is None:
            locked.status = Draft.Status.REJECTED
            locked.decided_by = user
            locked.decided_at = timezone.now()
            locked.rejection_reason = reason
            locked.feedback = feedback
            locked.save(update_fields=["status", "decided_by", "decided_at", "rejection_reason", "feedback"])
            DraftEvent.objects.create(draft=locked, action=DraftEvent.Action.REJECTED, user=user,
                                      details={"grund": reason, "rueckmeldung": feedback})
    if refused is not None:
        raise refused
    return locked


def gelesen(*, user: User, drafts: list[Draft], weg: str) -> None:
    """A draft's card shows proposed Akte content (often quoting the Akte: a Muster filled with its
    Beteiligte, the summary it would replace): showing drafts of an Akte is a read of it for the read
    log, one row per Akte, one INSERT per request."""
    speichern(user=user, weg=weg,
              lesungen=[Lesung.von(d.akte, bereich=Bereich.ENTWURF) for d in drafts if d.akte_id is not None])
