"""CPU cost of the dialect parser per streamed token (goal: ≤ 20 µs), printed, not asserted.

Every token a model streams passes through helena/llm/dialects before it reaches the chat: plain
answers (the common case), and the raw outputs of every dialect in tests/data/model_outputs.py,
cut the way a tokenizer cuts them (special tokens whole, JSON at its quotes and braces).

    .venv/bin/python bench/dialects.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from helena.llm.dialects.parser import StreamParser
from tests.data.model_outputs import FIXTURES
from tests.scripted_llm_server import tokens

GOAL_US = 20.0
HELENA_TOOLS = {"search_gesetze", "read_akte", "read_akte_detail", "read_fristen", "create_draft_frist",
                "create_draft_dokument", "calculate_frist", "calculate_rvg", "search_alle_akten", "ask_user"}
ANSWER = (
    "Die Berufungsfrist beträgt einen Monat und beginnt mit der Zustellung des vollständig abgefassten "
    "Urteils (§ 517 ZPO). Fällt das Fristende auf einen Samstag, Sonntag oder allgemeinen Feiertag, endet "
    "sie mit Ablauf des nächsten Werktags (§ 222 Abs. 2 ZPO). In deiner Akte 12/25 wurde das Urteil am "
    "03.03.2025 zugestellt; die Frist endet daher am 03.04.2025. Die Begründungsfrist beträgt zwei Monate "
    "ab Zustellung (§ 520 Abs. 2 ZPO) – also bis zum 05.05.2025, weil der 03.05.2025 ein Samstag ist. "
) * 8


def per_token(pieces: list[str], names: set[str], rounds: int) -> float:
    """Microseconds of CPU per token, best of several rounds."""
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        parser = StreamParser(names=names)
        for piece in pieces:
            parser.feed(piece)
        parser.finish()
        best = min(best, (time.process_time() - started) / len(pieces) * 1e6)
    return best


def main() -> None:
    answer = tokens(ANSWER)
    plain = per_token(answer, HELENA_TOOLS, rounds=20)
    costs = []
    worst = (0.0, "")
    for fixture in FIXTURES:
        pieces = tokens(fixture["text"])
        cost = per_token(pieces, set(fixture["tools"]) | HELENA_TOOLS, rounds=10)
        costs.append(cost)
        worst = max(worst, (cost, fixture["id"]))
    mixed = statistics.mean(costs)
    print(f"Dialekt-Parser, CPU je gestreamtem Token (Ziel ≤ {GOAL_US:.0f} µs):")
    print(f"  Antworttext ({len(answer)} Token):          {plain:6.1f} µs")
    print(f"  {len(FIXTURES)} Rohausgaben aller Dialekte (Mittel): {mixed:6.1f} µs")
    print(f"  teuerste Rohausgabe ({worst[1]}):  {worst[0]:6.1f} µs")
    verdict = "erreicht" if max(plain, mixed) <= GOAL_US else "verfehlt"
    print(f"  Ziel {verdict}")


if __name__ == "__main__":
    main()
