"""Open models as firms run them, over real HTTP: every dialect's raw output streamed token by token
through the scripted server in both wire formats (Ollama NDJSON, OpenAI SSE), and the quirks of
the servers. What a user would notice: the right call with the right arguments, the answer intact,
reasoning apart, and no markup in any text delta."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest

from helena.llm.base import Chunk, ModelHTTPError, ToolCallFormatError
from helena.llm.dialects import profiles
from helena.llm.providers.ollama import OllamaModel
from helena.llm.providers.openai_compat import OpenAICompatModel
from tests.data.model_outputs import FIXTURES
from tests.helena.llm.dialects.test_dialects import MARKUP_RE, TYPES, named, norm
from tests.scripted_llm_server import ScriptedLLMServer, start_scripted_server, tokens

USER = [{"role": "user", "content": "Hallo"}]


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    profiles.forget_learned()
    with start_scripted_server() as srv:
        yield srv
    profiles.forget_learned()


def schemas(names: list[str], types: dict[str, dict[str, str]] | None = None) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {
        "name": name, "description": name,
        "parameters": {"type": "object", "properties": {
            key: {"type": kind} for key, kind in (types or {}).get(name, {}).items()}}}} for name in names]


def chunks_of(model: Any, **kwargs: Any) -> list[Chunk]:
    async def go() -> list[Chunk]:
        try:
            return [chunk async for chunk in model.stream(**kwargs)]
        finally:
            await model.aclose()

    return asyncio.run(go())


def seen(chunks: list[Chunk]) -> tuple[str, str, list[tuple[str, Any]], list[str], str | None]:
    """(answer, reasoning, calls, unreadable calls, finish) as the loop would see them."""
    return (
        norm("".join(c.text for c in chunks if c.kind == "text")),
        norm("".join(c.text for c in chunks if c.kind == "reasoning")),
        [(c.tool_call.name, c.tool_call.arguments) for c in chunks if c.kind == "tool_call" and c.tool_call],
        [c.text for c in chunks if c.kind == "malformed"],
        next((c.finish_reason for c in chunks if c.kind == "end"), None),
    )


def model_for(provider: str, server: ScriptedLLMServer, *, name: str = "qwen3:8b",
              dialect: str = "auto") -> Any:
    if provider == "ollama":
        return OllamaModel(name, host=server.url, timeout=10, dialect=dialect)
    return OpenAICompatModel(name, base_url=server.url + "/v1", api_key="x", timeout=10, dialect=dialect)


# --------------------------------------------------------------------------- every public fixture


@pytest.mark.parametrize("provider", ["ollama", "openai"])
@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["id"] for f in FIXTURES])
def test_raw_outputs_over_both_wire_formats(server: ScriptedLLMServer, provider: str,
                                            fixture: dict[str, Any]) -> None:
    server.script([{"raw": fixture["text"]}])
    dialect = "reasoning_prefilled" if fixture.get("prefilled_think") else "auto"
    model = model_for(provider, server, name=fixture["family"].lower().replace(" ", "-"), dialect=dialect)
    chunks = chunks_of(model, messages=USER, tools=schemas(fixture["tools"], TYPES))
    answer, reasoning, calls, broken, finish = seen(chunks)
    assert calls == [(c["name"], c["arguments"]) for c in fixture["calls"]]
    assert answer == norm(fixture["content"])
    assert reasoning == norm(re.sub(r"</?tool_call>", "", fixture["reasoning"]))
    assert broken == []
    assert finish == ("tool_calls" if calls else "stop")
    prose_names = named(fixture["content"], fixture["tools"])
    for chunk in chunks:  # not even transiently: every single delta is clean
        if chunk.kind == "text":
            assert not MARKUP_RE.search(chunk.text), chunk.text
            assert named(chunk.text, fixture["tools"]) <= prose_names, chunk.text  # no name before a call


def test_the_stream_is_cut_like_a_tokenizer_would() -> None:
    pieces = tokens('<|python_tag|>{"name": "x"}<｜tool▁sep｜>[TOOL_CALLS]')
    assert pieces[0] == "<|python_tag|>" and "<｜tool▁sep｜>" in pieces and pieces[-1] == "[TOOL_CALLS]"
    assert '{"' not in pieces and "{" in pieces  # JSON split at its quotes and braces


# --------------------------------------------------------------------------- Ollama as it behaves


def test_ollama_thinking_field_is_reasoning_and_think_is_asked_for(server: ScriptedLLMServer) -> None:
    server.capabilities = ["completion", "tools", "thinking"]
    server.script([{"thinking": "Okay, the user asks about the Berufungsfrist. § 517 ZPO says one month.",
                    "text": "Die Berufungsfrist beträgt einen Monat."}])
    answer, reasoning, *_ = seen(chunks_of(model_for("ollama", server), messages=USER))
    assert answer == "Die Berufungsfrist beträgt einen Monat."
    assert reasoning.startswith("Okay, the user asks")
    assert server.requests_to("/api/chat")[0]["think"] is True


def test_ollama_without_thinking_capability_is_not_asked_to_think(server: ScriptedLLMServer) -> None:
    server.script([{"text": "Hallo!"}])
    chunks_of(model_for("ollama", server), messages=USER)
    assert "think" not in server.requests_to("/api/chat")[0]


def test_ollama_structured_calls_keep_their_order_and_get_ids(server: ScriptedLLMServer) -> None:
    server.script([{"tool_calls": [{"name": "read_akte", "arguments": {"query": "Meier"}},
                                   {"name": "read_akte", "arguments": {"query": "Schulz"}}]}])
    chunks = chunks_of(model_for("ollama", server), messages=USER, tools=schemas(["read_akte"]))
    calls = [c.tool_call for c in chunks if c.kind == "tool_call"]
    assert [c.arguments for c in calls] == [{"query": "Meier"}, {"query": "Schulz"}]
    assert len({c.id for c in calls}) == 2
    assert seen(chunks)[4] == "tool_calls"


def test_ollama_content_its_parser_held_back_arrives_in_the_done_chunk(server: ScriptedLLMServer) -> None:
    server.script([{"text": "Die Frist", "done_content": " endet am 30.06.2025."}])
    assert seen(chunks_of(model_for("ollama", server), messages=USER))[0] == "Die Frist endet am 30.06.2025."


def test_ollama_length_cut_inside_a_call_is_no_call(server: ScriptedLLMServer) -> None:
    cut = '<tool_call>\n{"name": "create_draft_frist", "arguments": {"akte_id": 3, "titel": "Beru'
    server.script([{"raw": cut, "done_reason": "length"}])
    _, _, calls, broken, finish = seen(chunks_of(model_for("ollama", server), messages=USER,
                                                 tools=schemas(["create_draft_frist"])))
    assert calls == [] and broken == ["Aufruf abgeschnitten"] and finish == "length"


def test_ollama_parse_error_mid_stream(server: ScriptedLLMServer) -> None:
    error = "error parsing tool call: raw='{\"city\": ', err=unexpected end of JSON input"
    server.script([{"text": "Moment", "stream_error": error}])
    with pytest.raises(ToolCallFormatError):
        chunks_of(model_for("ollama", server), messages=USER, tools=schemas(["read_akte"]))


def test_ollama_model_without_tools_gets_them_in_the_prompt(server: ScriptedLLMServer) -> None:
    """/api/show says no "tools" (Gemma 3 in Ollama): the request carries none, the prompt describes them."""
    server.capabilities = ["completion"]
    server.script([{"raw": '```tool_code\nread_akte(query="Meier")\n```'}])
    history = [*USER, {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_akte", "arguments": '{"query": "A"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "read_akte", "content": '{"akten": []}'}]
    chunks = chunks_of(model_for("ollama", server, name="gemma3:12b"), messages=history,
                       tools=schemas(["read_akte"]))
    assert seen(chunks)[2] == [("read_akte", {"query": "Meier"})]
    request = server.requests_to("/api/chat")[0]
    assert "tools" not in request or not request["tools"]
    system = request["messages"][0]["content"]
    assert "read_akte" in system and "tool_code" in system
    assert all(m["role"] in ("system", "user", "assistant") for m in request["messages"])
    assert "```tool_output" in request["messages"][-1]["content"]


def test_ollama_400_does_not_support_tools_falls_back_and_is_remembered(server: ScriptedLLMServer) -> None:
    """An Ollama that reports no capabilities answers tools with HTTP 400; Helena asks again, and
    the next call of that model starts without tools."""
    server.capabilities = None
    server.script([{"raw": '<tool_call>{"name": "read_akte", "arguments": {"query": "Meier"}}</tool_call>'},
                   {"raw": '[TOOL_CALLS]read_akte[ARGS]{"query": "Schulz"}'}])
    tools = schemas(["read_akte"])
    first = seen(chunks_of(model_for("ollama", server, name="mistral:7b"), messages=USER, tools=tools))
    second = seen(chunks_of(model_for("ollama", server, name="mistral:7b"), messages=USER, tools=tools))
    assert first[2] == [("read_akte", {"query": "Meier"})]
    assert second[2] == [("read_akte", {"query": "Schulz"})]
    requests = server.requests_to("/api/chat")
    assert [bool(r.get("tools")) for r in requests] == [True, False, False]  # refused once, then remembered


# --------------------------------------------------------------------------- OpenAI-compatible servers


@pytest.mark.parametrize("style", ["indexed", "no_index", "all_zero"])
def test_openai_parallel_call_deltas_as_servers_send_them(server: ScriptedLLMServer, style: str) -> None:
    server.script([{"tool_calls": [{"name": "read_akte", "arguments": {"query": "Meier"}},
                                   {"name": "read_akte", "arguments": {"query": "Schulz"}}],
                    "call_style": style}])
    calls = seen(chunks_of(model_for("openai", server), messages=USER, tools=schemas(["read_akte"])))[2]
    assert calls == [("read_akte", {"query": "Meier"}), ("read_akte", {"query": "Schulz"})]


def test_openai_lone_call_at_index_one_and_no_arguments(server: ScriptedLLMServer) -> None:
    server.script([{"tool_calls": [{"name": "list_akten", "arguments": ""}], "call_style": "from_one"}])
    calls = seen(chunks_of(model_for("openai", server), messages=USER, tools=schemas(["list_akten"])))[2]
    assert calls == [("list_akten", {})]


@pytest.mark.parametrize("key", ["reasoning_content", "reasoning"])
def test_openai_reasoning_fields_are_never_answer(server: ScriptedLLMServer, key: str) -> None:
    server.script([{"reasoning": "The user wants the deadline.", "reasoning_key": key,
                    "text": "Die Frist beträgt einen Monat."}])
    answer, reasoning, *_ = seen(chunks_of(model_for("openai", server), messages=USER))
    assert answer == "Die Frist beträgt einen Monat." and reasoning == "The user wants the deadline."


def test_openai_length_cut_inside_arguments_is_no_call(server: ScriptedLLMServer) -> None:
    cut = '{"akte_id": 3, "titel": "Beru'
    server.script([{"tool_calls": [{"name": "create_draft_frist", "arguments": cut}],
                    "done_reason": "length"}])
    _, _, calls, broken, finish = seen(chunks_of(model_for("openai", server), messages=USER,
                                                 tools=schemas(["create_draft_frist"])))
    assert calls == [] and broken == ["Aufruf abgeschnitten"] and finish == "length"


def test_openai_server_without_tool_parser_gets_tools_in_the_prompt(server: ScriptedLLMServer) -> None:
    """vLLM without --enable-auto-tool-choice answers 400; the call then comes back as text."""
    server.openai_tools = False
    call = '<tool_call>\n{"name": "read_akte", "arguments": {"query": "Meier"}}\n</tool_call>'
    server.script([{"raw": call},
                   {"text": "Keine weiteren Fragen."}])
    first = seen(chunks_of(model_for("openai", server, name="local-llm"), messages=USER,
                           tools=schemas(["read_akte"])))
    assert first[2] == [("read_akte", {"query": "Meier"})]
    chunks_of(model_for("openai", server, name="local-llm"), messages=USER, tools=schemas(["read_akte"]))
    requests = server.requests_to("/v1/chat/completions")
    assert ["tools" in r for r in requests] == [True, False, False]  # refused once, then remembered


def test_openai_other_400_is_not_taken_for_missing_tools(server: ScriptedLLMServer) -> None:
    server.script([{"status": 400, "body": "context length exceeded"}])
    with pytest.raises(ModelHTTPError):
        chunks_of(model_for("openai", server), messages=USER, tools=schemas(["read_akte"]))
