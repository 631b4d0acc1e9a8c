"""Writes on a conversation as a record: rename, archive, pin, delete, keep as Aktenvermerk."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from akten.lesezugriffe.services import Bereich, lesen
from akten.models import User
from config.errors import DomainError, Forbidden
from config.textcheck import text_problem
from drafts.models import Draft
from drafts.services import create_draft
from helena.models import AgentRun, Conversation
from helena.presentation.transcript import als_markdown, runden, zeitpunkt
from helena.tools.sources import akte_titel

MAX_TITLE_CHARS = 200
VERMERK_TOOL = "aktenvermerk"  # Draft.tool of a conversation kept in its Akte


def gelesen(*, user: User, conversation: Conversation, weg: str, format: str = "") -> None:
    """Helena's answers in a conversation about an Akte quote the Akte: showing them (the chat page, GET
    of the conversation) or taking them out as a file (weg export, `format` md or pdf) is a read of the
    Akte for the read log, one INSERT. A conversation without an Akte shows nothing of one (the caller
    leaves out one without a message yet)."""
    if conversation.akte_id is not None:
        lesen(user=user, akte=conversation.akte, weg=weg, bereich=Bereich.GESPRAECH, format=format)


def aendern(*, conversation: Conversation, titel: str | None = None, archiviert: bool | None = None,
            angeheftet: bool | None = None) -> Conversation:
    """Rename, archive or restore, pin or unpin; what is None stays. A name the user gives is kept:
    Helena proposes none after that."""
    fields = []
    if titel is not None:
        clean = " ".join(titel.split())
        if not clean:
            raise DomainError("Der Titel darf nicht leer sein.", code="invalid_message")
        if len(clean) > MAX_TITLE_CHARS or text_problem(clean):
            raise DomainError(f"Der Titel muss ein Text mit höchstens {MAX_TITLE_CHARS} Zeichen sein.",
                              code="invalid_message")
        conversation.title, conversation.titel_von_hand = clean, True
        fields += ["title", "titel_von_hand"]
    if archiviert is not None:
        conversation.archiviert = archiviert
        fields.append("archiviert")
    if angeheftet is not None:
        conversation.angeheftet = angeheftet
        fields.append("angeheftet")
    if fields:
        changes = {name: getattr(conversation, name) for name in fields}
        Conversation.objects.filter(pk=conversation.pk).update(**changes)
    return conversation


@dataclass(frozen=True)
class Geloescht:
    """What deleting did: "geloescht" or "archiviert", and the German sentence that tells the user."""

    art: str
    message: str

    @property
    def geloescht(self) -> bool:
        return self.art == "geloescht"


def loeschen(*, conversation: Conversation) -> Geloescht:
    """Delete for the user: gone from their lists, kept for the audit; archived instead when drafts
    of it were approved (what went into an Akte keeps the conversation it came from). Refused while
    Helena still works in it."""
    with transaction.atomic():
        locked = Conversation.objects.select_for_update().get(pk=conversation.pk)
        if locked.runs.filter(status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING]).exists():
            raise DomainError("Helena arbeitet gerade in diesem Gespräch. Brich den Lauf ab oder warte, "
                              "bis er fertig ist, und lösche es dann.", code="conflict", status=409)
        if Draft.objects.filter(conversation=locked, status=Draft.Status.APPROVED).exists():
            Conversation.objects.filter(pk=locked.pk).update(archiviert=True)
            return Geloescht("archiviert", "Aus diesem Gespräch wurden Entwürfe in eine Akte übernommen; "
                                           "es wurde deshalb archiviert, nicht gelöscht.")
        Conversation.objects.filter(pk=locked.pk).update(geloescht_am=timezone.now())
        return Geloescht("geloescht", "Gespräch gelöscht.")


def aktenvermerk(*, user: User, conversation: Conversation, run_id: Any = None) -> Draft:
    """The conversation (or one answer of it) as a Dokument draft for its Akte: question, answer,
    tools, sources and date; approved like any draft, so the Akte shows who kept it."""
    if conversation.akte_id is None:
        raise DomainError("Nur ein Gespräch über eine Akte kann als Aktenvermerk gespeichert werden.",
                          code="invalid_message")
    if run_id is not None and not isinstance(run_id, str):
        raise DomainError("„run_id“ muss die ID einer Antwort sein.", code="invalid_message")
    # Read by everyone who sees the Akte: nothing of other Akten goes in (tool results naming them).
    gelesen = runden(conversation=conversation, user=user, run_id=run_id, nur_akte=conversation.akte_id)
    if not gelesen:
        if run_id is not None:
            raise DomainError("Diese Antwort gehört nicht zu diesem Gespräch oder ist noch nicht fertig.",
                              code="not_found", status=404)
        raise DomainError("Das Gespräch hat noch keine fertige Antwort, die man festhalten könnte.",
                          code="invalid_message")
    akte = conversation.akte
    thema = conversation.title or gelesen[0].frage or "Gespräch mit Helena"
    titel = f"Aktenvermerk: {' '.join(thema.split())}"[:280]
    kopf = [f"Gespräch mit Helena, {'Antwort vom' if run_id else 'zuletzt am'} {zeitpunkt(gelesen[-1].zeit)}",
            akte_titel(akte),
            f"Festgehalten von {user.get_full_name() or user.get_username()}"]
    inhalt = als_markdown(titel=titel, kopf=kopf, runden=gelesen)
    try:
        return create_draft(user=user, kind=Draft.Kind.DOKUMENT, fields={"titel": titel, "inhalt": inhalt},
                            akte_id=akte.pk, run_id=gelesen[-1].run_id,  # its card shows under that answer
                            conversation_id=conversation.pk, tool=VERMERK_TOOL,
                            context={"aktenvermerk": {"runs": [r.run_id for r in gelesen]}})
    except PermissionDenied as exc:
        raise Forbidden(str(exc) or "Deine Rolle darf keine Dokumente anlegen.") from None
