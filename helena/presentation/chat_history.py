"""Chat presentation: a conversation's stored events, drafts and plans turned into the history the
chat page renders on the server, with the same markup static/helena/chat.js builds from live
events (steps, cards, plan cards, notices)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Max
from django.http import HttpRequest
from django.utils.safestring import SafeString

from drafts.cards import render_card
from drafts.selectors import drafts_for
from helena.conversations import selectors
from helena.models import AgentRun, Conversation, Message, PendingQuestion, Plan, RunEvent
from helena.presentation.calls import main_argument
from helena.presentation.markdown import render_markdown
from helena.tools.registry import all_tools
from helena.tools.sources import akte_titel, quellen_texte, shown

# A German note per finish_reason (docs/protocol.md); chat.js has the same texts.
FINISH_NOTES = {
    "cancelled": "Abgebrochen.",
    "max_steps": "Helena hat die Höchstzahl an Schritten erreicht.",
    "tool_cap": "Zu viele Werkzeugaufrufe in einem Schritt – die Antwort beruht nur auf den ersten.",
    "timeout": "Die Zeit für diese Anfrage ist abgelaufen.",
    "stall": "Helena kam nicht weiter.",
    "waiting_on_user": "Helena wartet auf deine Antwort.",
}
MODE_BADGES = {"inline": "⚡ Direkt", "background": "🔄 Hintergrund"}
# The plan card's texts; chat.js has the same.
PLAN_ITEM_STATUS = {"pending": "offen", "in_progress": "läuft", "completed": "erledigt",
                    "failed": "gescheitert", "skipped": "übersprungen"}
PLAN_VERDICTS = {"approved": "Freigegeben", "rejected": "Abgelehnt"}
PLAN_REVIEW_HINT = ("Passt der Plan? Antworte einfach im Chat, z. B. „passt, leg los“ oder "
                    "„füge vorher … hinzu“.")
_PLAN_EVENTS = ("plan_created", "plan_ready_for_review", "plan_review", "plan_step")
# Events the history needs (text deltas are replaced by the done event's text).
_HISTORY_EVENTS = ("reasoning", "tool_call", "tool_result", "draft_created", "warning", "error", "done",
                   "resumed", "ask_user",
                   "plan_created", "plan_ready_for_review", "plan_review", "plan_step")


# --------------------------------------------------------------------------- presentation helpers


def run_tooltip(*, tier: Any, model: str, provider: str) -> str:
    """'Stufe 2 · qwen3:8b (ollama)': which model answered, for the badge's title."""
    text = f"Stufe {tier}"
    if model:
        text += f" · {model}"
        if provider:
            text += f" ({provider})"
    return text


@dataclass
class PlanItemView:
    position: int
    description: str
    acceptance_criteria: str
    status: str
    label: str
    attempts: int
    result: str


@dataclass
class PlanCard:
    """A plan in its last stored state, as chat.js builds it from the plan events."""

    plan_id: str
    objective: str
    version: int
    items: list[PlanItemView]
    revision: str = ""  # "Plan überarbeitet (Version 3): …" after a replan
    verdict: str = ""  # approved/rejected (agent_review)
    verdict_label: str = ""
    notes: str = ""
    hint: str = ""  # PLAN_REVIEW_HINT while the plan waits for the user's review (draft_only)


def plan_card(plan: Plan) -> PlanCard:
    items = []
    for item in plan.items if isinstance(plan.items, list) else []:
        if not isinstance(item, dict):
            continue
        status = str(item.get("status") or "pending")
        items.append(PlanItemView(
            position=int(item.get("position") or len(items) + 1),
            description=str(item.get("description") or ""),
            acceptance_criteria=str(item.get("acceptance_criteria") or ""), status=status,
            label=PLAN_ITEM_STATUS.get(status, status), attempts=int(item.get("attempts") or 0),
            result=str(item.get("result") or ""),
        ))
    card = PlanCard(plan_id=str(plan.pk), objective=plan.objective, version=plan.version, items=items,
                    hint=PLAN_REVIEW_HINT if plan.status == Plan.Status.PENDING_REVIEW else "")
    last = plan.revisions[-1] if isinstance(plan.revisions, list) and plan.revisions else None
    if isinstance(last, dict):
        version = int(last.get("version") or 0) + 1
        reason = str(last.get("reason") or "")
        card.revision = f"Plan überarbeitet (Version {version})" + (f": {reason}" if reason else "")
    review = plan.review if isinstance(plan.review, dict) else {}
    if review.get("verdict"):
        card.verdict = str(review["verdict"])
        card.verdict_label = PLAN_VERDICTS.get(card.verdict, card.verdict)
        card.notes = str(review.get("notes") or "")
    return card


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
    reasoning: str = ""  # a reasoning step ("Überlegung"): the model's thinking, collapsed


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
    plans: list[PlanCard] = field(default_factory=list)  # plans this run created
    plan_refs: list[tuple[str, str]] = field(default_factory=list)  # (plan_id, objective) of earlier plans
    question: str = ""  # what Helena asked (ask_user)
    waiting: bool = False  # the question is still open
    notices: list[tuple[str, str]] = field(default_factory=list)  # (kind, text): warning/error/info
    continue_offered: bool = False


@dataclass
class _Reading:
    """What reading one run's events needs besides the events: the tools' labels, the plans."""

    answer: Answer
    labels: dict[str, str]
    has_child: bool
    plans: dict[str, PlanCard]
    homes: dict[str, Any]
    steps: dict[str, Step] = field(default_factory=dict)  # by call_id
    viewer: Any = None  # who reads: records are cited only as far as they may see them


def _on_reasoning(reading: _Reading, event: dict[str, Any]) -> None:
    delta = str(event.get("delta") or "")
    steps = reading.answer.steps
    last = steps[-1] if steps else None
    if last is not None and last.reasoning:  # the same stretch of reasoning goes on
        last.reasoning += delta
    elif delta.strip():
        steps.append(Step(call_id="", tool="", label="Überlegung", argument="", arguments=[], done=True,
                          reasoning=delta.lstrip()))


def _on_tool_call(reading: _Reading, event: dict[str, Any]) -> None:
    arguments = event.get("arguments") or {}
    tool = str(event.get("tool", ""))
    listed = [(str(k), shown(v)) for k, v in arguments.items()] if isinstance(arguments, dict) else []
    step = Step(call_id=str(event.get("call_id", "")), tool=tool, label=reading.labels.get(tool, tool),
                argument=main_argument(arguments), arguments=listed)
    reading.answer.steps.append(step)
    reading.steps[step.call_id] = step


def _on_tool_result(reading: _Reading, event: dict[str, Any]) -> None:
    step = reading.steps.get(str(event.get("call_id", "")))
    if step is None:
        return
    step.done, step.ok = True, bool(event.get("ok"))
    step.summary, step.error = str(event.get("summary") or ""), str(event.get("error") or "")
    sources = event.get("source") or []
    step.sources = quellen_texte(sources if isinstance(sources, list) else [sources], user=reading.viewer)


def _on_done(reading: _Reading, event: dict[str, Any]) -> None:
    answer = reading.answer
    answer.html = render_markdown(event.get("text") or "", zitiert=answer.run.created_at)
    reason = event.get("finish_reason", "")
    if reason in FINISH_NOTES:
        answer.notices.append(("cancelled" if reason == "cancelled" else "info", FINISH_NOTES[reason]))
    if answer.run.mode == AgentRun.Mode.BACKGROUND and reason not in ("cancelled", "error"):
        answer.notices.append(("done", "Hintergrundaufgabe abgeschlossen."))
    answer.continue_offered = bool(event.get("continue_offered")) and not reading.has_child


def _on_plan_event(reading: _Reading, event: dict[str, Any]) -> None:
    """A plan created in an earlier run is referred to, not shown twice."""
    plan_id = str(event.get("plan_id") or "")
    card = reading.plans.get(plan_id)
    answer = reading.answer
    if card is not None and reading.homes.get(plan_id) != answer.run.pk and all(
            ref != plan_id for ref, _ in answer.plan_refs):
        answer.plan_refs.append((plan_id, card.objective))


def _on_notice(reading: _Reading, event: dict[str, Any]) -> None:
    reading.answer.notices.append((event["type"], str(event.get("message", ""))))  # warning, error


def _on_resumed(reading: _Reading, event: dict[str, Any]) -> None:
    """„Helena macht weiter …“ stays where the answer paused, as the live chat showed it."""
    reading.answer.notices.append(("info", str(event.get("message", ""))))


def _on_ask_user(reading: _Reading, event: dict[str, Any]) -> None:
    reading.answer.question = str(event.get("question") or "")


_ON_EVENT: dict[str, Callable[[_Reading, dict[str, Any]], None]] = {
    "reasoning": _on_reasoning,
    "tool_call": _on_tool_call,
    "tool_result": _on_tool_result,
    "warning": _on_notice,
    "error": _on_notice,
    "resumed": _on_resumed,
    "done": _on_done,
    "ask_user": _on_ask_user,
    **dict.fromkeys(_PLAN_EVENTS, _on_plan_event),
}


def _answer(*, run: AgentRun, events: list[dict[str, Any]], cards: list[SafeString],
            labels: dict[str, str], has_child: bool, plans: dict[str, PlanCard] | None = None,
            homes: dict[str, Any] | None = None, waiting: bool = False, viewer: Any = None) -> Answer:
    """`plans` are the conversation's plan cards by id, `homes` the run each card is shown in."""
    plans, homes = plans or {}, homes or {}
    answer = Answer(run=run, badge=MODE_BADGES.get(run.mode, run.mode),
                    tooltip=run_tooltip(tier=run.tier, model=run.model, provider=run.provider),
                    last_seq=run.last_seq or 0, active=run.active, cards=cards)
    if answer.active:
        answer.last_seq = 0  # chat.js asks for all its events and builds the bubble itself
        answer.cards = []
        return answer
    answer.plans = [card for plan_id, card in plans.items() if homes.get(plan_id) == run.pk]
    answer.waiting = waiting and run.finish_reason == "waiting_on_user"
    reading = _Reading(answer=answer, labels=labels, has_child=has_child, plans=plans, homes=homes,
                       viewer=viewer)
    for event in events:
        handler = _ON_EVENT.get(event["type"])
        if handler is not None:
            handler(reading, event)
    return answer


def history(*, request: HttpRequest, conversation: Conversation,
            question: PendingQuestion | None = None) -> list[dict[str, Any]]:
    """User messages and answers in order; an answer is a run (with steps, cards, plans and notices)."""
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
    plans, homes = _plan_cards(conversation=conversation, runs=runs, events=events)
    items: list[tuple[Any, int, dict[str, Any]]] = []
    for run in runs:
        answer = _answer(run=run, events=events[run.pk], cards=cards[run.pk], labels=labels,
                         has_child=run.pk in parents, plans=plans, homes=homes,
                         waiting=question is not None and question.run_id == run.pk, viewer=request.user)
        items.append((run.created_at, 1, {"kind": "answer", "answer": answer}))
    for message in conversation.messages.all():
        if message.role == Message.Role.USER:
            items.append((message.created_at, 0, {"kind": "user", "message": message}))
        elif message.run_id is None:  # an answer whose run is gone
            html = render_markdown(message.text, zitiert=message.created_at)
            items.append((message.created_at, 1, {"kind": "assistant", "html": html}))
    items.sort(key=lambda item: (item[0], item[1]))
    return [item for _, _, item in items]


def _plan_cards(*, conversation: Conversation, runs: list[AgentRun],
                events: dict[Any, list[dict[str, Any]]]) -> tuple[dict[str, PlanCard], dict[str, Any]]:
    """The conversation's plans as cards, and the run whose answer shows each: the run that made
    it (as in chat.js, where plan_created first draws the card), else the first run naming it."""
    plans = list(selectors.plans_of(conversation=conversation))
    cards = {str(plan.pk): plan_card(plan) for plan in plans}
    run_ids = {run.pk for run in runs}
    homes: dict[str, Any] = {}
    for plan in plans:
        if plan.run_id in run_ids:
            homes[str(plan.pk)] = plan.run_id
    for run in runs:
        for event in events[run.pk]:
            plan_id = str(event.get("plan_id") or "")
            if event["type"] in _PLAN_EVENTS and plan_id in cards:
                homes.setdefault(plan_id, run.pk)
    return cards, homes


def tool_labels() -> dict[str, str]:
    """{tool name: German label} for the step lines."""
    return {name: tool.label or name for name, tool in all_tools().items()}


def context_label(conversation: Conversation) -> str:
    """'Akte 1/26 Meier ./. Stahlbau GmbH', else the context's name ('Allgemein')."""
    if conversation.akte_id and conversation.akte:
        return akte_titel(conversation.akte)
    return conversation.get_context_type_display()
