"""`manage.py modellpruefung [--stufe N]`: does the model of a tier (else of every tier) do for Helena?

Ten short German tasks through the real agent loop on a made-up Akte (helena/model_check/), one line
per task as it finishes, then the verdict, what to change and a last line `Ergebnis: …`. The exit code
is a public contract (docs/modellpruefung.md): 0 suitable, 1 not suitable, 2 not checked (the server cannot
be reached or refuses the model; a tier whose check is already running counts only when nothing else was
checked).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.management.base import BaseCommand

from helena.model_check.services import check_tiers, exit_code, summary_line


class Command(BaseCommand):
    help = ("Prüft, ob das Modell einer Stufe für Helena taugt: zehn kurze Aufgaben über eine erfundene "
            "Akte, eine Zeile je Aufgabe, am Ende „Ergebnis: …“. Exit-Code 0: geeignet, 1: nicht geeignet, "
            "2: Server nicht erreichbar oder sonst nicht geprüft (Modell fehlt, Schlüssel abgelehnt, Stufe "
            "nicht eingerichtet, ihre Prüfung läuft schon).")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--stufe", type=int, choices=(1, 2, 3),
                            help="nur diese Modellstufe prüfen (ohne: jede, die Helena nutzen darf)")

    def handle(self, *args: Any, stufe: int | None, **options: Any) -> None:
        # The report says it in German; the clients' and the loop's own (English) log lines would
        # say it twice, and a server that is down is the report's business, not a traceback's.
        for name in ("helena", "httpx", "httpcore"):
            logging.getLogger(name).setLevel(logging.ERROR)
        checks = check_tiers(tiers=[stufe] if stufe else None, progress=self._say)
        if not checks:
            self._say("Keine Modellstufe eingerichtet (Verwaltung → Modellstufen oder HELENA_TIER1_MODEL).")
        self._say(summary_line(checks))
        code = exit_code(checks)
        if code:
            raise SystemExit(code)

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()
