"""Which dialect a model speaks: from the admin's choice, the model's name and Ollama's /api/show.

Every dialect's markup is recognised in every stream, whatever the profile says (small models mix
formats, and markup must never be shown). The profile decides what the stream cannot tell in time:
whether the chat template pre-fills "<think>" (then the output starts as reasoning), whether the
server takes tools at all, and how tools are described when it does not (prompt-based calling).
Facts learned while streaming (a 400 "does not support tools", a "</think>" without its opener,
a guessed pre-fill the stream refuted) are this process's copy of what helena/llm/learned.py shares
between processes; a learned pre-fill stays a guess (held until it shows, helena/llm/providers/
stream.py), while a template that ends its generation prompt with "<think>", the admin's choice or
a server that separates the reasoning itself are known.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
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
    # Whether reasoning_prefilled is known (template, admin, server) or a guess (name, learned): a
    # guess never hides an answer (helena/llm/providers/stream.py). The source, for the admin.
    prefill_known: bool = False
    prefill_source: str = ""  # a key of PREFILL_SOURCES, "" when nothing says anything


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
PREFILL_SOURCES = {
    "name": "am Modellnamen vermutet",
    "template": "laut Vorlage (/api/show)",
    "admin": "in der Verwaltung eingestellt",
    "server": "der Server trennt die Überlegung selbst",
    "learned": "aus einer früheren Ausgabe gelernt",
}
_THINK = "<think>"
# What may follow the generation prompt's "<think>" in an Ollama (Go) or a Jinja template without
# adding text: escaped and real newlines, the string's quotes, the tag's end, {{ end }} / {% endif %},
# and Ollama's {{ .Response }} (where the output goes).
_TAIL_NOISE_RE = re.compile(
    r"\\n|\s+|['\"]|\{\{-?\s*(?:end|\.Response)\s*-?\}\}|\{%-?\s*endif\s*-?%\}|-?\}\}")
_CONTROL_RE = re.compile(r"\{[{%]-?\s*(if|elif|else|end\w*|range|for)\b[^{}]*?-?[}%]\}")


def template_prefills_think(template: str) -> bool | None:
    """Whether a chat template ends the generation prompt with "<think>" (the output then starts
    as reasoning); None when the template does not tell: none, Ollama's bare "{{ .Prompt }}", or a
    "<think>" in one branch of a choice (DeepSeek V3.1: "</think>" or "<think>" by a flag)."""
    text = template.strip()
    if not text or text == "{{ .Prompt }}":
        return None
    index = text.rfind(_THINK)
    if index < 0 or _TAIL_NOISE_RE.sub("", text[index + len(_THINK):]):
        return False
    controls = _CONTROL_RE.findall(text[:index])
    if controls and controls[-1] in ("else", "elif"):
        return None
    return True


def detect(name: str, *, template: str = "", capabilities: list[str] | None = None,
           choice: str = AUTO) -> Profile:
    """The profile for a model; an explicit admin choice wins over detection."""
    if choice and choice != AUTO and choice in PROFILES:
        profile = PROFILES[choice]
        if profile.reasoning_prefilled:
            profile = replace(profile, prefill_known=True, prefill_source="admin")
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
    if profile.reasoning_prefilled:
        profile = replace(profile, prefill_source="name")
    told = template_prefills_think(template)
    if told is not None:  # yes: known; no: better than the name, but a stray "</think>" may still teach
        profile = replace(profile, reasoning_prefilled=told, prefill_known=told, prefill_source="template")
    return profile


# --------------------------------------------------------------------------- learned per model

_learned: dict[tuple[str, str, str], set[str]] = {}
_lock = threading.Lock()
NO_TOOLS = "no_tools"
PREFILLED = "reasoning_prefilled"
NOT_PREFILLED = "not_prefilled"  # a guessed pre-fill the stream refuted
OPPOSITE = {PREFILLED: NOT_PREFILLED, NOT_PREFILLED: PREFILLED}


def learn(key: tuple[str, str, str], fact: str) -> None:
    with _lock:
        facts = _learned.setdefault(key, set())
        facts.discard(OPPOSITE.get(fact, ""))
        facts.add(fact)


def learned(key: tuple[str, str, str]) -> frozenset[str]:
    with _lock:
        return frozenset(_learned.get(key, ()))


# Called by forget_learned: helena/llm/learned.py registers the shared store's forget_all here, so a
# test that forgets starts clean in Redis too (this module imports nothing of Django or Redis).
FORGET_HOOKS: list[Callable[[], None]] = []


def forget_learned() -> None:
    """Forget what was learned, here and (through FORGET_HOOKS) in the store all processes share."""
    with _lock:
        _learned.clear()
    for hook in list(FORGET_HOOKS):
        hook()


def replace_learned(facts: dict[tuple[str, str, str], set[str]]) -> None:
    """This process's copy becomes `facts` (helena/llm/learned.py, as all processes share them)."""
    with _lock:
        _learned.clear()
        _learned.update({key: set(values) for key, values in facts.items()})


def with_learned(profile: Profile, key: tuple[str, str, str]) -> Profile:
    """The profile with what was learned about the model; a known pre-fill is not overruled."""
    facts = learned(key)
    if NO_TOOLS in facts:
        profile = replace(profile, native_tools=False)
    if not profile.prefill_known and (PREFILLED in facts or NOT_PREFILLED in facts):
        profile = replace(profile, reasoning_prefilled=PREFILLED in facts, prefill_source="learned")
    return profile
