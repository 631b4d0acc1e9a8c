"""Retrieval evaluation: natural questions a client or trainee asks → the norm a lawyer wants.

Prints recall@1 and recall@5 over tests/data/knowledge_eval.json; fails below 85 % recall@5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helena.knowledge.selectors import search

EVAL = json.loads((Path(__file__).parent / "data" / "knowledge_eval.json").read_text(encoding="utf-8"))

pytestmark = pytest.mark.django_db


def test_eval_set_is_substantial() -> None:
    assert len(EVAL) >= 25
    assert len({case["gebiet"] for case in EVAL}) >= 7


def test_recall_at_5(knowledge_corpus: None, capsys: pytest.CaptureFixture[str]) -> None:
    at1 = at5 = 0
    misses: list[str] = []
    for case in EVAL:
        cited = [hit.citation for hit in search(query=case["frage"], kind="gesetz", limit=5)]
        expected = set(case["erwartet"])
        if cited[:1] and cited[0] in expected:
            at1 += 1
        if expected & set(cited):
            at5 += 1
        else:
            misses.append(f"- {case['frage']!r}: erwartet {case['erwartet']}, gefunden {cited}")
    n = len(EVAL)
    with capsys.disabled():
        print(f"\n[knowledge eval] {n} Fragen: recall@1 = {at1 / n:.1%}, recall@5 = {at5 / n:.1%}")
        if misses:
            print("[knowledge eval] nicht in den Top 5:\n" + "\n".join(misses))
    assert at5 / n >= 0.85, "\n".join(misses)
