"""ChatModel for a local Ollama server (tiers 1 and 2), via the official `ollama` client."""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Collection
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Any, Literal

import httpx
import ollama
import pydantic

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
from helena.llm.providers.ollama_request import chat_request, open_chat
from helena.llm.providers.stream import Raw, parsed_turn
from helena.llm.providers.transport import kept_transport

logger = logging.getLogger(__name__)

FALLBACK_CONTEXT_WINDOW = 8192
# After a failed /api/show, do not ask again for this long (each stream() would otherwise pay
# a second timeout against a server that is down).
_CONTEXT_RETRY_SECONDS = 60.0
# What /api/show says per (host, model): trained context length, capabilities, template. Shared by
# the router's instances (a run builds its own): without it every run began with an /api/show round
# trip. Re-read after this long, in case the model behind the name was replaced.
_CONTEXT_TTL_SECONDS = 300.0


@dataclass(frozen=True)
class ModelInfo:
    """/api/show, as far as Helena uses it. capabilities None: the server does not say (old Ollama)."""

    context_length: int | None = None
    capabilities: list[str] | None = None
    template: str = ""
    family: str = ""


_model_infos: dict[tuple[str, str], tuple[float, ModelInfo]] = {}
_context_lock = threading.Lock()


def forget_context_lengths() -> None:
    """Drop the shared /api/show results (with the router's health results)."""
    with _context_lock:
        _model_infos.clear()


def thinks(info: ModelInfo) -> bool:
    """Whether Helena asks the model to think (`think: true`): it has the capability."""
    return bool(info.capabilities and "thinking" in info.capabilities)


TOOL_CALL_PARSE_MARKER = "error parsing tool call"
UNREADABLE = "Das lokale Modell hat eine unlesbare Antwort geliefert."


def _http_message(status: int, model: str) -> str:
    if status == 404:
        return f"Das Modell „{model}“ ist auf dem lokalen Ollama-Server nicht vorhanden."
    if status >= 500:
        return f"Das lokale Modell hat einen Serverfehler gemeldet (HTTP {status})."
    return f"Das lokale Modell hat die Anfrage abgelehnt (HTTP {status})."


class OllamaModel:
    """A model served by Ollama; its calls on one event loop share a client (helena/llm/providers/http.py)."""

    provider: Literal["ollama"] = "ollama"

    def __init__(self, name: str, *, host: str, timeout: float = 60, num_ctx: int | None = None,
                 share_context_length: bool = False, dialect: str = profiles.AUTO) -> None:
        self.name = name
        self.host = host
        self.timeout = timeout
        self.num_ctx = num_ctx
        self.dialect = dialect  # ModelTier.dialect: "auto" or a profile key
        self.share_context_length = share_context_length  # the router's models: see _model_infos
        self._info: ModelInfo | None = None
        self._info_failed_at: float | None = None
        # Its client comes from, and goes back to, the pool of idle clients (http.py).
        self._http: LoopClient[ollama.AsyncClient] = LoopClient(self._make_client,
                                                                key=("ollama", host, timeout))

    def __repr__(self) -> str:
        return f"OllamaModel({self.name!r}, host={self.host!r})"

    def _client(self) -> ollama.AsyncClient:
        return self._http.get()

    def _make_client(self) -> ollama.AsyncClient:
        # One SSL context for all clients: building a default one costs ~18 ms per client, which
        # was most of the loop's overhead per model call (bench/agent_overhead.py). A plain-HTTP server
        # gets the lean transport of one kept connection (transport.py).
        return ollama.AsyncClient(host=self.host, timeout=self.timeout, verify=ssl_context(),
                                  transport=kept_transport(self.host))

    async def aclose(self) -> None:
        """Give the client back for the next run (the run that built this model calls it at its end)."""
        await self._http.aclose()

    def _fallback_window(self) -> int:
        return self.num_ctx or FALLBACK_CONTEXT_WINDOW

    async def model_info(self) -> ModelInfo:
        """/api/show, cached per instance (and shared for the router's models); empty if it failed."""
        if self._info is not None:
            return self._info
        failed_at = self._info_failed_at
        if failed_at is not None and time.monotonic() - failed_at < _CONTEXT_RETRY_SECONDS:
            return ModelInfo()
        key = (self.host, self.name)
        with _context_lock:
            known = _model_infos.get(key) if self.share_context_length else None
        if known is not None and time.monotonic() - known[0] < _CONTEXT_TTL_SECONDS:
            self._info = known[1]
            return known[1]
        try:
            shown = await self._client().show(self.name)
        except Exception as exc:  # any failure: the chat call will report the real problem
            logger.warning("Ollama /api/show for %s failed: %s", self.name, exc)
            self._info_failed_at = time.monotonic()
            return ModelInfo()
        modelinfo = shown.modelinfo or {}
        lengths = [v for k, v in modelinfo.items() if k.endswith(".context_length") and isinstance(v, int)]
        details = shown.details
        info = ModelInfo(
            context_length=lengths[0] if lengths else None,
            capabilities=list(shown.capabilities) if shown.capabilities is not None else None,
            template=shown.template or "",
            family=(details.family or "") if details is not None else "",
        )
        if info.context_length is None:  # not shared: the next run asks again
            logger.warning("Ollama /api/show for %s names no context_length", self.name)
        elif self.share_context_length:
            with _context_lock:
                _model_infos[key] = (time.monotonic(), info)
        self._info = info
        return info

    @property
    def show_failed(self) -> bool:
        """Whether the last /api/show failed (the server is down or does not know the model)."""
        return self._info_failed_at is not None

    async def context_window(self) -> int:
        """The model's trained context length from /api/show, capped by num_ctx; cached per instance."""
        length = (await self.model_info()).context_length
        if length is None:
            return self._fallback_window()
        return min(self.num_ctx, length) if self.num_ctx else length

    async def profile(self) -> profiles.Profile:
        """The dialect profile: the admin's choice, else detected from the name and /api/show (the
        template tells whether "<think>" is pre-filled). A model asked to think (`thinks`) gets its
        reasoning in a field of its own, Ollama's parser having taken it out of the content: the
        content then never starts as reasoning, whatever the template pre-fills."""
        info = await self.model_info()
        profile = profiles.detect(self.name, template=info.template, capabilities=info.capabilities,
                                  choice=self.dialect)
        if thinks(info):
            profile = replace(profile, reasoning_prefilled=False, prefill_known=True, prefill_source="server")
        return profile

    def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        tool_names: Collection[str] | None = None,
    ) -> AsyncIterator[Chunk]:
        """Stream one turn, parsed (helena/llm/dialects): clean text, reasoning, calls, the end."""
        return self._stream(messages=messages, tools=tools, temperature=temperature, tool_names=tool_names)

    async def _stream(self, *, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                      temperature: float | None, tool_names: Collection[str] | None) -> AsyncIterator[Chunk]:
        options: dict[str, Any] = {"num_ctx": await self.context_window()}
        if temperature is not None:
            options["temperature"] = temperature
        think = True if thinks(await self.model_info()) else None

        def raw(sent: list[dict[str, Any]], sent_tools: list[dict[str, Any]] | None) -> AsyncIterator[Raw]:
            return self._raw(sent, sent_tools, options, think)

        parts = parsed_turn(raw=raw, key=("ollama", self.host, self.name), profile=await self.profile(),
                            messages=messages, tools=tools, tool_names=tool_names)
        async with aclosing(parts):
            async for chunk in parts:
                yield chunk

    async def _raw(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                   options: dict[str, Any], think: bool | None) -> AsyncIterator[Raw]:
        """The server's parts as sent; tool calls get our own ids (ollama-python drops the server's)."""
        client = self._client()
        done_reason: str | None = None
        usage: Usage | None = None
        try:
            # ollama-python's chat() minus its validate-and-dump of the request and its send pipeline
            body = chat_request(model=self.name, messages=messages, tools=tools, options=options, think=think)
            parts = await open_chat(client, body)
            async with aclosing(parts):
                async for part in parts:
                    message = part.message
                    if message.thinking:
                        yield Raw(kind="reasoning", text=message.thinking)
                    if message.content:  # also in the final chunk: what Ollama's parser held back
                        yield Raw(kind="content", text=message.content)
                    for call in message.tool_calls or []:
                        arguments = call.function.arguments
                        yield Raw(kind="call", call=ToolCall(
                            id="call_" + uuid.uuid4().hex[:12],
                            name=call.function.name,
                            arguments=arguments if isinstance(arguments, str) else dict(arguments),
                        ))
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
                UNREACHABLE,
                detail=f"{self.host}: {type(exc).__name__}: {exc}",
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
        yield Raw(kind="end", usage=usage, finish="length" if done_reason == "length" else "stop")

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
