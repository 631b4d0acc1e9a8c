"""The one interface between Helena's agent and any language model.

Messages are OpenAI-style dicts, the lingua franca both providers translate from:
  {"role": "system" | "user" | "assistant" | "tool", "content": str,
   "tool_calls": [ToolCall.as_message()...]  (assistant only),
   "tool_call_id": str, "name": str  (tool only)}
Tools are offered as OpenAI function schemas: {"type": "function", "function": {"name",
"description", "parameters": <JSON schema>}}.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable


@dataclass
class ToolCall:
    """A call the model asked for. arguments is a dict, or the raw string if it did not parse."""

    id: str
    name: str
    arguments: dict[str, Any] | str

    def as_message(self) -> dict[str, Any]:
        args = self.arguments
        if not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False)
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": args}}


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


FinishReason = Literal["stop", "tool_calls", "length", "error"]


@dataclass
class Chunk:
    """One piece of a streamed turn.

    text: answer text, free of any markup; reasoning: the model's private reasoning (never answer
    text); tool_call: a complete call; malformed: a call the model wrote but that could not be read
    or was cut off (text: why, in German; detail: the raw output, for the log only); end: the end.
    """

    kind: Literal["text", "reasoning", "tool_call", "malformed", "end"]
    text: str = ""
    detail: str = ""
    tool_call: ToolCall | None = None
    usage: Usage | None = None  # with kind == "end"
    finish_reason: FinishReason | None = None  # with kind == "end"


@dataclass
class Turn:
    """A whole turn, collected from the chunks (what the loop works with after streaming)."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason | None = None
    reasoning: str = ""
    malformed: list[str] = field(default_factory=list)  # German reasons, one per unreadable call


class LLMError(Exception):
    """Base of all model errors; message in German for the user, details for the log."""

    code = "model_error"

    def __init__(self, message: str, *, detail: str = "", retryable: bool = False) -> None:
        super().__init__(message)
        self.detail = detail
        self.retryable = retryable


class ModelUnavailable(LLMError):
    """Connection refused, DNS, timeout: the model server is not reachable.

    Its message is for the lawyer in the chat (what happened, whom to ask); the server's address
    and the cause go to `detail`, which the admin sees in the Fehlerprotokoll."""

    code = "model_unavailable"


UNREACHABLE = ("Das Sprachmodell ist gerade nicht erreichbar. Bitte versuche es gleich noch einmal; "
               "hält es an, wende dich an die Administration der Kanzlei.")


class ModelHTTPError(LLMError):
    """The server answered with 4xx/5xx."""

    code = "model_error"

    def __init__(self, message: str, *, status: int, detail: str = "") -> None:
        super().__init__(message, detail=detail, retryable=status >= 500)
        self.status = status


class ToolCallFormatError(LLMError):
    """The server could not parse the model's tool call (Ollama: "error parsing tool call")."""

    code = "tool_call_format"


@runtime_checkable
class ChatModel(Protocol):
    name: str
    provider: Literal["ollama", "openai", "scripted"]

    async def context_window(self) -> int:
        """Tokens the model accepts (cached after the first lookup)."""
        ...

    def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        tool_names: Collection[str] | None = None,
    ) -> AsyncIterator[Chunk]:
        """Stream one turn. Raises LLMError subclasses; ends with exactly one Chunk(kind="end").

        `tool_names`: the names whose calls count when the model writes them as text (default: the
        offered tools); a turn without tools still recognises them, so they are never shown raw.
        """
        ...


async def collect(stream: AsyncIterator[Chunk]) -> Turn:
    """Gather a streamed turn (for callers that do not need the deltas)."""
    turn = Turn()
    async for chunk in stream:
        if chunk.kind == "text":
            turn.text += chunk.text
        elif chunk.kind == "reasoning":
            turn.reasoning += chunk.text
        elif chunk.kind == "tool_call" and chunk.tool_call is not None:
            turn.tool_calls.append(chunk.tool_call)
        elif chunk.kind == "malformed":
            turn.malformed.append(chunk.text)
        elif chunk.kind == "end":
            turn.usage = chunk.usage or Usage()
            turn.finish_reason = chunk.finish_reason
    return turn
