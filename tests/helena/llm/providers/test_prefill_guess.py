"""What Helena learns about a model never hides an answer, over real HTTP in both wire formats.

A pre-filled "<think>" is known from Ollama's /api/show template (real templates, tests/helena/llm/
chat_templates.py) before the first answer; a guessed one (from the model's name, or learned from an
earlier stream) holds the output until "</think>" shows, and a stream that ends with the reasoning
never closed is the answer, the guess dropped for that model. Learned facts are shared through Redis
(helena/llm/learned.py), visible with since and why, and forgotten by the admin's service.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from helena.llm import learned
from helena.llm.base import Chunk
from helena.llm.dialects import profiles
from helena.llm.providers.ollama import OllamaModel
from helena.llm.providers.openai_compat import OpenAICompatModel
from tests.helena.llm import chat_templates
from tests.scripted_llm_server import ScriptedLLMServer, start_scripted_server

USER = [{"role": "user", "content": "Wie lange ist die Berufungsfrist?"}]
ANSWER = "Die Berufungsfrist beträgt einen Monat ab Zustellung (§ 517 ZPO)."
REASONING = "Der Nutzer fragt nach der Berufungsfrist. § 517 ZPO: ein Monat."
TOOLS = [{"type": "function", "function": {"name": "search_gesetze", "description": "Gesetze suchen",
                                           "parameters": {"type": "object", "properties": {
                                               "query": {"type": "string"}}}}}]


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    learned.forget_all()
    with start_scripted_server() as srv:
        yield srv
    learned.forget_all()


def model_for(provider: str, server: ScriptedLLMServer, name: str) -> Any:
    if provider == "ollama":
        return OllamaModel(name, host=server.url, timeout=10)
    return OpenAICompatModel(name, base_url=server.url + "/v1", api_key="x", timeout=10)


def key_of(provider: str, server: ScriptedLLMServer, name: str) -> tuple[str, str, str]:
    return (provider, server.url if provider == "ollama" else server.url + "/v1", name)


def stream(model: Any, **kwargs: Any) -> list[Chunk]:
    async def go() -> list[Chunk]:
        try:
            return [chunk async for chunk in model.stream(messages=USER, **kwargs)]
        finally:
            await model.aclose()

    return asyncio.run(go())


def text(chunks: list[Chunk]) -> str:
    return "".join(c.text for c in chunks if c.kind == "text")


def reasoning(chunks: list[Chunk]) -> str:
    return "".join(c.text for c in chunks if c.kind == "reasoning")


def facts(key: tuple[str, str, str]) -> dict[str, learned.Fact]:
    return {fact.fact: fact for fact in learned.facts_of(key)}


# --------------------------------------------------------------------------- the template tells


@pytest.mark.parametrize(("name", "expected"), [
    ("OLLAMA_QWEN3_NEXT", True),  # Ollama's own template ends with "<think>\n"
    ("GGUF_QWQ", True),
    ("GGUF_DEEPSEEK_R1_DISTILL", True),
    ("OLLAMA_QWQ", False),  # Ollama's qwq template does not pre-fill, whatever the name suggests
    ("OLLAMA_DEEPSEEK_R1", False),  # "<think>\n\n</think>" only when thinking is switched off
    ("GGUF_DEEPSEEK_V31", None),  # "<think>" in one branch of a flag: the template alone does not tell
])
def test_the_template_tells_whether_think_is_prefilled(name: str, expected: bool | None) -> None:
    assert profiles.template_prefills_think(getattr(chat_templates, name)) is expected


def test_no_template_does_not_tell() -> None:
    assert profiles.template_prefills_think("") is None
    assert profiles.template_prefills_think("{{ .Prompt }}") is None


def test_a_prefilling_template_is_known_before_the_first_answer(server: ScriptedLLMServer) -> None:
    """A model whose name says nothing: the template alone makes its first output reasoning, live."""
    server.template = chat_templates.OLLAMA_QWEN3_NEXT
    server.script([{"raw": f"{REASONING}\n</think>\n\n{ANSWER}"}])
    chunks = stream(model_for("ollama", server, "kanzlei-modell:8b"))
    assert text(chunks).strip() == ANSWER and reasoning(chunks).strip() == REASONING
    first_reasoning = next(i for i, c in enumerate(chunks) if c.kind == "reasoning")
    first_text = next(i for i, c in enumerate(chunks) if c.kind == "text")
    assert first_reasoning < first_text  # reasoning streamed live, not held for a guess
    assert learned.learned_facts() == []  # known, not learned


def test_a_template_without_prefill_overrules_the_name(server: ScriptedLLMServer) -> None:
    """Ollama's qwq template pre-fills nothing: an answer without reasoning is the answer at once."""
    server.template = chat_templates.OLLAMA_QWQ
    server.script([{"text": ANSWER}])
    chunks = stream(model_for("ollama", server, "qwq:32b"))
    assert text(chunks) == ANSWER and reasoning(chunks) == ""
    assert learned.learned_facts() == []


def test_a_thinking_model_on_ollama_is_never_prefilled(server: ScriptedLLMServer) -> None:
    """With `think` Ollama takes the reasoning out of the content itself, even for a template that
    pre-fills: the content is the answer."""
    server.template = chat_templates.OLLAMA_QWEN3_NEXT
    server.capabilities = ["completion", "tools", "thinking"]
    server.script([{"thinking": REASONING, "text": ANSWER}])
    chunks = stream(model_for("ollama", server, "qwen3-next:80b"))
    assert text(chunks) == ANSWER and reasoning(chunks) == REASONING
    assert server.requests_to("/api/chat")[0]["think"] is True


# --------------------------------------------------------------------------- a guess never hides


@pytest.mark.parametrize("provider", ["ollama", "openai"])
def test_a_wrong_guess_gives_the_text_as_answer_and_is_dropped(server: ScriptedLLMServer,
                                                                provider: str) -> None:
    """deepseek-r1 by name: guessed to pre-fill. This server's template does not, so the reasoning
    never closes: the held output is the answer, and the next stream of the model is live."""
    server.script([{"text": ANSWER}, {"text": ANSWER}])
    chunks = stream(model_for(provider, server, "deepseek-r1:8b"))
    assert text(chunks) == ANSWER and reasoning(chunks) == ""
    assert [c.kind for c in chunks].count("text") == 1  # held, then given at the end
    dropped = facts(key_of(provider, server, "deepseek-r1:8b"))
    assert set(dropped) == {profiles.NOT_PREFILLED}
    assert "nie geschlossen" in dropped[profiles.NOT_PREFILLED].why
    again = stream(model_for(provider, server, "deepseek-r1:8b"))
    assert text(again) == ANSWER and [c.kind for c in again].count("text") > 1  # live, word by word


@pytest.mark.parametrize("provider", ["ollama", "openai"])
def test_a_right_guess_holds_the_reasoning_until_it_closes(server: ScriptedLLMServer, provider: str) -> None:
    server.script([{"raw": f"{REASONING}\n</think>\n\n{ANSWER}"}])
    chunks = stream(model_for(provider, server, "deepseek-r1:8b"))
    assert reasoning(chunks).strip() == REASONING and text(chunks).strip() == ANSWER
    assert learned.learned_facts() == []


@pytest.mark.parametrize("provider", ["ollama", "openai"])
def test_the_models_own_opener_is_not_a_prefill(server: ScriptedLLMServer, provider: str) -> None:
    server.script([{"raw": f"<think>\n{REASONING}\n</think>\n\n{ANSWER}"}])
    chunks = stream(model_for(provider, server, "deepseek-r1:8b"))
    assert reasoning(chunks).strip() == REASONING and text(chunks).strip() == ANSWER
    assert "<think>" not in reasoning(chunks)


@pytest.mark.parametrize("key", ["reasoning_content", "reasoning"])
def test_a_server_separating_the_reasoning_refutes_the_guess(server: ScriptedLLMServer, key: str) -> None:
    """vLLM's or llama.cpp's reasoning parser: the reasoning comes in a field, the content is the answer."""
    server.script([{"reasoning": REASONING, "reasoning_key": key, "text": ANSWER}])
    chunks = stream(model_for("openai", server, "deepseek-r1-distill-qwen-14b"))
    assert text(chunks) == ANSWER and reasoning(chunks) == REASONING
    assert "eigenen Feld" in facts(key_of("openai", server, "deepseek-r1-distill-qwen-14b"))[
        profiles.NOT_PREFILLED].why


def test_a_cut_off_stream_does_not_drop_the_guess_but_shows_its_text(server: ScriptedLLMServer) -> None:
    server.script([{"text": "Die Berufungsfrist beträgt", "done_reason": "length"}])
    chunks = stream(model_for("ollama", server, "deepseek-r1:8b"))
    assert text(chunks) == "Die Berufungsfrist beträgt" and chunks[-1].finish_reason == "length"
    assert learned.learned_facts() == []


@pytest.mark.parametrize("provider", ["ollama", "openai"])
def test_a_learned_prefill_is_a_guess_too(server: ScriptedLLMServer, provider: str) -> None:
    """A stray "</think>" teaches the pre-fill (with since and why); when a later stream never closes
    the reasoning, that answer is not swallowed and the fact turns into its opposite."""
    server.script([{"raw": f"{REASONING}</think>\n\nDie erste Antwort."}, {"text": ANSWER}])
    stream(model_for(provider, server, "kanzlei-modell"))
    key = key_of(provider, server, "kanzlei-modell")
    seen = facts(key)
    assert set(seen) == {profiles.PREFILLED} and "</think>" in seen[profiles.PREFILLED].why
    assert seen[profiles.PREFILLED].since.tzinfo is not None
    chunks = stream(model_for(provider, server, "kanzlei-modell"))
    assert text(chunks) == ANSWER
    assert set(facts(key)) == {profiles.NOT_PREFILLED}


# --------------------------------------------------------------------------- refuses tools, reset


@pytest.mark.parametrize("provider", ["ollama", "openai"])
def test_refuses_tools_is_learned_shown_and_reset(server: ScriptedLLMServer, provider: str) -> None:
    if provider == "ollama":
        server.capabilities = None  # an Ollama that does not report capabilities answers 400
    else:
        server.openai_tools = False  # vLLM without --enable-auto-tool-choice
    server.script([{"text": "Eins."}, {"text": "Zwei."}, {"text": "Drei."}])
    path = "/api/chat" if provider == "ollama" else "/v1/chat/completions"
    stream(model_for(provider, server, "kanzlei-modell"), tools=TOOLS)
    stream(model_for(provider, server, "kanzlei-modell"), tools=TOOLS)
    key = key_of(provider, server, "kanzlei-modell")
    fact = facts(key)[profiles.NO_TOOLS]
    assert "HTTP 400" in fact.why and "Werkzeuge" in fact.label
    assert [bool(r.get("tools")) for r in server.requests_to(path)] == [True, False, False]
    assert learned.forget(model="kanzlei-modell") == 1
    assert learned.facts_of(key) == []
    if provider == "ollama":
        server.capabilities = ["completion", "tools"]
    else:
        server.openai_tools = True
    stream(model_for(provider, server, "kanzlei-modell"), tools=TOOLS)
    assert bool(server.requests_to(path)[-1].get("tools"))  # offered again after the reset


def test_forget_matches_by_every_given_part() -> None:
    learned.forget_all()
    try:
        learned.learn(("ollama", "http://a", "m1"), profiles.NO_TOOLS, "a")
        learned.learn(("ollama", "http://b", "m1"), profiles.NO_TOOLS, "b")
        learned.learn(("openai", "http://c/v1", "m2"), profiles.PREFILLED, "c")
        assert learned.forget(model="m1", host="http://b") == 1
        assert [f.host for f in learned.learned_facts()] == ["http://c/v1", "http://a"]  # newest first
        assert learned.forget(fact=profiles.PREFILLED) == 1
        assert learned.forget() == 1 and learned.learned_facts() == []
    finally:
        learned.forget_all()
