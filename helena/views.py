"""The chat pages: the user's conversations, one conversation, and a finished answer as HTML.

Thin: reads go through helena.selectors (scoped to the user), writes through helena.services.
The chat page renders the history on the server with the same markup static/helena/chat.js
builds from live events, so a reload shows finished answers at once and the client only streams
what is still in progress (PROTOCOL.md "Websocket").
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Max, OuterRef, Subquery
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET, require_POST

from akten.selectors import NotFound
from drafts.cards import render_card
from drafts.selectors import drafts_for
from helena import selectors, services
from helena.markdown import render_markdown
from helena.models import AgentRun, Conversation, Message, RunEvent
from helena.tools.registry import all_tools, role_of

_HOME_LIMIT = 200
_ARGUMENT_CHARS = 80
# The argument that says most about a call, in this order; chat.js uses the same list.
_MAIN_ARGUMENTS = ("query", "question", "objective", "bezeichnung", "titel", "taetigkeit", "message",
                   "inhalt", "start", "akte_id", "dokument_id", "gegenstandswert", "status")
# A German note per finish_reason (PROTOCOL.md); chat.js has the same texts.
FINISH_NOTES = {
    "cancelled": "Abgebrochen.",
    "max_steps": "Helena hat die Höchstzahl an Schritten erreicht.",
    "tool_cap": "Zu viele Werkzeugaufrufe in einem Schritt – die Antwort beruht nur auf den ersten.",
    "timeout": "Die Zeit für diese Anfrage ist abgelaufen.",
    "stall": "Helena kam nicht weiter.",
    "waiting_on_user": "Helena wartet auf deine Antwort.",
}
MODE_BADGES = {"inline": "⚡ Inline", "background": "🔄 Hintergrund"}
# Events the history needs (text deltas are replaced by the done event's text).
_HISTORY_EVENTS = ("tool_call", "tool_result", "draft_created", "warning", "error", "done", "ask_user",
                   "plan_created", "plan_ready_for_review", "plan_review", "plan_step")


# --------------------------------------------------------------------------- presentation helpers


def main_argument(arguments: Any) -> str:
    """The one argument shown next to a tool's label ("Durchsuche Gesetze: Kündigungsfrist")."""
    if not isinstance(arguments, dict):
        return ""
    for key in (*_MAIN_ARGUMENTS, *arguments):
        value = arguments.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value).strip():
            text = " ".join(str(value).split())
            return text if len(text) <= _ARGUMENT_CHARS else text[: _ARGUMENT_CHARS - 1] + "…"
    return ""


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def source_text(source: Any) -> str:
    """One source of a tool result as a line: the citation, else title or table and id."""
    if not isinstance(source, dict):
        return _shown(source)
    for key in ("citation", "title", "url"):
        if source.get(key):
            return str(source[key])
    return " ".join(str(source[k]) for k in ("corpus", "table", "id") if source.get(k))


def run_tooltip(*, tier: Any, model: str, provider: str) -> str:
    """'Stufe 2 · qwen3:8b (ollama)': which model answered, for the badge's title."""
    text = f"Stufe {tier}"
    if model:
        text += f" · {model}"
        if provider:
            text += f" ({provider})"
    return text


def _items_text(items: Any) -> list[str]:
    if not isinstance(items, list):
        return []
    lines = []
    for item in items:
        if isinstance(item, dict):
            text = next((str(item[k]) for k in ("title", "titel", "text", "beschreibung", "description",
                                                 "step", "name") if item.get(k)), "")
            lines.append(text or _shown(item))
        else:
            lines.append(_shown(item))
    return lines


def extra_lines(event: dict[str, Any]) -> tuple[str, list[str]]:
    """A plan or question event as a heading and lines; chat.js renders the same."""
    kind = event.get("type")
    if kind == "ask_user":
        return f"Helena fragt: {event.get('question', '')}", []
    if kind == "plan_created":
        return "Plan erstellt", _items_text(event.get("items"))
    if kind == "plan_ready_for_review":
        return "Der Plan wartet auf Prüfung.", _items_text(event.get("items"))
    if kind == "plan_review":
        verdict = event.get("verdict")
        head = f"Planprüfung: {verdict}" if verdict else "Planprüfung"
        notes = event.get("notes")
        return head, _items_text(notes if isinstance(notes, list) else [notes] if notes else [])
    if kind == "plan_step":
        parts = [str(event[k]) for k in ("step", "title", "titel", "summary", "status") if event.get(k)]
        head = "Planschritt: " + " · ".join(parts) if parts else "Planschritt"
        return head, _items_text(event.get("items"))
    return "", []


@dataclass
class Step:
    call_id: str
    tool: str
    label: str
    argument: str
    arguments: list[tuple[str, str]]
    done: bool = False
    ok: bool = True
    summary: str = ""
    error: str = ""
    sources: list[str] = field(default_factory=list)


@dataclass
class Answer:
    """One run as the chat shows it."""

    run: AgentRun
    badge: str
    tooltip: str
    last_seq: int
    active: bool
    html: SafeString | str = ""
    steps: list[Step] = field(default_factory=list)
    cards: list[SafeString] = field(default_factory=list)
    extras: list[tuple[str, list[str]]] = field(default_factory=list)
    notices: list[tuple[str, str]] = field(default_factory=list)  # (kind, text): warning/error/info
    continue_offered: bool = False


def _answer(*, run: AgentRun, events: list[dict[str, Any]], cards: list[SafeString],
            labels: dict[str, str], has_child: bool) -> Answer:
    answer = Answer(run=run, badge=MODE_BADGES.get(run.mode, run.mode),
                    tooltip=run_tooltip(tier=run.tier, model=run.model, provider=run.provider),
                    last_seq=run.last_seq or 0, active=run.active, cards=cards)
    if answer.active:
        answer.last_seq = 0  # chat.js asks for all its events and builds the bubble itself
        answer.cards = []
        return answer
    steps: dict[str, Step] = {}
    for event in events:
        kind = event["type"]
        if kind == "tool_call":
            arguments = event.get("arguments") or {}
            step = Step(call_id=str(event.get("call_id", "")), tool=str(event.get("tool", "")),
                        label=labels.get(str(event.get("tool", "")), str(event.get("tool", ""))),
                        argument=main_argument(arguments),
                        arguments=[(str(k), _shown(v)) for k, v in arguments.items()]
                        if isinstance(arguments, dict) else [])
            answer.steps.append(step)
            steps[step.call_id] = step
        elif kind == "tool_result":
            step = steps.get(str(event.get("call_id", "")))
            if step is None:
                continue
            step.done, step.ok = True, bool(event.get("ok"))
            step.summary, step.error = str(event.get("summary") or ""), str(event.get("error") or "")
            sources = event.get("source") or []
            step.sources = [source_text(s) for s in (sources if isinstance(sources, list) else [sources])]
        elif kind == "warning":
            answer.notices.append(("warning", str(event.get("message", ""))))
        elif kind == "error":
            answer.notices.append(("error", str(event.get("message", ""))))
        elif kind == "done":
            answer.html = render_markdown(event.get("text") or "")
            reason = event.get("finish_reason", "")
            if reason in FINISH_NOTES:
                note_kind = "cancelled" if reason == "cancelled" else "info"
                answer.notices.append((note_kind, FINISH_NOTES[reason]))
            if run.mode == AgentRun.Mode.BACKGROUND and reason not in ("cancelled", "error"):
                answer.notices.append(("done", "Hintergrundaufgabe abgeschlossen."))
            answer.continue_offered = bool(event.get("continue_offered")) and not has_child
        elif kind in ("ask_user", "plan_created", "plan_ready_for_review", "plan_review", "plan_step"):
            answer.extras.append(extra_lines(event))
    return answer


def _history(*, request: HttpRequest, conversation: Conversation) -> list[dict[str, Any]]:
    """User messages and answers in order; an answer is a run (with steps, cards and notices)."""
    runs = list(
        AgentRun.objects.filter(conversation=conversation)
        .annotate(last_seq=Max("events__seq"))
        .order_by("created_at")
    )
    events: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for event in RunEvent.objects.filter(run__conversation=conversation, type__in=_HISTORY_EVENTS).order_by(
        "run_id", "seq"
    ):
        events[event.run_id].append(event.as_dict())
    cards: dict[Any, list[SafeString]] = defaultdict(list)
    drafts = drafts_for(user=request.user).filter(run__conversation=conversation).order_by("created_at")
    for draft in drafts:
        cards[draft.run_id].append(render_card(draft=draft, user=request.user, request=request))
    parents = {run.parent_id for run in runs if run.parent_id}
    labels = tool_labels()
    items: list[tuple[Any, int, dict[str, Any]]] = []
    for run in runs:
        answer = _answer(run=run, events=events[run.pk], cards=cards[run.pk], labels=labels,
                         has_child=run.pk in parents)
        items.append((run.created_at, 1, {"kind": "answer", "answer": answer}))
    for message in conversation.messages.all():
        if message.role == Message.Role.USER:
            items.append((message.created_at, 0, {"kind": "user", "message": message}))
        elif message.run_id is None:  # an answer whose run is gone
            html = render_markdown(message.text)
            items.append((message.created_at, 1, {"kind": "assistant", "html": html}))
    items.sort(key=lambda item: (item[0], item[1]))
    return [item for _, _, item in items]


def tool_labels() -> dict[str, str]:
    """{tool name: German label} for the step lines."""
    return {name: tool.label or name for name, tool in all_tools().items()}


def context_label(conversation: Conversation) -> str:
    """'Akte 1/26 Meier ./. Stahlbau GmbH', else the context's name ('Allgemein')."""
    if conversation.akte_id and conversation.akte:
        return f"Akte {conversation.akte.aktenzeichen} {conversation.akte.kurzrubrum}"
    return conversation.get_context_type_display()


# --------------------------------------------------------------------------- views


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The user's conversations, newest activity first, and a button for a new one."""
    first_question = Message.objects.filter(conversation=OuterRef("pk"), role=Message.Role.USER).order_by(
        "created_at", "id"
    )
    conversations = (
        selectors.conversations_for(user=request.user)
        .annotate(first_question=Subquery(first_question.values("text")[:1]))
        .order_by("-updated_at")[:_HOME_LIMIT]
    )
    contexts = [(value, label) for value, label in Conversation.ContextType.choices
                if value != Conversation.ContextType.AKTE]
    return render(request, "helena/home.html", {"conversations": conversations, "contexts": contexts})


@login_required
@require_POST
def new_conversation(request: HttpRequest) -> HttpResponse:
    """Start a conversation (optionally with a context such as Fristen) and open it."""
    context_type = request.POST.get("context_type") or None
    if context_type == Conversation.ContextType.AKTE:
        context_type = None  # an Akte conversation starts from the Akte's page
    try:
        conversation = services.create_conversation(user=request.user, context_type=context_type)
    except services.RunRefused as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(reverse("helena:home"))
    return HttpResponseRedirect(reverse("helena:chat", args=[conversation.pk]))


@login_required
@require_POST
def akte_conversation(request: HttpRequest, akte_id: int) -> HttpResponse:
    """Start a conversation bound to an Akte the user may see (404 otherwise) and open it."""
    try:
        conversation = services.create_conversation(user=request.user, akte_id=akte_id)
    except NotFound:
        raise Http404("Akte nicht gefunden.") from None
    return HttpResponseRedirect(reverse("helena:chat", args=[conversation.pk]))


@login_required
@require_GET
def chat(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """One conversation: the history rendered here, live events through chat.js."""
    try:
        conversation = selectors.get_conversation(user=request.user, conversation_id=conversation_id)
    except NotFound:
        raise Http404("Gespräch nicht gefunden.") from None
    config = {
        "conversation_id": str(conversation.pk),
        "ws_path": f"/ws/helena/conversations/{conversation.pk}/",
        "answer_url": reverse("helena:answer", args=["00000000-0000-0000-0000-000000000000"]),
        "tool_labels": tool_labels(),
        "role": role_of(request.user),
    }
    context = {
        "conversation": conversation,
        "context_label": context_label(conversation),
        "history": _history(request=request, conversation=conversation),
        "chat_config": config,
        "modes": [("auto", "Automatisch"), ("inline", "Sofort"), ("background", "Im Hintergrund")],
    }
    return render(request, "helena/chat.html", context)


@login_required
@require_GET
def run_answer(request: HttpRequest, run_id: str) -> HttpResponse:
    """A finished run's answer as sanitised HTML, replacing the streamed plain text (chat.js).

    The text comes from the stored `done` event, which exists before any client hears of it;
    409 while the run has not ended yet.
    """
    try:
        run = selectors.get_run(user=request.user, run_id=run_id)
    except NotFound:
        raise Http404("Lauf nicht gefunden.") from None
    done = RunEvent.objects.filter(run=run, type="done").order_by("-seq").first()
    if done is None:
        return HttpResponse("", status=409, content_type="text/html; charset=utf-8")
    response = HttpResponse(render_markdown(done.payload.get("text") or ""),
                            content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response
