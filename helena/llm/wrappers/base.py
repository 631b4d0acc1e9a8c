"""The base of every decorator around a ChatModel (usage accounting, redaction, escalation).

A wrapper delegates all of the model to `inner` and overrides what it changes, like Pydantic AI's
`WrapperModel`; what callers may ask of any model in a chain (book its calls under another
operation, find one layer, close it) is answered here once instead of by `isinstance` walks.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Collection
from typing import Any, TypeVar

from helena.llm.base import ChatModel, Chunk
from helena.llm.providers.http import aclose_model

T = TypeVar("T")


class WrapperModel:
    """Passes everything through to `inner`; subclasses override `stream` and what else they change."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"

    def __getattr__(self, name: str) -> Any:
        # Anything not wrapped (e.g. ScriptedModel.calls in tests) is the inner model's.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def provider(self) -> Any:
        return self.inner.provider

    async def context_window(self) -> int:
        return await self.inner.context_window()

    def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        tool_names: Collection[str] | None = None,
    ) -> AsyncIterator[Chunk]:
        return self.inner.stream(messages=messages, tools=tools, temperature=temperature,
                                 tool_names=tool_names)

    async def aclose(self) -> None:
        """Close the inner model's HTTP client (the run closes the models it used through this)."""
        await aclose_model(self.inner)

    def booked_as(self, operation: str) -> WrapperModel:
        """The same chain, its calls booked under `operation` (plan, plan_check, …)."""
        clone = copy.copy(self)
        clone.inner = booked_as(self.inner, operation)
        return clone


def booked_as(model: Any, operation: str) -> Any:
    """`model` with its calls booked under `operation`; a model without accounting as it is."""
    method = getattr(type(model), "booked_as", None)
    return method(model, operation) if method is not None else model


def layer(model: Any, kind: type[T]) -> T | None:
    """The first layer of the chain that is a `kind` (e.g. the RecordingModel), else None."""
    node = model
    while node is not None:
        if isinstance(node, kind):
            return node
        node = node.__dict__.get("inner") if hasattr(node, "__dict__") else None
    return None
