"""ChatModel for a local Ollama server (tiers 1 and 2), via the official `ollama` client."""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any, Literal

import httpx
import ollama
import pydantic

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

logger = logging.getLogger(__name__)

FALLBACK_CONTEXT_WINDOW = 8192
# After a failed /api/show, do not ask again for this long (each stream() would otherwise pay
# a second timeout against a server that is down).
_CONTEXT_RETRY_SECONDS = 60.0
# The trained context length per (host, model), shared by the router's instances (a run builds its
# own): without it every run began with an /api/show round trip. Re-read after this long, in case
# the model behind the name was replaced.
_CONTEXT_TTL_SECONDS = 300.0
_context_lengths: dict[tuple[str, str], tuple[float, int]] = {}
_context_lock = threading.Lock()


def forget_context_lengths() -> None:
    """Drop the shared context lengths (with the router's health results)."""
    with _context_lock:
        _context_lengths.clear()
TOOL_CALL_PARSE_MARKER = "error parsing tool call"
UNREADABLE = "Das lokale Modell hat eine unlesbare Antwort geliefert."


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
_tools_cache: dict[tuple[int, ...], tuple[list[dict[str, Any]], list[ollama.Tool]]] = {}
_tools_lock = threading.Lock()


def ollama_tools(tools: list[dict[str, Any]] | None) -> list[ollama.Tool] | None:
    """to_ollama_tools as the client's validated Tool models, remembered per set of schemas.

    The client validates every tool dict into a pydantic model on every call, and folding the
    schemas costs a json.dumps per tool: about a tenth of a run's CPU (bench/agent_overhead.py).
    The schemas a run offers are the registry's cached dicts, so the same objects come again; the
    cache keeps them alive and compares them by identity, so a new dict never gets a stale answer.
    """
    if not tools:
        return None
    key = tuple(id(tool) for tool in tools)
    with _tools_lock:
        hit = _tools_cache.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], tools, strict=True)):
        return hit[1]
    converted = [ollama.Tool.model_validate(tool) for tool in to_ollama_tools(tools) or []]
    with _tools_lock:
        if len(_tools_cache) >= _TOOLS_CACHE_SIZE:
            _tools_cache.pop(next(iter(_tools_cache)))
        _tools_cache[key] = (list(tools), converted)
    return converted


def _http_message(status: int, model: str) -> str:
    if status == 404:
        return f"Das Modell „{model}“ ist auf dem lokalen Ollama-Server nicht vorhanden."
    if status >= 500:
        return f"Das lokale Modell hat einen Serverfehler gemeldet (HTTP {status})."
    return f"Das lokale Modell hat die Anfrage abgelehnt (HTTP {status})."


class OllamaModel:
    """A model served by Ollama; its calls on one event loop share a client (helena/llm/http.py)."""

    provider: Literal["ollama"] = "ollama"

    def __init__(self, name: str, *, host: str, timeout: float = 60, num_ctx: int | None = None,
                 share_context_length: bool = False) -> None:
        self.name = name
        self.host = host
        self.timeout = timeout
        self.num_ctx = num_ctx
        self.share_context_length = share_context_length  # the router's models: see _context_lengths
        self._context_window: int | None = None
        self._context_failed_at: float | None = None
        self._http: LoopClient[ollama.AsyncClient] = LoopClient(self._make_client)

    def __repr__(self) -> str:
        return f"OllamaModel({self.name!r}, host={self.host!r})"

    def _client(self) -> ollama.AsyncClient:
        return self._http.get()

    def _make_client(self) -> ollama.AsyncClient:
        # One SSL context for all clients: building a default one costs ~18 ms per client, which
        # was most of the loop's overhead per model call (bench/agent_overhead.py).
        return ollama.AsyncClient(host=self.host, timeout=self.timeout, verify=ssl_context())

    async def aclose(self) -> None:
        """Close the kept-alive connection (the run that built this model calls it at its end)."""
        await self._http.aclose()

    def _fallback_window(self) -> int:
        return self.num_ctx or FALLBACK_CONTEXT_WINDOW

    async def context_window(self) -> int:
        """The model's trained context length from /api/show, capped by num_ctx; cached per instance."""
        if self._context_window is not None:
            return self._context_window
        if (
            self._context_failed_at is not None
            and time.monotonic() - self._context_failed_at < _CONTEXT_RETRY_SECONDS
        ):
            return self._fallback_window()
        key = (self.host, self.name)
        with _context_lock:
            known = _context_lengths.get(key) if self.share_context_length else None
        if known is not None and time.monotonic() - known[0] < _CONTEXT_TTL_SECONDS:
            length = known[1]
        else:
            try:
                info = (await self._client().show(self.name)).modelinfo or {}
            except Exception as exc:  # any failure: the chat call will report the real problem
                logger.warning("Ollama /api/show for %s failed: %s", self.name, exc)
                self._context_failed_at = time.monotonic()
                return self._fallback_window()
            lengths = [v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)]
            length = lengths[0] if lengths else None
            if length is None:  # not shared: the next run asks again
                logger.warning("Ollama /api/show for %s names no context_length", self.name)
            elif self.share_context_length:
                with _context_lock:
                    _context_lengths[key] = (time.monotonic(), length)
        if length is None:
            window = self._fallback_window()
        else:
            window = min(self.num_ctx, length) if self.num_ctx else length
        self._context_window = window
        return window

    async def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[Chunk]:
        """Stream one turn; tool calls get our own ids because Ollama sends none."""
        options: dict[str, Any] = {"num_ctx": await self.context_window()}
        if temperature is not None:
            options["temperature"] = temperature
        client = self._client()
        saw_tool_call = False
        done_reason: str | None = None
        usage: Usage | None = None
        try:
            parts = await client.chat(
                model=self.name,
                messages=to_ollama_messages(messages),
                tools=ollama_tools(tools),
                stream=True,
                options=options,
            )
            async with aclosing(parts):
                async for part in parts:
                    message = part.message
                    if message.content:
                        yield Chunk(kind="text", text=message.content)
                    for call in message.tool_calls or []:
                        saw_tool_call = True
                        arguments = call.function.arguments
                        yield Chunk(
                            kind="tool_call",
                            tool_call=ToolCall(
                                id="call_" + uuid.uuid4().hex[:12],
                                name=call.function.name,
                                arguments=arguments if isinstance(arguments, str) else dict(arguments),
                            ),
                        )
                    if part.done:
                        done_reason = part.done_reason
                        usage = Usage(
                            prompt_tokens=part.prompt_eval_count or 0,
                            completion_tokens=part.eval_count or 0,
                        )
        except ollama.ResponseError as exc:
            raise self._map_response_error(exc) from exc
        except (httpx.TransportError, ConnectionError) as exc:
            raise ModelUnavailable(
                f"Das lokale Modell ist nicht erreichbar ({self.host}).",
                detail=f"{type(exc).__name__}: {exc}",
                retryable=True,
            ) from exc
        except pydantic.ValidationError as exc:
            # ollama-python validates every line; a tool call whose arguments are not an object
            # fails here before we could keep the raw string.
            if "tool_calls" in str(exc):
                raise ToolCallFormatError(
                    "Das lokale Modell hat einen fehlerhaften Tool-Aufruf erzeugt.",
                    detail=str(exc),
                    retryable=True,
                ) from exc
            raise LLMError(UNREADABLE, detail=str(exc)) from exc
        except json.JSONDecodeError as exc:
            raise LLMError(UNREADABLE, detail=str(exc)) from exc
        if usage is None:
            raise LLMError(
                "Die Antwort des lokalen Modells brach unerwartet ab.",
                detail="stream ended without done=true",
                retryable=True,
            )
        finish: FinishReason = "stop"
        if saw_tool_call:
            finish = "tool_calls"
        elif done_reason == "length":
            finish = "length"
        yield Chunk(kind="end", usage=usage, finish_reason=finish)

    def _map_response_error(self, exc: ollama.ResponseError) -> LLMError:
        detail = str(exc.error)
        if TOOL_CALL_PARSE_MARKER in detail.lower():
            return ToolCallFormatError(
                "Das lokale Modell hat einen fehlerhaften Tool-Aufruf erzeugt.", detail=detail, retryable=True
            )
        if exc.status_code > 0:
            error = ModelHTTPError(_http_message(exc.status_code, self.name), status=exc.status_code,
                                   detail=detail)
            if exc.status_code == 429:
                error.retryable = True
            return error
        # An {"error": ...} line in the middle of the stream carries no status code.
        return LLMError("Das lokale Modell hat die Antwort mit einem Fehler abgebrochen.", detail=detail,
                        retryable=True)
