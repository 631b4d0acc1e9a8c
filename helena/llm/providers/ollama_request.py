"""Ollama's POST /api/chat: the body (messages and tools in Ollama's shape, built without the client's
pydantic round trip, the tools converted once per set of schemas) and the streamed call (open_chat)."""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import AsyncIterator
from typing import Any, NamedTuple

import httpx
import ollama

from helena.llm.providers.transport import KeptConnection


class _Empty(str):
    """An empty string that counts as truthy.

    ollama-python drops every message key whose value is falsy (`_copy_messages`: `if v`), so a
    plain "" content would vanish from the request; this keeps `"content": ""` on the wire.
    """

    __slots__ = ()

    def __bool__(self) -> bool:
        return True


def _content(value: Any) -> str:
    if value is None or value == "":
        return _Empty("")
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _arguments_dict(arguments: Any) -> dict[str, Any]:
    """Ollama wants arguments as an object; our history carries them as a JSON string."""
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    # The model produced something that is not an object; the history must still be valid.
    return {}


def to_ollama_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Translate OpenAI-style messages into Ollama's chat format."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role", "user")
        out: dict[str, Any] = {"role": role, "content": _content(message.get("content"))}
        if role == "assistant" and message.get("tool_calls"):
            out["tool_calls"] = [
                {
                    "function": {
                        "name": (call.get("function") or {}).get("name", ""),
                        "arguments": _arguments_dict((call.get("function") or {}).get("arguments")),
                    }
                }
                for call in message["tool_calls"]
            ]
        elif role == "tool" and message.get("name"):
            out["tool_name"] = message["name"]
        converted.append(out)
    return converted


# The keys ollama-python's Tool model keeps for a parameter; everything else is silently dropped.
_KEPT_PROPERTY_KEYS = frozenset({"type", "items", "description", "enum"})


def to_ollama_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Fold schema details the client would drop (nested properties, minimum, default …) into the description.

    ollama-python validates tools into a model that knows only type/items/description/enum per
    parameter, so e.g. calculate_frist's `dauer: {tage, wochen, monate, jahre}` would reach the model
    as a bare "object"; as text in the description the model still sees the shape.
    """
    if not tools:
        return None
    converted = []
    for tool in tools:
        # New dicts along the path that changes (tool → function → parameters → properties), so
        # the caller's schema stays as it was without copying all of it.
        function = tool.get("function") or {}
        parameters = function.get("parameters") or {}
        properties = dict(parameters.get("properties") or {})
        for name, schema in list(properties.items()):
            if not isinstance(schema, dict):
                continue
            lost = {k: v for k, v in schema.items() if k not in _KEPT_PROPERTY_KEYS}
            if lost:
                extra = "Schema: " + json.dumps(lost, ensure_ascii=False, separators=(",", ":"))
                description = schema.get("description") or ""
                kept = {k: v for k, v in schema.items() if k in _KEPT_PROPERTY_KEYS}
                properties[name] = {**kept, "description": f"{description} {extra}".strip()}
        if "properties" in parameters:
            tool = {**tool, "function": {**function, "parameters": {**parameters, "properties": properties}}}
        converted.append(tool)
    return converted


_TOOLS_CACHE_SIZE = 64
# tool names -> [(the schemas as given, copied; the tools as sent)]
_tools_cache: dict[tuple[str, ...], list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]] = {}
_tools_lock = threading.Lock()


def _tool_names(tools: list[dict[str, Any]]) -> tuple[str, ...]:
    return tuple(str((tool.get("function") or {}).get("name", "")) if isinstance(tool, dict) else ""
                 for tool in tools)


def ollama_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """to_ollama_tools as the client sends them (validated into its Tool model and dumped), remembered
    per set of schemas.

    The client validates every tool dict into a pydantic model on every call, and folding the
    schemas costs a json.dumps per tool: 1.4 ms of every run's start. The registry hands each run
    its own copies of the schemas, so they are looked up by their names and recognised by their
    content (a dict comparison in C, a fraction of a json.dumps): the same set of tools, whichever
    run offers it, is converted once. What is returned is shared: the caller must not change it.
    """
    if not tools:
        return None
    names = _tool_names(tools)
    with _tools_lock:
        for given, sent in _tools_cache.get(names, ()):
            if given == tools:
                return sent
    sent = []
    for tool in to_ollama_tools(tools) or []:
        dumped = ollama.Tool.model_validate(tool).model_dump(exclude_none=True)
        parameters = (dumped.get("function") or {}).get("parameters")
        if isinstance(parameters, dict) and "defs" in parameters:  # as ollama's ChatRequest sends it
            parameters["$defs"] = parameters.pop("defs")
        sent.append(dumped)
    given = json.loads(json.dumps(tools))  # a copy the caller cannot change
    with _tools_lock:
        if sum(len(entries) for entries in _tools_cache.values()) >= _TOOLS_CACHE_SIZE:
            _tools_cache.clear()
            _encoded.clear()
        _tools_cache.setdefault(names, []).append((given, sent))
        _encoded[id(sent)] = (sent, _json(sent))
    return sent


def chat_request(*, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                 options: dict[str, Any], think: bool | None) -> dict[str, Any]:
    """The body of POST /api/chat (streamed) as ollama-python's chat() sends it, built directly.

    chat() validates the messages, tools and options into pydantic models and dumps them again on
    every call (~0.7 ms of a run start); the tools come ready from ollama_tools, and the messages
    from to_ollama_messages have the shape of the client's Message already. ollama-python drops a
    message's falsy values (_copy_messages), so this does too (_Empty keeps an empty content).
    """
    body: dict[str, Any] = {
        "model": model,
        "stream": True,
        "options": {key: value for key, value in options.items() if value is not None},
        "messages": [{key: value for key, value in message.items() if value}
                     for message in to_ollama_messages(messages)],
        "tools": ollama_tools(tools) or [],
    }
    if think is not None:
        body["think"] = think
    return body


# id of a list ollama_tools returned -> (that list, its JSON): ~0.25 ms of encoding per run start
_encoded: dict[int, tuple[list[dict[str, Any]], bytes]] = {}


def _json(value: Any) -> bytes:
    """JSON as httpx encodes a request's json= (compact, UTF-8)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def encode_chat(body: dict[str, Any]) -> bytes:
    """chat_request's body as JSON, the tools' part as encoded when they were converted."""
    tools = body.get("tools")
    kept = _encoded.get(id(tools)) if tools else None
    if kept is None or kept[0] is not tools:
        return _json(body)
    rest = _json({key: value for key, value in body.items() if key != "tools"})
    return rest[:-1] + b',"tools":' + kept[1] + b"}"


async def open_chat(client: ollama.AsyncClient,
                    body: dict[str, Any]) -> AsyncIterator[ollama.ChatResponse | TextPart]:
    """POST /api/chat streamed: the parts as ollama-python's client yields them, errors as it raises them.

    Over the kept connection (transport.py) the request goes to the transport directly and the lines
    are read off its body: the client's send pipeline (auth, redirects, hooks) and httpx's line
    decoders cost ~1 ms of every run start. Another transport, or a redirect, takes the client's way.
    """
    http = client._client
    transport = getattr(http, "_transport", None)
    if not isinstance(transport, KeptConnection):
        return await client._request(ollama.ChatResponse, "POST", "/api/chat", stream=True, json=body)
    response = await transport.handle_async_request(_chat_request(http, encode_chat(body)))
    if response.status_code >= 300:
        await response.aread()
        if response.status_code < 400:  # a redirect (to https, say): the client follows it
            return await client._request(ollama.ChatResponse, "POST", "/api/chat", stream=True, json=body)
        raise ollama.ResponseError(response.text, response.status_code)
    return _parts(response)


_CHAT_HEADERS = {"Content-Type": "application/json",
                 "Accept-Encoding": "identity"}  # the body is read as sent, without httpx's decoders
# Per client: the URL and headers of its POST /api/chat, merged once (and again should the client's
# base URL or headers change). httpx's build_request merges the client's base URL, headers, params
# and cookies anew for every request (~30 µs of each model call).
_Head = tuple[httpx.URL, list[tuple[bytes, bytes]], httpx.URL, httpx.Headers]
_chat_heads: weakref.WeakKeyDictionary[httpx.AsyncClient, _Head] = weakref.WeakKeyDictionary()


def _chat_request(http: httpx.AsyncClient, content: bytes) -> httpx.Request:
    """The request build_request would make (a client with cookies or params goes its way)."""
    if http.cookies or http.params:
        return http.build_request("POST", "/api/chat", content=content, headers=_CHAT_HEADERS)
    head = _chat_heads.get(http)
    base, given = http.base_url, http.headers.raw
    if head is None or head[0] != base or head[1] != given:
        head = (base, given, http._merge_url("/api/chat"), http._merge_headers(_CHAT_HEADERS))
        _chat_heads[http] = head
    return httpx.Request("POST", head[2], headers=head[3], content=content,
                         extensions={"timeout": http.timeout.as_dict()})


async def _parts(response: httpx.Response) -> AsyncIterator[ollama.ChatResponse | TextPart]:
    body = response.stream
    assert isinstance(body, httpx.AsyncByteStream)
    try:
        rest = b""
        async for data in body:
            lines = (rest + data).split(b"\n")
            rest = lines.pop()
            for line in lines:
                if line.strip():
                    yield _part(line)
        if rest.strip():
            yield _part(rest)
    finally:
        await body.aclose()


class TextMessage(NamedTuple):
    """What OllamaModel._raw reads of a text part's message (ChatResponse.message has the same)."""

    content: str | None
    thinking: str | None
    tool_calls: None = None


class TextPart(NamedTuple):
    """A part that only streams text and is not the last: nearly every part of an answer."""

    message: TextMessage
    done: bool = False


_TEXT_KEYS = frozenset({"role", "content", "thinking"})


def _part(line: bytes) -> ollama.ChatResponse | TextPart:
    """One line of the stream. A text part (strings only, not done) skips pydantic's validation,
    which cost more than everything else per token; every other part is validated as before."""
    part = json.loads(line)
    if type(part) is dict and part.get("done") is False and not part.get("error"):
        message = part.get("message")
        if type(message) is dict and message.keys() <= _TEXT_KEYS \
                and all(type(value) is str for value in message.values()):
            return TextPart(TextMessage(message.get("content"), message.get("thinking")))
    if err := part.get("error"):
        raise ollama.ResponseError(err)
    return ollama.ChatResponse(**part)
