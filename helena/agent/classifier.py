"""Which mode (inline/background) and model tier a request gets, before any model is asked.

Rule-based on purpose: it is instant, deterministic and costs nothing, so every message can be
classified. First match wins: Schriftsatz → Entwurf → Recherche → kurze Nachschlagefrage → default.
(A Schriftsatz is checked before the generic drafting words, because "Entwirf eine Klageerwiderung"
is both, and the more specific rule has to win.) An admin TaskRoute can move any task type to
another tier; tier 3 (cloud) only when the cloud is allowed. An optional tier-1 LLM classifier can
refine the result; whatever goes wrong there, the rule-based result stands.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass, replace
from typing import Literal

from helena.llm.base import ChatModel

log = logging.getLogger(__name__)

Mode = Literal["inline", "background"]
ModeArg = Literal["auto", "inline", "background"]

MAX_REASON = 300  # AgentRun.classifier_reason
SHORT_QUESTION_WORDS = 15
LONG_INSTRUCTION_CHARS = 300
TASK_TYPE_RE = re.compile(r"^[a-z][a-z0-9_\-]{0,39}$")


@dataclass(frozen=True)
class Classification:
    mode: Mode
    tier: int
    task_type: str
    reason: str


def _words(*words: str) -> re.Pattern[str]:
    """Alternatives anchored at a word start ('beschreibe' must not count as 'schreibe')."""
    return re.compile(r"\b(?:" + "|".join(words) + r")", re.IGNORECASE)


# Drafting verbs and nouns: imperative, infinitive and noun forms.
DRAFTING = _words(
    r"entwirf", r"entwerfe", r"entwerfen\b", r"entwurf", r"entwürfe",
    r"erstelle", r"erstellen\b", r"schreib(?:e)?\b", r"formulier(?:e|en)\b",
    r"verfass(?:e|en)\b", r"setz(?:e)? .{0,40}\bauf\b", r"aufsetzen\b",
)
DRAFTING_VERB = _words(
    r"entwirf", r"entwerfe", r"erstelle", r"schreib(?:e)?\b", r"formulier(?:e|en)\b", r"verfass(?:e|en)\b",
    r"aufsetzen\b",
)
# Lower-case infinitives are verbs ("einen Brief schreiben"); capitalised they are nouns ("das Schreiben").
DRAFTING_INFINITIVE = re.compile(r"\b(?:schreiben|verfassen|formulieren|entwerfen|erstellen|aufsetzen)\b")
# A filing: either the word Schriftsatz or a filing noun itself.
SCHRIFTSATZ = _words(r"schriftsatz", r"schriftsätze", r"klageschrift", r"klageerwiderung",
                     r"berufungsbegründung", r"berufungsschrift", r"antragsschrift", r"replik\b", r"duplik\b")
FILING_KIND = _words(r"klage", r"antrag", r"anträge", r"berufung", r"beschwerde", r"einspruch",
                     r"widerspruch", r"replik\b", r"duplik\b", r"stellungnahme")
RESEARCH = _words(
    r"recherchier", r"recherche", r"analysier", r"vergleich(?:e|en)\b",
    r"prüf(?:e|en)? (?:\S+ ){0,3}?(?:alle|sämtliche|vollständig)",
    r"pruef(?:e|en)? (?:\S+ ){0,3}?(?:alle|saemtliche|vollstaendig)",
    r"fass(?:e)? (?:\S+ ){0,4}?(?:alle|sämtliche)\b.*\bzusammen",
    r"zusammenfassung (?:aller|sämtlicher)",
    r"untersuche",
)
LOOKUP = _words(
    r"wann\b", r"welche[rsmn]?\b", r"wie viele?\b", r"wieviele?\b", r"wie hoch\b", r"wie lange?\b",
    r"zeig(?:e)?\b", r"liste\b", r"list .{0,40}\bauf\b", r"was ist\b", r"wer ist\b", r"wo ist\b",
    r"gibt es\b", r"bis wann\b", r"nenne\b",
)


def _hit(pattern: re.Pattern[str], text: str) -> str | None:
    """The matched words, completed to the end of the last word (for a readable reason)."""
    match = pattern.search(text)
    if not match:
        return None
    end = match.end() + len(re.match(r"\w*", text[match.end():]).group(0))
    return text[match.start():end].strip()


def _rule(text: str) -> Classification:
    """The rules alone, without TaskRoute or an explicit mode."""
    words = len(text.split())
    lookup_first = LOOKUP.match(text) is not None and words <= SHORT_QUESTION_WORDS
    drafting = _hit(DRAFTING, text) or _hit(DRAFTING_INFINITIVE, text)
    if drafting and drafting.lower().startswith("entw") and lookup_first and not DRAFTING_VERB.search(text):
        drafting = None  # "Zeig mir den Entwurf": a lookup that mentions a draft, not a drafting task
    schriftsatz = _hit(SCHRIFTSATZ, text)
    filing = _hit(FILING_KIND, text)
    # "Schriftsatz … Klage" is a filing task unless it is a question about one.
    literal_schriftsatz = (schriftsatz is not None and schriftsatz.lower().startswith("schrifts")
                           and not text.endswith("?"))
    if (drafting and (schriftsatz or filing)) or (literal_schriftsatz and filing):
        found = ", ".join(f"„{w}“" for w in dict.fromkeys(x for x in (schriftsatz, drafting, filing) if x))
        return Classification("background", 2, "schriftsatz", f"Schriftsatz ({found})")
    if drafting:
        return Classification("background", 2, "entwurf", f"Entwurfsauftrag („{drafting}“)")
    research = _hit(RESEARCH, text)
    if research:
        return Classification("background", 2, "recherche", f"mehrstufige Recherche („{research[:40]}“)")
    if len(text) > LONG_INSTRUCTION_CHARS:
        return Classification("background", 2, "frage", f"lange Anweisung ({len(text)} Zeichen)")
    lookup = _hit(LOOKUP, text)
    if lookup and words <= SHORT_QUESTION_WORDS:
        return Classification("inline", 1, "frage", f"kurze Nachschlagefrage („{lookup}“, {words} Wörter)")
    return Classification("inline", 2, "frage", "allgemeine Frage")


def _apply(
    result: Classification, *, mode: ModeArg, routes: dict[str, int] | None, cloud_allowed: bool
) -> Classification:
    """TaskRoute and an explicit mode on top of a classification; tier 3 only with cloud."""
    tier, reason = result.tier, result.reason
    route = (routes or {}).get(result.task_type)
    if route in (1, 2, 3) and route != tier:
        if route == 3 and not cloud_allowed:
            reason += "; Routing auf Stufe 3, Cloud aber nicht freigegeben"
        else:
            tier = route
            reason += f"; Routing „{result.task_type}“ → Stufe {route}"
    if tier == 3 and not cloud_allowed:
        tier = 2
        reason += "; Cloud nicht freigegeben → Stufe 2"
    new_mode = result.mode
    if mode in ("inline", "background") and mode != result.mode:
        new_mode = mode
        reason += f"; Modus „{mode}“ vom Benutzer gewählt"
    return replace(result, mode=new_mode, tier=tier, reason=reason[:MAX_REASON])


def classify(
    *,
    text: str,
    mode: ModeArg = "auto",
    routes: dict[str, int] | None = None,
    cloud_allowed: bool = False,
) -> Classification:
    """Classify one user message; an explicit mode overrides the mode only, never the tier."""
    return _apply(_rule(" ".join(text.split())), mode=mode, routes=routes, cloud_allowed=cloud_allowed)


CLASSIFIER_PROMPT = """Du ordnest Anfragen an Helena, die KI-Kollegin einer Anwaltskanzlei, ein.
Antworte ausschließlich mit einem JSON-Objekt, ohne weiteren Text:
{"mode": "inline" oder "background", "tier": 1, 2 oder 3, "task_type": "frage", "entwurf", \
"schriftsatz" oder "recherche", "reason": "kurze Begründung auf Deutsch"}
- inline: schnelle Antwort im Chat (Nachschlagen, kurze Fragen). background: mehrstufige Arbeit \
(Entwürfe, Schriftsätze, Recherchen über mehrere Quellen oder Akten).
- tier 1: einfache Nachschlagefrage; tier 2: alles, was Nachdenken oder Formulieren braucht; \
tier 3: nur anspruchsvolle Schriftsätze (Klage, Berufung, Klageerwiderung)."""


def _parse(raw: str) -> dict | None:
    """The first JSON object in the answer (models like to wrap it in prose, fences or <think>)."""
    raw = re.sub(r"<think>.*?(?:</think>|\Z)", "", raw, flags=re.DOTALL)
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", raw):
        try:
            value, _ = decoder.raw_decode(raw, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


async def classify_with_model(
    *,
    model: ChatModel,
    text: str,
    fallback: Classification,
    mode: ModeArg = "auto",
    routes: dict[str, int] | None = None,
    cloud_allowed: bool = False,
    timeout: float = 10.0,
) -> Classification:
    """Ask the (small, local) tier-1 model; any failure or doubtful answer returns the fallback.

    The model may not send a request to the cloud on its own: tier 3 only stands if the rules
    already chose it (i.e. the admin routed the task type there and the cloud is allowed).
    """
    messages = [
        {"role": "system", "content": CLASSIFIER_PROMPT},
        {"role": "user", "content": text[:4000]},
    ]

    async def ask() -> str:
        answer = ""
        async for chunk in model.stream(messages=messages, temperature=0):
            if chunk.kind == "text":
                answer += chunk.text
        return answer

    try:
        raw = await asyncio.wait_for(ask(), timeout=timeout)
    except Exception as exc:  # unreachable model, timeout, anything: the rules decide
        log.info("LLM classifier failed, using the rules: %s", exc)
        return fallback
    data = _parse(raw)
    if data is None:
        log.info("LLM classifier answered without JSON: %.200s", raw)
        return fallback
    llm_mode, tier, task_type, reason = (data.get(k) for k in ("mode", "tier", "task_type", "reason"))
    if isinstance(tier, str) and tier.strip().isdigit():
        tier = int(tier.strip())
    task_type = task_type.strip().lower() if isinstance(task_type, str) else ""
    if (
        llm_mode not in ("inline", "background")
        or isinstance(tier, bool)
        or tier not in (1, 2, 3)
        or not TASK_TYPE_RE.match(task_type)
    ):
        log.info("LLM classifier answered invalid values: %.200s", raw)
        return fallback
    if tier == 3 and fallback.tier != 3:
        tier = 2
    reason_text = reason.strip() if isinstance(reason, str) and reason.strip() else "ohne Begründung"
    result = Classification(llm_mode, tier, task_type, f"LLM-Klassifikator: {reason_text}")
    return _apply(result, mode=mode, routes=routes, cloud_allowed=cloud_allowed)
