"""ChatModel for any OpenAI-compatible endpoint (tier 3, the cloud), via the official `openai` client."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

import openai

from helena.llm.base import (
    Chunk,
    FinishReason,
    LLMError,
    ModelHTTPError,
    ModelUnavailable,
    ToolCall,
    ToolCallFormatError,
    Usage,
)
from helena.llm.http import LoopClient, ssl_context

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

    def finish(self) -> ToolCall:
        raw = "".join(self.arguments)
        arguments: dict[str, Any] | str
        if not raw.strip():
            arguments = {}
        else:
            try:
                parsed = json.loads(raw)
            except json.JSONDecodeError:
                parsed = None
            arguments = parsed if isinstance(parsed, dict) else raw
        call_id = self.id or "call_" + uuid.uuid4().hex[:12]
        return ToolCall(id=call_id, name=self.name or "", arguments=arguments)


class _ToolCallAssembler:
    """Joins streamed tool-call fragments by index; id and name are taken once, arguments appended."""

    def __init__(self) -> None:
        self._calls: dict[int, _PendingCall] = {}
        self._last: int | None = None

    def add(self, delta: Any) -> None:
        index = getattr(delta, "index", None)
        if index is None:  # some servers omit the index: a new id starts a new call
            known_ids = {c.id for c in self._calls.values()}
            if self._last is None or (delta.id and delta.id not in known_ids):
                index = len(self._calls)
            else:
                index = self._last
        self._last = index
        pending = self._calls.setdefault(index, _PendingCall())
        if delta.id and not pending.id:
            pending.id = delta.id
        function = delta.function
        if function is not None:
            if function.name and not pending.name:
                pending.name = function.name
            if function.arguments:
                pending.arguments.append(function.arguments)

    def __bool__(self) -> bool:
        return bool(self._calls)

    def finish(self) -> list[ToolCall]:
        return [self._calls[i].finish() for i in sorted(self._calls)]


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


def _finish_reason(reason: str | None, *, has_tool_calls: bool) -> FinishReason:
    if has_tool_calls or reason in ("tool_calls", "function_call"):
        return "tool_calls"
    if reason == "length":
        return "length"
    if reason == "content_filter":
        return "error"
    return "stop"


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
    ) -> None:
        self.name = name
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self._context_window = context_window
        # The calls of one run share a client and its connection (helena/llm/http.py).
        self._http: LoopClient[openai.AsyncOpenAI] = LoopClient(self._make_client)

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
        """Close the kept-alive connection (the run that built this model calls it at its end)."""
        await self._http.aclose()

    async def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[Chunk]:
        """Stream one turn; tool calls are emitted whole once the stream has ended."""
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
                        usage = Usage(
                            prompt_tokens=chunk.usage.prompt_tokens or 0,
                            completion_tokens=chunk.usage.completion_tokens or 0,
                        )
                    for choice in chunk.choices or []:
                        delta = choice.delta
                        if delta is not None:
                            if delta.content:
                                yield Chunk(kind="text", text=delta.content)
                            for fragment in delta.tool_calls or []:
                                calls.add(fragment)
                        if choice.finish_reason:
                            reason = choice.finish_reason
        except openai.APIConnectionError as exc:  # includes APITimeoutError
            raise ModelUnavailable(
                f"Das Cloud-Modell ist nicht erreichbar ({self.base_url}).",
                detail=f"{type(exc).__name__}: {exc} ({exc.__cause__!r})",
                retryable=True,
            ) from exc
        except openai.APIStatusError as exc:
            raise self._map_status_error(exc) from exc
        except openai.APIError as exc:  # an error event inside the stream
            detail = str(exc.message)
            if TOOL_CALL_PARSE_MARKER in detail.lower():
                raise ToolCallFormatError(BAD_TOOL_CALL, detail=detail, retryable=True) from exc
            raise LLMError(
                "Das Cloud-Modell hat die Antwort mit einem Fehler abgebrochen.",
                detail=detail,
                retryable=True,
            ) from exc
        except json.JSONDecodeError as exc:
            raise LLMError("Das Cloud-Modell hat eine unlesbare Antwort geliefert.", detail=str(exc)) from exc
        finished = calls.finish()
        for call in finished:
            yield Chunk(kind="tool_call", tool_call=call)
        finish = _finish_reason(reason, has_tool_calls=bool(finished))
        yield Chunk(kind="end", usage=usage, finish_reason=finish)

    def _map_status_error(self, exc: openai.APIStatusError) -> LLMError:
        detail = f"{exc.message} {exc.body!r}"
        if TOOL_CALL_PARSE_MARKER in detail.lower():
            return ToolCallFormatError(BAD_TOOL_CALL, detail=detail, retryable=True)
        status = exc.status_code
        error = ModelHTTPError(_http_message(status, self.name), status=status, detail=detail)
        if exc.status_code == 429:
            error.retryable = True
        return error
