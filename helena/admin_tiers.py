"""What the admin sees above the model tiers and rate limits: the configuration in effect.

Without a row a tier comes from the server configuration (HELENA_TIER1_MODEL …, OLLAMA_HOST),
which the list of rows alone would hide ("0 Modellstufen" while qwen3:4b answers every run). So
the list shows each tier as the router reads it right now, where it comes from, whether it runs
in the house or in the cloud, and whether its server answers; the rate limits show their default.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings

from helena.llm import health, locality, router
from helena.models import ModelTier

NAMES = {1: "Stufe 1 – klein, schnell", 2: "Stufe 2 – groß, lokal", 3: "Stufe 3 – Cloud"}


def _reachable(config: router.TierConfig) -> str:
    if not config.health_checked:
        return "wird beim ersten Aufruf geprüft"
    return "ja" if async_to_sync(health.is_healthy)(config.host) else "nein – der Server antwortet nicht"


def effective_tiers() -> list[dict[str, Any]]:
    """One row per tier: in effect (from a row or the environment), switched off, or not set up."""
    configs = router.tier_configs()
    rows = {row.tier: row for row in ModelTier.objects.all()}
    out = []
    for tier in router.TIERS:
        config, row = configs.get(tier), rows.get(tier)
        if config is None:
            out.append({"stufe": NAMES.get(tier, tier), "modell": "–", "schnittstelle": "–", "adresse": "–",
                        "herkunft": "Eintrag unten, ausgeschaltet" if row else "nicht eingerichtet",
                        "standort": "–", "erreichbar": "–"})
            continue
        out.append({
            "stufe": NAMES.get(tier, tier),
            "modell": config.name,
            "schnittstelle": "Ollama" if config.provider == "ollama" else "OpenAI-kompatibel",
            "adresse": config.host,
            "herkunft": "Eintrag unten" if config.source == "admin" else "Server-Konfiguration (Umgebung)",
            "standort": locality.describe(url=config.host, tier=tier, standort=config.standort),
            "erreichbar": _reachable(config),
        })
    return out


def rate_limit_default() -> int:
    return settings.HELENA_RATE_LIMIT_PER_HOUR
