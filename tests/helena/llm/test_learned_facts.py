"""What Helena learns about a model, from outside: API → runner → the real clients → the scripted
server. A template that pre-fills "<think>" is known before the first answer; a wrong guess never
leaves the user without an answer and is dropped; "refuses tools" is learned, seen by the admin's
service in every process, and reset by it; only the admin's code paths may reset (no public API).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from helena.llm import learned, router
from helena.llm.dialects import profiles
from helena.models import Message, ModelTier
from tests.conftest import Kanzlei
from tests.helena.llm import chat_templates
from tests.helena.web.test_runs_api import ask, events, wait
from tests.scripted_llm_server import ScriptedLLMServer, unused_port

ROOT = Path(__file__).resolve().parents[3]
ANSWER = "Die Berufungsfrist beträgt einen Monat ab Zustellung des Urteils (§ 517 ZPO)."
REASONING = "Der Nutzer fragt nach der Berufungsfrist. Nach § 517 ZPO ist es ein Monat."


def shown(evs: list[dict]) -> list[str]:
    return [e["delta"] for e in evs if e["type"] == "text"]


def reasoning(evs: list[dict]) -> str:
    return "".join(e["delta"] for e in evs if e["type"] == "reasoning")


def use_model(server: ScriptedLLMServer, name: str, provider: str = "ollama") -> tuple[str, str, str]:
    """Tiers 1 and 2 serve `name` on the scripted server (whichever the question is routed to); the
    key Helena learns it under."""
    host = server.url if provider == "ollama" else server.url + "/v1"
    for row in ModelTier.objects.filter(tier__in=(1, 2)):
        row.model_name, row.provider, row.base_url = name, provider, host
        row.save()  # the settings' cache hears of it
    return (provider, host, name)


def facts(key: tuple[str, str, str]) -> set[str]:
    return {fact.fact for fact in learned.facts_of(key)}


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_prefilling_template_is_known_before_the_first_answer(kanzlei: Kanzlei,
                                                               tiers: ScriptedLLMServer) -> None:
    tiers.template = chat_templates.OLLAMA_QWEN3_NEXT  # Ollama's qwen3-next: "…assistant\n<think>\n"
    key = use_model(tiers, "kanzlei-modell:8b")  # the name says nothing
    tiers.script([{"raw": f"{REASONING}\n</think>\n\n{ANSWER}"}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, "Wie lange ist die Berufungsfrist?", mode="inline")
    run = wait(client, run_id)
    evs = events(client, run_id)
    assert run["text"] == ANSWER == "".join(shown(evs)).strip()
    assert reasoning(evs).strip() == REASONING
    assert Message.objects.get(conversation_id=conversation, role="assistant").text == ANSWER
    assert learned.learned_facts() == []  # known from the template, nothing guessed or learned
    found = router.detected_dialect(router.tier_configs()[1], cloud_allowed=False)
    assert found["profile"].reasoning_prefilled and found["profile"].prefill_source == "template"
    assert found["learned"] == [] and key[2] == "kanzlei-modell:8b"


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
@pytest.mark.parametrize("provider", ["ollama", "openai"])
def test_a_wrong_guess_never_hides_the_answer_and_is_dropped(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                                             provider: str) -> None:
    """deepseek-r1 by its name is guessed to pre-fill "<think>"; this server's model answers plainly,
    the reasoning never closes. The user gets the text as the answer, live and stored, and the next
    answer of that model is no longer held (tests/helena/llm/providers/test_prefill_guess.py shows it
    streaming word by word; the stored events join the deltas)."""
    key = use_model(tiers, "deepseek-r1:8b", provider)
    tiers.script([{"text": ANSWER}, {"text": "Die Revisionsfrist beträgt auch einen Monat (§ 548 ZPO)."}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, "Wie lange ist die Berufungsfrist?", mode="inline")
    run = wait(client, run_id)
    evs = events(client, run_id)
    assert run["status"] == "finished" and run["text"] == ANSWER == "".join(shown(evs))
    assert reasoning(evs) == ""
    assert Message.objects.get(conversation_id=conversation, role="assistant").text == ANSWER
    assert facts(key) == {profiles.NOT_PREFILLED}
    (fact,) = learned.facts_of(key)
    assert "nie geschlossen" in fact.why and fact.since is not None
    profile = router.detected_dialect(router.tier_configs()[1], cloud_allowed=False)["profile"]
    assert profile.reasoning_prefilled is False and profile.prefill_source == "learned"
    _, second = ask(client, "Und die Revisionsfrist?", mode="inline")
    assert wait(client, second)["text"].startswith("Die Revisionsfrist")
    assert reasoning(events(client, second)) == "" and facts(key) == {profiles.NOT_PREFILLED}


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_learned_prefill_that_proves_wrong_gives_the_answer(kanzlei: Kanzlei,
                                                               tiers: ScriptedLLMServer) -> None:
    key = use_model(tiers, "klein")
    tiers.script([{"raw": f"{REASONING}</think>\n\nEin Monat."}, {"text": ANSWER}])
    client = kanzlei.client("anwalt")
    _, first = ask(client, "Wie lange ist die Berufungsfrist?", mode="inline")
    wait(client, first)
    assert facts(key) == {profiles.PREFILLED}  # a "</think>" without its opener
    _, second = ask(client, "Und wie lange genau?", mode="inline")
    assert wait(client, second)["text"] == ANSWER  # not swallowed as reasoning
    assert facts(key) == {profiles.NOT_PREFILLED}


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_refuses_tools_is_learned_and_reset_by_the_admins_service(kanzlei: Kanzlei,
                                                                  tiers: ScriptedLLMServer) -> None:
    tiers.capabilities = None  # an Ollama that does not report capabilities: 400 "does not support tools"
    key = use_model(tiers, "klein")
    tiers.script([{"text": "Erste Antwort."}, {"text": "Zweite Antwort."}, {"text": "Dritte Antwort."}])
    client = kanzlei.client("anwalt")
    for question in ("Erste Frage?", "Zweite Frage?"):
        _, run_id = ask(client, question, mode="inline")
        assert wait(client, run_id)["status"] == "finished"
    assert [bool(r.get("tools")) for r in tiers.requests_to("/api/chat")] == [True, False, False]
    (fact,) = learned.learned_facts()
    assert (fact.key, fact.fact) == (key, profiles.NO_TOOLS) and "does not support tools" in fact.why
    assert learned.forget(provider="ollama", host=tiers.url, model="klein") == 1
    tiers.capabilities = ["completion", "tools"]  # the server was updated meanwhile
    _, run_id = ask(client, "Dritte Frage?", mode="inline")
    assert wait(client, run_id)["text"] == "Dritte Antwort."
    assert bool(tiers.requests_to("/api/chat")[-1].get("tools"))  # tools offered again
    assert learned.learned_facts() == []


# --------------------------------------------------------------------------- every process, Redis away


def _in_another_process(code: str) -> str:
    from django.conf import settings

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "REDIS_URL": settings.REDIS_URL}
    script = "import django; django.setup()\nfrom helena.llm import learned\n" + code
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.slow
def test_facts_are_seen_and_forgotten_across_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    learned.forget_all()
    key = ("ollama", "http://ollama.kanzlei:11434", "gemma3:12b")
    try:
        learned.learn(key, profiles.NO_TOOLS, "Der Server lehnte Werkzeuge ab (HTTP 400)")
        seen = json.loads(_in_another_process(
            "import json; print(json.dumps([[f.model, f.fact, f.why] for f in learned.learned_facts()]))"))
        assert seen == [["gemma3:12b", profiles.NO_TOOLS, "Der Server lehnte Werkzeuge ab (HTTP 400)"]]
        assert _in_another_process("print(learned.forget(model='gemma3:12b'))") == "1"
        assert profiles.learned(key) == {profiles.NO_TOOLS}  # this process's copy until it re-reads
        monkeypatch.setattr(learned, "RECHECK", 0.0)
        learned.refresh()
        assert profiles.learned(key) == frozenset() and learned.learned_facts() == []
    finally:
        learned.forget_all()


def test_without_redis_a_process_keeps_its_own_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    learned.forget_all()
    unreachable = redis.Redis(port=unused_port(), socket_connect_timeout=0.2)
    monkeypatch.setattr(learned, "_redis", lambda: unreachable)
    key = ("openai", "http://vllm.kanzlei/v1", "local-llm")
    learned.learn(key, profiles.NO_TOOLS, "HTTP 400")
    assert profiles.learned(key) == {profiles.NO_TOOLS}
    assert [f.key for f in learned.learned_facts()] == [key]
    assert learned.forget(model="local-llm") == 1 and profiles.learned(key) == frozenset()
    monkeypatch.undo()
    learned.forget_all()


def test_only_the_admin_may_reset_no_public_api() -> None:
    """helena.llm.learned is imported only inside helena/llm (where facts are learned and read) and by
    the Django admin; no URL, API or socket module reaches it."""
    importers = []
    for package in ("helena", "akten", "drafts", "config"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.ImportFrom):
                    names = [f"{node.module}.{a.name}" for a in node.names] + [node.module or ""]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                if any(n == "helena.llm.learned" or n.startswith("helena.llm.learned.") for n in names):
                    importers.append(path.relative_to(ROOT).as_posix())
    assert importers and all(p.startswith(("helena/llm/", "helena/admin/")) for p in importers), importers
