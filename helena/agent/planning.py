"""Goal-oriented plans (seed 004 §1.1, §5): items say WHAT is to be achieved and how to tell that it
is done, never which tool to use; the executor chooses the action per item at run time.

Pure functions: the planning prompt, parsing and validating the model's plan, dependency order,
replanning that keeps completed items; and the port through which a plan is kept (`PlanStore`,
implemented in helena/runs/ports.py). Execution is helena/agent/plan_runner.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

ItemStatus = Literal["pending", "in_progress", "completed", "failed", "skipped"]
MIN_ITEMS, MAX_ITEMS = 3, 7
MAX_ATTEMPTS = 3


class PlanInvalid(ValueError):
    """The model's plan cannot be used; the German message goes back to the model."""


class PlanBusy(Exception):
    """Another worker changed the plan since we read it."""


class PlanStatus:
    """A plan's states (the Plan model's choices take their values from here)."""

    PENDING_REVIEW = "pending_review"
    EXECUTING = "executing"
    WAITING = "waiting_on_user"
    COMPLETED = "completed"
    FAILED = "failed"
    SUPERSEDED = "superseded"
    CLOSED = frozenset({COMPLETED, FAILED, SUPERSEDED})


class PlanRecord(Protocol):
    """A stored plan as the runner reads it."""

    pk: Any
    version: int
    objective: str
    execution_mode: str
    status: str
    items: list[dict[str, Any]]
    revisions: list[dict[str, Any]]


class PlanStore(Protocol):
    """Where the plans of the run's conversation are kept (a port of the run)."""

    async def open_plan(self) -> PlanRecord | None:
        """The conversation's newest plan that is not closed, if any."""
        ...

    async def create(self, *, objective: str, execution_mode: str, requested_outputs: list[str],
                     priority_entities: list[str], status: str, items: list[PlanItem]) -> PlanRecord:
        """A new plan, replacing an unfinished one of the conversation."""
        ...

    async def save(self, plan: PlanRecord, items: list[PlanItem], **changes: Any) -> None:
        """Write items (and e.g. status) only if nobody did since `plan.version`, else PlanBusy;
        `plan` is updated to what was written."""
        ...

    async def answers(self) -> dict[str, Any]:
        """The user's answers to the conversation's questions, by answer key."""
        ...


@dataclass
class PlanItem:
    position: int
    description: str
    acceptance_criteria: str
    dependencies: list[int] = field(default_factory=list)
    status: ItemStatus = "pending"
    attempts: int = 0
    max_attempts: int = MAX_ATTEMPTS
    result: str = ""  # a short German summary of what the item produced

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlanItem:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


PLANNING_PROMPT = """Du planst eine Aufgabe für Helena, die KI-Mitarbeiterin einer Anwaltskanzlei.
Zerlege das Ziel in 3 bis 7 Schritte. Regeln:
- Jeder Schritt beschreibt, WAS erreicht werden soll, nicht WIE: keine Werkzeugnamen, keine Funktionsaufrufe.
- Jeder Schritt hat ein Abnahmekriterium als beobachtbare Bedingung \
(z. B. „Das Fristende ist mit Begründung berechnet“, nicht „Frist berechnen“).
- Abhängigkeiten nennen die Nummern früherer Schritte, deren Ergebnis gebraucht wird.
- Nichts wird ohne Freigabe in die Akte geschrieben: Schritte, die etwas anlegen, legen einen Entwurf vor.
Antworte NUR mit JSON in dieser Form:
{"items": [{"position": 1, "description": "...", "acceptance_criteria": "...", "dependencies": []}]}"""

REPLAN_PROMPT = """Überarbeite die verbleibenden Schritte eines Plans. Erledigte Schritte bleiben, wie \
sie sind, und werden nicht wiederholt. Es gelten dieselben Regeln wie beim Planen. Antworte NUR mit \
JSON {"items": [...]} mit den NEUEN verbleibenden Schritten; ihre Positionen beginnen nach dem letzten \
erledigten Schritt, Abhängigkeiten dürfen auf erledigte Schritte verweisen."""


def planning_messages(
    *, objective: str, context: str = "", requested_outputs: Iterable[str] = (),
    priority_entities: Iterable[str] = (), tool_names: Iterable[str] = (),
) -> list[dict[str, str]]:
    """The planning call's messages (seed 004 §5)."""
    lines = [f"Ziel: {objective.strip()}"]
    outputs = [o for o in requested_outputs if o]
    if outputs:
        lines.append("Gewünschte Ergebnisse: " + "; ".join(outputs))
    entities = [e for e in priority_entities if e]
    if entities:
        lines.append("Im Mittelpunkt stehen: " + ", ".join(entities))
    if context:
        lines.append(context)
    names = ", ".join(tool_names)
    hint = f"\n(Zur Information, nicht nennen: verfügbar sind {names}.)" if names else ""
    system = PLANNING_PROMPT + hint
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines)}]


def replanning_messages(*, objective: str, items: list[PlanItem], reason: str) -> list[dict[str, str]]:
    done = [i for i in items if i.status == "completed"]
    rest = [i for i in items if i.status != "completed"]
    text = (
        f"Ziel: {objective}\nGrund der Überarbeitung: {reason}\n"
        f"Erledigt:\n{_listing(done) or '(nichts)'}\nBisher geplant, offen:\n{_listing(rest) or '(nichts)'}"
    )
    return [{"role": "system", "content": PLANNING_PROMPT + "\n\n" + REPLAN_PROMPT},
            {"role": "user", "content": text}]


def _listing(items: list[PlanItem]) -> str:
    return "\n".join(
        f"{i.position}. {i.description} (Abnahme: {i.acceptance_criteria})"
        + (f" – Ergebnis: {i.result}" if i.result else "")
        for i in items
    )


def json_object(text: str) -> Any:
    text = text.strip()
    fence = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.DOTALL)
    if fence:
        text = fence.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start == -1 or end <= start:
            raise PlanInvalid("Die Antwort enthält kein JSON-Objekt.") from None
        try:
            return json.loads(text[start:end + 1])
        except json.JSONDecodeError:
            raise PlanInvalid("Die Antwort enthält kein gültiges JSON.") from None


def parse_items(text: str, *, tool_names: Iterable[str] = (), first_position: int = 1,
                known_positions: Iterable[int] = (), min_items: int = MIN_ITEMS) -> list[PlanItem]:
    """The model's plan as validated items, or PlanInvalid saying what to fix."""
    data = json_object(text)
    raw = data.get("items") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        raise PlanInvalid("Es fehlt die Liste „items“.")
    if not min_items <= len(raw) <= MAX_ITEMS:
        raise PlanInvalid(f"Der Plan braucht {min_items} bis {MAX_ITEMS} Schritte, nicht {len(raw)}.")
    items: list[PlanItem] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise PlanInvalid(f"Schritt {index + 1} ist kein Objekt.")
        description = str(entry.get("description") or "").strip()
        criteria = str(entry.get("acceptance_criteria") or "").strip()
        if not description or not criteria:
            raise PlanInvalid(f"Schritt {index + 1} braucht „description“ und „acceptance_criteria“.")
        deps = entry.get("dependencies") or []
        if not isinstance(deps, list) or any(not isinstance(d, int) or isinstance(d, bool) for d in deps):
            raise PlanInvalid(f"Schritt {index + 1}: „dependencies“ muss eine Liste von Schrittnummern sein.")
        items.append(PlanItem(position=first_position + index, description=description[:500],
                              acceptance_criteria=criteria[:500], dependencies=sorted(set(deps))))
    # The model numbers as it likes; positions are ours. Map its numbers if they were consistent.
    given = [entry.get("position") for entry in raw]
    if all(isinstance(p, int) for p in given) and len(set(given)) == len(given):
        mapping = {old: item.position for old, item in zip(given, items, strict=True)}
        for item in items:
            item.dependencies = sorted({mapping.get(d, d) for d in item.dependencies})
    validate(items, tool_names=tool_names, known_positions=known_positions)
    return items


def validate(
    items: list[PlanItem], *, tool_names: Iterable[str] = (), known_positions: Iterable[int] = ()
) -> None:
    """Dependencies exist and form no cycle; no item names a tool (items are goals)."""
    positions = {i.position for i in items} | set(known_positions)
    names = [n for n in tool_names if n]
    for item in items:
        missing = [d for d in item.dependencies if d not in positions]
        if missing:
            raise PlanInvalid(f"Schritt {item.position} hängt von nicht vorhandenen Schritten {missing} ab.")
        if item.position in item.dependencies:
            raise PlanInvalid(f"Schritt {item.position} hängt von sich selbst ab.")
        mentioned = [n for n in names if n in item.description or n in item.acceptance_criteria]
        if mentioned:
            raise PlanInvalid(f"Schritt {item.position} nennt Werkzeuge ({', '.join(mentioned)}); beschreibe "
                              "das Ziel, nicht das Werkzeug.")
    graph = {i.position: set(i.dependencies) & {j.position for j in items} for i in items}
    state: dict[int, int] = {}  # 1 visiting, 2 done

    def visit(node: int) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            raise PlanInvalid("Die Abhängigkeiten bilden einen Kreis.")
        state[node] = 1
        for dep in graph.get(node, ()):
            visit(dep)
        state[node] = 2

    for node in graph:
        visit(node)


def next_actionable(items: list[PlanItem]) -> PlanItem | None:
    """The first item, by position, that may run now: pending (or failed with attempts left) and all
    its dependencies completed."""
    done = {i.position for i in items if i.status in ("completed", "skipped")}
    for item in sorted(items, key=lambda i: i.position):
        if item.status in ("completed", "skipped"):
            continue
        retry = item.status in ("failed", "in_progress") and item.attempts < item.max_attempts
        if (item.status == "pending" or retry) and set(item.dependencies) <= done:
            return item
    return None


def is_complete(items: list[PlanItem]) -> bool:
    return all(i.status in ("completed", "skipped") for i in items)


def merge_replan(items: list[PlanItem], new_items: list[PlanItem]) -> list[PlanItem]:
    """Completed items stay as they were; everything else is replaced by the new items."""
    kept = [i for i in items if i.status == "completed"]
    return sorted(kept + new_items, key=lambda i: i.position)


def progress_text(items: list[PlanItem], item: PlanItem) -> str:
    """German progress line for the chat: "Schritt 2/5: …"."""
    return f"Schritt {item.position}/{max(i.position for i in items)}: {item.description}"
