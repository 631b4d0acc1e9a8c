"""The /api/chat body Helena builds itself is the one ollama-python's chat() would send, the
converted tools are reused for the same schemas (a fresh copy each run), never for changed ones, and
the streamed parts read as ollama-python's ChatResponse."""

from __future__ import annotations

import json
from typing import Any

import ollama
import pydantic
import pytest
from ollama._client import _copy_messages, _copy_tools
from ollama._types import ChatRequest

from helena.llm.base import ToolCall
from helena.llm.providers.ollama_request import (
    _part,
    chat_request,
    encode_chat,
    ollama_tools,
    to_ollama_messages,
    to_ollama_tools,
)
from helena.tools.registry import all_tools

MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "Du bist Helena."},
    {"role": "user", "content": "Welche Frist gilt?"},
    {"role": "assistant", "content": None,
     "tool_calls": [
         ToolCall(id="call_a", name="calculate_frist", arguments={"start": "2026-01-05"}).as_message(),
         ToolCall(id="call_b", name="read_akte", arguments='{"query": "Meier"}').as_message()]},
    {"role": "tool", "tool_call_id": "call_a", "name": "calculate_frist",
     "content": '{"ende": "2026-02-05"}'},
    {"role": "tool", "tool_call_id": "call_b", "name": "read_akte", "content": ""},
    {"role": "assistant", "content": ""},
    {"role": "user", "content": {"nicht": "Text"}},
]


def _as_the_client_sends(**kwargs: Any) -> dict[str, Any]:
    tools = to_ollama_tools(kwargs["tools"])
    request = ChatRequest(
        model=kwargs["model"], messages=list(_copy_messages(to_ollama_messages(kwargs["messages"]))),
        tools=list(_copy_tools(tools)), stream=True, think=kwargs["think"], options=kwargs["options"])
    return request.model_dump(exclude_none=True)


def _wire(body: dict[str, Any]) -> Any:
    return json.loads(json.dumps(body, ensure_ascii=False))


def test_the_body_is_what_ollama_python_sends() -> None:
    schemas = [tool.schema() for tool in all_tools().values()]
    for tools, think, options in [(schemas, True, {"num_ctx": 8192, "temperature": 0.2}),
                                  (None, None, {"num_ctx": 4096}), (schemas[:1], False, {"num_ctx": 1})]:
        kwargs = {"model": "qwen3:8b", "messages": MESSAGES, "tools": tools, "think": think,
                  "options": options}
        body = chat_request(**kwargs)
        assert _wire(body) == _wire(_as_the_client_sends(**kwargs))
        assert json.loads(encode_chat(body)) == _wire(body)  # the tools' JSON as kept


def test_converted_tools_are_kept_per_content() -> None:
    first = ollama_tools([tool.schema() for tool in all_tools().values()])
    again = ollama_tools([tool.schema() for tool in all_tools().values()])
    assert first is again  # the same schemas in new copies: converted once
    changed = [tool.schema() for tool in all_tools().values()]
    changed[0]["function"]["description"] = "anders"
    other = ollama_tools(changed)
    assert other is not first and other is not None
    assert other[0]["function"]["description"] == "anders"
    assert ollama_tools([tool.schema() for tool in all_tools().values()]) is first


# Lines as Ollama streams them (its docs/api.md "Generate a chat completion", streaming and the final
# part; thinking as in its docs for `think`), and lines that must still fail as they did.
STREAMED_LINES = [
    b'{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00",'
    b'"message":{"role":"assistant","content":"The"},"done":false}',
    b'{"model":"qwen3","created_at":"2025-05-29T09:35:56.836222Z",'
    b'"message":{"role":"assistant","content":"","thinking":"Okay"},"done":false}',
    b'{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","message":{"role":"assistant",'
    b'"content":""},"done":true,"done_reason":"stop","total_duration":4883583458,"load_duration":1334875,'
    b'"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000}',
    b'{"model":"llama3.2","created_at":"2024-07-22T20:33:28.123648Z","message":{"role":"assistant",'
    b'"content":"","tool_calls":[{"function":{"name":"get_current_weather","arguments":'
    b'{"format":"celsius","location":"Paris, FR"}}}]},"done":false}',
]


@pytest.mark.parametrize("line", STREAMED_LINES)
def test_a_streamed_part_reads_as_ollama_pythons_chat_response(line: bytes) -> None:
    """Text parts skip pydantic; what the provider reads of them is the same as ollama-python's."""
    ours, theirs = _part(line), ollama.ChatResponse(**json.loads(line))
    assert (ours.message.content, ours.message.thinking, ours.message.tool_calls, ours.done) == (
        theirs.message.content, theirs.message.thinking, theirs.message.tool_calls, theirs.done)


@pytest.mark.parametrize("line", [
    b'{"message":{"role":"assistant","content":7},"done":false}',  # not text: validated, refused
    b'{"message":{"role":"assistant","content":"x","tool_calls":[{"function":{"name":"a",'
    b'"arguments":"kaputt"}}]},"done":false}',
])
def test_a_part_that_is_not_plain_text_is_still_validated(line: bytes) -> None:
    with pytest.raises(pydantic.ValidationError):
        _part(line)


def test_an_error_line_is_raised_as_ollama_python_raises_it() -> None:
    with pytest.raises(ollama.ResponseError, match="not found"):
        _part(b'{"error":"model \\"x\\" not found"}')
