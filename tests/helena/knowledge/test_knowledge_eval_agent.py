"""The agent's side of finding a norm: Helena does not pass the client's words to search_gesetze
but the legal concept, and when the hits do not fit she searches once more in other terms (tool
description and prompt, helena/tools/handlers/knowledge.py and helena/agent/prompts.py).

Measured on both evaluation sets with the scripted model replaying such rewrites through the real
agent loop and the real tool: tests/data/knowledge_eval*_rewrites.json hold, per question, a
first and a second query written by a separate model instance that saw only the questions and the
tool's description — not the expected norms, not the corpus (tests/data/README.md). "First" is
recall@5 of the first search; "with the second try" counts a question as found when either of
the two searches has the norm in its five hits (the model sees both before it answers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync

from akten.models import Role, User
from helena.agent.events import Emitter
from helena.agent.loop import run_agent
from helena.agent.tooling import ToolContext, ToolResult
from helena.llm.providers.scripted import ScriptedModel, ScriptedTurn
from helena.tools import executor
from helena.tools.registry import tools_for

DATA = Path(__file__).resolve().parents[2] / "data"
SETS = {
    name: (json.loads((DATA / f"knowledge_{name}.json").read_text(encoding="utf-8")),
           json.loads((DATA / f"knowledge_{name}_rewrites.json").read_text(encoding="utf-8")))
    for name in ("eval", "eval_holdout")
}
# What the replayed rewrites reach today (recall@5 first search / with the second: eval 97.1 % /
# 100 %, held-out 95.5 % / 100 %; the held-out questions verbatim reach 65.9 %). A control with the
# rewrites shifted by one question finds 2 of 88. A change that loses ground fails.
FLOOR = {"first": 0.90, "both": 0.95}

pytestmark = pytest.mark.django_db


def _searches(user: User, frage: str, queries: list[str]) -> list[list[str]]:
    """Run the loop: the scripted model calls search_gesetze with each query, then answers; what
    each search returned is taken from the results the real executor hands back to the loop."""
    found: list[list[str]] = []

    async def execute(**kwargs: Any) -> ToolResult:
        result = await executor.execute(**kwargs)
        found.append([source["citation"] for source in result.sources])
        return result

    turns = [ScriptedTurn(tool_calls=[("search_gesetze", {"query": q, "limit": 5})]) for q in queries]
    model = ScriptedModel([*turns, "Antwort."])
    tools = tools_for(user)
    messages = [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": frage}]
    async_to_sync(run_agent)(model=model, messages=messages, tools=tools, ctx=ToolContext(user=user),
                             emitter=Emitter(run_id="eval"), execute=execute,
                             known_names={t.name for t in tools}, question=frage)
    assert len(found) == len(queries), "the loop did not run every search"
    return found


def test_the_pairs_match_the_questions() -> None:
    for cases, rewrites in SETS.values():
        assert [c["frage"] for c in cases] == [r["frage"] for r in rewrites]
        assert all(r["erste"] and r["zweite"] and r["erste"] != r["zweite"] for r in rewrites)


@pytest.mark.parametrize("name", list(SETS))
def test_recall_with_the_agents_rewrites(knowledge_corpus: None, capsys: pytest.CaptureFixture[str],
                                         name: str) -> None:
    cases, rewrites = SETS[name]
    user = User.objects.create_user(username="eval", password="x", role=Role.ANWALT)
    first = both = 0
    misses: list[str] = []
    for case, rewrite in zip(cases, rewrites, strict=True):
        expected = set(case["erwartet"])
        eins, zwei = _searches(user, case["frage"], [rewrite["erste"], rewrite["zweite"]])
        first += bool(expected & set(eins))
        both += bool(expected & (set(eins) | set(zwei)))
        if not expected & (set(eins) | set(zwei)):
            misses.append(f"- {case['frage']!r} → {rewrite['erste']!r}: {eins} / "
                          f"{rewrite['zweite']!r}: {zwei}")
    with capsys.disabled():
        print(f"\n[knowledge {name}, agent rewrites] {len(cases)} Fragen: recall@5 erste Suche "
              f"{first / len(cases):.1%}, mit zweiter Suche {both / len(cases):.1%}")
    assert first / len(cases) >= FLOOR["first"] and both / len(cases) >= FLOOR["both"], "\n".join(misses)
