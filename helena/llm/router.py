"""Which model serves a tier, and what to do when it is missing or down.

Configuration is read fresh on every call (ModelTier rows, else the environment), so a change in
the admin applies to the next run without a restart. Local (Ollama) hosts get a cheap health check
(GET /api/tags, cached for a few seconds), so a run does not wait for a chat timeout against a
server that is down; instead it falls back to the other local tier, then to the cloud if allowed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

import httpx
from asgiref.sync import sync_to_async
from django.conf import settings

from helena.llm.base import ChatModel, ModelUnavailable
from helena.llm.dialects import profiles
from helena.llm.http import ssl_context
from helena.llm.ollama import OllamaModel, forget_context_lengths
from helena.llm.openai_compat import OpenAICompatModel

log = logging.getLogger(__name__)

Provider = Literal["ollama", "openai"]

HEALTH_TIMEOUT = 1.5  # seconds for GET /api/tags
HEALTH_TTL = 5.0  # seconds a health result is reused per host
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_CLOUD_CONTEXT_WINDOW = 128000
TIERS = (1, 2, 3)
NOT_CONFIGURED = (
    "Kein Sprachmodell eingerichtet. Bitte in der Verwaltung unter „Modellstufen“ ein Modell hinterlegen."
)

# host -> (monotonic time of the check, healthy)
_health_cache: dict[str, tuple[float, bool]] = {}
# (event loop, host) -> the probe in flight
_probing: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Future[bool]] = {}


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

    @property
    def local(self) -> bool:
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


def _normalise_host(host: str) -> str:
    host = host.strip().rstrip("/")
    if host and "://" not in host:
        host = "http://" + host
    return host


def _env_config(tier: int) -> TierConfig | None:
    if tier in (1, 2):
        name = settings.HELENA_TIER1_MODEL if tier == 1 else settings.HELENA_TIER2_MODEL
        if not name:
            return None
        return TierConfig(tier=tier, provider="ollama", name=name, host=_normalise_host(settings.OLLAMA_HOST))
    name = settings.HELENA_TIER3_MODEL
    base_url, api_key = settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY
    if not name or not (base_url or api_key):
        return None
    return TierConfig(tier=3, provider="openai", name=name,
                      host=_normalise_host(base_url or DEFAULT_OPENAI_BASE_URL), api_key=api_key)


def tier_configs() -> dict[int, TierConfig]:
    """All configured tiers, read now: an enabled row wins, a disabled row switches its tier off."""
    from helena.models import ModelTier

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
        if provider == "ollama":
            host = row.base_url or settings.OLLAMA_HOST
        else:
            host = row.base_url or settings.OPENAI_BASE_URL or DEFAULT_OPENAI_BASE_URL
        configs[tier] = TierConfig(
            tier=tier,
            provider=provider,
            name=row.model_name.strip(),
            host=_normalise_host(host),
            api_key=settings.OPENAI_API_KEY if provider == "openai" else "",
            context_window=row.context_window or None,
            price_in=row.price_input_per_1k,
            price_out=row.price_output_per_1k,
            source="admin",
            dialect=row.dialect or "auto",
        )
    return configs


def build_model(config: TierConfig) -> ChatModel:
    """A ChatModel for a configuration; ModelTier.context_window caps/sets the window."""
    if config.provider == "ollama":
        return OllamaModel(config.name, host=config.host, num_ctx=config.context_window,
                           share_context_length=True, dialect=config.dialect)
    return OpenAICompatModel(config.name, base_url=config.host, api_key=config.api_key,
                             context_window=config.context_window or DEFAULT_CLOUD_CONTEXT_WINDOW,
                             dialect=config.dialect)


def get_model_for_tier(tier: int) -> ChatModel | None:
    """The model configured for a tier (no health check, no cloud policy: that is resolve's job)."""
    config = tier_configs().get(tier)
    return build_model(config) if config else None


def task_routes() -> dict[str, int]:
    """TaskRoute rows as {task_type: tier}, for the classifier."""
    from helena.models import TaskRoute

    return dict(TaskRoute.objects.values_list("task_type", "tier"))


def is_cloud_allowed(*, helena: Any = None, configs: dict[int, TierConfig] | None = None) -> bool:
    """The firm has opted in (HelenaSettings) and a tier-3 model is configured.

    A caller that has just read the settings row or the tiers passes them, saving the queries.
    """
    from helena.models import HelenaSettings

    helena = helena if helena is not None else HelenaSettings.load()
    configs = configs if configs is not None else tier_configs()
    return bool(helena.cloud_allowed) and 3 in configs


async def _probe(host: str) -> bool:
    try:
        # The shared SSL context: a default one per probe cost ~18 ms of CPU.
        async with httpx.AsyncClient(timeout=HEALTH_TIMEOUT, verify=ssl_context()) as client:
            response = await client.get(f"{host}/api/tags")
    except (httpx.HTTPError, OSError) as exc:
        log.info("health check %s failed: %s", host, exc)
        return False
    return response.status_code == 200


async def is_healthy(host: str) -> bool:
    """Whether a local (Ollama) host answers; one request per host per HEALTH_TTL seconds.

    Runs that start together on one loop share the probe in flight instead of each sending one.
    """
    host = _normalise_host(host)
    now = time.monotonic()
    cached = _health_cache.get(host)
    if cached is not None and now - cached[0] < HEALTH_TTL:
        return cached[1]
    key = (asyncio.get_running_loop(), host)
    probe = _probing.get(key)
    if probe is None:
        probe = _probing[key] = asyncio.ensure_future(_probe_and_cache(host))
        probe.add_done_callback(lambda _done: _probing.pop(key, None))
    return await asyncio.shield(probe)


async def _probe_and_cache(host: str) -> bool:
    healthy = await _probe(host)
    _health_cache[host] = (time.monotonic(), healthy)
    return healthy


def clear_health_cache() -> None:
    """Forget health results, /api/show results and what was learned about models (tests; or after an
    admin changed a host)."""
    _health_cache.clear()
    forget_context_lengths()
    profiles.forget_learned()


def _candidates(tier: int, *, cloud: bool) -> list[int]:
    """Order in which tiers are tried: the requested one, lower ones, the other local one, cloud."""
    if tier >= 3:
        return [3, 2, 1] if cloud else [2, 1]
    order = [tier, *range(tier - 1, 0, -1), *range(tier + 1, 3)]
    return [*order, 3] if cloud else order


def _label(config: TierConfig) -> str:
    return f"Stufe {config.tier} ({config.name})"


def _unreachable_message(hosts: list[str]) -> str:
    if len(hosts) == 1:
        return f"Kein Sprachmodell erreichbar: {hosts[0]} antwortet nicht."
    return f"Kein Sprachmodell erreichbar: {', '.join(hosts[:-1])} und {hosts[-1]} antworten nicht."


async def resolve(
    *, tier: int, cloud_allowed: bool, configs: dict[int, TierConfig] | None = None
) -> Resolved:
    """The model for a run on `tier`, falling back when that tier is missing, forbidden or down.

    `configs` are the tiers as just read by the caller (else read here). Raises ModelUnavailable
    (German message naming the hosts) when nothing can serve.
    """
    if configs is None:
        configs = await sync_to_async(tier_configs)()
    return await _resolve(configs, tier=tier, cloud_allowed=cloud_allowed)


async def _resolve(configs: dict[int, TierConfig], *, tier: int, cloud_allowed: bool) -> Resolved:
    tier = min(max(tier, 1), 3)
    cloud = cloud_allowed and 3 in configs
    notes: list[str] = []
    if tier == 3 and not cloud:
        notes.append("Die Cloud (Stufe 3) ist nicht freigegeben oder nicht eingerichtet")
    down: list[str] = []
    skipped_missing = False
    for candidate in _candidates(tier, cloud=cloud):
        config = configs.get(candidate)
        if config is None:
            if candidate == tier:
                notes.append(f"Stufe {tier} ist nicht eingerichtet")
            skipped_missing = True
            continue
        if config.local and not await is_healthy(config.host):
            if config.host not in down:
                down.append(config.host)
            notes.append(f"{_label(config)} antwortet nicht ({config.host})")
            continue
        note = ""
        if candidate != tier or notes:
            note = "; ".join(dict.fromkeys(notes)) + f". Helena nutzt stattdessen {_label(config)}."
        if note:
            log.warning("tier %s requested, using tier %s: %s", tier, candidate, note)
        return Resolved(
            model=build_model(config),
            tier=candidate,
            provider=config.provider,
            name=config.name,
            host=config.host,
            price_in=config.price_in,
            price_out=config.price_out,
            fallback_note=note,
            requested_tier=tier,
        )
    if down:
        raise ModelUnavailable(_unreachable_message(down), detail="; ".join(notes), retryable=True)
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


def detected_dialect(config: TierConfig, *, timeout: float = 2.0) -> dict[str, Any]:
    """What Helena knows about a tier's model, for the admin: the profile it uses and why.

    Asks Ollama's /api/show (with a short timeout; the admin page must not hang on a server that
    is down); an OpenAI-compatible server has no such endpoint, so only the name tells.
    """
    capabilities: list[str] | None = None
    template = ""
    reachable: bool | None = None
    if config.provider == "ollama":
        model = OllamaModel(config.name, host=config.host, timeout=timeout)

        async def show() -> Any:
            try:
                return await model.model_info()
            finally:
                await model.aclose()

        info = asyncio.run(show())
        reachable = model.show_failed is False
        capabilities, template = info.capabilities, info.template
    profile = profiles.with_learned(
        profiles.detect(config.name, template=template, capabilities=capabilities, choice=config.dialect),
        (config.provider, config.host, config.name),
    )
    return {"profile": profile, "capabilities": capabilities, "reachable": reachable}
