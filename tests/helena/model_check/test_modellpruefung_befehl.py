"""`manage.py modellpruefung` from the outside: the report's lines, its last line and the exit codes
(0 suitable, 1 not suitable, 2 the server cannot be reached) against the scripted server."""

from __future__ import annotations

import io
import json
from datetime import date
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from helena.model_check.pruefakte import Pruefakte
from helena.model_check.tasks import mentions_date
from helena.models import LLMCall, ModelCheck
from tests.conftest import Kanzlei
from tests.helena.model_check.conftest import behaving, english, never_calls_tools
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = pytest.mark.django_db


def befehl(*args: str) -> tuple[int, list[str], str]:
    """The command as call_command runs it: (exit code, stdout's lines, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("modellpruefung", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = int(exc.code)
    return code, out.getvalue().splitlines(), err.getvalue()


def test_a_model_that_calls_the_right_tools_is_suitable(tier1: ScriptedLLMServer, kanzlei: Kanzlei) -> None:
    tier1.respond_with(behaving())
    code, lines, err = befehl("--stufe", "1")
    print("\n".join(lines))
    assert code == 0, lines
    assert lines[-1] == "Ergebnis: geeignet für Stufe 1"
    assert lines[0].startswith("Modellprüfung Stufe 1: qwen3:4b auf http://127.0.0.1:")
    assert lines[1].startswith("Format: Qwen3") and lines[1].endswith(
        " · Fähigkeiten laut /api/show: completion, tools · Werkzeuge über die Schnittstelle"
        " · Kontextfenster 40.960 Tokens")
    tasks = [line for line in lines if line[:3].strip().rstrip(".").isdigit()]
    assert len(tasks) == 10 and all(" ✓ " in line for line in tasks), tasks
    assert " ✓ Fristen lesen: read_fristen erkannt, Argumente richtig · Deutsch · ohne Markup" in tasks[0]
    assert "Tokens/s" in tasks[0] and "erstes Token" in tasks[0]
    assert "Eignung: Stufe 1 ja · Stufe 2 und 3 ja" in lines
    assert "Urteil Stufe 1: geeignet für Stufe 1" in lines
    assert err == ""
    # The real loop with the registry's tools, the calls booked as the check's; the firm's records
    # never reach the model, only the made-up Akte does.
    chats = tier1.requests_to("/api/chat")
    assert {"read_fristen", "search_gesetze", "create_draft_frist"} <= {
        tool["function"]["name"] for tool in chats[0]["tools"]}
    sent = json.dumps(chats, ensure_ascii=False)
    assert "PRÜF-7/26" in sent and "Sommer ./. Beispiel Bau GmbH" in sent
    assert len(kanzlei.akten) == 4 and all(" ./. " in akte.kurzrubrum for akte in kanzlei.akten.values())
    leaked = [akte.kurzrubrum for akte in kanzlei.akten.values() if akte.kurzrubrum in sent]
    assert leaked == []
    # The Fristen are not in the prompt: a task that asks for them needs the tool.
    akte = Pruefakte(timezone.localdate())
    dates = [date.fromisoformat(f["datum"]) for f in akte.fristen()]
    prompts = [body["messages"][0]["content"] for body in chats]
    assert "PRÜF-7/26" in prompts[0] and not any(mentions_date(p, *dates) for p in prompts)
    assert LLMCall.objects.filter(operation="modellpruefung", model="qwen3:4b").count() == len(chats)
    check = ModelCheck.objects.get()
    assert (check.tier, check.suitable, check.exit_code, check.status) == (1, True, 0, "fertig")
    assert check.lines == lines[:-1] and check.verdict == "geeignet für Stufe 1"


def test_a_model_that_never_calls_tools_is_not_suitable(tier1: ScriptedLLMServer) -> None:
    tier1.respond_with(never_calls_tools())
    code, lines, _ = befehl("--stufe", "1")
    assert code == 1, lines
    assert lines[-1].startswith("Ergebnis: nicht geeignet für Stufe 1 – Werkzeugaufrufe unzuverlässig: "
                                "7 von 8 Aufgaben ohne richtigen Aufruf (Fristen lesen, Vorschrift suchen")
    assert any(line.startswith(" 1. ✗ Fristen lesen: Werkzeugaufruf falsch: kein Werkzeugaufruf (erwartet: "
                               "read_fristen mit akte_id 4711)") for line in lines), lines
    assert any(line.startswith(" 4. ✓ Frage ohne Werkzeug: kein Werkzeug, richtig") for line in lines)
    assert "Eignung: Stufe 1 nein (Werkzeugaufrufe unzuverlässig) · Stufe 2 und 3 nein (Werkzeugaufrufe " \
           "unzuverlässig)" in lines
    assert any(line.startswith("Empfehlung: Das Modell ruft Werkzeuge selten oder falsch auf.")
               for line in lines)
    assert ModelCheck.objects.get().suitable is False


def test_a_model_that_answers_in_english_is_flagged(tier1: ScriptedLLMServer) -> None:
    tier1.respond_with(english())
    code, lines, _ = befehl("--stufe", "1")
    assert code == 1, lines
    assert lines[-1].startswith("Ergebnis: nicht geeignet für Stufe 1 – antwortet nicht auf Deutsch: "
                                "8 von 8 Antworten in anderer Sprache")
    assert any(line.startswith(" 8. ✗ Englische Frage: read_fristen erkannt, Argumente richtig · "
                               "nicht Deutsch") for line in lines), lines
    assert any(line.startswith("Empfehlung: Das Modell antwortet nicht auf Deutsch.") for line in lines)
    # The loop asked once more in German, as in a real run; the model stayed English.
    assert any("vollständig auf Deutsch" in m.get("content", "")
               for body in tier1.requests_to("/api/chat") for m in body["messages"])


def test_a_server_that_is_down_ends_with_exit_code_2(db, settings) -> None:
    from helena.llm import router
    from tests.scripted_llm_server import unused_port

    router.clear_health_cache()
    settings.HELENA_TIER1_MODEL, settings.OLLAMA_HOST = "qwen3:4b", f"http://127.0.0.1:{unused_port()}"
    settings.HELENA_TIER2_MODEL = ""
    code, lines, err = befehl()
    assert code == 2
    assert lines[-2] == f"Nicht geprüft: der Server antwortet nicht ({settings.OLLAMA_HOST})."
    assert lines[-1] == f"Ergebnis: nicht geprüft – der Server antwortet nicht ({settings.OLLAMA_HOST})"
    assert "Traceback" not in err
    assert ModelCheck.objects.get().exit_code == 2


def test_an_openai_compatible_server_is_checked_over_its_own_wire_format(server: ScriptedLLMServer) -> None:
    from helena.models import ModelTier

    ModelTier.objects.create(tier=2, provider="openai", model_name="qwen2.5-14b-instruct",
                             base_url=f"{server.url}/v1", standort="intern")
    server.respond_with(behaving())
    code, lines, _ = befehl("--stufe", "2")
    assert code == 0, lines
    assert lines[0].startswith(f"Modellprüfung Stufe 2: qwen2.5-14b-instruct auf {server.url}/v1 "
                               "(OpenAI-kompatibel, intern")
    assert "Kontextfenster 128.000 Tokens" in lines[1] and "Fähigkeiten" not in lines[1]
    assert lines[-1] == "Ergebnis: geeignet für Stufe 2"
    assert server.requests_to("/v1/chat/completions") and not server.requests_to("/api/chat")


def test_an_openai_compatible_server_that_is_down_ends_with_exit_code_2(db) -> None:
    from helena.models import ModelTier
    from tests.scripted_llm_server import unused_port

    host = f"http://127.0.0.1:{unused_port()}/v1"
    ModelTier.objects.create(tier=2, provider="openai", model_name="qwen2.5-14b-instruct", base_url=host)
    code, lines, err = befehl("--stufe", "2")
    assert code == 2, lines
    assert lines[-1] == f"Ergebnis: nicht geprüft – der Server antwortet nicht ({host})"
    assert "Traceback" not in err


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_command_in_a_shell_exit_codes_and_last_line(server: ScriptedLLMServer) -> None:
    """As an operator runs it: German lines, the last one `Ergebnis: …`, no traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.conftest import database_url
    from tests.scripted_llm_server import unused_port

    def manage(host: str, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "DATABASE_URL": database_url(), "DEBUG": "true", "OLLAMA_HOST": host,
               "HELENA_TIER1_MODEL": "qwen3:4b", "HELENA_TIER2_MODEL": "", "HELENA_TIER3_MODEL": ""}
        return subprocess.run([sys.executable, "manage.py", "modellpruefung", *args], capture_output=True,
                              text=True, cwd=Path(__file__).resolve().parents[3], env=env, check=False,
                              timeout=180)

    hilfe = manage(server.url, "--help")
    hilfetext = " ".join(hilfe.stdout.split())
    assert hilfe.returncode == 0 and "Exit-Code 0: geeignet, 1: nicht geeignet, 2: Server" in hilfetext
    server.respond_with(behaving())
    gut = manage(server.url)
    assert gut.returncode == 0, gut.stdout + gut.stderr
    assert gut.stdout.splitlines()[-1] == "Ergebnis: geeignet für Stufe 1"
    server.respond_with(never_calls_tools())
    schlecht = manage(server.url, "--stufe", "1")
    assert schlecht.returncode == 1
    last = schlecht.stdout.splitlines()[-1]
    assert last.startswith("Ergebnis: nicht geeignet für Stufe 1 – Werkzeugaufrufe unzuverlässig")
    down = f"http://127.0.0.1:{unused_port()}"
    weg = manage(down)
    assert weg.returncode == 2
    assert weg.stdout.splitlines()[-1] == f"Ergebnis: nicht geprüft – der Server antwortet nicht ({down})"
    assert "Traceback" not in weg.stderr and weg.stderr.strip() == "", weg.stderr
    assert ModelCheck.objects.count() == 3


def test_calls_written_as_markup_go_through_the_dialect_parser(tier1: ScriptedLLMServer) -> None:
    """A server without a tool parser passes the model's <tool_call> markup on: Helena reads it, and
    none of it shows in an answer."""
    tier1.respond_with(behaving(as_text=True))
    code, lines, _ = befehl("--stufe", "1")
    assert code == 0, lines
    assert any(line.startswith(" 3. ✓ Zwei Aufrufe in einem Zug: read_fristen, search_gesetze erkannt, "
                               "Argumente richtig · Deutsch · ohne Markup") for line in lines), lines


def test_a_model_that_thinks_before_every_answer_is_told_to_stop(tier1: ScriptedLLMServer) -> None:
    """Ollama's thinking field: the reasoning never shows in an answer, and tier 1 gets the advice."""
    tier1.capabilities = ["completion", "tools", "thinking"]
    careful = behaving()
    tier1.respond_with(lambda request: {**careful(request), "thinking": "Okay, the user wants to know. "
                                                                        "Let me think about the tools."})
    code, lines, _ = befehl("--stufe", "1")
    assert code == 0, lines
    assert any(line.startswith("Empfehlung: Schalte das Überlegen ab: Das Modell denkt vor jeder Antwort "
                               "nach (10 von 10 Aufgaben)") for line in lines), lines
    tasks = [line for line in lines if line[:3].strip().rstrip(".").isdigit()]
    assert len(tasks) == 10 and all(" · ohne Markup · " in line for line in tasks), tasks
    assert all(body.get("think") is True for body in tier1.requests_to("/api/chat"))


def test_a_cloud_tier_without_the_opt_in_is_named_not_checked(tier1: ScriptedLLMServer, settings: Any,
                                                              request: pytest.FixtureRequest) -> None:
    from helena.models import ModelTier
    from tests.scripted_llm_server import start_scripted_server

    settings.HELENA_TIER2_MODEL = ""
    cloud = start_scripted_server()  # tier 3 on a server of its own: any request there would show
    request.addfinalizer(cloud.stop)
    cloud.respond_with(behaving())
    ModelTier.objects.create(tier=3, provider="openai", model_name="gpt-4o", base_url=f"{cloud.url}/v1",
                             enabled=False)
    ModelTier.objects.filter(tier=3).update(enabled=True)  # as if the opt-in was withdrawn afterwards
    tier1.respond_with(behaving())
    code, lines, _ = befehl()
    assert code == 0, lines
    assert lines[0] == ("Stufe 3: nicht geprüft – das Modell läuft in der Cloud, und die Cloud ist nicht "
                        "freigegeben (Verwaltung → Helena-Einstellungen).")
    assert lines[-1] == "Ergebnis: geeignet für Stufe 1"
    code, lines, _ = befehl("--stufe", "3")
    assert code == 2 and lines[-1].startswith("Ergebnis: nicht geprüft – das Modell läuft in der Cloud")
    assert cloud.paths == [] and tier1.requests_to("/api/chat")
