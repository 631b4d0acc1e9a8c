"""A conversation as a record reads it: question, Helena's answer, the tools she used with what they
found, the sources (norms, documents) and when — from the stored messages and run events, the same
ones the chat shows. The Aktenvermerk and the Markdown and PDF exports are written from this."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from helena.llm.pii.touched import akten_of
from helena.models import AgentRun, Conversation, Message, RunEvent
from helena.presentation.calls import main_argument
from helena.tools.registry import all_tools
from helena.tools.sources import quellen_texte

_READ = ("tool_call", "tool_result")
_NO_ANSWER = {"cancelled": "abgebrochen", "error": "fehlgeschlagen",
              "waiting_on_user": "Helena hat nachgefragt"}


@dataclass
class Schritt:
    werkzeug: str  # the tool's German label
    argument: str
    ergebnis: str = ""
    ok: bool = True


@dataclass
class Runde:
    """One question and the answer to it (a continuation in the background is its own Runde)."""

    frage: str
    antwort: str
    zeit: datetime
    run_id: str
    modell: str
    status: str  # finish_reason of the run
    schritte: list[Schritt] = field(default_factory=list)
    quellen: list[str] = field(default_factory=list)  # as a lawyer cites them (tools.sources)


FREMDE_AKTE = "(nennt weitere Akten – nicht übernommen)"


def runden(*, conversation: Conversation, user: Any, run_id: str | None = None,
           nur_akte: int | None = None) -> list[Runde]:
    """The conversation's finished answers in order, each with the question it answers; only the
    one run's when `run_id` is given (empty if it is not this conversation's). Sources are cited as
    far as `user` may see them. With `nur_akte` (a Vermerk kept in that Akte, read by all who see it)
    a tool result that names records of other Akten keeps neither its result nor those sources."""
    runs = list(AgentRun.objects.filter(conversation=conversation).exclude(
        status__in=[AgentRun.Status.QUEUED, AgentRun.Status.RUNNING]).order_by("created_at"))
    questions = list(conversation.messages.filter(role=Message.Role.USER).order_by("created_at", "id"))
    events: dict[Any, list[RunEvent]] = defaultdict(list)
    stored = RunEvent.objects.filter(run__in=[r.pk for r in runs], type__in=_READ).order_by("run_id", "seq")
    for event in stored:
        events[event.run_id].append(event)
    labels = {name: tool.label or name for name, tool in all_tools().items()}
    result = []
    for run in runs:
        asked = [m for m in questions if m.created_at <= run.created_at]
        frage = asked[-1].text if asked and run.parent_id is None else ""
        runde = Runde(frage=frage, antwort=run.text, zeit=run.ended_at or run.created_at, run_id=str(run.pk),
                      modell=run.model, status=run.finish_reason)
        quellen = _read_steps(runde, events[run.pk], labels, nur_akte=nur_akte)
        runde.quellen = quellen_texte(quellen, user=user)
        result.append(runde)
    if run_id is not None:
        result = [r for r in result if r.run_id == str(run_id)]
    return result


def _read_steps(runde: Runde, events: list[RunEvent], labels: dict[str, str], *,
                nur_akte: int | None) -> list[Any]:
    """The Runde's steps from its events; returns the sources its tool results named."""
    by_call: dict[str, Schritt] = {}
    quellen: list[Any] = []
    for event in events:
        payload = event.payload or {}
        if event.type == "tool_call":
            tool = str(payload.get("tool", ""))
            schritt = Schritt(werkzeug=labels.get(tool, tool),
                              argument=main_argument(payload.get("arguments")))
            by_call[str(payload.get("call_id", ""))] = schritt
            runde.schritte.append(schritt)
        elif (schritt := by_call.get(str(payload.get("call_id", "")))) is not None:
            schritt.ok = bool(payload.get("ok"))
            schritt.ergebnis = str(payload.get("summary") or payload.get("error") or "")
            sources = payload.get("source") or []
            sources = sources if isinstance(sources, list) else [sources]
            if nur_akte is not None and akten_of(sources) - {nur_akte}:
                schritt.ergebnis = FREMDE_AKTE
                continue
            quellen.extend(sources)
    return quellen


def zeitpunkt(moment: datetime) -> str:
    """'03.04.2026 um 14:05 Uhr' in the firm's time zone (the pages' filter `zeitpunkt` too)."""
    local = timezone.localtime(moment) if timezone.is_aware(moment) else moment
    return f"{local:%d.%m.%Y} um {local:%H:%M} Uhr"


def _zitat(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.strip().splitlines())


def als_markdown(*, titel: str, kopf: list[str], runden: list[Runde]) -> str:
    """The Runden as Markdown: a heading, the lines of `kopf`, then per Runde the question (quoted),
    the answer, the tools with their results and the sources."""
    teile = [f"# {titel}", "", *[f"{zeile}  " for zeile in kopf]]
    nummeriert = len(runden) > 1
    for i, runde in enumerate(runden, 1):
        teile += ["", f"## Frage {i}" if nummeriert else "## Frage", ""]
        teile.append(_zitat(runde.frage) if runde.frage else "*(Fortsetzung im Hintergrund)*")
        teile += ["", f"## Antwort von Helena{f' ({i})' if nummeriert else ''}",
                  f"*{zeitpunkt(runde.zeit)}{f', Modell {runde.modell}' if runde.modell else ''}*", ""]
        if runde.antwort.strip():
            teile.append(runde.antwort.strip())
        else:
            teile.append(f"*(keine Antwort: {_NO_ANSWER.get(runde.status, runde.status or 'ohne Text')})*")
        if runde.schritte:
            teile += ["", "**Verwendete Werkzeuge:**", ""]
            for s in runde.schritte:
                zeile = f"- {s.werkzeug}{f' ({s.argument})' if s.argument else ''}"
                if s.ergebnis:
                    zeile += f": {' '.join(s.ergebnis.split())}" if s.ok else f": Fehler – {s.ergebnis}"
                teile.append(zeile)
        if runde.quellen:
            teile += ["", "**Quellen:**", ""] + [f"- {q}" for q in runde.quellen]
    return "\n".join(teile).strip() + "\n"
