"""Retrieval evaluation: natural questions a client or trainee asks → the norm a lawyer wants.

Prints recall@1 and recall@5 over tests/data/knowledge_eval.json (the set the search was
developed against; its lay-term table was partly written while looking at its misses) and over
tests/data/knowledge_eval_holdout.json (written separately and never used for tuning: the honest
figure), for the lexical, the semantic and the fused ranking side by side; the fused one (the
default) is asserted. The eval set must reach 85 % recall@5; the held-out set, which measures how
well the search generalises to questions nobody tuned for, must not fall below its current level.
The lexical weights were tuned on the even-numbered eval questions, the fusion on the eval set.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helena.knowledge.selectors import search

DATA = Path(__file__).resolve().parents[2] / "data"
EVAL = json.loads((DATA / "knowledge_eval.json").read_text(encoding="utf-8"))
HOLDOUT = json.loads((DATA / "knowledge_eval_holdout.json").read_text(encoding="utf-8"))
GOAL = 0.85
# The held-out floor is the level the search holds today, so a change that makes it worse fails.
# On the 88 held-out questions (48 added for issue 18 before any tuning of the semantic search)
# recall@5 is 58.0 % lexical, 45.5 % semantic and 65.9 % fused (the default) — still short of the
# 85 % goal; on the development set the fused ranking reaches 92.2 % (lexical 85.3 %).
FLOOR = {"eval": GOAL, "holdout": 0.65}

pytestmark = pytest.mark.django_db


def test_eval_set_is_substantial() -> None:
    assert len(EVAL) >= 25
    assert len({case["gebiet"] for case in EVAL}) >= 7


def _measure(cases: list[dict], ranking: str = "hybrid") -> tuple[float, float, list[str]]:
    at1 = at5 = 0
    misses: list[str] = []
    for case in cases:
        cited = [hit.citation for hit in search(query=case["frage"], kind="gesetz", limit=5, ranking=ranking)]
        expected = set(case["erwartet"])
        at1 += bool(cited[:1] and cited[0] in expected)
        if expected & set(cited):
            at5 += 1
        else:
            misses.append(f"- {case['frage']!r}: erwartet {case['erwartet']}, gefunden {cited}")
    return at1 / len(cases), at5 / len(cases), misses


@pytest.mark.parametrize("name", ["eval", "holdout"])
def test_recall_at_5(knowledge_corpus: None, capsys: pytest.CaptureFixture[str], name: str) -> None:
    cases = EVAL if name == "eval" else HOLDOUT
    with capsys.disabled():
        for ranking in ("lexical", "dense"):  # side by side with the default, for the record
            one, five, _ = _measure(cases, ranking)
            print(f"\n[knowledge {name}, {ranking}] recall@1 = {one:.1%}, recall@5 = {five:.1%}", end="")
    at1, at5, misses = _measure(cases)
    with capsys.disabled():
        print(f"\n[knowledge {name}, hybrid] {len(cases)} Fragen: recall@1 = {at1:.1%}, recall@5 = {at5:.1%} "
              f"(Ziel {GOAL:.0%}, Untergrenze {FLOOR[name]:.0%})")
    assert at5 >= FLOOR[name], "\n".join(misses)
