"""Always German (seed 001): an English question gets a German answer, its first words German, the
stored answer German, and the system prompt says so. The admin may let Helena answer in the
question's language (HelenaSettings.antwort_in_sprache_der_frage): then an English question is
answered in English without asking again, and a German question still in German.

End to end through the API, the runner and the real Ollama client against the scripted server; the
core's part (the loop takes the decision as a plain parameter) without a database.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from helena.agent.events import Emitter
from helena.agent.language import ENGLISH_ONLY_NOTE, AnswerLanguage, answer_language
from helena.agent.loop import run_agent
from helena.agent.nudges import GERMAN_PROMPT
from helena.agent.prompts import ANSWER_LANGUAGE
from helena.agent.tooling import ToolContext, ToolResult
from helena.llm.providers.scripted import ScriptedModel
from helena.models import HelenaSettings, Message
from tests.conftest import Kanzlei
from tests.helena.web.test_runs_api import ask, events, wait
from tests.scripted_llm_server import ScriptedLLMServer

ENGLISH_QUESTION = "What is the deadline for an appeal in Germany?"
ENGLISH = "The deadline for an appeal is one month from service of the judgment."
GERMAN = "Die Berufungsfrist beträgt einen Monat ab Zustellung des Urteils (§ 517 ZPO)."


def shown(evs: list[dict]) -> list[str]:
    return [e["delta"] for e in evs if e["type"] == "text"]


def allow_the_questions_language() -> None:
    settings = HelenaSettings.load()
    settings.antwort_in_sprache_der_frage = True
    settings.save()


# --------------------------------------------------------------------------- the core, no database


async def _no_tools(**_kwargs: Any) -> ToolResult:
    raise AssertionError("no tool is offered")


def _answer(turns: list[str], *, question: str,
            language: AnswerLanguage) -> tuple[str, list[str], ScriptedModel]:
    model = ScriptedModel(list(turns))
    emitter = Emitter(run_id="lang-1")
    messages = [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": question}]
    result = asyncio.run(run_agent(model=model, messages=messages, tools=[], emitter=emitter,
                                   ctx=ToolContext(user=None, run_id="lang-1"), execute=_no_tools,
                                   question=question, answer_language=language))
    return result.text, [e.data["delta"] for e in emitter.events if e.type == "text"], model


def test_the_decision_is_the_firms_and_the_questions() -> None:
    assert answer_language(ENGLISH_QUESTION, follow_question=False) == "de"
    assert answer_language(ENGLISH_QUESTION, follow_question=True) == "en"
    assert answer_language("Wie lange ist die Berufungsfrist?", follow_question=True) == "de"


def test_the_core_asks_an_english_answer_again_in_german_by_default() -> None:
    text, deltas, model = _answer([ENGLISH, GERMAN], question=ENGLISH_QUESTION, language="de")
    assert text == GERMAN and "".join(deltas) == GERMAN
    assert model.calls[1].messages[-1]["content"] == GERMAN_PROMPT


def test_the_core_keeps_english_when_told() -> None:
    text, deltas, model = _answer([ENGLISH], question=ENGLISH_QUESTION, language="en")
    assert text == ENGLISH and "".join(deltas) == ENGLISH and len(model.calls) == 1


def test_english_twice_comes_after_a_german_note() -> None:
    """Better an English answer than none, but the first words the user reads are German."""
    text, deltas, _ = _answer([ENGLISH, ENGLISH], question=ENGLISH_QUESTION, language="de")
    assert deltas[0].startswith(ENGLISH_ONLY_NOTE) and text == f"{ENGLISH_ONLY_NOTE}\n\n{ENGLISH}"


def test_a_turn_that_only_thought_does_not_use_up_the_german_question() -> None:
    """Asked for an answer after a silent turn, the model answers in English: it is still asked for
    German once before anything English is shown."""
    turns = ["<think>Die Berufungsfrist steht in § 517 ZPO.</think>", ENGLISH, GERMAN]
    text, deltas, model = _answer(turns, question=ENGLISH_QUESTION, language="de")
    assert text == GERMAN and "".join(deltas) == GERMAN
    assert model.calls[2].messages[-1]["content"] == GERMAN_PROMPT


# --------------------------------------------------------------------------- end to end


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_an_english_question_gets_a_german_answer(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([{"text": ENGLISH}, {"text": GERMAN}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, ENGLISH_QUESTION, mode="inline")
    run = wait(client, run_id)
    deltas = shown(events(client, run_id))
    assert deltas[0].startswith("Die") and "".join(deltas) == GERMAN == run["text"]
    stored = Message.objects.get(conversation_id=conversation, role="assistant")
    assert stored.text == GERMAN
    first, second = tiers.requests_to("/api/chat")
    assert ANSWER_LANGUAGE["de"].lstrip("- ") in first["messages"][0]["content"]  # the system prompt
    assert second["messages"][-1]["content"] == GERMAN_PROMPT


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_allowed_an_english_question_gets_an_english_answer(kanzlei: Kanzlei,
                                                            tiers: ScriptedLLMServer) -> None:
    allow_the_questions_language()
    tiers.script([{"text": ENGLISH}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, ENGLISH_QUESTION, mode="inline")
    run = wait(client, run_id)
    assert run["text"] == ENGLISH == "".join(shown(events(client, run_id)))
    assert Message.objects.get(conversation_id=conversation, role="assistant").text == ENGLISH
    (request,) = tiers.requests_to("/api/chat")  # not asked again
    assert ANSWER_LANGUAGE["en"].lstrip("- ") in request["messages"][0]["content"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_allowed_a_german_question_is_still_answered_in_german(kanzlei: Kanzlei,
                                                              tiers: ScriptedLLMServer) -> None:
    allow_the_questions_language()
    tiers.script([{"text": ENGLISH}, {"text": GERMAN}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Wie lange ist die Berufungsfrist?", mode="inline")
    assert wait(client, run_id)["text"] == GERMAN == "".join(shown(events(client, run_id)))
    first, second = tiers.requests_to("/api/chat")
    assert ANSWER_LANGUAGE["de"].lstrip("- ") in first["messages"][0]["content"]
    assert second["messages"][-1]["content"] == GERMAN_PROMPT


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_model_that_stays_english_is_shown_after_a_german_note(kanzlei: Kanzlei,
                                                                 tiers: ScriptedLLMServer) -> None:
    tiers.script([{"text": ENGLISH}, {"text": ENGLISH}])
    client = kanzlei.client("anwalt")
    conversation, run_id = ask(client, ENGLISH_QUESTION, mode="inline")
    run = wait(client, run_id)
    deltas = shown(events(client, run_id))
    assert deltas[0].startswith(ENGLISH_ONLY_NOTE) and run["text"] == f"{ENGLISH_ONLY_NOTE}\n\n{ENGLISH}"
    stored = Message.objects.get(conversation_id=conversation, role="assistant")
    assert stored.text.startswith(ENGLISH_ONLY_NOTE)
