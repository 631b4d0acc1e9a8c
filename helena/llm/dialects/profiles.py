"""Which dialect a model speaks: from the admin's choice, the model's name and Ollama's /api/show.

Every dialect's markup is recognised in every stream, whatever the profile says (small models mix
formats, and markup must never be shown). The profile decides what the stream cannot tell in time:
whether the chat template pre-fills "<think>" (then the output starts as reasoning), whether the
server takes tools at all, and how tools are described when it does not (prompt-based calling).
Facts learned while streaming (a 400 "does not support tools", a "</think>" without its opener)
are remembered per model, so the next call starts right.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from typing import Literal

PromptFormat = Literal["hermes", "gemma"]


@dataclass(frozen=True)
class Profile:
    dialect: str
    label: str
    reasoning_prefilled: bool = False
    prompt_format: PromptFormat = "hermes"
    native_tools: bool = True


# key -> profile; the admin's choices (ModelTier.dialect) are these keys plus "auto".
PROFILES: dict[str, Profile] = {p.dialect: p for p in (
    Profile("hermes", "Hermes / Qwen2.5 (<tool_call>)"),
    Profile("qwen3", "Qwen3 (<think> + <tool_call>)"),
    Profile("reasoning_prefilled", "DeepSeek-R1 / QwQ / *-Thinking (Überlegung vorbelegt, nur </think>)",
            reasoning_prefilled=True),
    Profile("qwen3_coder", "Qwen3-Coder / Qwen3.5 (XML <function=…>)"),
    Profile("llama3", "Llama 3.1–3.3 / 4 (JSON mit \"parameters\", <|python_tag|>, pythonisch)"),
    Profile("gemma", "Gemma 3 (```tool_code)", prompt_format="gemma"),
    Profile("mistral", "Mistral ([TOOL_CALLS])"),
    Profile("deepseek", "DeepSeek V3 / V3.1 (<｜tool▁calls▁begin｜>)"),
    Profile("harmony", "gpt-oss (Harmony-Kanäle)"),
    Profile("granite", "IBM Granite (<|tool_call|>)"),
    Profile("generic", "allgemein (alle Formate)"),
)}
AUTO = "auto"
CHOICES: list[tuple[str, str]] = [(AUTO, "automatisch erkennen"),
                                  *((key, profile.label) for key, profile in PROFILES.items())]

# Name patterns, most specific first (names as Ollama, Hugging Face and vLLM spell them).
_BY_NAME: tuple[tuple[str, str], ...] = (
    (r"gpt-oss", "harmony"),
    (r"qwen3[.\-]?5|qwen3-coder|qwen3coder", "qwen3_coder"),
    (r"qwq|deepseek-r1|r1-distill|-thinking|:thinking|thinking-", "reasoning_prefilled"),
    (r"qwen3", "qwen3"),
    (r"qwen2|qwen-2|hermes|nous", "hermes"),
    (r"llama-?3|llama-?4|llama3|llama4", "llama3"),
    (r"gemma", "gemma"),
    (r"mistral|mixtral|ministral|magistral|devstral|codestral", "mistral"),
    (r"deepseek", "deepseek"),
    (r"granite", "granite"),
)
# Markers in an Ollama template (Go) or a chat template (Jinja) when the name says nothing.
_BY_TEMPLATE: tuple[tuple[str, str], ...] = (
    ("<|channel|>", "harmony"),
    ("<function=", "qwen3_coder"),
    ("<tool_call>", "hermes"),
    ("[TOOL_CALLS]", "mistral"),
    ("<|python_tag|>", "llama3"),
    ("tool▁calls▁begin", "deepseek"),
    ("<|tool_call|>", "granite"),
    ("tool_code", "gemma"),
)
_PREFILLED_RE = re.compile(r"<think>\s*(?:\n|\\n)?\s*(?:\{\{-?\s*end\s*-?\}\}|\{%-?\s*endif)?\s*\Z")


def detect(name: str, *, template: str = "", capabilities: list[str] | None = None,
           choice: str = AUTO) -> Profile:
    """The profile for a model; an explicit admin choice wins over detection."""
    if choice and choice != AUTO and choice in PROFILES:
        profile = PROFILES[choice]
    else:
        profile = _detected(name.lower(), template)
    if capabilities is not None and "tools" not in capabilities:
        profile = replace(profile, native_tools=False)
    return profile


def _detected(name: str, template: str) -> Profile:
    for pattern, key in _BY_NAME:
        if re.search(pattern, name):
            profile = PROFILES[key]
            break
    else:
        key = next((key for marker, key in _BY_TEMPLATE if marker in template), "generic")
        profile = PROFILES[key]
    if template and _PREFILLED_RE.search(template.rstrip()):
        profile = replace(profile, reasoning_prefilled=True)
    return profile


# --------------------------------------------------------------------------- learned per model

_learned: dict[tuple[str, str, str], set[str]] = {}
_lock = threading.Lock()
NO_TOOLS = "no_tools"
PREFILLED = "reasoning_prefilled"


def learn(key: tuple[str, str, str], fact: str) -> None:
    with _lock:
        _learned.setdefault(key, set()).add(fact)


def learned(key: tuple[str, str, str]) -> frozenset[str]:
    with _lock:
        return frozenset(_learned.get(key, ()))


def forget_learned() -> None:
    with _lock:
        _learned.clear()


def with_learned(profile: Profile, key: tuple[str, str, str]) -> Profile:
    facts = learned(key)
    if NO_TOOLS in facts:
        profile = replace(profile, native_tools=False)
    if PREFILLED in facts:
        profile = replace(profile, reasoning_prefilled=True)
    return profile
