"""Helena's memory per Akte: summary, risks, next steps, open questions — kept current.

A change to the Akte (a Dokument, a Notiz, a Frist, an approved draft — every approved draft
writes one of those) marks the memory for a refresh; a beat task refreshes the ones marked at
least DEBOUNCE_SECONDS ago, so a burst of changes costs one model call. The call goes to the
tier-1 model like every side call (booked as `gedaechtnis`, a cloud model only with the opt-in
and redacted), asks for JSON, and takes it only when it validates: a failed refresh keeps the
old memory and says why in the Fehlerprotokoll. A lawyer's correction on the Akte page is kept
and given to the next refresh as the truth to build on.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.utils import timezone
from pydantic import BaseModel, Field, ValidationError

from akten.accounts.users import role_of
from akten.models import Akte, User
from akten.selectors import get_akte
from config.errors import DomainError, Forbidden
from drafts.roles import write_roles
from helena.infra.errorlog import record_error
from helena.llm.base import collect
from helena.llm.dialects import repair_arguments
from helena.llm.pii.touched import privacy_for
from helena.llm.router import get_model_for_tier
from helena.llm.wrappers.accounting import RecordingModel
from helena.models import AktenGedaechtnis, LLMCall
from helena.runs.setup import akte_fuer_prompt

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 60
BATCH = 20
TEXT_CHARS = 600  # of each Dokument and Notiz in the prompt
PROMPT = """Du bist Helena, die KI-Kollegin einer Anwaltskanzlei. Halte fest, was du über diese Akte weißt: \
was du beim nächsten Gespräch über die Akte wissen musst. Antworte nur mit einem JSON-Objekt:
{"zusammenfassung": "höchstens 120 Wörter", "risiken": ["…"], "naechste_schritte": ["…"], \
"offene_fragen": ["…"]}
Nur was in den Angaben steht; Daten, Beträge und Fristen wörtlich. Eine Korrektur durch die Anwältin \
oder den Anwalt gilt vor allem anderen."""


class Aktenwissen(BaseModel):
    zusammenfassung: str = Field(min_length=1, max_length=4000)
    risiken: list[str] = Field(default_factory=list, max_length=20)
    naechste_schritte: list[str] = Field(default_factory=list, max_length=20)
    offene_fragen: list[str] = Field(default_factory=list, max_length=20)


def request_refresh(*, akte_id: int) -> None:
    """The Akte changed: refresh its memory soon (once, however many changes come)."""
    if not Akte.objects.filter(pk=akte_id).exists():  # a record deleted along with its Akte
        return
    memory, _ = AktenGedaechtnis.objects.get_or_create(akte_id=akte_id)
    if memory.angefordert_am is None:
        AktenGedaechtnis.objects.filter(pk=memory.pk, angefordert_am=None).update(
            angefordert_am=timezone.now())


def _material(akte: Akte, memory: AktenGedaechtnis) -> str:
    facts = akte_fuer_prompt(akte)
    parts = [json.dumps({k: v for k, v in facts.items() if v}, ensure_ascii=False, default=str)]
    for d in akte.dokumente.order_by("-angelegt_am")[:10]:
        parts.append(f"Dokument „{d.titel}“: {' '.join(d.inhalt.split())[:TEXT_CHARS]}")
    for n in akte.notizen.order_by("-angelegt_am")[:10]:
        parts.append(f"Notiz „{n.titel}“: {' '.join(n.inhalt.split())[:TEXT_CHARS]}")
    if memory.stand:
        bisher = json.dumps(memory.as_dict() | {"stand": None, "run_id": None}, ensure_ascii=False)
        parts.append(f"Was du bisher über die Akte weißt: {bisher}")
    if memory.korrigiert_am:
        wer = memory.korrigiert_von.get_full_name() if memory.korrigiert_von else "die Kanzlei"
        parts.append(f"Das hat {wer} am {memory.korrigiert_am:%d.%m.%Y} korrigiert; behalte die "
                     "Korrektur bei.")
    return "\n\n".join(parts)


def refresh(*, akte_id: int) -> bool:
    """Write the Akte's memory anew; False (old memory kept, reason logged) when that failed."""
    memories = AktenGedaechtnis.objects.select_related("akte", "korrigiert_von")
    memory, _ = memories.get_or_create(akte_id=akte_id)
    AktenGedaechtnis.objects.filter(pk=memory.pk).update(angefordert_am=None)
    akte = memory.akte
    privacy = privacy_for(akte_id=akte.pk)
    found = get_model_for_tier(1, privacy=privacy)
    if found is None:
        return _failed(memory, "Kein Sprachmodell der Stufe 1 eingerichtet.")
    model, config = found
    if config.cloud:  # what to redact is learned here, in synchronous code, before the call
        privacy.refresh_sync()
    recording = RecordingModel(model, run_id=None, user_id=None, tier=1, operation="gedaechtnis",
                               context_type="akte", price_in=config.price_in, price_out=config.price_out)
    messages = [{"role": "system", "content": PROMPT}, {"role": "user", "content": _material(akte, memory)}]
    started = timezone.now()
    try:
        turn = async_to_sync(collect)(recording.stream(messages=messages, tools=None))
    except Exception as exc:  # the model call: RecordingModel has logged it with its ledger row
        return _failed(memory, f"Das Modell war nicht erreichbar: {exc}", logged=True)
    try:
        wissen = Aktenwissen.model_validate(repair_arguments(turn.text) or {})
    except ValidationError as exc:
        problem = exc.errors()[0]
        return _failed(memory, "Die Antwort des Modells passte nicht in die Form des Aktenwissens "
                               f"({'.'.join(map(str, problem['loc'])) or 'Objekt'}: {problem['type']}).")
    except Exception as exc:  # our own reading of the answer: nobody has logged that yet
        log.exception("memory of Akte %s: reading the model's answer failed", memory.akte_id)
        return _failed(memory, f"Die Antwort des Modells ließ sich nicht lesen: {type(exc).__name__}.")
    call = LLMCall.objects.filter(operation="gedaechtnis", created_at__gte=started).order_by("-pk").first()
    with transaction.atomic():
        AktenGedaechtnis.objects.filter(pk=memory.pk).update(
            **wissen.model_dump(), stand=timezone.now(), geschrieben_von=f"Helena ({config.name})",
            llm_call=call, fehler="")
    return True


def _failed(memory: AktenGedaechtnis, reason: str, *, logged: bool = False) -> bool:
    """The Akte keeps its reason (shown on its page); the Fehlerprotokoll gets the cause once.

    `logged`: the model call failed, and the RecordingModel has logged that already, linked to its
    ledger row — a second entry would say the same. The entry names no Akte, so one cause stays one
    entry however many Akten it holds up (helena/infra/errorlog.py counts repeats on it).
    """
    log.warning("memory of Akte %s not refreshed: %s", memory.akte_id, reason)
    AktenGedaechtnis.objects.filter(pk=memory.pk).update(fehler=reason[:1000])
    if not logged:
        record_error(kind="model", code="memory_refresh", context_type="akte",
                     message=f"Was Helena über eine Akte weiß, wurde nicht aufgefrischt: {reason}"[:1000])
    return False


def refresh_due(*, now: Any = None) -> int:
    """Refresh the memories asked for at least DEBOUNCE_SECONDS ago (the beat task)."""
    cutoff = (now or timezone.now()) - timedelta(seconds=DEBOUNCE_SECONDS)
    due = list(AktenGedaechtnis.objects.filter(angefordert_am__lte=cutoff)
               .values_list("akte_id", flat=True)[:BATCH])
    return sum(refresh(akte_id=akte_id) for akte_id in due)


def memory_for(*, user: User, akte_id: Any) -> AktenGedaechtnis | None:
    """The memory of an Akte the user may see (NotFound otherwise); None before it was written."""
    akte = get_akte(user=user, akte_id=akte_id)
    return AktenGedaechtnis.objects.filter(akte=akte).exclude(stand=None).first()


def may_correct(user: Any) -> bool:
    """Who may correct the memory: the roles that may change the Akte's own summary (update_akte_rag)."""
    return role_of(user) in write_roles("update_akte_rag")


def correct(*, user: User, akte_id: Any, zusammenfassung: str, risiken: list[str],
            naechste_schritte: list[str], offene_fragen: list[str]) -> AktenGedaechtnis:
    """A lawyer's correction: kept as the memory, and the next refresh builds on it.
    NotFound for a foreign Akte, Forbidden for a role that may not, DomainError without a summary."""
    akte = get_akte(user=user, akte_id=akte_id)
    if not may_correct(user):
        raise Forbidden("Was Helena über eine Akte weiß, korrigieren Anwältinnen, Anwälte und die "
                        "Administration.")
    if not zusammenfassung.strip():
        raise DomainError("Bitte gib eine Zusammenfassung an.")
    memory, _ = AktenGedaechtnis.objects.get_or_create(akte=akte)
    memory.zusammenfassung, memory.risiken = zusammenfassung.strip()[:4000], risiken
    memory.naechste_schritte, memory.offene_fragen = naechste_schritte, offene_fragen
    memory.korrigiert_von, memory.korrigiert_am = user, timezone.now()
    memory.stand = memory.stand or memory.korrigiert_am
    memory.save()
    return memory
