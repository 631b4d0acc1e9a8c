"""When the check stops before it judges the model (exit 2, „nicht geprüft“), and the chat's time limit
on tier 1: a model not pulled, a wrong key, a server that never answers, a model too slow for a chat."""

from __future__ import annotations

import dataclasses
import io
import re
from typing import Any

import pytest
from django.core.management import call_command

from helena.model_check import services
from helena.models import HelenaSettings, ModelCheck, ModelTier
from tests.helena.model_check.conftest import _task_of, behaving
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = pytest.mark.django_db
ENGLISH = re.compile(r"\b(?:not found|error|unauthorized|invalid|timed? ?out|exception)\b", re.I)


def befehl(*args: str) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("modellpruefung", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = int(exc.code)
    return code, out.getvalue().splitlines(), err.getvalue()


def test_a_model_that_is_not_pulled_is_not_checked(tier1: ScriptedLLMServer) -> None:
    tier1.respond_with(lambda request: {"status": 404, "body": "model 'qwen3:4b' not found, try pulling it"})
    code, lines, err = befehl("--stufe", "1")
    reason = "das Modell „qwen3:4b“ gibt es auf dem Server nicht (ollama pull qwen3:4b?)"
    assert code == 2, lines
    assert lines[-2:] == [f"Nicht geprüft: {reason}.", f"Ergebnis: nicht geprüft – {reason}"]
    assert not any(line[:3].strip().rstrip(".").isdigit() for line in lines), lines  # no task lines
    assert len({body["messages"][-1]["content"] for body in tier1.requests_to("/api/chat")}) == 1
    assert not any(ENGLISH.search(line) for line in lines), lines
    assert err == ""
    check = ModelCheck.objects.get()
    assert (check.exit_code, check.suitable, check.verdict) == (2, None, f"nicht geprüft – {reason}")


def test_a_key_the_server_refuses_is_not_checked(server: ScriptedLLMServer) -> None:
    ModelTier.objects.create(tier=2, provider="openai", model_name="qwen2.5-14b-instruct",
                             base_url=f"{server.url}/v1", standort="intern")
    server.respond_with(lambda request: {"status": 401, "body": {"error": {"message": "Invalid API key"}}})
    code, lines, _ = befehl("--stufe", "2")
    assert code == 2, lines
    assert lines[-1] == ("Ergebnis: nicht geprüft – der Server lehnt den Zugang ab (HTTP 401) – prüf den "
                         "API-Schlüssel der Stufe (Verwaltung → Modellstufen)")
    assert not any(ENGLISH.search(line) for line in lines), lines


def test_a_server_that_takes_the_connection_but_never_answers_is_not_checked(
        tier1: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    real = services.catalogue

    def quick(**kwargs: Any) -> list:
        return [dataclasses.replace(task, timeout=1.0) for task in real(**kwargs)]

    monkeypatch.setattr(services, "catalogue", quick)
    tier1.respond_with(lambda request: {"delay": 30, "text": "zu spät"})
    code, lines, _ = befehl("--stufe", "1")
    assert code == 2, lines
    assert lines[-1] == ("Ergebnis: nicht geprüft – der Server antwortet nicht innerhalb von 1 s "
                         f"({tier1.url})")
    assert len(tier1.requests_to("/api/chat")) == 1


def test_a_first_task_that_fails_after_the_model_answered_is_judged(tier1: ScriptedLLMServer) -> None:
    """The model gave something: the check goes on, and a server error later is a task's failure."""
    careful = behaving()

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        task, _ = _task_of(request)
        return {"status": 500, "body": "boom"} if task.key == "gesetz" else careful(request)

    tier1.respond_with(respond)
    code, lines, _ = befehl("--stufe", "1")
    assert code == 0, lines
    assert any(line.startswith(" 2. ✗ Vorschrift suchen: Das lokale Modell hat einen Serverfehler gemeldet "
                               "(HTTP 500).") for line in lines), lines
    assert lines[-1].startswith("Ergebnis: geeignet für Stufe 1 (eine Schwäche: Vorschrift suchen")


def test_tier_1_tasks_must_end_within_the_chat_time_limit(tier1: ScriptedLLMServer) -> None:
    helena = HelenaSettings.load()
    helena.inline_timeout_s = 1  # the admin's „Zeitlimit im Chat“
    helena.save()
    careful = behaving()

    def slow(request: dict[str, Any]) -> dict[str, Any]:
        task, _ = _task_of(request)
        return {**careful(request), "delay": 1.2} if task.key in ("fristen", "gesetz") else careful(request)

    tier1.respond_with(slow)
    code, lines, _ = befehl("--stufe", "1")
    assert code == 1, lines
    assert any(re.match(r" 1\. ✗ Fristen lesen: dauerte \d s, ein Chat-Lauf darf 1 s \(Helena-Einstellungen "
                        r"→ Zeitlimit im Chat\) · read_fristen erkannt", line) for line in lines), lines
    assert any(line.startswith(" 3. ✓ ") for line in lines), lines
    assert lines[-1] == ("Ergebnis: nicht geeignet für Stufe 1 – zu langsam für den Chat: 2 von 8 Aufgaben "
                         "dauerten länger als 1 s (Fristen lesen, Vorschrift suchen)")
    assert "Eignung: Stufe 1 nein (zu langsam für den Chat) · Stufe 2 und 3 ja" in lines
    assert any(line.startswith("Empfehlung: Das Modell braucht länger, als ein Chat-Lauf dauern darf "
                               "(2 Aufgaben über 1 s).") for line in lines), lines


def test_the_chat_time_limit_is_a_note_on_tier_2(server: ScriptedLLMServer) -> None:
    helena = HelenaSettings.load()
    helena.inline_timeout_s = 1
    helena.save()
    ModelTier.objects.create(tier=2, provider="ollama", model_name="qwen3:14b", base_url=server.url)
    careful = behaving()

    def slow(request: dict[str, Any]) -> dict[str, Any]:
        task, _ = _task_of(request)
        return {**careful(request), "delay": 1.2} if task.key in ("fristen", "gesetz") else careful(request)

    server.respond_with(slow)
    code, lines, _ = befehl("--stufe", "2")
    assert code == 0, lines
    note = "länger als ein Chat-Lauf dauern darf (1 s)"
    assert any(line.startswith(" 1. ✓ Fristen lesen: ") and note in line for line in lines), lines
