"""The usage ledger: every model call leaves one LLMCall row with tokens, latency and cost.

RecordingModel wraps any ChatModel, so the agent loop and the providers stay unaware of accounting.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.db.models import Count, Sum
from django.db.models.functions import TruncMonth

from helena.infra import loop_db
from helena.infra.db import db
from helena.infra.errorlog import record_error
from helena.infra.rows import Insert
from helena.llm.base import ChatModel, Chunk, LLMError, Usage
from helena.llm.wrappers.base import WrapperModel
from helena.models import LLMCall

log = logging.getLogger(__name__)
_LEDGER = Insert(LLMCall)  # a row per model call: the INSERT built once

ZERO = Decimal("0")
COST_QUANTUM = Decimal("0.000001")  # LLMCall.cost has 6 decimal places
BERLIN = ZoneInfo("Europe/Berlin")
ERROR_MAX = LLMCall._meta.get_field("error").max_length or 300
ABANDONED = "abgebrochen: Antwort nicht zu Ende gelesen"
CANCELLED = "abgebrochen: Zeitüberschreitung oder Abbruch"


def cost_for(*, prompt_tokens: int, completion_tokens: int, price_in: Decimal | int | str,
             price_out: Decimal | int | str) -> Decimal:
    """Prices are per 1,000 tokens; exact Decimal arithmetic, rounded once, half up, to 6 places."""
    total = (Decimal(prompt_tokens) * Decimal(str(price_in))
             + Decimal(completion_tokens) * Decimal(str(price_out)))
    return (total / 1000).quantize(COST_QUANTUM, rounding=ROUND_HALF_UP)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, asyncio.CancelledError):
        return CANCELLED
    if isinstance(exc, LLMError):
        text = f"{exc.code}: {exc}"
        if exc.detail:
            text += f" ({exc.detail})"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return text[:ERROR_MAX]


class RecordingModel(WrapperModel):
    """A ChatModel that passes everything through and books each stream() call in the ledger.

    The row is written when the end chunk arrives (before it is passed on, so a consumer that stops
    right after it still gets booked), when the inner stream fails (then the error is re-raised), or
    when the consumer abandons the stream half-way (tokens unknown, so booked with 0).

    With `defer_booking`, the row for a completed call is written by a task started when the end
    chunk arrives, so the caller does not wait for the database between model turns; it must then
    `await settle()` before it relies on the rows (a run does before it sums up its usage).
    """

    def __init__(
        self,
        inner: ChatModel,
        *,
        run_id: Any = None,
        user_id: int | None = None,
        tier: int,
        operation: str = "agent_step",
        context_type: str = "",
        price_in: Decimal = ZERO,
        price_out: Decimal = ZERO,
        defer_booking: bool = False,
    ) -> None:
        super().__init__(inner)
        self.defer_booking = defer_booking
        self._bookings: set[asyncio.Task[None]] = set()
        self.run_id = run_id
        self.user_id = user_id
        self.tier = tier
        self.operation = operation
        self.context_type = context_type
        self.price_in = Decimal(str(price_in))
        self.price_out = Decimal(str(price_out))

    def __repr__(self) -> str:
        return f"RecordingModel({self.inner!r}, tier={self.tier}, operation={self.operation!r})"

    def booked_as(self, operation: str) -> RecordingModel:
        """A twin booking its calls under `operation`; its bookings are settled with this one's."""
        clone = copy.copy(self)
        clone.operation = operation
        return clone

    async def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        tool_names: Collection[str] | None = None,
    ) -> AsyncIterator[Chunk]:
        """The inner stream, unchanged; exactly one LLMCall row per call."""
        started = time.monotonic()
        booked = False
        chunks = self.inner.stream(messages=messages, tools=tools, temperature=temperature,
                                   tool_names=tool_names)
        try:
            async for chunk in chunks:
                if chunk.kind == "end" and not booked:
                    booked = True
                    error = "Modell meldete finish_reason=error" if chunk.finish_reason == "error" else ""
                    booking = self._book(started=started, usage=chunk.usage, error=error,
                                         ended=time.monotonic())
                    if self.defer_booking:
                        task = asyncio.ensure_future(booking)
                        self._bookings.add(task)
                        task.add_done_callback(self._bookings.discard)
                    else:
                        await booking
                yield chunk
        except GeneratorExit:
            if not booked:
                booked = True
                await self._book(started=started, usage=None, error=ABANDONED)
            raise
        except BaseException as exc:  # LLMError, bugs, and cancellation (timeouts) alike
            if not booked:
                booked = True
                await self._book(started=started, usage=None, error=_error_text(exc),
                                 failure=None if isinstance(exc, asyncio.CancelledError)
                                 else str(getattr(exc, "code", "") or type(exc).__name__))
            raise
        finally:
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()

    async def settle(self) -> None:
        """Wait for the deferred rows of this model's calls (see `defer_booking`)."""
        while self._bookings:
            await asyncio.gather(*self._bookings)

    async def _book(self, *, started: float, usage: Usage | None, error: str,
                    ended: float | None = None, failure: str | None = None) -> None:
        """A failed write is logged, not raised: the user's answer matters more than the ledger row."""
        latency_ms = int(((ended or time.monotonic()) - started) * 1000)
        usage = usage or Usage()
        try:
            if failure is None and _LEDGER.plain:  # one INSERT: on the run's loop connection, no thread hop
                _, sql, params = _LEDGER.statement(**self._row(
                    prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                    latency_ms=latency_ms, error=error))
                await loop_db.fetch(sql, params)
                return
            await db(
                self._write,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                latency_ms=latency_ms,
                error=error,
                failure=failure,
            )
        except Exception:
            log.exception("LLMCall could not be written (model %s, run %s)", self.name, self.run_id)

    def _row(self, *, prompt_tokens: int, completion_tokens: int, latency_ms: int,
             error: str) -> dict[str, Any]:
        """The ledger row's values for one call of this model."""
        return {
            "run_id": self.run_id,
            "user_id": self.user_id,
            "provider": str(self.provider)[:20],
            "model": str(self.name)[:200],
            "tier": self.tier,
            "operation": self.operation[:30],
            "context_type": self.context_type[:20],
            "prompt_tokens": max(0, prompt_tokens),
            "completion_tokens": max(0, completion_tokens),
            "latency_ms": max(0, latency_ms),
            "cost": cost_for(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                             price_in=self.price_in, price_out=self.price_out),
            "error": error[:ERROR_MAX],
        }

    def _write(self, *, prompt_tokens: int, completion_tokens: int, latency_ms: int, error: str,
               failure: str | None = None) -> LLMCall:
        """The ledger row; a failed call (`failure`: its code) also goes to the error log, linked."""
        row = _LEDGER.create(**self._row(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                                         latency_ms=latency_ms, error=error))
        if failure:
            record_error(kind="model", code=failure, message=error, run_id=self.run_id, user_id=self.user_id,
                         context_type=self.context_type, model=self.name, llm_call_id=row.pk)
        return row


# --- reporting --------------------------------------------------------------------------------


@dataclass(frozen=True)
class UsageRow:
    user_id: int | None
    username: str
    month: date  # first day of the month (Europe/Berlin)
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: Decimal

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def usage_per_user_month(
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    user_id: int | None = None,
) -> list[UsageRow]:
    """Calls, tokens and cost per user and calendar month (Berlin time), newest month first.

    Calls of deleted users are kept in the ledger and reported under user_id None.
    """
    calls = LLMCall.objects.all()
    if since is not None:
        calls = calls.filter(created_at__gte=since)
    if until is not None:
        calls = calls.filter(created_at__lt=until)
    if user_id is not None:
        calls = calls.filter(user_id=user_id)
    grouped = (
        calls.annotate(month=TruncMonth("created_at", tzinfo=BERLIN))
        .values("user_id", "user__username", "month")
        .annotate(
            n=Count("id"),
            tokens_in=Sum("prompt_tokens"),
            tokens_out=Sum("completion_tokens"),
            total_cost=Sum("cost"),
        )
        .order_by("-month", "user__username", "user_id")
    )
    rows = []
    for row in grouped:
        month = row["month"]
        if isinstance(month, datetime):
            month = month.astimezone(BERLIN).date()
        rows.append(
            UsageRow(
                user_id=row["user_id"],
                username=row["user__username"] or "",
                month=month,
                calls=row["n"],
                prompt_tokens=row["tokens_in"] or 0,
                completion_tokens=row["tokens_out"] or 0,
                cost=Decimal(row["total_cost"] or ZERO).quantize(COST_QUANTUM),
            )
        )
    return rows
