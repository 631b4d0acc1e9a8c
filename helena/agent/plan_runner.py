"""The agent_create_plan meta tool (seed 003 §4.3, seed 004): plan, then per execution_mode
auto-execute, pause for the user's review (draft_only) or let a reviewer decide (agent_review).

Execution happens inside the same run: per actionable item a thought (rationale, action, expected
outcome) picks one tool; its result is checked against the item's acceptance criteria (cheap check
first: the tool must have succeeded; then a short LLM check). Failed items are retried up to their
attempts, then the rest of the plan is replanned once. Every change is saved with an optimistic
version check, so two workers never advance one plan, and a plan interrupted by a worker restart
continues where it stopped when the model calls the tool again.

The plan is kept through the run's `PlanStore` port (ctx.plans), a question goes out through its
`ask` port, the reviewer's model comes from `model_at_least`: the runner itself touches no database.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from helena.agent.events import tool_call_fields, tool_result_fields
from helena.agent.planning import (
    PlanBusy,
    PlanInvalid,
    PlanItem,
    PlanRecord,
    PlanStatus,
    PlanStore,
    is_complete,
    json_object,
    merge_replan,
    next_actionable,
    parse_items,
    planning_messages,
    progress_text,
    replanning_messages,
)
from helena.agent.tooling import ToolContext, ToolResult
from helena.llm.base import collect
from helena.llm.wrappers.base import booked_as

log = logging.getLogger(__name__)

MAX_THOUGHTS = 30  # per tool call: 7 items × 3 attempts plus a replan's items, with headroom
THOUGHT_PROMPT = """Du führst einen Schritt eines Plans aus. Wähle genau EINE Aktion. Antworte NUR mit JSON:
{"rationale": "höchstens zwei Sätze", "action": {"type": "tool_call" | "ask_user" | "complete" | "replan",
 "tool": "...", "tool_input": {...}, "question": "...", "answer_key": "...", "summary": "..."},
 "expected_outcome": "..."}
- tool_call: ein Werkzeug aus der Liste mit seinen Parametern.
- ask_user: nur wenn eine Angabe fehlt, die kein Werkzeug liefern kann.
- complete: der Schritt ist mit dem bisher Bekannten schon erfüllt; summary sagt, was herauskam.
- replan: der Plan passt nicht mehr; summary sagt, warum."""
CHECK_PROMPT = """Prüfe, ob das Abnahmekriterium eines Planschritts durch das Ergebnis erfüllt ist. \
Antworte NUR mit JSON {"met": true | false, "reason": "ein Satz"}."""
REVIEW_PROMPT = """Du prüfst als erfahrene Anwältin den Plan einer KI-Kollegin, bevor er ausgeführt wird: \
Sind die Schritte vollständig, in sinnvoller Reihenfolge, prüfbar und rechtlich sorgfältig (Fristen, \
Freigabe vor dem Anlegen)? Antworte NUR mit JSON {"verdict": "approved" | "rejected", "notes": "..."}."""


def _json(text: str) -> dict[str, Any]:
    """The model's JSON object (fences and chatter around it tolerated), else ValueError."""
    value = json_object(text)  # PlanInvalid is a ValueError
    if not isinstance(value, dict):
        raise ValueError("kein JSON-Objekt")
    return value


async def _ask_model(ctx: ToolContext, operation: str, messages: list[dict[str, Any]]) -> str:
    turn = await collect(booked_as(ctx.model, operation).stream(messages=messages, tools=None))
    return turn.text


async def _emit(ctx: ToolContext, type: str, **data: Any) -> None:
    if ctx.emit is not None:
        await ctx.emit(type, **data)


def _store(ctx: ToolContext) -> PlanStore:
    assert ctx.plans is not None  # the tool refuses to plan outside a run
    return ctx.plans


def _items(plan: PlanRecord) -> list[PlanItem]:
    return [PlanItem.from_dict(d) for d in plan.items]


def _public(plan: PlanRecord, items: list[PlanItem]) -> dict[str, Any]:
    return {"plan_id": str(plan.pk), "version": plan.version, "objective": plan.objective,
            "execution_mode": plan.execution_mode, "status": plan.status,
            "items": [{k: v for k, v in i.as_dict().items() if k != "max_attempts"} for i in items]}


# --------------------------------------------------------------------------- planning


async def _plan_items(ctx: ToolContext, messages: list[dict[str, Any]], **parse: Any) -> list[PlanItem]:
    """Ask for a plan; one correction round if it is invalid."""
    tool_names = list((ctx.offered or {}).keys())
    text = await _ask_model(ctx, "plan", messages)
    try:
        return parse_items(text, tool_names=tool_names, **parse)
    except PlanInvalid as exc:
        retry = [*messages, {"role": "assistant", "content": text},
                 {"role": "user", "content": f"Der Plan ist ungültig: {exc} Bitte korrigieren."}]
        return parse_items(await _ask_model(ctx, "plan", retry), tool_names=tool_names, **parse)


async def _quality_model(ctx: ToolContext) -> Any:
    """The reviewer's model (seed 003 §4.3 'quality' profile): at least tier 2 if one is configured,
    booked as plan_review for the run."""
    if ctx.model_at_least is None:
        return booked_as(ctx.model, "plan_review")
    return await ctx.model_at_least(ctx.model, 2, "plan_review")


async def _review(ctx: ToolContext, plan: PlanRecord, items: list[PlanItem]) -> tuple[bool, str]:
    listing = "\n".join(f"{i.position}. {i.description} (Abnahme: {i.acceptance_criteria}; "
                        f"nach {i.dependencies or '–'})" for i in items)
    reviewer = await _quality_model(ctx)
    turn = await collect(reviewer.stream(messages=[
        {"role": "system", "content": REVIEW_PROMPT},
        {"role": "user", "content": f"Ziel: {plan.objective}\nPlan:\n{listing}"},
    ], tools=None))
    text = turn.text
    try:
        verdict = _json(text)
    except ValueError:
        return False, "Die Prüfung lieferte kein verwertbares Urteil."
    approved = str(verdict.get("verdict", "")).lower() == "approved"
    return approved, str(verdict.get("notes") or "")[:2000]


# --------------------------------------------------------------------------- execution


async def _thought(ctx: ToolContext, plan: PlanRecord, items: list[PlanItem], item: PlanItem,
                   answers: dict[str, Any]) -> dict[str, Any]:
    offered = {n: t for n, t in (ctx.offered or {}).items() if t.kind != "meta"}
    tools = "\n".join(f"- {t.name}: {t.description} Parameter: "
                      f"{json.dumps(t.params.model_json_schema().get('properties', {}), ensure_ascii=False)}"
                      for t in offered.values())
    done = [f"{i.position}. {i.description}: {i.result}" for i in items if i.status == "completed"][-5:]
    context = (f"Ziel des Plans: {plan.objective}\nAktueller Schritt {item.position}: {item.description}\n"
               f"Abnahmekriterium: {item.acceptance_criteria}\n"
               f"Versuch {item.attempts + 1} von {item.max_attempts}"
               + (f"\nLetztes Ergebnis dieses Schritts: {item.result}" if item.result else "")
               + ("\nErledigt:\n" + "\n".join(done) if done else "")
               + (f"\nAntworten des Nutzers: {json.dumps(answers, ensure_ascii=False)}" if answers else "")
               + f"\nWerkzeuge:\n{tools}")
    text = await _ask_model(ctx, "plan_step", [{"role": "system", "content": THOUGHT_PROMPT},
                                               {"role": "user", "content": context}])
    try:
        thought = _json(text)
    except ValueError:
        return {"rationale": "", "action": {"type": "invalid"}, "expected_outcome": ""}
    if not isinstance(thought.get("action"), dict):
        thought["action"] = {"type": "invalid"}
    return thought


async def _accepted(ctx: ToolContext, item: PlanItem, observation: str) -> tuple[bool, str]:
    text = await _ask_model(ctx, "plan_check", [
        {"role": "system", "content": CHECK_PROMPT},
        {"role": "user",
         "content": f"Abnahmekriterium: {item.acceptance_criteria}\nErgebnis: {observation[:4000]}"},
    ])
    try:
        verdict = _json(text)
    except ValueError:
        return False, "Prüfung ohne verwertbares Ergebnis"
    return bool(verdict.get("met")), str(verdict.get("reason") or "")[:300]


async def _execute(ctx: ToolContext, plan: PlanRecord) -> ToolResult:
    items = _items(plan)
    answers = await _store(ctx).answers()
    await _store(ctx).save(plan, items, status=PlanStatus.EXECUTING)
    replanned = False
    for _ in range(MAX_THOUGHTS):
        item = next_actionable(items)
        if item is None:
            break
        await _emit(ctx, "agent_state", state="executing_plan", details=progress_text(items, item))
        await _emit(ctx, "plan_step", plan_id=str(plan.pk), position=item.position, status="started",
                    description=item.description, attempt=item.attempts + 1,
                    summary=progress_text(items, item))
        thought = await _thought(ctx, plan, items, item, answers)
        action = thought["action"]
        kind = action.get("type")
        item.status = "in_progress"
        item.attempts += 1
        if kind == "ask_user" and action.get("question"):
            question = " ".join(str(action["question"]).split())[:2000]
            key = "antwort"
            if ctx.ask is not None:
                key = await ctx.ask(call_id=ctx.call_id or "", question=question,
                                    answer_key=action.get("answer_key"), plan_id=plan.pk)
            item.attempts -= 1  # asking is not a failed attempt
            item.status = "pending"
            await _store(ctx).save(plan, items, status=PlanStatus.WAITING)
            await _emit(ctx, "plan_step", plan_id=str(plan.pk), position=item.position, status="pending",
                        description=item.description, attempt=item.attempts,
                        summary=f"Wartet auf deine Antwort: {question[:80]}")
            return ToolResult(ok=True, pause=True, summary=f"Rückfrage: {question[:80]}",
                              data={**_public(plan, items), "hinweis": "Der Plan wartet auf die Antwort des "
                                    "Nutzers; danach agent_create_plan erneut aufrufen, um fortzufahren."},
                              events=[("ask_user", {"question": question, "answer_key": key})])
        if kind == "replan" or (kind == "invalid" and item.attempts >= item.max_attempts):
            item.status = "failed"
            items, replanned = await _replan(ctx, plan, items, str(action.get("summary") or "unpassend"),
                                             replanned)
            continue
        if kind == "complete":
            item.status = "completed"
            item.result = str(action.get("summary") or thought.get("rationale", ""))[:500]
        elif kind == "tool_call" and action.get("tool"):
            # One id per plan version, step and try: a draft is found again only by the call that made it
            # (a replanned step reuses a failed step's position).
            call_id = f"plan-{plan.pk.hex[:8]}-r{len(plan.revisions)}-{item.position}-{item.attempts}"
            arguments = action.get("tool_input") if isinstance(action.get("tool_input"), dict) else {}
            await _emit(ctx, "tool_call", **tool_call_fields(call_id=call_id, tool=action["tool"],
                                                             arguments=arguments, step=item.position))
            offered = {n: t for n, t in (ctx.offered or {}).items() if t.kind != "meta"}
            result = await ctx.execute(name=action["tool"], arguments=arguments, offered=offered,
                                       ctx=dataclasses.replace(ctx, call_id=call_id))  # a draft per call
            await _emit(ctx, "tool_result", **tool_result_fields(call_id=call_id, tool=action["tool"],
                                                                 result=result))
            for event_type, data in result.events:
                await _emit(ctx, event_type, **data)
            observation = json.dumps(result.observation(), ensure_ascii=False, default=str)
            if result.ok:  # cheap check first: a failed tool never meets the criteria
                met, reason = await _accepted(ctx, item, observation)
            else:
                met, reason = False, result.error or ""
            item.result = (result.summary or reason)[:500]
            item.status = "completed" if met else "failed"
        else:
            item.status = "failed"
            item.result = "Keine ausführbare Aktion gewählt."
        await _emit(ctx, "plan_step", plan_id=str(plan.pk), position=item.position, status=item.status,
                    description=item.description, attempt=item.attempts, result=item.result,
                    summary=progress_text(items, item))
        if item.status == "failed" and item.attempts >= item.max_attempts:
            why = f"Schritt {item.position} ist nach {item.attempts} Versuchen gescheitert: {item.result}"
            items, replanned = await _replan(ctx, plan, items, why, replanned)
            continue
        await _store(ctx).save(plan, items)
    status = PlanStatus.COMPLETED if is_complete(items) else PlanStatus.FAILED
    await _store(ctx).save(plan, items, status=status)
    done = sum(1 for i in items if i.status == "completed")
    summary = f"Plan {'abgeschlossen' if status == PlanStatus.COMPLETED else 'nicht vollständig'}: " \
              f"{done}/{len(items)} Schritte erledigt"
    return ToolResult(ok=True, data=_public(plan, items), summary=summary)


async def _replan(ctx: ToolContext, plan: PlanRecord, items: list[PlanItem], reason: str,
                  replanned: bool) -> tuple[list[PlanItem], bool]:
    """Replace the remaining items once per call; completed items stay completed."""
    if replanned:
        for item in items:
            if item.status not in ("completed", "skipped"):
                item.status = "skipped" if item.status == "pending" else "failed"
                item.attempts = item.max_attempts
        await _store(ctx).save(plan, items)
        return items, True
    done = [i.position for i in items if i.status == "completed"]
    try:
        messages = replanning_messages(objective=plan.objective, items=items, reason=reason)
        new = await _plan_items(ctx, messages, first_position=max(done, default=0) + 1, known_positions=done,
                                min_items=1)
    except PlanInvalid:
        return await _replan(ctx, plan, items, reason, True)
    merged = merge_replan(items, new)
    revisions = [*plan.revisions, {"version": plan.version, "items": plan.items, "reason": reason}]
    await _store(ctx).save(plan, merged, revisions=revisions)
    await _emit(ctx, "plan_step", plan_id=str(plan.pk), status="replanned", version=plan.version,
                reason=reason, items=[i.as_dict() for i in merged])
    return merged, True


# --------------------------------------------------------------------------- the tool


async def agent_create_plan(params: Any, ctx: ToolContext) -> ToolResult:
    """Plan (or continue the conversation's open plan), then act per execution_mode."""
    existing = await _store(ctx).open_plan()
    try:
        if existing is not None and existing.status in (PlanStatus.EXECUTING, PlanStatus.WAITING):
            plan = existing  # interrupted (worker restart) or waited for an answer: continue
        elif (existing is not None and existing.status == PlanStatus.PENDING_REVIEW
              and params.execution_mode != "draft_only"):
            plan = existing  # the user has reviewed the draft in natural language
            if " ".join(params.objective.split()) != " ".join(plan.objective.split()):
                items = await _plan_items(ctx, replanning_messages(
                    objective=plan.objective, items=_items(plan),
                    reason=f"Rückmeldung des Nutzers: {params.objective}"))
                revisions = [*plan.revisions, {"version": plan.version, "items": plan.items,
                                               "reason": params.objective}]
                await _store(ctx).save(plan, items, revisions=revisions)
                await _emit(ctx, "plan_created", **_public(plan, items), reason=params.objective)
        else:
            items = await _plan_items(ctx, planning_messages(
                objective=params.objective, requested_outputs=params.requested_outputs or (),
                priority_entities=params.priority_entities or (),
                tool_names=list((ctx.offered or {}).keys())))
            draft = params.execution_mode == "draft_only"
            status = PlanStatus.PENDING_REVIEW if draft else PlanStatus.EXECUTING
            plan = await _store(ctx).create(
                objective=params.objective, execution_mode=params.execution_mode,
                requested_outputs=params.requested_outputs or [],
                priority_entities=params.priority_entities or [], status=status, items=items)
            await _emit(ctx, "plan_created", **_public(plan, items))
            if params.execution_mode == "draft_only":
                await _emit(ctx, "plan_ready_for_review", **_public(plan, items))
                return ToolResult(ok=True, summary=f"Plan mit {len(items)} Schritten zur Prüfung vorgelegt",
                                  data={**_public(plan, items), "hinweis": "Der Plan liegt dem Nutzer zur "
                                        "Prüfung vor. Frage, ob er so ausgeführt werden soll oder was zu "
                                        "ändern ist; führe ihn erst nach Zustimmung aus."})
            if params.execution_mode == "agent_review":
                approved, notes = await _review(ctx, plan, items)
                await _emit(ctx, "plan_review", plan_id=str(plan.pk), verdict="approved" if approved else
                            "rejected", notes=notes)
                await _store(ctx).save(plan, items, review={"verdict": "approved" if approved else
                                                                "rejected", "notes": notes})
                if not approved:
                    await _store(ctx).save(plan, items, status=PlanStatus.SUPERSEDED)
                    return ToolResult(ok=True, summary="Plan bei der Prüfung abgelehnt", data={
                        **_public(plan, items), "review": {"verdict": "rejected", "notes": notes},
                        "hinweis": "Überarbeite das Ziel anhand der Kritik und rufe agent_create_plan "
                                   "erneut auf."})
        return await _execute(ctx, plan)
    except PlanInvalid as exc:
        return ToolResult(ok=False, error=f"Es kam kein brauchbarer Plan zustande: {exc}",
                          error_code="plan_invalid", summary="Plan ungültig")
    except PlanBusy:
        return ToolResult(ok=False, error="Dieser Plan wird gerade von einem anderen Lauf bearbeitet.",
                          error_code="conflict", summary="Plan in Bearbeitung")
