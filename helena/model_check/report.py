"""What the model check's measurements mean for the firm: a verdict per tier, what to change, and the
German lines the command prints and the admin page shows (Du-Form, as every text users read).

A tier is suitable when no answer shows markup or thinking aloud, every answer is German, and at
most one of the tasks it needs went wrong: one miss is a weakness worth naming, two are a pattern.
Tier 1 answers short lookups, so the long text and the several steps count for tiers 2 and 3 only.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from helena.model_check.runner import TaskResult

MIN_WINDOW = 16384  # tokens: a run's prompt, the tools' schemas, the history and a document
SLOW_TOKENS = 5.0  # tokens per second below which an answer crawls
SLOW_FIRST = 10.0  # seconds to the first token above which a chat feels stuck
FORMAT_FIELD = "„Modellstufen → Format der Werkzeugaufrufe“"
# Markup left in an answer → the dialect that writes it (helena/llm/dialects/profiles.py keys).
MARKUP_DIALECTS = (("<tool_call>", "hermes"), ("<function", "qwen3_coder"), ("[TOOL_CALLS]", "mistral"),
                   ("<|python_tag|>", "llama3"), ("```tool_code", "gemma"), ("<｜", "deepseek"),
                   ("<|channel|>", "harmony"), ("<|tool_call|>", "granite"), ('"parameters"', "llama3"),
                   ("<think>", "qwen3"), ("</think>", "reasoning_prefilled"))


@dataclass
class CheckedModel:
    """The tier's model as the check found it."""

    tier: int
    name: str = ""
    host: str = ""
    interface: str = ""  # "Ollama" / "OpenAI-kompatibel"
    standort: str = ""  # helena.llm.locality.describe
    dialect: str = ""  # the profile's key
    dialect_label: str = ""
    native_tools: bool = True
    capabilities: list[str] | None = None
    context_window: int | None = None
    labels: dict[str, str] = field(default_factory=dict)  # every profile's key → label


@dataclass(frozen=True)
class Verdict:
    tier: int
    suitable: bool
    text: str  # "geeignet für Stufe 1" / "nicht geeignet für Stufe 1 – Werkzeugaufrufe unzuverlässig: …"
    short: str = ""  # the reason in a few words, for the list of tiers


def _num(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}".replace(".", ",")


def _titles(results: Sequence[TaskResult]) -> str:
    return ", ".join(r.title for r in results)


def required(results: Sequence[TaskResult], tier: int) -> list[TaskResult]:
    return [r for r in results if tier >= 2 or not r.tier2]


def verdict(results: Sequence[TaskResult], *, tier: int) -> Verdict:
    """Suitable for `tier`, or not and why (the gravest reason first)."""
    needed = required(results, tier)
    # Only tier 1 serves the chat: its tasks must end within the chat's time limit.
    slow = [r for r in needed if r.too_slow] if tier == 1 else []
    failed = [r for r in needed if not r.solved or (tier == 1 and r.too_slow)]
    calls = [r for r in needed if r.calls_ok is False]
    english = [r for r in needed if r.german is False]
    leaks = [r for r in needed if r.leak]
    problems: list[tuple[str, str]] = []
    if len(calls) >= 2:
        judged = sum(1 for r in needed if r.calls_ok is not None)
        problems.append(("Werkzeugaufrufe unzuverlässig",
                         f"{len(calls)} von {judged} Aufgaben ohne richtigen Aufruf ({_titles(calls)})"))
    if english:
        answered = sum(1 for r in needed if r.german is not None)
        problems.append(("antwortet nicht auf Deutsch", f"{len(english)} von {answered} Antworten in "
                                                        f"anderer Sprache ({_titles(english)})"))
    if leaks:
        problems.append(("Markup oder Überlegung in der Antwort",
                         "; ".join(f"{r.title}: {r.leak}" for r in leaks)))
    if len(slow) >= 2:
        problems.append(("zu langsam für den Chat", f"{len(slow)} von {len(needed)} Aufgaben dauerten länger "
                                                    f"als {slow[0].chat_seconds:.0f} s ({_titles(slow)})"))
    if len(failed) >= 2 and not problems:
        problems.append(("Antworten unzuverlässig", f"{len(failed)} von {len(needed)} Aufgaben nicht gelöst "
                                                    f"({_titles(failed)})"))
    if problems:
        text = f"nicht geeignet für Stufe {tier} – " + "; ".join(f"{name}: {why}" for name, why in problems)
        return Verdict(tier, False, text, problems[0][0])
    text = f"geeignet für Stufe {tier}"
    if failed:
        text += f" (eine Schwäche: {failed[0].title} – {_problem(failed[0])})"
    return Verdict(tier, True, text)


def _problem(result: TaskResult) -> str:
    return (result.error or (result.call_problem if result.calls_ok is False else "") or result.leak
            or ("nicht auf Deutsch" if result.german is False else "") or result.answer_problem
            or result.too_slow or "–")


def eligibility(results: Sequence[TaskResult]) -> str:
    """Which tiers the model would do for: tier 1 needs less than tiers 2 and 3."""
    parts = []
    for tier, label in ((1, "Stufe 1"), (2, "Stufe 2 und 3")):
        found = verdict(results, tier=tier)
        parts.append(f"{label} ja" if found.suitable else f"{label} nein ({found.short})")
    return "Eignung: " + " · ".join(parts)


def advice(results: Sequence[TaskResult], *, model: CheckedModel) -> list[str]:
    """What to change, most useful first (German, Du-Form)."""
    tips = _tool_advice(results, model=model)
    if any(r.german is False for r in results):
        tips.append("Das Modell antwortet nicht auf Deutsch. Nimm ein mehrsprachiges Modell (z. B. Qwen3, "
                    "Mistral Small, Llama 3.1 ab 8B) oder eine größere Variante.")
    thinking = [r for r in results if r.reasoning_chars]
    slow_thinking = [r for r in thinking if r.elapsed > r.chat_seconds or "Überlegung" in r.leak]
    if slow_thinking or (model.tier == 1 and len(thinking) * 2 >= len(results) > 0):
        tips.append("Schalte das Überlegen ab: Das Modell denkt vor jeder Antwort nach "
                    f"({len(thinking)} von {len(results)} Aufgaben) und braucht dadurch länger. Nimm eine "
                    "Variante ohne Überlegung (z. B. qwen3:4b-instruct-2507 statt qwen3:4b).")
    # The long text alone failing, where the short tasks were answered, is the window's doing.
    others = [r for r in results if r.key != "langer_kontext"]
    long_failed = any(r.key == "langer_kontext" and not r.answer_ok for r in results) and (
        sum(r.answer_ok for r in others) * 2 > len(others))
    if long_failed or (model.context_window is not None and model.context_window < MIN_WINDOW):
        window = f"{model.context_window:,}".replace(",", ".") if model.context_window else "unbekannt"
        tips.append(f"Gib dem Modell ein größeres Kontextfenster: mindestens {MIN_WINDOW:,} Tokens (jetzt "
                    f"{window}).".replace(",", ".") + " Bei vLLM --max-model-len, bei llama.cpp -c erhöhen; "
                    "unter „Modellstufen → Kontextfenster (überschreibt)“ keinen kleineren Wert eintragen.")
    tps = [r.tokens_per_second for r in results if r.tokens_per_second]
    firsts = [r.first_token for r in results if r.first_token is not None]
    too_slow = [r for r in results if r.too_slow]
    if too_slow:
        tips.append("Das Modell braucht länger, als ein Chat-Lauf dauern darf "
                    f"({len(too_slow)} Aufgaben über {too_slow[0].chat_seconds:.0f} s). Nimm für Stufe 1 ein "
                    "kleineres Modell oder einen Rechner mit Grafikkarte – oder erhöhe unter "
                    "„Helena-Einstellungen → Zeitlimit im Chat“ das Limit, wenn die Kanzlei so lange warten "
                    "mag.")
    elif ((tps and statistics.median(tps) < SLOW_TOKENS)
          or (firsts and statistics.median(firsts) > SLOW_FIRST)):
        tips.append("Das Modell ist für einen Chat langsam. Nimm für Stufe 1 ein kleineres Modell oder "
                    "einen Rechner mit Grafikkarte.")
    return tips


def _tool_advice(results: Sequence[TaskResult], *, model: CheckedModel) -> list[str]:
    leaked = " ".join(r.leak for r in results if r.leak.startswith("Markup"))
    garbled = any(r.malformed for r in results) or bool(leaked)
    wrong = sum(1 for r in results if r.calls_ok is False)
    tips = []
    if garbled:
        guess = next((key for marker, key in MARKUP_DIALECTS if marker in leaked), "")
        if guess and guess != model.dialect:
            tips.append(f"Stell unter {FORMAT_FIELD} das Format „{model.labels.get(guess, guess)}“ ein "
                        f"(erkannt war „{model.dialect_label}“).")
        else:
            tips.append(f"Stell unter {FORMAT_FIELD} das Format des Modells fest ein (erkannt: "
                        f"„{model.dialect_label}“); docs/modelle.md nennt es je Modellfamilie.")
    elif wrong >= 2 and model.dialect == "generic":
        tips.append(f"Helena kennt die Modellfamilie nicht. Stell unter {FORMAT_FIELD} das Format ein, "
                    "das das Modell schreibt (docs/modelle.md).")
    if wrong >= 2 and model.capabilities is not None and "tools" not in model.capabilities:
        tips.append("Der Server meldet für dieses Modell keine Werkzeuge; Helena beschreibt sie dann im "
                    "Prompt. Nimm ein Modell mit Werkzeugen (z. B. qwen3, llama3.1, mistral-small).")
    elif wrong >= 2 and not garbled:
        tips.append("Das Modell ruft Werkzeuge selten oder falsch auf. Ein größeres Modell oder eines mit "
                    "Werkzeugtraining (z. B. qwen3:8b statt qwen3:1.7b) hilft mehr als jede Einstellung.")
    return tips


# --- the lines ------------------------------------------------------------------------------------

def not_checked_reason(first: TaskResult, *, model: CheckedModel) -> str:
    """Why the check stops after its first task, or "" when it goes on: the model gave nothing at all
    and the server refused (a model not pulled, a wrong key) or did not answer in time. In German,
    from Helena's own messages; the client's (English) detail stays in the log."""
    if not first.silent or not (first.error_timeout or first.error_code in ("model_unavailable",
                                                                           "model_error")):
        return ""
    if first.error_status == 404:
        hint = f"ollama pull {model.name}?" if model.interface == "Ollama" else "Name des Modells prüfen"
        return f"das Modell „{model.name}“ gibt es auf dem Server nicht ({hint})"
    if first.error_status in (401, 403):
        return (f"der Server lehnt den Zugang ab (HTTP {first.error_status}) – prüf den API-Schlüssel der "
                "Stufe (Verwaltung → Modellstufen)")
    if first.error_timeout:
        return f"der Server antwortet nicht innerhalb von {first.elapsed:.0f} s ({model.host})"
    if first.error_code == "model_unavailable":
        return f"der Server antwortet nicht ({model.host})"
    return f"{first.error.rstrip('.')} ({model.host})"


def header_lines(model: CheckedModel) -> list[str]:
    lines = [f"Modellprüfung Stufe {model.tier}: {model.name or '–'} auf {model.host or '–'}"
             + (f" ({model.interface}, {model.standort})" if model.interface else "")]
    if model.dialect_label:
        parts = [f"Format: {model.dialect_label}"]
        if model.capabilities is not None:
            parts.append("Fähigkeiten laut /api/show: " + (", ".join(model.capabilities) or "keine"))
        parts.append("Werkzeuge über die Schnittstelle" if model.native_tools
                     else "Werkzeuge im Prompt beschrieben")
        if model.context_window:
            parts.append(f"Kontextfenster {model.context_window:,} Tokens".replace(",", "."))
        lines.append(" · ".join(parts))
    return lines


def task_line(number: int, result: TaskResult) -> str:
    parts: list[str] = []
    if result.error:
        parts.append(result.error)
    if result.too_slow:
        parts.append(result.too_slow)
    if result.calls_ok is True:
        names = ", ".join(dict.fromkeys(c["name"] for c in result.calls))
        parts.append(f"{names} erkannt, Argumente richtig" if names else "kein Werkzeug, richtig")
    elif result.calls_ok is False:
        parts.append(f"Werkzeugaufruf falsch: {result.call_problem}")
    if result.german is not None:
        parts.append("Deutsch" if result.german else "nicht Deutsch")
    parts.append(result.leak or "ohne Markup")
    if not result.answer_ok:
        parts.append(f"Antwort: {result.answer_problem}")
    parts += result.notes
    first = f"erstes Token {_num(result.first_token)} s" if result.first_token is not None else "kein Token"
    speed = f"{_num(result.tokens_per_second, 0)} Tokens/s" if result.tokens_per_second else "– Tokens/s"
    parts += [first, speed]
    return f"{number:2d}. {'✓' if result.passed else '✗'} {result.title}: " + " · ".join(parts)


def closing_lines(results: Sequence[TaskResult], *, model: CheckedModel, found: Verdict) -> list[str]:
    lines = [eligibility(results)]
    tps = [r.tokens_per_second for r in results if r.tokens_per_second]
    firsts = [r.first_token for r in results if r.first_token is not None]
    if tps and firsts:
        lines.append(f"Tempo: erstes Token im Mittel nach {_num(statistics.median(firsts))} s, "
                     f"{_num(statistics.median(tps), 0)} Tokens/s (gemessen nur über Antworten mit Text "
                     "oder Überlegung, reine Werkzeugaufrufe zählen nicht)")
    tips = advice(results, model=model)
    lines += [f"Empfehlung: {tip}" for tip in tips] or ["Empfehlung: nichts zu ändern."]
    lines.append(f"Urteil Stufe {model.tier}: {found.text}")
    return lines


def summary(verdicts: Sequence[Verdict], unreachable: Sequence[tuple[int, str]]) -> str:
    """The last line: `Ergebnis: …`, for one tier or several."""
    if len(verdicts) + len(unreachable) == 1:
        return "Ergebnis: " + (verdicts[0].text if verdicts else f"nicht geprüft – {unreachable[0][1]}")
    parts = [f"Stufe {v.tier} " + ("geeignet" if v.suitable else f"nicht geeignet ({v.short})")
             for v in verdicts]
    parts += [f"Stufe {tier} nicht geprüft ({reason})" for tier, reason in unreachable]
    return "Ergebnis: " + ("; ".join(parts) if parts else "keine Modellstufe eingerichtet")


def as_details(results: Sequence[TaskResult], *, model: CheckedModel,
               found: Verdict | None) -> dict[str, Any]:
    """The measurements to keep beside the tier (ModelCheck.details)."""
    return {"modell": {k: v for k, v in vars(model).items() if k != "labels"},
            "aufgaben": [r.as_dict() for r in results],
            "eignung": eligibility(results) if results else "",
            "empfehlungen": advice(results, model=model) if results else [],
            "urteil": found.text if found else ""}
