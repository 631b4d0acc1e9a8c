"""Local or cloud: decided by where a model runs, not by its wire format (docs/protocol.md).

A vLLM, llama.cpp, LM Studio or LiteLLM server on this machine or in the firm's private network is
local; every other endpoint is cloud and needs the firm's opt-in, and everything sent to it is
redacted. Host names are judged by their form, never by a DNS lookup: a lookup can change between
the check and the call, and a name that merely resolves to a private address today is no promise.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Literal
from urllib.parse import urlsplit

Standort = Literal["auto", "intern", "extern"]

# Names that only resolve inside a network (RFC 6762, RFC 8375 and common intranet suffixes).
INTERNAL_SUFFIXES = (".localhost", ".local", ".internal", ".intern", ".lan", ".home.arpa", ".intranet")
# Public model APIs: cloud whatever the admin marks (the default endpoint of an OpenAI-compatible row
# with no address is api.openai.com; "intern" must not switch the opt-in off for it).
KNOWN_CLOUD_HOSTS = (
    "openai.com", "openai.azure.com", "anthropic.com", "mistral.ai", "googleapis.com", "groq.com",
    "together.xyz", "together.ai", "openrouter.ai", "deepseek.com", "cohere.com", "cohere.ai",
    "perplexity.ai", "fireworks.ai", "deepinfra.com", "x.ai", "aleph-alpha.com", "ionos.com",
    "scaleway.ai", "huggingface.co", "replicate.com", "amazonaws.com", "anyscale.com",
)
# A host name of one label that is a number ("134744072", "0x7f000001") is an IPv4 address to the
# resolver, not a machine name: judged as one.
_NUMERIC_LABEL = re.compile(r"(?:0x[0-9a-f]+|[0-9]+)")


def host_of(url: str) -> str:
    """The host name or address of a base URL (lower case, without port, brackets or final dot)."""
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.rstrip(".").lower()


def is_internal_host(url: str) -> bool:
    """Loopback, private and link-local addresses, `localhost`, single-label names (a container's
    service name such as `ollama`) and the intranet suffixes are internal; anything else is not."""
    host = host_of(url)
    if not host:
        return False
    if host == "localhost" or host.endswith(INTERNAL_SUFFIXES):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if _NUMERIC_LABEL.fullmatch(host):
            return False  # resolvers read it as an IPv4 number that may be anywhere
        return "." not in host and ":" not in host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_private or address.is_link_local


def is_known_cloud(url: str) -> bool:
    """A public model API (KNOWN_CLOUD_HOSTS or below): never in the house."""
    host = host_of(url)
    return any(host == known or host.endswith("." + known) for known in KNOWN_CLOUD_HOSTS)


def is_cloud(*, url: str, tier: int, standort: str = "auto") -> bool:
    """Whether a configured model counts as cloud.

    The admin's mark wins, except that a public model API is cloud whatever it is marked. Without a
    mark, the tier-3 slot is the cloud tier (as docs/protocol.md says of the environment's
    HELENA_TIER3_MODEL / OPENAI_BASE_URL, always) unless marked internal; tiers 1 and 2 are judged
    by their address.
    """
    if is_known_cloud(url):
        return True
    if standort == "intern":
        return False
    if standort == "extern":
        return True
    if tier == 3:
        return True
    return not is_internal_host(url)


def describe(*, url: str, tier: int, standort: str = "auto") -> str:
    """German one-liner for the admin: where the model runs and why Helena thinks so."""
    cloud = is_cloud(url=url, tier=tier, standort=standort)
    if is_known_cloud(url):
        return f"Cloud ({host_of(url)} ist ein öffentlicher Anbieter)"
    if standort == "intern":
        return "intern (so markiert)"
    if standort == "extern":
        return "Cloud (so markiert)"
    if tier == 3:
        return "Cloud (Stufe 3; als intern markieren, wenn sie im Haus läuft)"
    host = host_of(url) or "?"
    return f"Cloud ({host} ist keine interne Adresse)" if cloud else f"intern ({host})"
