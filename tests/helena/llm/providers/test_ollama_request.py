"""The /api/chat body Helena builds itself is the one ollama-python's chat() would send, and the
converted tools are reused for the same schemas (a fresh copy each run), never for changed ones."""

from __future__ import annotations

import json
from typing import Any

from ollama._client import _copy_messages, _copy_tools
from ollama._types import ChatRequest

from helena.llm.base import ToolCall
from helena.llm.providers.ollama_request import (
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
