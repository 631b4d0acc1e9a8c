"""Is a local model server up? GET /api/tags, answered from a short cache, so a run does not wait
for a chat timeout against a server that is down (helena.llm.router asks before it picks a tier)."""

from __future__ import annotations

import asyncio
import logging
import time

import httpx

from helena.llm.providers.http import POOL, ssl_context
from helena.llm.providers.transport import kept_transport

log = logging.getLogger(__name__)
HEALTH_TIMEOUT = 1.5  # seconds for GET /api/tags
HEALTH_TTL = 5.0  # seconds a health result is reused per host

# host -> (monotonic time of the check, healthy)
_health_cache: dict[str, tuple[float, bool]] = {}
# (event loop, host) -> the probe in flight
_probing: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Future[bool]] = {}


def normalise_host(host: str) -> str:
    host = host.strip().rstrip("/")
    if host and "://" not in host:
        host = "http://" + host
    return host


async def _probe(host: str) -> bool:
    # A client kept per event loop and host (helena/llm/providers/http.py), its connection kept alive
    # (transport.py): a new client and connection per probe cost more CPU than the request. The
    # shared SSL context: a default one per probe cost ~18 ms of CPU.
    key = ("health", host)
    client = POOL.take(key) or httpx.AsyncClient(timeout=HEALTH_TIMEOUT, verify=ssl_context(),
                                                 transport=kept_transport(host))
    try:
        response = await client.get(f"{host}/api/tags")
    except (httpx.HTTPError, OSError) as exc:
        log.info("health check %s failed: %s", host, exc)
        return False
    finally:
        await POOL.give_back(key, client)
    return response.status_code == 200


async def is_healthy(host: str) -> bool:
    """Whether a local (Ollama) host answers; one request per host per HEALTH_TTL seconds.

    Runs that start together on one loop share the probe in flight instead of each sending one.
    """
    host = normalise_host(host)
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


def forget() -> None:
    _health_cache.clear()
