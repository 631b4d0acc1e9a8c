"""Which model serves a tier, and what to do when it is missing or down.

Configuration comes from the ModelTier rows, else the environment, cached per process until an
admin changes it (helena/infra/settings_cache.py), so a change applies to the next run without a restart.
Local (Ollama) hosts get a cheap health check (helena/llm/providers/health.py), so a run does not wait for a
chat timeout against a server that is down; instead it falls back to the other local tier, then to
the cloud if allowed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.conf import settings

from helena.infra import settings_cache
from helena.llm import learned, locality
from helena.llm.base import ChatModel, ModelUnavailable
from helena.llm.dialects import profiles
from helena.llm.pii.privacy import Privacy
from helena.llm.pii.redactor import Redactor
from helena.llm.providers import health
from helena.llm.providers.health import is_healthy, normalise_host
from helena.llm.providers.ollama import OllamaModel, forget_context_lengths
from helena.llm.providers.openai_compat import OpenAICompatModel
from helena.llm.wrappers.redacting import RedactingModel
from helena.models import HelenaSettings, ModelTier, TaskRoute

log = logging.getLogger(__name__)

Provider = Literal["ollama", "openai"]

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_CLOUD_CONTEXT_WINDOW = 128000
TIERS = (1, 2, 3)
NOT_CONFIGURED = (
    "Kein Sprachmodell eingerichtet. Bitte in der Verwaltung unter „Modellstufen“ ein Modell hinterlegen."
)
CLOUD_REFUSED = (
    "Dieses Modell läuft in der Cloud, und die Cloud ist nicht freigegeben. Eine Verwaltungsperson kann "
    "sie unter „Helena-Einstellungen“ freigeben."
)


@dataclass(frozen=True)
class TierConfig:
    """One tier as configured right now (admin row, or the environment when there is no row)."""

    tier: int
    provider: Provider
    name: str
    host: str
    api_key: str = ""
    context_window: int | None = None
    price_in: Decimal = Decimal("0")  # EUR per 1,000 input tokens
    price_out: Decimal = Decimal("0")  # EUR per 1,000 output tokens
    source: Literal["admin", "env"] = "env"
    dialect: str = "auto"  # ModelTier.dialect
    standort: str = "auto"  # ModelTier.standort: auto / intern / extern

    @functools.cached_property
    def cloud(self) -> bool:
        """Runs outside the firm: only with the opt-in, only redacted (helena.llm.locality). Kept with
        the configuration (asked several times per run start; a change makes new configurations)."""
        return locality.is_cloud(url=self.host, tier=self.tier, standort=self.standort)

    @property
    def health_checked(self) -> bool:
        """Ollama servers answer GET /api/tags, so a down one is skipped before a run waits on it."""
        return self.provider == "ollama"

    @property
    def describes_itself(self) -> bool:
        """The server tells a model's template and capabilities (Ollama's /api/show)."""
        return self.provider == "ollama"


@dataclass(frozen=True)
class Resolved:
    """The model a run will use, with what it costs and why it is not the requested one (if so)."""

    model: ChatModel
    tier: int
    provider: str
    name: str
    host: str
    price_in: Decimal
    price_out: Decimal
    fallback_note: str = ""  # German, for a warning event; empty when the requested tier serves
    requested_tier: int = 0
    cloud: bool = False  # runs outside the firm: the model comes wrapped in the run's redaction


def _env_config(tier: int) -> TierConfig | None:
    if tier in (1, 2):
        name = settings.HELENA_TIER1_MODEL if tier == 1 else settings.HELENA_TIER2_MODEL
        if not name:
            return None
        return TierConfig(tier=tier, provider="ollama", name=name, host=normalise_host(settings.OLLAMA_HOST))
    name = settings.HELENA_TIER3_MODEL
    base_url, api_key = settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY
    if not name or not (base_url or api_key):
        return None
    return TierConfig(tier=3, provider="openai", name=name,
                      host=normalise_host(base_url or DEFAULT_OPENAI_BASE_URL), api_key=api_key)


def row_host(row: Any) -> str:
    """The base URL a ModelTier row calls (its own, else the environment's for its provider)."""
    if row.provider == ModelTier.Provider.OPENAI:
        host = row.base_url or settings.OPENAI_BASE_URL or DEFAULT_OPENAI_BASE_URL
    else:
        host = row.base_url or settings.OLLAMA_HOST
    return normalise_host(host)


def row_is_cloud(row: Any) -> bool:
    """Whether a ModelTier row points at a model outside the firm (helena.llm.locality)."""
    return locality.is_cloud(url=row_host(row), tier=row.tier, standort=row.standort or "auto")


def tier_configs() -> dict[int, TierConfig]:
    """All configured tiers: an enabled row wins, a disabled row switches its tier off (read once per
    process and again after an admin's change, helena/infra/settings_cache.py)."""
    return dict(settings_cache.cached("tier_configs", _read_tier_configs))


def _read_tier_configs() -> dict[int, TierConfig]:
    rows = {row.tier: row for row in ModelTier.objects.all()}
    configs: dict[int, TierConfig] = {}
    for tier in TIERS:
        row = rows.get(tier)
        if row is None:
            config = _env_config(tier)
            if config is not None:
                configs[tier] = config
            continue
        if not row.enabled or not row.model_name.strip():
            continue
        provider: Provider = "openai" if row.provider == ModelTier.Provider.OPENAI else "ollama"
        configs[tier] = TierConfig(
            tier=tier,
            provider=provider,
            name=row.model_name.strip(),
            host=row_host(row),
            api_key=settings.OPENAI_API_KEY if provider == "openai" else "",
            context_window=row.context_window or None,
            price_in=row.price_input_per_1k,
            price_out=row.price_output_per_1k,
            source="admin",
            dialect=row.dialect or "auto",
            standort=row.standort or "auto",
        )
    return configs


def build_model(config: TierConfig, *, cloud_allowed: bool, privacy: Privacy | None = None) -> ChatModel:
    """The one place a model is made for a configuration, so no call site can forget the cloud rules:
    a cloud model is refused without the firm's opt-in and otherwise comes wrapped in redaction
    (the run's Privacy when there is one, else the pattern detectors alone).
    ModelTier.context_window caps/sets the window.
    """
    if config.cloud and not cloud_allowed:
        raise ModelUnavailable(CLOUD_REFUSED, detail=f"tier {config.tier} ({config.host}) is cloud")
    model: ChatModel
    if config.provider == "ollama":
        model = OllamaModel(config.name, host=config.host, num_ctx=config.context_window,
                            share_context_length=True, dialect=config.dialect)
    else:
        model = OpenAICompatModel(config.name, base_url=config.host, api_key=config.api_key,
                                  context_window=config.context_window or DEFAULT_CLOUD_CONTEXT_WINDOW,
                                  dialect=config.dialect)
    if not config.cloud:
        return model
    if privacy is None:
        return RedactingModel(model, Redactor())
    return RedactingModel(model, privacy.redactor, learn=privacy.refresh)


def usable_tiers(configs: dict[int, TierConfig], *, cloud_allowed: bool) -> set[int]:
    """The configured tiers a call may use: local ones always, cloud ones only with the opt-in."""
    return {tier for tier, config in configs.items() if cloud_allowed or not config.cloud}


def get_model_for_tier(tier: int, *, privacy: Privacy | None = None) -> tuple[ChatModel, TierConfig] | None:
    """The model of a tier for a side call (summary, classifier, reviewer) with its configuration, or
    None when the tier is not configured or is a cloud the firm has not allowed. No health check."""
    config = tier_configs().get(tier)
    if config is None or (config.cloud and not HelenaSettings.cached().cloud_allowed):
        return None
    return build_model(config, cloud_allowed=True, privacy=privacy), config


def task_routes() -> dict[str, int]:
    """TaskRoute rows as {task_type: tier}, for the classifier."""
    return dict(settings_cache.cached("task_routes", _read_task_routes))


def _read_task_routes() -> dict[str, int]:
    return dict(TaskRoute.objects.values_list("task_type", "tier"))


def is_cloud_allowed(*, helena: Any = None, configs: dict[int, TierConfig] | None = None) -> bool:
    """Tier 3 may be used: it is configured, and it is internal or the firm has opted in
    (HelenaSettings, with its confirmation).

    A caller that has just read the settings row or the tiers passes them, saving the queries.
    """
    helena = helena if helena is not None else HelenaSettings.cached()
    configs = configs if configs is not None else tier_configs()
    return 3 in usable_tiers(configs, cloud_allowed=bool(helena.cloud_allowed))


def clear_health_cache() -> None:
    """Forget health results, /api/show results and what was learned about models, the latter in
    every process (tests; the admin forgets learned facts with helena.llm.learned.forget)."""
    health.forget()
    forget_context_lengths()
    learned.forget_all()


def _candidates(tier: int, *, cloud: bool) -> list[int]:
    """Order in which tiers are tried: the requested one, lower ones, the other local one, cloud."""
    if tier >= 3:
        return [3, 2, 1] if cloud else [2, 1]
    order = [tier, *range(tier - 1, 0, -1), *range(tier + 1, 3)]
    return [*order, 3] if cloud else order


def _label(config: TierConfig) -> str:
    return f"Stufe {config.tier} ({config.name})"


NONE_REACHABLE = ("Helena kann gerade nicht antworten: Kein Sprachmodell ist erreichbar. Bitte wende dich "
                  "an die Administration der Kanzlei.")  # the servers that did not answer: in `detail`


async def resolve(
    *, tier: int, cloud_allowed: bool, configs: dict[int, TierConfig] | None = None,
    privacy: Privacy | None = None,
) -> Resolved:
    """The model for a run on `tier`, falling back when that tier is missing, forbidden or down.

    `configs` are the tiers as just read by the caller (else read here). Raises ModelUnavailable
    (German message naming the hosts) when nothing can serve.
    """
    if configs is None:
        configs = await sync_to_async(tier_configs)()
    return await _resolve(configs, tier=tier, cloud_allowed=cloud_allowed, privacy=privacy)


async def _resolve(configs: dict[int, TierConfig], *, tier: int, cloud_allowed: bool,
                   privacy: Privacy | None) -> Resolved:
    config, note, tier = await _pick(configs, tier=tier, cloud_allowed=cloud_allowed)
    return Resolved(
        model=build_model(config, cloud_allowed=cloud_allowed, privacy=privacy),
        tier=config.tier,
        provider=config.provider,
        name=config.name,
        host=config.host,
        price_in=config.price_in,
        price_out=config.price_out,
        fallback_note=note,
        requested_tier=tier,
        cloud=config.cloud,
    )


async def check_reachable(*, cloud_allowed: bool, configs: dict[int, TierConfig] | None = None) -> None:
    """Raise ModelUnavailable (the German message a run would end with) when no tier could serve a run
    now, without making a model: a task for Helena is refused at once instead of failing unseen."""
    if configs is None:
        configs = await sync_to_async(tier_configs)()
    await _pick(configs, tier=1, cloud_allowed=cloud_allowed)  # tier 1 falls back through all tiers


async def _pick(configs: dict[int, TierConfig], *, tier: int,
                cloud_allowed: bool) -> tuple[TierConfig, str, int]:
    """The configuration that serves `tier` (itself or a fallback), the German note on the fallback, and
    the requested tier as clamped; raises ModelUnavailable when none can."""
    tier = min(max(tier, 1), 3)
    usable = usable_tiers(configs, cloud_allowed=cloud_allowed)
    cloud = 3 in usable
    notes: list[str] = []
    if tier == 3 and not cloud:
        notes.append("Die Cloud (Stufe 3) ist nicht freigegeben oder nicht eingerichtet")
    down: list[str] = []
    skipped_missing = refused_cloud = False
    for candidate in _candidates(tier, cloud=cloud):
        config = configs.get(candidate)
        if config is None:
            if candidate == tier:
                notes.append(f"Stufe {tier} ist nicht eingerichtet")
            skipped_missing = True
            continue
        if candidate not in usable:  # a cloud row on tier 1 or 2 without the firm's opt-in
            notes.append(f"{_label(config)} läuft in der Cloud, die nicht freigegeben ist")
            refused_cloud = True
            continue
        if config.health_checked and not await is_healthy(config.host):
            if config.host not in down:
                down.append(config.host)
            notes.append(f"{_label(config)} antwortet nicht ({config.host})")
            continue
        note = ""
        if candidate != tier or notes:
            note = "; ".join(dict.fromkeys(notes)) + f". Helena nutzt stattdessen {_label(config)}."
        if note:
            log.warning("tier %s requested, using tier %s: %s", tier, candidate, note)
        return config, note, tier
    if down:
        message = NONE_REACHABLE + (f" {CLOUD_REFUSED}" if refused_cloud else "")
        detail = f"{', '.join(down)} {'antwortet' if len(down) == 1 else 'antworten'} nicht"
        raise ModelUnavailable(message, detail="; ".join([detail, *notes]), retryable=True)
    if refused_cloud:
        raise ModelUnavailable(CLOUD_REFUSED, detail="; ".join(notes))
    detail = "no tier configured" if skipped_missing or not configs else "; ".join(notes)
    raise ModelUnavailable(NOT_CONFIGURED, detail=detail)


def escalate(
    tier: int,
    *,
    cloud_allowed: bool | None = None,
    configured: set[int] | frozenset[int] | None = None,
) -> int | None:
    """The next tier up for a stalled run, or None: 1→2, 2→3 only with cloud, never beyond 3.

    Without `cloud_allowed`/`configured` this reads the database (call it via sync_to_async from
    async code); with both given it is pure.
    """
    if tier >= 3:
        return None
    if configured is None:
        configured = set(tier_configs())
    if cloud_allowed is None:
        cloud_allowed = is_cloud_allowed()
    for candidate in range(tier + 1, 4):
        if candidate not in configured:
            continue
        if candidate == 3 and not cloud_allowed:
            return None
        return candidate
    return None


def detected_dialect(config: TierConfig, *, cloud_allowed: bool, timeout: float = 2.0) -> dict[str, Any]:
    """What Helena knows about a tier's model, for the admin: the profile it uses and why (its
    `prefill_source`), and what it learned about the model (helena.llm.learned.Fact, newest first).

    Asks Ollama's /api/show (with a short timeout; the admin page must not hang on a server that
    is down); an OpenAI-compatible server has no such endpoint, so only the name tells. A cloud
    server is not asked before the firm's opt-in: no call of any kind goes there before it.
    """
    capabilities: list[str] | None = None
    reachable: bool | None = None
    profile = profiles.detect(config.name, choice=config.dialect)
    if config.describes_itself and (cloud_allowed or not config.cloud):
        model = OllamaModel(config.name, host=config.host, timeout=timeout, dialect=config.dialect)

        async def show() -> Any:
            try:
                return await model.model_info(), await model.profile()
            finally:
                await model.aclose()

        info, profile = asyncio.run(show())
        reachable = model.show_failed is False
        capabilities = info.capabilities
    key = (config.provider, config.host, config.name)
    facts = learned.facts_of(key)  # read from Redis first: what every process learned
    return {"profile": profiles.with_learned(profile, key), "capabilities": capabilities,
            "reachable": reachable, "learned": facts}
