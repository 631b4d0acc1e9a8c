"""The model providers over real HTTP: the installed ollama and openai clients against a scripted server."""

from __future__ import annotations

import asyncio
import copy
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from helena.llm.base import (
    UNREACHABLE,
    ChatModel,
    Chunk,
    LLMError,
    ModelHTTPError,
    ModelUnavailable,
    ToolCall,
    ToolCallFormatError,
    collect,
)
from helena.llm.providers.ollama import OllamaModel
from helena.llm.providers.openai_compat import OpenAICompatModel
from helena.llm.providers.scripted import END_OF_SCRIPT, ScriptedModel, ScriptedTurn
from tests.scripted_llm_server import ScriptedLLMServer, start_scripted_server, unused_port

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_akte",
            "description": "Akten suchen",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "Suchbegriff"}},
                "required": [],
            },
        },
    }
]

HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Du bist Helena."},
    {"role": "user", "content": "Welche Akten gibt es zu Meier?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [ToolCall(id="call_abc", name="read_akte", arguments={"query": "Meier"}).as_message()],
    },
    {"role": "tool", "tool_call_id": "call_abc", "name": "read_akte", "content": '{"akten": []}'},
]


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    srv = start_scripted_server()
    yield srv
    srv.stop()


def chunks_of(model: ChatModel, **kwargs: Any) -> list[Chunk]:
    async def run() -> list[Chunk]:
        return [chunk async for chunk in model.stream(**kwargs)]

    return asyncio.run(run())


def turn_of(model: ChatModel, **kwargs: Any):
    return asyncio.run(collect(model.stream(**kwargs)))


def ollama(server: ScriptedLLMServer, **kwargs: Any) -> OllamaModel:
    return OllamaModel("qwen3:8b", host=server.url, **kwargs)


def cloud(server: ScriptedLLMServer, **kwargs: Any) -> OpenAICompatModel:
    return OpenAICompatModel("gpt-test", base_url=server.url + "/v1", api_key="sk-test", **kwargs)


USER = [{"role": "user", "content": "Hallo"}]


def test_models_satisfy_the_protocol(server: ScriptedLLMServer) -> None:
    for model in (ollama(server), cloud(server), ScriptedModel([])):
        assert isinstance(model, ChatModel)
    assert (ollama(server).provider, cloud(server).provider, ScriptedModel([]).provider) == (
        "ollama", "openai", "scripted"
    )


def test_no_provider_changes_the_offered_schemas(server: ScriptedLLMServer) -> None:
    """Every run offers the same schema dicts (Tool.offered_schema): a client that changed one would
    change it for every later run."""
    from helena.tools.registry import all_tools

    schemas = [tool.offered_schema() for tool in all_tools().values()]
    before = copy.deepcopy(schemas)
    for model in (ollama(server), cloud(server)):
        server.script([{"tool_calls": [{"name": "read_akte", "arguments": {"query": "Meier"}}]},
                       {"text": "Fertig."}])
        turn_of(model, messages=USER, tools=schemas)
        turn_of(model, messages=USER, tools=schemas)
    assert schemas == before


# --- Ollama ---------------------------------------------------------------------------------


def test_ollama_streams_text_deltas_in_order_with_usage(server: ScriptedLLMServer) -> None:
    server.script([{"text": ["Guten ", "Tag, ", "Frau ", "Meier."], "usage": (120, 7)}])
    chunks = chunks_of(ollama(server), messages=USER, temperature=0.2)
    assert [c.text for c in chunks if c.kind == "text"] == ["Guten ", "Tag, ", "Frau ", "Meier."]
    end = chunks[-1]
    assert end.kind == "end" and [c.kind for c in chunks].count("end") == 1
    assert (end.usage.prompt_tokens, end.usage.completion_tokens) == (120, 7)
    assert end.finish_reason == "stop"
    body = server.requests_to("/api/chat")[0]
    assert body["model"] == "qwen3:8b" and body["stream"] is True
    assert body["options"] == {"num_ctx": 40960, "temperature": 0.2}
    assert body["messages"] == [{"role": "user", "content": "Hallo"}]


def test_ollama_tool_calls_get_unique_generated_ids(server: ScriptedLLMServer) -> None:
    server.script([{"tool_calls": [
        {"name": "read_akte", "arguments": {"query": "Meier"}},
        {"name": "read_fristen", "arguments": {"status": "active"}},
        {"name": "read_akte", "arguments": {"query": "Schulz", "limit": 3}},
    ]}])
    turn = turn_of(ollama(server), messages=USER, tools=TOOLS)
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [
        ("read_akte", {"query": "Meier"}),
        ("read_fristen", {"status": "active"}),
        ("read_akte", {"query": "Schulz", "limit": 3}),
    ]
    ids = [c.id for c in turn.tool_calls]
    assert len(set(ids)) == 3
    assert all(i.startswith("call_") and len(i) == len("call_") + 12 for i in ids)
    assert turn.finish_reason == "tool_calls"
    sent_tools = server.requests_to("/api/chat")[0]["tools"]
    assert sent_tools[0]["function"]["name"] == "read_akte"
    assert sent_tools[0]["function"]["parameters"]["properties"]["query"]["type"] == "string"


def test_ollama_history_wire_format(server: ScriptedLLMServer) -> None:
    server.script([{"text": "Keine Akten gefunden."}])
    turn_of(ollama(server), messages=HISTORY, tools=TOOLS)
    messages = server.requests_to("/api/chat")[0]["messages"]
    assert messages[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "read_akte", "arguments": {"query": "Meier"}}}],
    }
    assert messages[3] == {"role": "tool", "content": '{"akten": []}', "tool_name": "read_akte"}


def test_ollama_nested_parameter_schema_survives_as_description(server: ScriptedLLMServer) -> None:
    frist_tool = {
        "type": "function",
        "function": {
            "name": "calculate_frist",
            "description": "Frist berechnen",
            "parameters": {
                "type": "object",
                "properties": {
                    "start": {"type": "string", "description": "Fristbeginn"},
                    "dauer": {"type": "object", "description": "Dauer",
                              "properties": {"tage": {"type": "integer"}, "monate": {"type": "integer"}}},
                },
                "required": ["start", "dauer"],
            },
        },
    }
    server.script([{"text": "ok"}])
    turn_of(ollama(server), messages=USER, tools=[frist_tool])
    sent = server.requests_to("/api/chat")[0]["tools"][0]["function"]["parameters"]
    assert sent["required"] == ["start", "dauer"]
    assert sent["properties"]["start"] == {"type": "string", "description": "Fristbeginn"}
    dauer = sent["properties"]["dauer"]
    assert dauer["type"] == "object" and dauer["description"].startswith("Dauer Schema: ")
    assert '"tage":{"type":"integer"}' in dauer["description"]
    assert "properties" in frist_tool["function"]["parameters"]["properties"]["dauer"]  # input untouched


def test_ollama_unparsable_history_arguments_become_an_empty_object(server: ScriptedLLMServer) -> None:
    server.script([{"text": "ok"}])
    broken = {"id": "call_x", "type": "function", "function": {"name": "read_akte", "arguments": "{kaputt"}}
    turn_of(ollama(server), messages=[*USER, {"role": "assistant", "content": "", "tool_calls": [broken]}])
    sent = server.requests_to("/api/chat")[0]["messages"][1]
    assert sent["tool_calls"][0]["function"]["arguments"] == {}


def test_ollama_context_window_from_show_is_cached(server: ScriptedLLMServer) -> None:
    model = ollama(server)

    async def twice() -> tuple[int, int]:
        return await model.context_window(), await model.context_window()

    assert asyncio.run(twice()) == (40960, 40960)
    assert server.paths.count("/api/show") == 1
    assert server.requests_to("/api/show")[0]["model"] == "qwen3:8b"
    server.script([{"text": "ok"}])
    turn_of(model, messages=USER)
    assert server.paths.count("/api/show") == 1
    assert server.requests_to("/api/chat")[0]["options"] == {"num_ctx": 40960}


def test_ollama_num_ctx_caps_the_window(server: ScriptedLLMServer) -> None:
    assert asyncio.run(ollama(server, num_ctx=8192).context_window()) == 8192
    assert asyncio.run(ollama(server, num_ctx=1_000_000).context_window()) == 40960
    server.script([{"text": "ok"}])
    turn_of(ollama(server, num_ctx=16384), messages=USER)
    assert server.requests_to("/api/chat")[0]["options"]["num_ctx"] == 16384


def test_ollama_context_window_falls_back_when_show_fails(server: ScriptedLLMServer) -> None:
    server.model_info = None  # /api/show answers 404
    assert asyncio.run(ollama(server).context_window()) == 8192
    server.model_info = {"general.architecture": "x"}  # no context_length at all
    assert asyncio.run(ollama(server).context_window()) == 8192
    down = OllamaModel("qwen3:8b", host=f"http://127.0.0.1:{unused_port()}", timeout=2)
    assert asyncio.run(down.context_window()) == 8192


def test_ollama_length_finish(server: ScriptedLLMServer) -> None:
    server.script([{"text": "abgeschnitt", "done_reason": "length"}])
    assert turn_of(ollama(server), messages=USER).finish_reason == "length"


def test_ollama_http_500_is_model_http_error(server: ScriptedLLMServer) -> None:
    server.script([{"status": 500, "body": "llama runner process has terminated"}])
    with pytest.raises(ModelHTTPError) as info:
        turn_of(ollama(server), messages=USER)
    assert info.value.status == 500 and info.value.retryable
    assert "HTTP 500" in str(info.value)
    assert "llama runner" in info.value.detail


def test_ollama_unknown_model_404(server: ScriptedLLMServer) -> None:
    server.script([{"status": 404, "body": "model 'qwen3:8b' not found"}])
    with pytest.raises(ModelHTTPError) as info:
        turn_of(ollama(server), messages=USER)
    assert info.value.status == 404 and not info.value.retryable
    assert "qwen3:8b" in str(info.value) and "nicht vorhanden" in str(info.value)


def test_ollama_tool_call_parse_error(server: ScriptedLLMServer) -> None:
    body = "error parsing tool call: raw='{\"name\": read_akte', err=unexpected"
    server.script([{"status": 500, "body": body}])
    with pytest.raises(ToolCallFormatError) as info:
        turn_of(ollama(server), messages=USER, tools=TOOLS)
    assert "error parsing tool call" in info.value.detail
    assert info.value.code == "tool_call_format"


def test_ollama_tool_call_with_string_arguments_is_a_format_error(server: ScriptedLLMServer) -> None:
    # ollama-python validates arguments as an object; a string fails before we see it.
    server.script([{"tool_calls": [{"name": "read_akte", "arguments": "{kaputt"}]}])
    with pytest.raises(ToolCallFormatError):
        turn_of(ollama(server), messages=USER, tools=TOOLS)


def test_ollama_error_inside_the_stream(server: ScriptedLLMServer) -> None:
    server.script([{"text": "Ich beginne", "stream_error": "model runner crashed"}])
    seen: list[str] = []

    async def run() -> None:
        async for chunk in ollama(server).stream(messages=USER):
            seen.append(chunk.text)

    with pytest.raises(LLMError) as info:
        asyncio.run(run())
    assert type(info.value) is LLMError and "model runner crashed" in info.value.detail
    assert "".join(seen) == "Ich beginne"


def test_ollama_connection_refused_is_unavailable() -> None:
    host = f"http://127.0.0.1:{unused_port()}"
    with pytest.raises(ModelUnavailable) as info:
        turn_of(OllamaModel("qwen3:8b", host=host, timeout=2), messages=USER)
    assert str(info.value) == UNREACHABLE and host not in str(info.value)  # the host is for the admin
    assert info.value.retryable and info.value.code == "model_unavailable"
    assert info.value.detail.startswith(host)


def test_ollama_slow_server_times_out(server: ScriptedLLMServer) -> None:
    server.script([{"text": "zu spät", "delay": 3}])
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as info:
        turn_of(ollama(server, timeout=0.3), messages=USER)
    assert time.monotonic() - started < 2.5
    assert server.url in info.value.detail and server.url not in str(info.value)


def test_ollama_stall_mid_stream_times_out(server: ScriptedLLMServer) -> None:
    server.script([{"text": ["eins ", "zwei"], "chunk_delay": 3}])
    with pytest.raises(ModelUnavailable):
        turn_of(ollama(server, timeout=0.3), messages=USER)


def test_ollama_abandoned_stream_closes_cleanly(server: ScriptedLLMServer) -> None:
    server.script([{"text": ["eins ", "zwei ", "drei"], "chunk_delay": 0.5}, {"text": "danach"}])
    model = ollama(server)

    async def first_only() -> str:
        gen = model.stream(messages=USER)
        chunk = await anext(gen)
        await gen.aclose()
        return chunk.text

    started = time.monotonic()
    assert asyncio.run(first_only()) == "eins "
    assert time.monotonic() - started < 1.0
    assert turn_of(model, messages=USER).text == "danach"


# --- OpenAI-compatible ----------------------------------------------------------------------


def test_openai_streams_text_deltas_in_order_with_usage(server: ScriptedLLMServer) -> None:
    server.script([{"text": ["Guten ", "Tag, ", "Frau ", "Meier."], "usage": (230, 9)}])
    chunks = chunks_of(cloud(server), messages=USER)
    assert [c.text for c in chunks if c.kind == "text"] == ["Guten ", "Tag, ", "Frau ", "Meier."]
    end = chunks[-1]
    assert end.kind == "end" and [c.kind for c in chunks].count("end") == 1
    assert (end.usage.prompt_tokens, end.usage.completion_tokens) == (230, 9)
    assert end.finish_reason == "stop"
    body = server.requests_to("/v1/chat/completions")[0]
    assert body["model"] == "gpt-test" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert "tools" not in body and "temperature" not in body
    assert server.headers[0].get("authorization") == "Bearer sk-test"


def test_openai_tool_call_arguments_split_across_deltas(server: ScriptedLLMServer) -> None:
    arguments = {"query": "Meier ./. Stahlbau – Kündigung", "limit": 5}
    server.script([{"tool_calls": [{"name": "read_akte", "arguments": arguments, "id": "call_1"}]}])
    turn = turn_of(cloud(server), messages=USER, tools=TOOLS, temperature=0)
    assert turn.tool_calls == [ToolCall(id="call_1", name="read_akte", arguments=arguments)]
    assert turn.finish_reason == "tool_calls"
    body = server.requests_to("/v1/chat/completions")[0]
    assert body["tools"] == TOOLS and body["temperature"] == 0


def test_openai_repeated_name_is_set_once(server: ScriptedLLMServer) -> None:
    server.script([{"repeat_name": True, "tool_calls": [
        {"name": "read_akte", "arguments": {"query": "Meier", "status": "offen"}, "id": "call_a"},
        {"name": "search_gesetze", "arguments": {"query": "§ 622 BGB Kündigungsfrist"}, "id": "call_b"},
    ]}])
    turn = turn_of(cloud(server), messages=USER, tools=TOOLS)
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("call_a", "read_akte", {"query": "Meier", "status": "offen"}),
        ("call_b", "search_gesetze", {"query": "§ 622 BGB Kündigungsfrist"}),
    ]


def test_openai_text_then_several_tool_calls(server: ScriptedLLMServer) -> None:
    server.script([{"text": "Ich sehe nach.", "tool_calls": [
        {"name": "read_akte", "arguments": {}},
        {"name": "read_fristen", "arguments": {"status": "all"}},
    ]}])
    chunks = chunks_of(cloud(server), messages=USER, tools=TOOLS)
    kinds = [c.kind for c in chunks]
    assert kinds[-3:] == ["tool_call", "tool_call", "end"]
    assert "".join(c.text for c in chunks if c.kind == "text") == "Ich sehe nach."
    calls = [c.tool_call for c in chunks if c.kind == "tool_call"]
    assert [(c.name, c.arguments) for c in calls] == [("read_akte", {}), ("read_fristen", {"status": "all"})]
    assert len({c.id for c in calls}) == 2


def test_openai_unparsable_arguments_are_kept_raw(server: ScriptedLLMServer) -> None:
    """Arguments nothing can read stay the raw string: the executor tells the model what was wrong."""
    server.script([{"tool_calls": [{"name": "read_akte", "arguments": '{"query": Meier Müller'}]}])
    turn = turn_of(cloud(server), messages=USER, tools=TOOLS)
    assert turn.tool_calls[0].arguments == '{"query": Meier Müller'


def test_openai_history_wire_format(server: ScriptedLLMServer) -> None:
    server.script([{"text": "Keine Akten gefunden."}])
    turn_of(cloud(server), messages=HISTORY, tools=TOOLS)
    messages = server.requests_to("/v1/chat/completions")[0]["messages"]
    assert messages[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_abc", "type": "function",
                        "function": {"name": "read_akte", "arguments": '{"query": "Meier"}'}}],
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "call_abc", "content": '{"akten": []}'}
    assert json.loads(messages[2]["tool_calls"][0]["function"]["arguments"]) == {"query": "Meier"}


def test_openai_http_errors(server: ScriptedLLMServer) -> None:
    server.script([{"status": 500, "body": "upstream exploded"}, {"status": 429, "body": "slow down"},
                   {"status": 401, "body": "bad key"}])
    errors = []
    for _ in range(3):
        with pytest.raises(ModelHTTPError) as info:
            turn_of(cloud(server), messages=USER)
        errors.append(info.value)
    assert [e.status for e in errors] == [500, 429, 401]
    assert [e.retryable for e in errors] == [True, True, False]
    assert "upstream exploded" in errors[0].detail
    assert "API-Schlüssel" in str(errors[2])
    assert len(server.requests) == 3  # max_retries=0: the SDK did not retry on its own


def test_openai_tool_call_parse_error_from_ollama_v1(server: ScriptedLLMServer) -> None:
    server.script([{"status": 500, "body": "error parsing tool call: raw='{', err=unexpected end"}])
    with pytest.raises(ToolCallFormatError):
        turn_of(cloud(server), messages=USER, tools=TOOLS)


def test_openai_error_inside_the_stream(server: ScriptedLLMServer) -> None:
    server.script([{"text": "Ich beginne", "stream_error": "overloaded"}])
    with pytest.raises(LLMError) as info:
        turn_of(cloud(server), messages=USER)
    assert type(info.value) is LLMError and "overloaded" in info.value.detail


def test_openai_connection_refused_is_unavailable() -> None:
    base_url = f"http://127.0.0.1:{unused_port()}/v1"
    model = OpenAICompatModel("gpt-test", base_url=base_url, api_key="sk-test", timeout=2)
    with pytest.raises(ModelUnavailable) as info:
        turn_of(model, messages=USER)
    assert str(info.value) == UNREACHABLE and info.value.detail.startswith(base_url)
    assert info.value.retryable


def test_openai_slow_server_times_out(server: ScriptedLLMServer) -> None:
    server.script([{"text": "zu spät", "delay": 3}])
    started = time.monotonic()
    with pytest.raises(ModelUnavailable):
        turn_of(cloud(server, timeout=0.3), messages=USER)
    assert time.monotonic() - started < 2.5


def test_openai_stall_mid_stream_times_out(server: ScriptedLLMServer) -> None:
    server.script([{"text": ["eins ", "zwei"], "chunk_delay": 3}])
    with pytest.raises(ModelUnavailable):
        turn_of(cloud(server, timeout=0.3), messages=USER)


def test_openai_context_window_is_configured(server: ScriptedLLMServer) -> None:
    assert asyncio.run(cloud(server).context_window()) == 128000
    assert asyncio.run(cloud(server, context_window=32000).context_window()) == 32000
    assert server.requests == []


def test_script_is_shared_across_both_endpoints(server: ScriptedLLMServer) -> None:
    server.script([{"text": "eins"}, {"text": "zwei"}, {"text": "drei"}])
    assert turn_of(ollama(server), messages=USER).text == "eins"
    assert turn_of(cloud(server), messages=USER).text == "zwei"
    assert turn_of(ollama(server), messages=USER).text == "drei"
    assert server.remaining == 0


# --- ScriptedModel --------------------------------------------------------------------------


def test_scripted_streams_text_in_several_deltas() -> None:
    model = ScriptedModel([ScriptedTurn(text="Die Frist endet am 14.04.2026.", usage=(50, 8))])
    chunks = chunks_of(model, messages=USER)
    texts = [c.text for c in chunks if c.kind == "text"]
    assert len(texts) > 1 and "".join(texts) == "Die Frist endet am 14.04.2026."
    assert chunks[-1].kind == "end" and chunks[-1].finish_reason == "stop"
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (50, 8)


def test_scripted_tool_calls_and_records_calls() -> None:
    model = ScriptedModel([
        ScriptedTurn(tool_calls=[("read_akte", {"query": "Meier"}), ("read_fristen", "{kaputt")]),
        "Fertig.",
    ])
    messages = list(USER)
    first = turn_of(model, messages=messages, tools=TOOLS, temperature=0.1)
    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        ("read_akte", {"query": "Meier"}), ("read_fristen", "{kaputt")
    ]
    assert len({c.id for c in first.tool_calls}) == 2 and first.finish_reason == "tool_calls"
    calls = [c.as_message() for c in first.tool_calls]
    messages.append({"role": "assistant", "content": "", "tool_calls": calls})
    assert turn_of(model, messages=messages).text == "Fertig."
    assert len(model.calls) == 2
    assert model.calls[0].messages == USER and model.calls[0].tools == TOOLS
    assert model.calls[0].temperature == 0.1
    assert model.calls[1].messages[-1]["role"] == "assistant"


def test_scripted_callable_sees_the_messages() -> None:
    def react(messages: list[dict[str, Any]]) -> ScriptedTurn:
        return ScriptedTurn(text=f"Sie schrieben: {messages[-1]['content']}")

    model = ScriptedModel([react])
    assert turn_of(model, messages=USER).text == "Sie schrieben: Hallo"


def test_scripted_error_is_raised_after_the_text() -> None:
    model = ScriptedModel([ScriptedTurn(text="Moment", error=ModelUnavailable("weg", retryable=True))])
    seen: list[str] = []

    async def run() -> None:
        async for chunk in model.stream(messages=USER):
            seen.append(chunk.text)

    with pytest.raises(ModelUnavailable):
        asyncio.run(run())
    assert "".join(seen) == "Moment"


def test_scripted_exhausted_script_and_context_window() -> None:
    model = ScriptedModel([], context_window=4096, name="mini")
    turn = turn_of(model, messages=USER)
    assert turn.text == END_OF_SCRIPT == "(Ende des Skripts)"
    assert turn.usage.prompt_tokens > 0
    assert asyncio.run(model.context_window()) == 4096 and model.name == "mini"


def test_scripted_chunk_delay_and_delay() -> None:
    model = ScriptedModel([ScriptedTurn(text="abcdef", chunk_delay=0.05)], delay=0.05)
    started = time.monotonic()
    turn_of(model, messages=USER)
    assert time.monotonic() - started >= 0.14


def test_server_stop_ends_sleeping_handlers() -> None:
    before = threading.active_count()
    srv = start_scripted_server()
    srv.script([{"text": "nie", "delay": 30}])
    with pytest.raises(ModelUnavailable):
        turn_of(OllamaModel("qwen3:8b", host=srv.url, timeout=0.2), messages=USER)
    started = time.monotonic()
    srv.stop()
    deadline = time.monotonic() + 2
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert threading.active_count() == before
    assert time.monotonic() - started < 2
