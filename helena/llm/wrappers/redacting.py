"""The model wrapper that applies a run's redaction (helena.llm.pii.privacy.Privacy) on the way to a
cloud (`RedactingModel`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from typing import Any

from helena.llm.base import ChatModel, Chunk, ToolCall
from helena.llm.pii.patterns import PARTIAL_MAX, PARTIAL_RE, PLACEHOLDER_HINT, normalise_text
from helena.llm.pii.redactor import Redactor
from helena.llm.wrappers.base import WrapperModel


class RedactingModel(WrapperModel):
    """A ChatModel wrapper for the cloud: the inner model sees placeholders, the loop real values."""

    def __init__(self, inner: ChatModel, redactor: Redactor, *, hint: bool = True,
                 learn: Callable[[], Awaitable[None]] | None = None) -> None:
        super().__init__(inner)
        self.redactor = redactor
        self.hint = hint
        self.learn = learn  # called before every call: the run's Privacy.refresh

    def _outgoing(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        redacted = self.redactor.redact_messages(
            [{**m, "content": normalise_text(m["content"])} if isinstance(m.get("content"), str) else m
             for m in messages]
        )
        if not self.hint:
            return redacted
        if redacted and redacted[0].get("role") == "system" and isinstance(redacted[0].get("content"), str):
            redacted[0] = {**redacted[0], "content": f"{redacted[0]['content']}\n\n{PLACEHOLDER_HINT}"}
        else:
            redacted.insert(0, {"role": "system", "content": PLACEHOLDER_HINT})
        return redacted

    def _restore_call(self, call: ToolCall) -> ToolCall:
        return ToolCall(id=call.id, name=call.name, arguments=self.redactor.restore_value(call.arguments))

    async def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        tool_names: Collection[str] | None = None,
    ) -> AsyncIterator[Chunk]:
        """Redact what goes out; restore text and reasoning (holding back a split "[MAND…") and calls."""
        pending = {"text": "", "reasoning": ""}

        def flush(kind: str) -> Chunk | None:
            held, pending[kind] = pending[kind], ""
            return Chunk(kind=kind, text=self.redactor.restore(held)) if held else None  # type: ignore[arg-type]

        if self.learn is not None:
            await self.learn()
        try:
            async for chunk in self.inner.stream(messages=self._outgoing(messages), tools=tools,
                                                 temperature=temperature, tool_names=tool_names):
                if chunk.kind in pending:
                    other = flush("reasoning" if chunk.kind == "text" else "text")
                    if other is not None:
                        yield other
                    pending[chunk.kind] += chunk.text
                    ready, pending[chunk.kind] = _split_partial(pending[chunk.kind])
                    if ready:
                        yield Chunk(kind=chunk.kind, text=self.redactor.restore(ready))
                    continue
                for kind in pending:
                    held = flush(kind)
                    if held is not None:
                        yield held
                if chunk.kind == "tool_call" and chunk.tool_call is not None:
                    yield Chunk(kind="tool_call", tool_call=self._restore_call(chunk.tool_call))
                else:
                    yield chunk
        except Exception:
            for kind in pending:
                held = flush(kind)
                if held is not None:
                    yield held
            raise


def _split_partial(text: str) -> tuple[str, str]:
    """(text safe to show now, a trailing "[…" that may still become a placeholder)."""
    start = text.rfind("[")
    if start == -1 or len(text) - start > PARTIAL_MAX or not PARTIAL_RE.match(text, start):
        return text, ""
    return text[:start], text[start:]
