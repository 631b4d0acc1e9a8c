"""The demo Kanzlei's example conversation: what Helena does, visible at the first look.

The lawyer asks for three things in Akte 101/26; Helena reads the Akte and proposes a letter, a
Wiedervorlage and a time entry, which wait in /entwuerfe/ for a decision. The run goes through the
real agent loop and the real tools (so its steps, results and drafts are exactly what a run
produces); only the model's words come from a script (helena.llm.providers.scripted), and the conversation
says so in its title.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.utils import timezone

from akten.demo import demo_tage
from akten.models import Akte, User
from helena.agent.events import Emitter
from helena.agent.loop import run_agent
from helena.llm.providers.scripted import ScriptedModel, ScriptedTurn
from helena.models import AgentRun, Conversation, Message, RunEvent
from helena.runs.setup import prepare_run

TITLE = "Beispiel: Erinnerung an die Rechtsschutzversicherung (Müller ./. Bauer Logistik)"
AKTENZEICHEN = "101/26"
USERNAME = "anwalt"
QUESTION = ("Die Deckungszusage der Rheinischen Rechtsschutz fehlt noch. Entwirf bitte eine kurze Erinnerung "
            "an die Versicherung, leg eine Wiedervorlage in einer Woche an und erfasse 15 Minuten für die "
            "Prüfung.")


def _werktag(day: date) -> date:
    return day + timedelta(days=max(0, 7 - day.weekday()) if day.weekday() >= 5 else 0)


def _erinnerung(zugang: date, klagefrist: date) -> str:
    """The letter's text only: letterhead, the insurer's address (empfaenger "versicherung"), place
    and date, Zeichen and signature are the DOCX/PDF frame's."""
    return (
        "**Ihr Versicherungsnehmer: Thomas Müller – Kündigungsschutz gegen die Bauer Logistik GmbH**\n\n"
        "Sehr geehrte Damen und Herren,\n\n"
        "wir nehmen Bezug auf unsere Deckungsanfrage für die Kündigungsschutzklage unseres Mandanten. "
        f"Die Kündigung ist ihm am {zugang:%d.%m.%Y} zugegangen; die Klagefrist nach § 4 S. 1 KSchG endet "
        f"am {klagefrist:%d.%m.%Y}. Wir bitten um Ihre Deckungszusage bis spätestens drei Werktage vor "
        "diesem Datum. Die Klage werden wir zur Wahrung der Frist in jedem Fall rechtzeitig einreichen.\n\n"
        "Mit freundlichen Grüßen"
    )


def _answer(messages: list[dict[str, Any]]) -> str:
    """The scripted model's last turn, written for what the tools answered."""
    results = [json.loads(m.get("content") or "{}") for m in messages if m.get("role") == "tool"]
    if any("error" in result for result in results):
        return "Nicht alles hat geklappt; die Schritte oben zeigen, was fehlte."
    return (
        "Erledigt – drei Entwürfe warten auf deine Freigabe (unter „Entwürfe“ oder in der Akte):\n\n"
        "1. **Erinnerung an die Rheinische Rechtsschutz AG** mit Hinweis auf die Klagefrist nach § 4 S. 1 "
        "KSchG,\n2. **Wiedervorlage** „Deckungszusage eingegangen?“ in einer Woche,\n"
        "3. **Zeiterfassung** 15 Minuten „Prüfung Deckungszusage, Erinnerung an die Versicherung“.\n\n"
        "Erst mit deiner Freigabe wird etwas in der Akte gespeichert. Die Klage selbst hängt nicht von der "
        "Deckungszusage ab: Die Frist läuft unabhängig davon."
    )


def seed_demo_gespraech(*, heute: date | None = None) -> int:
    """Create the example conversation once (1); nothing if it exists or the demo Akte is missing (0)."""
    user = User.objects.filter(username=USERNAME).first()
    akte = Akte.objects.filter(aktenzeichen=AKTENZEICHEN).first()
    if user is None or akte is None or Conversation.objects.filter(user=user, title=TITLE).exists():
        return 0
    heute = heute or timezone.localdate()
    tage = demo_tage(AKTENZEICHEN, heute=heute)
    akte_id = str(akte.pk)
    script = [
        ScriptedTurn(tool_calls=[("read_akte_detail", {"akte_id": akte_id})]),
        ScriptedTurn(tool_calls=[("create_draft_dokument", {
            "akte_id": akte_id, "titel": "Erinnerung: Deckungsanfrage Kündigungsschutzklage Müller",
            "inhalt": _erinnerung(tage["kuendigung_zugang"], tage["klagefrist"]),
            "empfaenger": "versicherung"})]),
        ScriptedTurn(tool_calls=[("create_draft_frist", {
            "akte_id": akte_id, "bezeichnung": "Deckungszusage Rheinische Rechtsschutz eingegangen?",
            "typ": "wiedervorlage", "datum": _werktag(heute + timedelta(days=7)).isoformat()})]),
        ScriptedTurn(tool_calls=[("create_draft_zeiterfassung", {
            "akte_id": akte_id, "dauer_minuten": 15,
            "taetigkeit": "Prüfung Deckungszusage, Erinnerung an die Versicherung"})]),
        _answer,
    ]
    with transaction.atomic():
        conversation = Conversation.objects.create(
            user=user, akte=akte, context_type=Conversation.ContextType.AKTE, title=TITLE)
        Message.objects.create(conversation=conversation, role=Message.Role.USER, text=QUESTION)
        run = AgentRun.objects.create(conversation=conversation, user=user, mode="inline", tier=1,
                                      model="Beispiel (vorgegebene Antworten)", provider="scripted",
                                      status=AgentRun.Status.RUNNING, started_at=timezone.now())
        setup = prepare_run(user=user, question=QUESTION, akte_id=akte.pk, run_id=str(run.pk),
                            context_type=conversation.context_type, conversation_id=conversation.pk)
        emitter = Emitter(run_id=str(run.pk))
        result = async_to_sync(run_agent)(
            model=ScriptedModel(script, name="Beispiel"), messages=setup.messages, tools=setup.tools,
            ctx=setup.ctx, emitter=emitter, execute=setup.execute, known_names=setup.known_names,
            question=QUESTION)
        RunEvent.objects.bulk_create(RunEvent(run=run, seq=e.seq, type=e.type, payload=e.data)
                                     for e in emitter.events)
        AgentRun.objects.filter(pk=run.pk).update(
            status=AgentRun.Status.FINISHED, finish_reason=result.finish_reason, text=result.text,
            ended_at=timezone.now())
        Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, text=result.text,
                               run=run)
    return 1
