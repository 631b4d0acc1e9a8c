"""Plans as goals (seed 004): parsing and validating the model's plan, dependency order, retries,
replanning that keeps completed items."""

from __future__ import annotations

import json

import pytest

from helena.agent.planning import (
    PlanInvalid,
    PlanItem,
    is_complete,
    merge_replan,
    next_actionable,
    parse_items,
    planning_messages,
    progress_text,
    replanning_messages,
)


def plan(*items: tuple[str, list[int]]) -> str:
    return json.dumps({"items": [
        {"position": n, "description": d, "acceptance_criteria": f"{d} liegt vor", "dependencies": deps}
        for n, (d, deps) in enumerate(items, start=1)
    ]})


def test_a_valid_plan_is_parsed_into_goal_items() -> None:
    items = parse_items("```json\n" + plan(("Sachverhalt klären", []), ("Frist berechnen", [1]),
                                           ("Entwurf vorlegen", [1, 2])) + "\n```")
    assert [i.position for i in items] == [1, 2, 3]
    assert items[2].dependencies == [1, 2] and items[2].acceptance_criteria == "Entwurf vorlegen liegt vor"
    assert all(i.status == "pending" and i.max_attempts == 3 for i in items)


def test_the_models_numbering_is_mapped_to_ours() -> None:
    raw = json.dumps({"items": [
        {"position": 10, "description": "A", "acceptance_criteria": "a", "dependencies": []},
        {"position": 20, "description": "B", "acceptance_criteria": "b", "dependencies": [10]},
        {"position": 30, "description": "C", "acceptance_criteria": "c", "dependencies": [20]},
    ]})
    assert [i.dependencies for i in parse_items(raw)] == [[], [1], [2]]


@pytest.mark.parametrize(
    ("text", "fehler"),
    [
        ("kein json", "kein JSON"),
        (json.dumps({"schritte": []}), "items"),
        (plan(("A", []), ("B", [])), "3 bis 7"),
        (plan(*[(f"S{i}", []) for i in range(8)]), "3 bis 7"),
        (plan(("A", []), ("B", [9]), ("C", [])), "nicht vorhandenen"),
        (plan(("A", [3]), ("B", [1]), ("C", [2])), "Kreis"),
        (plan(("A", []), ("B", [2]), ("C", [])), "von sich selbst"),
        (plan(("A", []), ("search_gesetze aufrufen", []), ("C", [])), "Werkzeuge"),
        (json.dumps({"items": [{"position": 1, "description": "A"}] * 3}), "acceptance_criteria"),
    ],
)
def test_invalid_plans_say_what_to_fix(text: str, fehler: str) -> None:
    with pytest.raises(PlanInvalid) as exc:
        parse_items(text, tool_names=["search_gesetze"])
    assert fehler in str(exc.value)


def test_dependency_order_and_retries() -> None:
    items = parse_items(plan(("A", []), ("B", [1]), ("C", [])))
    assert next_actionable(items).position == 1
    items[0].status = "in_progress"
    items[0].attempts = 1
    assert next_actionable(items).position == 1  # interrupted (e.g. worker restart): resumed
    items[0].status, items[0].attempts = "failed", 1
    assert next_actionable(items).position == 1  # a failed item is retried first
    items[0].attempts = 3
    assert next_actionable(items).position == 3  # exhausted: B (needs A) must wait, C can run
    items[0].status = "completed"
    assert next_actionable(items).position == 2
    for item in items:
        item.status = "completed"
    assert next_actionable(items) is None and is_complete(items)
    assert progress_text(items, items[1]) == "Schritt 2/3: B"


def test_replanning_keeps_completed_items() -> None:
    items = parse_items(plan(("A", []), ("B", [1]), ("C", [2])))
    items[0].status, items[0].result = "completed", "A erledigt"
    items[1].status, items[1].attempts = "failed", 3
    messages = replanning_messages(objective="Ziel", items=items, reason="B scheitert dreimal")
    assert "A erledigt" in messages[1]["content"] and "B scheitert dreimal" in messages[1]["content"]
    new = parse_items(json.dumps({"items": [
        {"position": 2, "description": "B anders", "acceptance_criteria": "b", "dependencies": [1]},
        {"position": 3, "description": "C", "acceptance_criteria": "c", "dependencies": [2]},
    ]}), first_position=2, known_positions=[1], min_items=1)
    merged = merge_replan(items, new)
    assert [(i.position, i.description, i.status) for i in merged] == [
        (1, "A", "completed"), (2, "B anders", "pending"), (3, "C", "pending")]


def test_planning_messages_carry_the_rules_and_the_objective() -> None:
    messages = planning_messages(objective="Berufung prüfen", requested_outputs=["Fristenliste"],
                                 priority_entities=["Akte 1/26"], tool_names=["calculate_frist"])
    assert "3 bis 7" in messages[0]["content"] and "keine Werkzeugnamen" in messages[0]["content"]
    assert "Berufung prüfen" in messages[1]["content"] and "Fristenliste" in messages[1]["content"]
    assert PlanItem.from_dict({**PlanItem(1, "a", "b").as_dict(), "unbekannt": 1}).description == "a"
