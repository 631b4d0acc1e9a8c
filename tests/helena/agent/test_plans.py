"""agent_create_plan end to end over the API with the scripted model: auto_execute in dependency
order with a retry, draft_only reviewed in natural language and executed in a later run,
agent_review rejecting then approving, and a replan that keeps completed items."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helena.models import LLMCall, Plan
from tests.conftest import Kanzlei
from tests.helena.web.test_runs_api import ask, assert_one_done, events, post, wait
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FRIST = {"start": "2026-10-01", "dauer": {"monate": 1}, "bundesland": "NW"}


def items(*specs: tuple[str, list[int]]) -> dict[str, Any]:
    return {"text": json.dumps({"items": [
        {"position": n, "description": d, "acceptance_criteria": f"{d}: erledigt", "dependencies": deps}
        for n, (d, deps) in enumerate(specs, start=1)
    ]})}


def plan_call(objective: str, mode: str = "auto_execute") -> dict[str, Any]:
    return {"tool_calls": [{"name": "agent_create_plan",
                            "arguments": {"objective": objective, "execution_mode": mode}}]}


def thought_tool(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"text": json.dumps({"rationale": "Werkzeug nötig.", "expected_outcome": "Ergebnis",
                                "action": {"type": "tool_call", "tool": tool, "tool_input": arguments}})}


def thought_complete(summary: str) -> dict[str, Any]:
    return {"text": json.dumps({"rationale": "Schon erfüllt.", "expected_outcome": summary,
                                "action": {"type": "complete", "summary": summary}})}


def check(met: bool) -> dict[str, Any]:
    return {"text": json.dumps({"met": met, "reason": "geprüft"})}


def of(evs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in evs if e["type"] == kind]


def test_auto_execute_in_dependency_order_with_one_retry(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([
        plan_call("Berufungsfrist ermitteln und zusammenfassen"),
        # Item 1 needs item 2: 2 runs first.
        items(("Ergebnis festhalten", [2]), ("Fristende ermitteln", []), ("Zusammenfassen", [1])),
        thought_tool("calculate_frist", FRIST), check(False),  # item 2, attempt 1: not accepted
        thought_tool("calculate_frist", {**FRIST, "bundesland": "BY"}), check(True),  # attempt 2
        thought_complete("Fristende 02.11.2026 notiert"),  # item 1
        thought_complete("Zusammenfassung steht"),  # item 3
        {"text": "Der Plan ist abgearbeitet: Fristende 02.11.2026."},
    ])
    evs = _inline_plan(kanzlei, tiers)
    plan = Plan.objects.get()
    assert plan.status == "completed" and plan.version > 1
    statuses = {i["position"]: (i["status"], i["attempts"]) for i in plan.items}
    assert statuses == {1: ("completed", 1), 2: ("completed", 2), 3: ("completed", 1)}
    started = [e["position"] for e in of(evs, "plan_step") if e.get("status") == "started"]
    assert started == [2, 2, 1, 3]
    tools = [e["tool"] for e in of(evs, "tool_call")]
    assert tools == ["agent_create_plan", "calculate_frist", "calculate_frist"]
    assert any(e["state"] == "executing_plan" for e in of(evs, "agent_state"))
    (created,) = of(evs, "plan_created")
    assert created["plan_id"] == str(plan.pk) and len(created["items"]) == 3
    operations = set(LLMCall.objects.values_list("operation", flat=True))
    assert {"plan", "plan_step", "plan_check", "agent_step"} <= operations


def _inline_plan(kanzlei: Kanzlei, server: ScriptedLLMServer) -> list[dict[str, Any]]:
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Ermittle die Berufungsfrist und fasse zusammen.", mode="inline")
    assert wait(client, run_id, timeout=60)["finish_reason"] == "stop"
    evs = events(client, run_id)
    assert_one_done(evs)
    return evs


def _run(kanzlei: Kanzlei, conv_id: str | None, text: str) -> tuple[str, list[dict[str, Any]]]:
    client = kanzlei.client("anwalt")
    if conv_id is None:
        conv_id, run_id = ask(client, text, mode="inline")
    else:
        body = {"text": text, "mode": "inline"}
        status, body = post(client, f"/helena/conversations/{conv_id}/messages", body)
        assert status == 202, body
        run_id = body["run_id"]
    wait(client, run_id, timeout=60)
    evs = events(client, run_id)
    assert_one_done(evs)
    return conv_id, evs


def test_draft_only_is_reviewed_in_words_and_executed_in_a_later_run(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer
) -> None:
    tiers.script([
        plan_call("Berufung vorbereiten", "draft_only"),
        items(("Urteil auswerten", []), ("Frist berechnen", [1]), ("Entwurf vorlegen", [2])),
        {"text": "Hier ist mein Plan. Soll ich so vorgehen?"},
    ])
    conv_id, first = _run(kanzlei, None, "Bereite die Berufung vor, zeig mir aber erst den Plan.")
    plan = Plan.objects.get()
    assert plan.status == "pending_review" and len(of(first, "plan_ready_for_review")) == 1
    assert not of(first, "plan_step")
    tiers.script([
        plan_call("Füge vorher einen Schritt hinzu: Mandant anrufen", "auto_execute"),
        items(("Mandant anrufen", []), ("Urteil auswerten", [1]), ("Frist berechnen", [2]),
              ("Entwurf vorlegen", [3])),
        thought_complete("Mandant erreicht"), thought_complete("Urteil ausgewertet"),
        thought_complete("Frist steht"), thought_complete("Entwurf vorgelegt"),
        {"text": "Erledigt."},
    ])
    _, second = _run(kanzlei, conv_id, "Passt, aber ruf vorher den Mandanten an. Dann leg los.")
    plan.refresh_from_db()
    assert Plan.objects.count() == 1  # the reviewed plan, revised, not a new one
    assert plan.status == "completed" and len(plan.revisions) == 1
    assert plan.items[0]["description"] == "Mandant anrufen"
    assert [e["position"] for e in of(second, "plan_step") if e.get("status") == "completed"] == [1, 2, 3, 4]


def test_agent_review_rejects_then_approves(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([
        plan_call("Klageerwiderung vorbereiten", "agent_review"),
        items(("Klage lesen", []), ("Erwiderung schreiben", [1]), ("Vorlegen", [2])),
        {"text": json.dumps({"verdict": "rejected", "notes": "Die Erwiderungsfrist fehlt."})},
        plan_call("Klageerwiderung vorbereiten, mit Erwiderungsfrist", "agent_review"),
        items(("Klage lesen", []), ("Erwiderungsfrist notieren", [1]), ("Erwiderung schreiben", [2])),
        {"text": json.dumps({"verdict": "approved", "notes": "Vollständig."})},
        thought_complete("gelesen"), thought_complete("notiert"), thought_complete("geschrieben"),
        {"text": "Fertig."},
    ])
    _, evs = _run(kanzlei, None, "Bereite die Klageerwiderung vor.")
    reviews = of(evs, "plan_review")
    assert [(r["verdict"], r["notes"]) for r in reviews] == [
        ("rejected", "Die Erwiderungsfrist fehlt."), ("approved", "Vollständig.")]
    first, second = Plan.objects.order_by("created_at")
    assert first.status == "superseded" and second.status == "completed"
    assert LLMCall.objects.filter(operation="plan_review").count() == 2
    assert set(LLMCall.objects.filter(operation="plan_review").values_list("tier", "model")) == {(2, "gross")}
    results = [e for e in of(evs, "tool_result") if e["tool"] == "agent_create_plan"]
    assert results[0]["summary"] == "Plan bei der Prüfung abgelehnt"


def test_replan_keeps_completed_items(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([
        plan_call("Akte aufbereiten"),
        items(("A sichten", []), ("B ordnen", [1]), ("C berichten", [2])),
        thought_complete("A gesichtet"),
        {"text": json.dumps({"rationale": "B passt nicht.", "expected_outcome": "",
                             "action": {"type": "replan", "summary": "B ist überholt"}})},
        {"text": json.dumps({"items": [
            {"position": 2, "description": "B neu ordnen", "acceptance_criteria": "geordnet",
             "dependencies": [1]},
            {"position": 3, "description": "C berichten", "acceptance_criteria": "berichtet",
             "dependencies": [2]},
        ]})},
        thought_complete("neu geordnet"), thought_complete("berichtet"),
        {"text": "Fertig."},
    ])
    _, evs = _run(kanzlei, None, "Bereite die Akte auf.")
    plan = Plan.objects.get()
    assert plan.status == "completed"
    assert [(i["description"], i["status"]) for i in plan.items] == [
        ("A sichten", "completed"), ("B neu ordnen", "completed"), ("C berichten", "completed")]
    assert plan.items[0]["result"] == "A gesichtet"  # kept, not redone
    assert plan.revisions[0]["reason"] == "B ist überholt"
    (replanned,) = [e for e in of(evs, "plan_step") if e.get("status") == "replanned"]
    assert replanned["version"] == plan.revisions[0]["version"] + 1


def test_two_writers_never_advance_one_plan(kanzlei: Kanzlei) -> None:
    from helena.agent.plan_runner import PlanBusy, _items
    from helena.models import Conversation
    from helena.runs.ports import save_plan as _save

    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    plan = Plan.objects.create(conversation=conversation, objective="Ziel", items=[
        {"position": 1, "description": "A", "acceptance_criteria": "a"}])
    mine, theirs = Plan.objects.get(pk=plan.pk), Plan.objects.get(pk=plan.pk)
    items = _items(mine)
    items[0].status = "completed"
    _save(mine, items)
    with pytest.raises(PlanBusy):
        _save(theirs, _items(theirs))  # read before the other write: refused, nothing overwritten
    plan.refresh_from_db()
    assert plan.version == 2 and plan.items[0]["status"] == "completed"


def test_an_interrupted_plan_continues_where_it_stopped(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    """A worker died mid-plan: the plan is in the database; the next call continues it, without a new
    planning call and without redoing the completed item."""
    from helena.models import Conversation

    client = kanzlei.client("anwalt")
    _, conv = post(client, "/helena/conversations", {})
    conversation = Conversation.objects.get(pk=conv["id"])
    Plan.objects.create(conversation=conversation, objective="Akte aufbereiten", status="executing", items=[
        {"position": 1, "description": "A sichten", "acceptance_criteria": "a", "status": "completed",
         "attempts": 1, "result": "A gesichtet"},
        {"position": 2, "description": "B ordnen", "acceptance_criteria": "b", "dependencies": [1],
         "status": "in_progress", "attempts": 1},
        {"position": 3, "description": "C berichten", "acceptance_criteria": "c", "dependencies": [2]},
    ])
    tiers.script([plan_call("Akte aufbereiten"), thought_complete("B geordnet"),
                  thought_complete("C berichtet"), {"text": "Fertig."}])
    _, evs = _run(kanzlei, str(conversation.pk), "Mach bitte weiter.")
    plan = Plan.objects.get()
    assert plan.status == "completed"
    assert [(i["status"], i["result"]) for i in plan.items] == [
        ("completed", "A gesichtet"), ("completed", "B geordnet"), ("completed", "C berichtet")]
    assert plan.items[1]["attempts"] == 2  # the interrupted attempt counts
    assert not LLMCall.objects.filter(operation="plan").exists()
    assert [e["position"] for e in of(evs, "plan_step") if e.get("status") == "started"] == [2, 3]


def test_the_stored_plan_states_are_the_cores_states() -> None:
    """The core names a plan's states (agent/planning.PlanStatus); the Plan model stores the same."""
    from helena.agent.planning import PlanStatus

    core = {value for name, value in vars(PlanStatus).items() if name.isupper() and isinstance(value, str)}
    assert set(Plan.Status.values) == core
    assert core >= PlanStatus.CLOSED
