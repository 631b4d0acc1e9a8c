"""What a lawyer notices when a small open model serves Helena, end to end through the API, the runner
and the real Ollama client against the scripted server: calls written in a model's own dialect are
executed, a call cut off by the length limit never becomes a draft, an English answer is asked again
in German before it is shown, an announced lookup is actually done, and a model that cannot write a
readable call hands over to the next tier. Nothing raw reaches the stream or the stored history."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from drafts.models import Draft
from helena.agent.nudges import GERMAN_PROMPT, NUDGE_PROMPT, PARSE_ERROR_HINT, TRUNCATED_PROMPT
from helena.models import Message
from tests.conftest import Kanzlei, zweiter_faktor_gegeben
from tests.helena.llm.dialects.test_dialects import MARKUP_RE, norm
from tests.helena.web.test_runs_api import ask, assert_one_done, events, wait
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def shown_text(evs: list[dict]) -> str:
    return "".join(e["delta"] for e in evs if e["type"] == "text")


def assert_nothing_raw(evs: list[dict], conversation_id: str) -> None:
    for event in evs:
        if event["type"] in ("text", "done"):
            assert not MARKUP_RE.search(event.get("delta") or event.get("text") or ""), event
    for message in Message.objects.filter(conversation_id=conversation_id):
        assert not MARKUP_RE.search(message.text), message.text


@pytest.mark.parametrize(("dialect", "raw"), [
    ("hermes", '<tool_call>\n{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}\n'
               "</tool_call>"),
    ("qwen3 reasoning", "<think>\nDer Nutzer fragt nach der Berufungsfrist. Ich suche im Gesetz.\n"
                        '</think>\n\n<tool_call>\n{"name": "search_gesetze", "arguments": '
                        '{"query": "Berufungsfrist"}}\n</tool_call>'),
    ("qwen3-coder", "<tool_call>\n<function=search_gesetze>\n<parameter=query>\nBerufungsfrist\n"
                    "</parameter>\n</function>\n</tool_call>"),
    ("llama3 json", '<|python_tag|>{"name": "search_gesetze", "parameters": {"query": "Berufungsfrist"}}'),
    ("llama pythonic", '[search_gesetze(query="Berufungsfrist")]'),
    ("gemma", 'Ich suche das Gesetz.\n```tool_code\nsearch_gesetze(query="Berufungsfrist")\n```'),
    ("mistral v11", '[TOOL_CALLS]search_gesetze[ARGS]{"query": "Berufungsfrist"}'),
    ("deepseek", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search_gesetze\n```json\n"
                 '{"query": "Berufungsfrist"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'),
    ("gpt-oss harmony", "<|channel|>analysis<|message|>Need the statute.<|end|><|start|>assistant<|channel|>"
                        'commentary to=functions.search_gesetze <|constrain|>json<|message|>'
                        '{"query": "Berufungsfrist"}<|call|>'),
    ("granite", '<|tool_call|>[{"name": "search_gesetze", '
                '"arguments": "{\\"query\\": \\"Berufungsfrist\\"}"}]'),
])
def test_each_dialect_runs_the_search(kanzlei: Kanzlei, tiers: ScriptedLLMServer, dialect: str,
                                      raw: str) -> None:
    tiers.script([{"raw": raw}, {"text": "Die Berufungsfrist beträgt einen Monat (§ 517 ZPO)."}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, "Wie lange ist die Berufungsfrist?", mode="inline")
    run = wait(client, run_id)
    evs = events(client, run_id)
    calls = [e for e in evs if e["type"] == "tool_call"]
    assert [(c["tool"], c["arguments"]) for c in calls] == [("search_gesetze", {"query": "Berufungsfrist"})]
    assert run["text"] == "Die Berufungsfrist beträgt einen Monat (§ 517 ZPO)."
    assert_nothing_raw(evs, conversation)
    assert assert_one_done(evs)["finish_reason"] == "stop"


def test_a_call_cut_off_by_the_length_limit_never_becomes_a_draft(kanzlei: Kanzlei,
                                                                 tiers: ScriptedLLMServer) -> None:
    akte = kanzlei.akten["A"]
    cut = ('Ich lege die Frist an.\n<tool_call>\n{"name": "create_draft_frist", "arguments": {"akte_id": "'
           + str(akte.pk) + '", "bezeichnung": "Berufungsbegr')
    tiers.script([{"raw": cut, "done_reason": "length"}, {"raw": cut, "done_reason": "length"},
                  {"text": "Ich konnte die Frist nicht vollständig anlegen."}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, "Leg die Berufungsbegründungsfrist an.", mode="inline",
                               akte_id=str(akte.pk))
    wait(client, run_id)
    evs = events(client, run_id)
    assert not Draft.objects.exists()
    assert not [e for e in evs if e["type"] == "tool_call"]
    warnings = [e for e in evs if e["type"] == "warning"]
    assert any(w["code"] == "truncated" and "abgeschnitten" in w["message"] for w in warnings)
    retry = tiers.requests_to("/api/chat")[1]["messages"]
    assert retry[-1]["content"] == TRUNCATED_PROMPT
    assert_nothing_raw(evs, conversation)


def test_an_english_answer_is_asked_again_in_german_before_it_is_shown(kanzlei: Kanzlei,
                                                                     tiers: ScriptedLLMServer) -> None:
    tiers.script([{"text": "The deadline for an appeal is one month from service of the judgment."},
                  {"text": "Die Berufungsfrist beträgt einen Monat ab Zustellung des Urteils."}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, "Wie lange ist die Berufungsfrist?", mode="inline")
    run = wait(client, run_id)
    evs = events(client, run_id)
    assert shown_text(evs) == "Die Berufungsfrist beträgt einen Monat ab Zustellung des Urteils."
    assert run["text"] == shown_text(evs)
    assert tiers.requests_to("/api/chat")[1]["messages"][-1]["content"] == GERMAN_PROMPT
    stored = Message.objects.filter(conversation_id=conversation, role="assistant").get()
    assert stored.text.startswith("Die Berufungsfrist")


def test_an_english_question_gets_its_english_answer(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    """Only where the firm lets Helena answer in the question's language (always German otherwise,
    tests/helena/agent/test_answer_language.py)."""
    from helena.models import HelenaSettings

    settings = HelenaSettings.load()
    settings.antwort_in_sprache_der_frage = True
    settings.save()
    tiers.script([{"text": "The deadline for an appeal is one month."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "What is the deadline for an appeal in Germany?", mode="inline")
    assert wait(client, run_id)["text"] == "The deadline for an appeal is one month."
    assert len(tiers.requests_to("/api/chat")) == 1


def test_an_announced_lookup_is_done(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([{"text": "Ich schaue mir die Fristen an …"},
                  {"tool_calls": [{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}]},
                  {"text": "Die Berufungsfrist beträgt einen Monat."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Wie lange ist die Berufungsfrist?", mode="inline")
    run = wait(client, run_id)
    evs = events(client, run_id)
    assert [e["tool"] for e in evs if e["type"] == "tool_call"] == ["search_gesetze"]
    assert run["text"] == "Die Berufungsfrist beträgt einen Monat."
    assert tiers.requests_to("/api/chat")[1]["messages"][-1]["content"] == NUDGE_PROMPT


def test_unreadable_calls_after_the_retry_hand_over_to_the_next_tier(kanzlei: Kanzlei,
                                                                    tiers: ScriptedLLMServer) -> None:
    broken = {"raw": '<tool_call>{"name": "search_gesetze", "arguments": {query: ???}}</tool_call>'}
    tiers.script([broken, broken, {"text": "Leider komme ich nicht weiter."},
                  {"tool_calls": [{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}]},
                  {"text": "Das große Modell: ein Monat (§ 517 ZPO)."}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, "Wann endet die Berufungsfrist?", mode="inline")
    run = wait(client, run_id)
    evs = events(client, run_id)
    assert run["tier"] == 2 and run["text"] == "Das große Modell: ein Monat (§ 517 ZPO)."
    codes = [e["code"] for e in evs if e["type"] == "warning"]
    assert "tool_call_format" in codes and "escalation" in codes
    requests = tiers.requests_to("/api/chat")
    assert requests[1]["messages"][-1]["content"] == PARSE_ERROR_HINT
    assert [r["model"] for r in requests] == ["klein", "klein", "klein", "gross", "gross"]
    assert_nothing_raw(evs, conversation)


def test_reasoning_is_a_step_never_the_answer(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.capabilities = ["completion", "tools", "thinking"]
    tiers.script([{"thinking": "Okay, the user asks about the Berufungsfrist.",
                   "text": "Die Berufungsfrist beträgt einen Monat."}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, "Wie lange ist die Berufungsfrist?", mode="inline")
    run = wait(client, run_id)
    evs = events(client, run_id)
    assert run["text"] == "Die Berufungsfrist beträgt einen Monat." == shown_text(evs)
    reasoning = "".join(e["delta"] for e in evs if e["type"] == "reasoning")
    assert reasoning == "Okay, the user asks about the Berufungsfrist."
    stored = json.dumps([m.text for m in Message.objects.filter(conversation_id=conversation)])
    assert "Okay, the user" not in stored
    browser = Client()
    browser.force_login(kanzlei.users["anwalt"])
    response = browser.get(f"/helena/gespraech/{conversation}/")
    assert response.status_code == 200
    page = response.content.decode()
    step = page[page.index("chat-step--reasoning"):]
    assert "Überlegung" in step[:400] and "Okay, the user asks" in step
    answer = page[page.index('class="chat-text markdown"'):]
    assert "Okay, the user" not in answer[:answer.index("</div>")]


def test_admin_shows_the_detected_dialect_and_capabilities(kanzlei: Kanzlei,
                                                           tiers: ScriptedLLMServer) -> None:
    from helena.models import ModelTier

    tiers.capabilities = ["completion", "tools", "thinking"]
    row = ModelTier.objects.get(tier=1)
    row.model_name = "qwen3:4b"
    row.save()
    from akten.models import Role, User

    chefin = User.objects.create_superuser(username="chefin", password="pw", email="", role=Role.ADMIN)
    admin = zweiter_faktor_gegeben(chefin)
    page = admin.get(f"/admin/helena/modeltier/{row.pk}/change/").content.decode()
    assert "Format der Werkzeugaufrufe" in page and "automatisch erkennen" in page
    assert "Format: Qwen3" in page and "Fähigkeiten laut /api/show: completion, tools, thinking" in page
    assert "Werkzeuge: über die Schnittstelle" in page
    tiers.capabilities = ["completion"]
    from helena.llm import router

    router.clear_health_cache()
    page = admin.get(f"/admin/helena/modeltier/{row.pk}/change/").content.decode()
    assert "im Prompt beschrieben" in page


# --------------------------------------------------------------------------- unknown formats (issue 34 B)
# Each raw output has the shape of a public fixture in tests/data/model_outputs.py (named per case),
# written with Helena's own tool; tier 1 is the model under the name a firm's server lists it by.

ANSWER = "Die Berufungsfrist beträgt einen Monat (§ 517 ZPO)."
SEARCH = ("search_gesetze", {"query": "Berufungsfrist"})


def served_as(name: str) -> None:
    """Tier 1 is this model, named as the firm's Ollama lists it."""
    from helena.models import ModelTier

    row = ModelTier.objects.get(tier=1)
    row.model_name = name
    row.save()


def run_turns(kanzlei: Kanzlei, tiers: ScriptedLLMServer, model: str, turns: list[dict],
              question: str = "Wie lange ist die Berufungsfrist?") -> tuple[dict, list[dict], str]:
    served_as(model)
    tiers.script(turns)
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, question, mode="inline")
    run = wait(client, run_id)
    evs = events(client, run_id)
    assert_nothing_raw(evs, conversation)
    for event in evs:  # a tool's name never flashes as text before its call
        assert event["type"] != "text" or "search_gesetze" not in event["delta"], event
    return run, evs, conversation


def calls_run(evs: list[dict]) -> list[tuple[str, dict]]:
    return [(e["tool"], e["arguments"]) for e in evs if e["type"] == "tool_call"]


@pytest.mark.parametrize(("model", "raw"), [
    ("laguna:latest",  # laguna-user-tag-around-json-call
     'Ich sehe im Gesetz nach.<user>\n{"name":"search_gesetze","arguments":{"query":"Berufungsfrist"}}'
     "\n</user>"),
    ("hf.co/unsloth/MiniMax-M2-GGUF:Q3_K_XL",  # minimax-m2-invoke-after-text
     'Ich sehe im Gesetz nach. <minimax:tool_call><invoke name="search_gesetze"><parameter name="query">'
     "Berufungsfrist</parameter></invoke></minimax:tool_call>"),
    ("kimi-k2:1t-cloud",  # kimi-k2-section-after-text
     "Ich sehe im Gesetz nach. <|tool_calls_section_begin|><|tool_call_begin|>functions.search_gesetze:0 "
     '<|tool_call_argument_begin|>{"query": "Berufungsfrist"}<|tool_call_end|><|tool_calls_section_end|>'),
    ("glm-4.5-air:latest",  # glm45-think-text-call
     "<think>Die Frist steht in der ZPO.</think>\n\nIch sehe im Gesetz nach.\n<tool_call>search_gesetze\n"
     "<arg_key>query</arg_key>\n<arg_value>Berufungsfrist</arg_value>\n</tool_call>"),
    ("gemma4:12b",  # gemma4-call-after-text
     'Ich sehe im Gesetz nach.<|tool_call>call:search_gesetze{query:<|"|>Berufungsfrist<|"|>}<tool_call|>'),
])
def test_an_unfamiliar_wrapper_around_a_call_runs_it(kanzlei: Kanzlei, tiers: ScriptedLLMServer, model: str,
                                                     raw: str) -> None:
    run, evs, _ = run_turns(kanzlei, tiers, model, [{"raw": raw}, {"text": ANSWER}])
    assert calls_run(evs) == [SEARCH]
    assert shown_text(evs).startswith("Ich sehe im Gesetz nach.")
    assert run["text"] == ANSWER and assert_one_done(evs)["finish_reason"] == "stop"


@pytest.mark.parametrize("turns", [
    # laguna-duplicated-call-runs-once: the call, and the same call again right after it
    [{"raw": '<tool_call>search_gesetze\n{"query":"Berufungsfrist"}\n<tool_call>search_gesetze\n'
             '{"query":"Berufungsfrist"}</tool_call>'}, {"text": ANSWER}],
    # the call, then echoed as text (JSON and pythonic) in the same answer
    [{"raw": '<tool_call>\n{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}\n'
             '</tool_call>\n{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}\n'
             "search_gesetze(query='Berufungsfrist')"}, {"text": ANSWER}],
    # the server's structured call, and the model's echo of it in the next turn before the answer
    [{"tool_calls": [{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}]},
     {"raw": '{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}\n' + ANSWER}],
], ids=["written-twice", "echoed-as-text", "echoed-next-turn"])
def test_a_call_echoed_right_after_it_runs_once(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                               turns: list[dict]) -> None:
    run, evs, _ = run_turns(kanzlei, tiers, "laguna:latest", turns)
    assert calls_run(evs) == [SEARCH]
    assert len([e for e in evs if e["type"] == "tool_result"]) == 1
    assert not [e for e in evs if e["type"] == "warning"]  # no stall, no retry
    assert run["text"] == ANSWER and assert_one_done(evs)["finish_reason"] == "stop"
    assert len(tiers.requests_to("/api/chat")) == 2


def test_a_retried_call_after_a_sentence_is_no_echo(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    """The same call again after a sentence is the model's decision, not an echo: the loop sees the
    repetition as before (a stall: an answer with what Helena has, and the next tier takes over)."""
    call = {"tool_calls": [{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}]}
    retry = {"raw": 'Ich versuche es noch einmal.\n<tool_call>\n{"name": "search_gesetze", "arguments": '
                    '{"query": "Berufungsfrist"}}\n</tool_call>'}
    answer = {"text": ANSWER}
    run, evs, _ = run_turns(kanzlei, tiers, "laguna:latest", [call, retry, answer, answer])
    assert calls_run(evs) == [SEARCH, SEARCH]
    assert "stall" in [e["code"] for e in evs if e["type"] == "warning"]
    assert run["text"] == ANSWER


@pytest.mark.parametrize(("model", "raw"), [
    ("hf.co/ByteDance-Seed/Seed-OSS-36B-Instruct-GGUF:Q4_K_M",  # seed-oss-think-then-call
     "<seed:think>Der Nutzer fragt nach der Berufungsfrist.</seed:cot_budget_reflect>\n§ 517 ZPO: ein Monat."
     "</seed:think>\n" + ANSWER),
    ("openai.gpt-oss-20b-1:0",  # gptoss-bedrock-reasoning-tag
     "<reasoning>Der Nutzer fragt nach der Berufungsfrist. § 517 ZPO: ein Monat.</reasoning>" + ANSWER),
    ("kimi-vl:a3b",  # kimi-angle-think
     "◁think▷Der Nutzer fragt nach der Berufungsfrist. § 517 ZPO: ein Monat.◁/think▷" + ANSWER),
    ("gemma4:12b",  # gemma4-channel-then-answer
     "<|channel>thought\nDer Nutzer fragt nach der Berufungsfrist. § 517 ZPO: ein Monat.<channel|>" + ANSWER),
])
def test_reasoning_in_an_unknown_marker_is_never_the_answer(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                                            model: str, raw: str) -> None:
    run, evs, conversation = run_turns(kanzlei, tiers, model, [{"raw": raw}])
    assert shown_text(evs) == ANSWER == run["text"]
    reasoning = "".join(e["delta"] for e in evs if e["type"] == "reasoning")
    assert "Der Nutzer fragt nach der Berufungsfrist." in reasoning
    stored = json.dumps([m.text for m in Message.objects.filter(conversation_id=conversation)])
    assert "Der Nutzer fragt" not in stored


@pytest.mark.parametrize(("model", "raw"), [
    ("hf.co/tencent/Hunyuan-A13B-Instruct-GGUF:Q4_K_M",  # hunyuan-think-answer-wrapper
     "<think>\nDer Nutzer fragt nach der Berufungsfrist.\n</think>\n<answer>\n" + ANSWER + "\n</answer>"),
    ("command-a-reasoning:latest",  # cohere-command-thinking-then-text, the answer wrapped in a token pair
     "<|START_RESPONSE|>" + ANSWER + "<|END_RESPONSE|>"),
    ("openthinker:7b",  # the OpenThoughts training format the red-team test reads
     "<|begin_of_thought|>\n\nDer Nutzer fragt nach der Berufungsfrist.\n\n<|end_of_thought|>\n\n"
     "<|begin_of_solution|>\n\n" + ANSWER + "\n\n<|end_of_solution|>"),
])
def test_a_wrapper_around_the_whole_answer_is_removed(kanzlei: Kanzlei, tiers: ScriptedLLMServer, model: str,
                                                      raw: str) -> None:
    run, evs, _ = run_turns(kanzlei, tiers, model, [{"raw": raw}])
    assert norm(shown_text(evs)) == ANSWER == run["text"]
    assert "Der Nutzer fragt" not in shown_text(evs)


def test_pythonic_calls_one_a_line_run(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    """gemma3-1b-pythonic-lines-bfcl: Gemma 3 1B writes its calls one a line, without list brackets."""
    raw = "search_gesetze(query='Berufungsfrist')\nsearch_gesetze(query='Berufungsbegründungsfrist')"
    run, evs, _ = run_turns(kanzlei, tiers, "gemma3:1b", [{"raw": raw}, {"text": ANSWER}])
    assert calls_run(evs) == [SEARCH, ("search_gesetze", {"query": "Berufungsbegründungsfrist"})]
    assert shown_text(evs).strip() == ANSWER == run["text"]  # the line break between the calls is text
