"""Everything a run needs before the first model call: the offered tools and their executor, the
system prompt with the Akte in focus (only if the user may see it), the tool context with the run's
ports, and the drafts' outcomes of the conversation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from akten import selectors
from akten.accounts.users import anzeigename, role_of
from akten.fristen import format_datum
from akten.lesezugriffe.services import Lesung
from akten.models import Akte, Beteiligter
from drafts.selectors import outcome_notes
from helena.agent.language import AnswerLanguage, answer_language
from helena.agent.prompts import system_prompt
from helena.agent.tooling import Execute, Tool, ToolContext
from helena.models import AktenGedaechtnis
from helena.runs.ports import attach
from helena.tools.executor import execute
from helena.tools.registry import all_tools, not_set_up_for, tools_for


@dataclass
class RunSetup:
    messages: list[dict[str, Any]]
    tools: list[Tool]
    ctx: ToolContext
    question: str = ""  # the user's message the run answers
    answer_language: AnswerLanguage = "de"  # German, or English for an English question if the firm allows it
    execute: Execute = execute
    # Every tool's name: a call of one not offered is refused, and never shown to the user raw.
    known_names: frozenset[str] = field(default_factory=lambda: frozenset(all_tools()))


def akte_fuer_prompt(akte: Akte) -> dict[str, Any]:
    """The key facts of an Akte for the prompt (already scoped by the caller)."""
    parties = {b.rolle: b.name for b in akte.beteiligte.all()}
    fristen = [
        f"{f.datum:%d.%m.%Y} {f.bezeichnung}" + (" (Notfrist)" if f.ist_notfrist else "")
        for f in akte.fristen.filter(erledigt=False).order_by("datum")[:5]
    ]
    return {
        "id": akte.pk, "aktenzeichen": akte.aktenzeichen, "kurzrubrum": akte.kurzrubrum,
        "wegen": akte.wegen, "rechtsgebiet": akte.get_rechtsgebiet_display(),
        "status": akte.get_status_display(), "bundesland": akte.bundesland,
        "gegenstandswert": f"{akte.gegenstandswert:.2f} EUR" if akte.gegenstandswert is not None else "",
        "mandant": parties.get(Beteiligter.Rolle.MANDANT, ""),
        "gegner": parties.get(Beteiligter.Rolle.GEGNER, ""),
        "gericht": parties.get(Beteiligter.Rolle.GERICHT, ""),
        "fristen": fristen,
        "summary": akte.summary,
        "gedaechtnis": _memory_lines(akte),
    }


MEMORY_CHARS = 1500  # of the prompt, at most, for Helena's memory of the Akte


def _memory_lines(akte: Akte) -> str:
    """Helena's memory of the Akte (helena/proactive/memory.py), as one short block for the prompt."""
    memory = AktenGedaechtnis.objects.filter(akte=akte).exclude(stand=None).first()
    if memory is None:
        return ""
    parts = [f"Stand {memory.stand:%d.%m.%Y}: {memory.zusammenfassung}"]
    for label, items in (("Risiken", memory.risiken), ("Nächste Schritte", memory.naechste_schritte),
                         ("Offene Fragen", memory.offene_fragen)):
        if items:
            parts.append(f"{label}: " + "; ".join(map(str, items)))
    text = " ".join(parts)
    return text if len(text) <= MEMORY_CHARS else text[:MEMORY_CHARS].rsplit(" ", 1)[0] + " …"


def prepare_run(
    *,
    user: Any,
    question: str,
    history: Sequence[dict[str, Any]] = (),
    akte_id: int | str | None = None,
    first_contact: bool = False,
    run_id: str | None = None,
    extra_prompt: str = "",
    context_type: str = "global",
    conversation_id: int | str | None = None,
    answer_in_question_language: bool = False,
    has_drafts: bool | None = None,
) -> RunSetup:
    """Build the messages for a run; an Akte the user may not see is silently left out (and so
    never reaches the model).

    Helena answers in German (seed 001), in English only to an English question and only when the
    firm allows it (`answer_in_question_language`: HelenaSettings.antwort_in_sprache_der_frage); a
    run without a new question (a continuation) goes by the conversation's last question.
    `has_drafts`: whether the conversation has drafts, when the caller knows (the claim read it).
    """
    akte = None
    if akte_id is not None:
        try:
            akte = selectors.get_akte(user=user, akte_id=akte_id)
        except selectors.NotFound:
            akte = None
    tools = tools_for(user)
    if conversation_id is not None:
        notes = outcome_notes(conversation_id=conversation_id, has_drafts=has_drafts)
        if notes:
            extra_prompt = "\n\n".join(filter(None, [extra_prompt, (
                "Deine Entwürfe in diesem Gespräch (schlage Abgelehntes nicht unverändert erneut vor):\n"
                + "\n".join(notes))]))
    earlier = [m.get("content") or "" for m in history if m.get("role") == "user"]
    asked = question or (earlier[-1] if earlier else "")
    language = answer_language(asked, follow_question=answer_in_question_language)
    prompt = system_prompt(
        tools=tools, today=format_datum(timezone.localdate()), user_name=anzeigename(user),
        role=role_of(user), akte=akte_fuer_prompt(akte) if akte else None, first_contact=first_contact,
        extra=extra_prompt, context_type=context_type, not_set_up=not_set_up_for(user),
        answer_language=language,
    )
    messages = [{"role": "system", "content": prompt}, *history, {"role": "user", "content": question}]
    ctx = attach(ToolContext(user=user, akte_id=akte.pk if akte else None, run_id=run_id,
                             conversation_id=str(conversation_id) if conversation_id is not None else None))
    if akte is not None:  # its Beteiligte, Fristen, summary and memory are in the prompt: a read of it,
        ctx.reads.append(Lesung.von(akte))  # stored with the run's first step's reads (ports.record_reads)
    return RunSetup(messages=messages, tools=tools, ctx=ctx, question=question, answer_language=language)
