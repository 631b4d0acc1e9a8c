"""Latency of the header's search box (GET /api/v1/suche, issue 23) on the demo data: the whole
request (session, middleware, every group, JSON) per kind of query, median and p95, beside the goal
(under 100 ms); then where the time goes, group by group.

Seeds the demo Kanzlei and loads the statute corpus if the database has none. Run with `make bench`
or on a database of your own:
`DATABASE_URL=postgres://… .venv/bin/python bench/suche.py [--runden 20]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from akten.models import Akte, User  # noqa: E402
from helena.quicksearch import groups as gruppen  # noqa: E402
from helena.quicksearch import selectors  # noqa: E402

GOAL_MS = 100.0
USERS = ("anwalt", "praktikant", "admin")  # 7, 2 and all 8 Akten of the demo
QUERIES: dict[str, list[str]] = {
    "Aktenzeichen": ["101/26", "104/26", "231/25", "Az. 105/26"],
    "Name": ["Müller", "Hoffmann", "Bauer Logistik", "Wendt", "Yilmaz"],
    "Stichwort": ["Kündigung", "Räumung", "Nacherfüllung", "Rechtsschutz", "Mietminderung"],
    "mehrere Worte": ["Müller Klage", "101/26 Frist", "Kündigung Mietverhältnis", "Versicherung Unfall"],
    "Zitat": ["§ 517 ZPO", "§ 626 BGB", "Art. 3 GG", "§ 4 KSchG", "§§ 187, 188 BGB"],
    "beim Tippen": ["Kü", "Kün", "Künd", "Kündi", "Kündig"],
}


def _prepare() -> None:
    if not Akte.objects.filter(aktenzeichen="101/26").exists():
        call_command("seed_demo", verbosity=0)
    call_command("load_gesetze", "--if-empty", verbosity=0)


def _ms(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) * 1000


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(len(ordered) * 0.95) - 1)]


def _line(label: str, timings: list[float], goal: float | None = GOAL_MS) -> str:
    p50, p95 = statistics.median(timings), _p95(timings)
    ziel = "" if goal is None else f"  (Ziel < {goal:.0f} ms: {'erreicht' if p95 < goal else 'VERFEHLT'})"
    return f"suche: {label:<16} n = {len(timings):>4}  Median = {p50:6.1f} ms  p95 = {p95:6.1f} ms{ziel}"


def requests(rounds: int) -> None:
    """The whole request as the browser sends it (a logged-in session)."""
    clients = {}
    for name in USERS:
        clients[name] = Client(HTTP_HOST="localhost")
        clients[name].force_login(User.objects.get(username=name))
    for queries in QUERIES.values():  # warm: the statute index, the lexicon, connections
        for q in queries:
            assert clients["anwalt"].get("/api/v1/suche", {"q": q}).status_code == 200
    alle: list[float] = []
    for kind, queries in QUERIES.items():
        timings = [_ms(lambda c=client, q=q: c.get("/api/v1/suche", {"q": q}))
                   for _ in range(rounds) for client in clients.values() for q in queries]
        alle += timings
        print(_line(kind, timings))
    print(_line("alle Anfragen", alle))


def groups(rounds: int) -> None:
    """Where the time goes: each group on its own (anwalt, all queries), without HTTP."""
    user = User.objects.get(username="anwalt")
    texts = [q for queries in QUERIES.values() for q in queries]
    parts: dict[str, Callable[[str], object]] = {
        "Akten": lambda q: gruppen.akten(user=user, worte=selectors.worte_von(q), limit=5),
        "Fristen": lambda q: gruppen.fristen(user=user, worte=selectors.worte_von(q), limit=5),
        "Dokumente": lambda q: gruppen.dokumente(user=user, worte=selectors.worte_von(q), limit=5),
        "Notizen": lambda q: gruppen.notizen(user=user, worte=selectors.worte_von(q), limit=5),
        "Gespräche": lambda q: gruppen.gespraeche(user=user, q=q, limit=5),
        "Gesetze": lambda q: gruppen.normen(q=q, limit=5),
        "direkt": lambda q: selectors.direktziel(user=user, q=q),
    }
    for label, part in parts.items():
        timings = [_ms(lambda q=q, part=part: part(q)) for _ in range(rounds) for q in texts]
        print(_line(f"· {label}", timings, goal=None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runden", type=int, default=10, help="Wiederholungen je Anfrage und Benutzer")
    args = parser.parse_args()
    _prepare()
    print(f"suche: Demo-Kanzlei ({Akte.objects.count()} Akten), Benutzer {', '.join(USERS)}; "
          f"ganze Anfrage GET /api/v1/suche mit Sitzung")
    requests(args.runden)
    print("suche: davon je Gruppe (anwalt, ohne HTTP):")
    groups(max(1, args.runden // 2))


if __name__ == "__main__":
    main()
