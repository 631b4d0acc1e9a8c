"""`manage.py check_models [--brief]`: which model tiers answer right now, in German.

`make run` calls it with --brief at start, so whoever starts Helena without a model server reads one
line about it then, not an error from the first question. An Ollama tier is asked as the router asks
it (GET /api/tags); an OpenAI-compatible one is not probed (it may bill or rate-limit a call).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.core.management.base import BaseCommand

from helena.llm.providers.health import is_healthy
from helena.llm.router import TierConfig, is_cloud_allowed, tier_configs

STATE = {True: "antwortet", False: "antwortet nicht", None: "nicht geprüft (OpenAI-kompatibel)"}


async def _answers(configs: list[TierConfig]) -> list[bool | None]:
    checks = [is_healthy(c.host) if c.health_checked else asyncio.sleep(0, None) for c in configs]
    return list(await asyncio.gather(*checks))


class Command(BaseCommand):
    help = "Prüft, welche Modellstufen gerade antworten (Ollama: GET /api/tags)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--brief", action="store_true",
                            help="nur eine Zeile, und nur wenn kein Modell antwortet (für make run)")

    def handle(self, *args: Any, brief: bool, **options: Any) -> None:
        # This command says it in German; the probe's own (English) log line would say it twice.
        logging.getLogger("helena.llm.providers.health").setLevel(logging.WARNING)
        cloud = is_cloud_allowed()
        configs = [c for c in tier_configs().values() if cloud or not c.cloud]
        answers = asyncio.run(_answers(configs))
        if not brief:
            for config, answer in zip(configs, answers, strict=True):
                self.stdout.write(f"Stufe {config.tier}: {config.name} auf {config.host} – {STATE[answer]}")
        if any(answer is not False for answer in answers):
            if not brief:
                self.stdout.write("Helena kann antworten.")
            return
        hosts = ", ".join(dict.fromkeys(c.host for c in configs)) or "keine Modellstufe eingerichtet"
        self.stdout.write(
            f"Hinweis: Kein Sprachmodell antwortet ({hosts}). Helena läuft, kann aber erst antworten, wenn "
            "ein Modellserver erreichbar ist (README „Ollama anbinden“, Admin → Modellstufen).")
