"""ChatModel for any OpenAI-compatible endpoint (tier 3, the cloud), via the official `openai` client."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import openai

from helena.llm.base import (
    UNREACHABLE,
    Chunk,
    LLMError,
    ModelHTTPError,
    ModelUnavailable,
    ToolCall,
    ToolCallFormatError,
    Usage,
)
from helena.llm.dialects import profiles
from helena.llm.providers.http import LoopClient, ssl_context
from helena.llm.providers.stream import Raw, parsed_turn

TOOL_CALL_PARSE_MARKER = "error parsing tool call"  # Ollama's /v1 endpoint reports it this way
BAD_TOOL_CALL = "Das Cloud-Modell hat einen fehlerhaften Tool-Aufruf erzeugt."


def to_openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Normalise our history for the wire: content always present, arguments always a JSON string."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role", "user")
        content = message.get("content")
        out: dict[str, Any] = {"role": role, "content": "" if content is None else content}
        if role == "assistant" and message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                arguments = function.get("arguments", "")
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments, ensure_ascii=False)
                calls.append({
                    "id": call.get("id") or "call_" + uuid.uuid4().hex[:12],
                    "type": "function",
                    "function": {"name": function.get("name", ""), "arguments": arguments},
                })
            out["tool_calls"] = calls
        elif role == "tool":
            # The OpenAI schema has no "name" on tool messages; strict servers reject unknown keys.
            out["tool_call_id"] = message.get("tool_call_id", "")
        converted.append(out)
    return converted


@dataclass
class _PendingCall:
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)

    def complete(self) -> bool:
        """Whether the arguments are whole (a stream cut off by "length" leaves them open)."""
        raw = "".join(self.arguments).strip()
        if not raw:
            return True
        try:
            json.loads(raw)
        except json.JSONDecodeError:
            return False
        return True

    def finish(self) -> ToolCall:
        raw = "".join(self.arguments)
        call_id = self.id or "call_" + uuid.uuid4().hex[:12]
        return ToolCall(id=call_id, name=self.name or "", arguments=raw if raw.strip() else {})


class _ToolCallAssembler:
    """Joins streamed tool-call fragments into calls, as the servers really send them.

    By index; without an index (older Ollama /v1), a new id starts a new call; all calls at index 0
    with distinct ids (Ollama /v1 0.20, LiteLLM's ollama_chat, some gateways): each id is its own
    call. A call may start at index 1 alone, and may have no "arguments" key at all.
    """

    def __init__(self) -> None:
        self._calls: list[_PendingCall] = []
        self._by_index: dict[int, _PendingCall] = {}
        self._last: _PendingCall | None = None

    def add(self, delta: Any) -> None:
        index = getattr(delta, "index", None)
        call_id = getattr(delta, "id", None)
        pending = self._by_index.get(index) if index is not None else self._last
        if pending is None or (call_id and pending.id and call_id != pending.id):
            pending = _PendingCall()
            self._calls.append(pending)
            if index is not None:
                self._by_index[index] = pending
        self._last = pending
        if call_id and not pending.id:
            pending.id = call_id
        function = getattr(delta, "function", None)
        if function is not None:
            if function.name and not pending.name:
                pending.name = function.name
            if function.arguments:
                pending.arguments.append(function.arguments)

    def __bool__(self) -> bool:
        return bool(self._calls)

    def finish(self) -> list[_PendingCall]:
        return [call for call in self._calls if call.name]


def _http_message(status: int, model: str) -> str:
    if status in (401, 403):
        return f"Der Zugang zum Cloud-Modell wurde abgelehnt (HTTP {status}). Bitte den API-Schlüssel prüfen."
    if status == 404:
        return f"Das Cloud-Modell „{model}“ wurde nicht gefunden (HTTP 404)."
    if status == 429:
        return "Das Cloud-Modell ist ausgelastet oder das Kontingent ist erschöpft (HTTP 429)."
    if status >= 500:
        return f"Das Cloud-Modell hat einen Serverfehler gemeldet (HTTP {status})."
    return f"Das Cloud-Modell hat die Anfrage abgelehnt (HTTP {status})."


class OpenAICompatModel:
    """A model behind an OpenAI-compatible API; no SDK retries, the agent loop decides about retrying."""

    provider: Literal["openai"] = "openai"

    def __init__(
        self,
        name: str,
        *,
        base_url: str,
        api_key: str,
        timeout: float = 60,
        context_window: int = 128000,
        dialect: str = profiles.AUTO,
    ) -> None:
        self.name = name
        self.dialect = dialect  # ModelTier.dialect: "auto" or a profile key
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self._context_window = context_window
        # The calls of one run share a client and its connection (helena/llm/providers/http.py).
        self._http: LoopClient[openai.AsyncOpenAI] = LoopClient(
            self._make_client, key=("openai", base_url, api_key, timeout))

    def __repr__(self) -> str:
        return f"OpenAICompatModel({self.name!r}, base_url={self.base_url!r})"

    async def context_window(self) -> int:
        """Configured, since the OpenAI API has no standard way to ask."""
        return self._context_window

    def _client(self) -> openai.AsyncOpenAI:
        return self._http.get()

    def _make_client(self) -> openai.AsyncOpenAI:
        # A default client builds its own SSL context (~30 ms of CPU); the shared one costs nothing.
        return openai.AsyncOpenAI(
            base_url=self.base_url, api_key=self.api_key or "none", timeout=self.timeout, max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(verify=ssl_context(), timeout=self.timeout),
        )

    async def aclose(self) -> None:
        """Give the client back for the next run (the run that built this model calls it at its end)."""
        await self._http.aclose()

    def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        tool_names: Collection[str] | None = None,
    ) -> AsyncIterator[Chunk]:
        """Stream one turn, parsed (helena/llm/dialects); tool calls come whole once the stream ended."""
        profile = profiles.detect(self.name, choice=self.dialect)

        def raw(sent: list[dict[str, Any]], sent_tools: list[dict[str, Any]] | None) -> AsyncIterator[Raw]:
            return self._raw(sent, sent_tools, temperature)

        return parsed_turn(raw=raw, key=("openai", self.base_url, self.name), profile=profile,
                           messages=messages, tools=tools, tool_names=tool_names)

    async def _raw(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                   temperature: float | None) -> AsyncIterator[Raw]:
        kwargs: dict[str, Any] = {
            "model": self.name,
            "messages": to_openai_messages(messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            kwargs["tools"] = tools
        if temperature is not None:
            kwargs["temperature"] = temperature
        calls = _ToolCallAssembler()
        usage = Usage()
        reason: str | None = None
        try:
            client = self._client()  # shared with this model's other calls: not closed here
            stream = await client.chat.completions.create(**kwargs)
            async with stream:
                async for chunk in stream:
                    if chunk.usage is not None:
                        usage = Usage(prompt_tokens=chunk.usage.prompt_tokens or 0,
                                      completion_tokens=chunk.usage.completion_tokens or 0)
                    for choice in chunk.choices or []:  # a usage chunk has none
                        for raw in _deltas(choice.delta, calls):
                            yield raw
                        reason = choice.finish_reason or reason
        except openai.APIError as exc:
            raise self._map_api_error(exc) from exc
        except json.JSONDecodeError as exc:
            raise LLMError("Das Cloud-Modell hat eine unlesbare Antwort geliefert.", detail=str(exc)) from exc
        for pending in calls.finish():
            if reason == "length" and not pending.complete():
                # Cut off inside the arguments: never repaired into a call (a half draft is worse
                # than none).
                yield Raw(kind="cut", text=f"{pending.name}: {''.join(pending.arguments)}")
                continue
            yield Raw(kind="call", call=pending.finish())
        finish = "length" if reason == "length" else "error" if reason == "content_filter" else "stop"
        yield Raw(kind="end", usage=usage, finish=finish)

    def _map_api_error(self, exc: openai.APIError) -> LLMError:
        """The client's error as ours, with a German message: unreachable, an HTTP status, or an
        error event inside the stream (a tool call the server could not parse among them)."""
        if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
            return ModelUnavailable(UNREACHABLE, detail=f"{self.base_url}: {type(exc).__name__}: {exc} "
                                                        f"({exc.__cause__!r})", retryable=True)
        if isinstance(exc, openai.APIStatusError):
            return self._map_status_error(exc)
        detail = str(exc.message)
        if TOOL_CALL_PARSE_MARKER in detail.lower():
            return ToolCallFormatError(BAD_TOOL_CALL, detail=detail, retryable=True)
        return LLMError("Das Cloud-Modell hat die Antwort mit einem Fehler abgebrochen.", detail=detail,
                        retryable=True)

    def _map_status_error(self, exc: openai.APIStatusError) -> LLMError:
        detail = f"{exc.message} {exc.body!r}"
        if TOOL_CALL_PARSE_MARKER in detail.lower():
            return ToolCallFormatError(BAD_TOOL_CALL, detail=detail, retryable=True)
        status = exc.status_code
        error = ModelHTTPError(_http_message(status, self.name), status=status, detail=detail)
        if exc.status_code == 429:
            error.retryable = True
        return error


def _deltas(delta: Any, calls: _ToolCallAssembler) -> Iterator[Raw]:
    """One choice's delta: its reasoning and text as they come, its tool-call fragments collected."""
    if delta is None:
        return
    reasoning = _reasoning(delta)
    if reasoning:
        yield Raw(kind="reasoning", text=reasoning)
    if delta.content:
        yield Raw(kind="content", text=delta.content)
    for fragment in delta.tool_calls or []:
        calls.add(fragment)


def _reasoning(delta: Any) -> str:
    """Reasoning as servers name it: reasoning_content (llama.cpp, SGLang, DeepSeek, older vLLM) or
    reasoning (Ollama /v1, LM Studio, OpenRouter, newer vLLM); the client keeps both as extras."""
    extra = getattr(delta, "model_extra", None) or {}
    for key in ("reasoning_content", "reasoning"):
        value = extra.get(key, getattr(delta, key, None))
        if isinstance(value, str) and value:
            return value
    return ""
