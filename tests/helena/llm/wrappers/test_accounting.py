"""The usage ledger: one LLMCall row per model call, exact costs, and the monthly report."""

from __future__ import annotations

import asyncio
from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import async_to_sync

from akten.models import Role, User
from helena.llm.base import ChatModel, Chunk, ModelUnavailable, collect
from helena.llm.providers.scripted import ScriptedModel, ScriptedTurn
from helena.llm.wrappers.accounting import RecordingModel, cost_for, usage_per_user_month
from helena.models import AgentRun, Conversation, LLMCall

pytestmark = pytest.mark.django_db

UTC = ZoneInfo("UTC")
MESSAGES = [{"role": "user", "content": "Wann verjährt der Anspruch?"}]


@pytest.fixture
def user() -> User:
    return User.objects.create_user(username="anwalt", password="pw", role=Role.ANWALT)


@pytest.fixture
def run(user: User) -> AgentRun:
    conversation = Conversation.objects.create(user=user, context_type=Conversation.ContextType.AKTE)
    return AgentRun.objects.create(conversation=conversation, user=user, mode=AgentRun.Mode.INLINE)


def _drain(model: ChatModel) -> list[Chunk]:
    async def go() -> list[Chunk]:
        return [chunk async for chunk in model.stream(messages=MESSAGES)]

    return async_to_sync(go)()


def test_cost_is_exact_decimal_rounded_half_up_to_six_places() -> None:
    assert cost_for(prompt_tokens=1234, completion_tokens=567, price_in=Decimal("0.0025"),
                    price_out=Decimal("0.01")) == Decimal("0.008755")
    assert cost_for(prompt_tokens=1, completion_tokens=0, price_in=Decimal("0.0005"),
                    price_out=Decimal("0")) == Decimal("0.000001")  # 0.0000005 rounds up
    assert cost_for(prompt_tokens=1, completion_tokens=0, price_in=Decimal("0.0004"),
                    price_out=Decimal("0")) == Decimal("0.000000")
    assert cost_for(prompt_tokens=0, completion_tokens=0, price_in=0, price_out=0) == Decimal("0")


def test_recording_model_passes_the_stream_through_and_books_one_call(user: User, run: AgentRun) -> None:
    script = [ScriptedTurn(text="Nach drei Jahren, § 195 BGB.", usage=(1234, 567))]
    plain = _drain(ScriptedModel(list(script)))
    inner = ScriptedModel(list(script), name="gpt-test", delay=0.05)
    model = RecordingModel(inner, run_id=run.id, user_id=user.pk, tier=3, operation="agent_step",
                           context_type="akte", price_in=Decimal("0.0025"), price_out=Decimal("0.01"))
    assert isinstance(model, ChatModel)
    assert (model.name, model.provider) == ("gpt-test", "scripted")
    assert async_to_sync(model.context_window)() == 8192

    chunks = _drain(model)

    assert chunks == plain
    assert len(model.calls) == 1  # other attributes are the inner model's
    call = LLMCall.objects.get()
    assert (call.run_id, call.user_id) == (run.id, user.pk)
    assert (call.provider, call.model, call.tier) == ("scripted", "gpt-test", 3)
    assert (call.operation, call.context_type) == ("agent_step", "akte")
    assert (call.prompt_tokens, call.completion_tokens) == (1234, 567)
    assert call.latency_ms >= 50
    assert call.cost == Decimal("0.008755")
    assert call.error == ""


def test_each_stream_call_is_one_row(user: User) -> None:
    model = RecordingModel(ScriptedModel(["eins", "zwei"]), user_id=user.pk, tier=1, operation="classify")

    async def go() -> None:
        await collect(model.stream(messages=MESSAGES))
        await collect(model.stream(messages=MESSAGES))

    async_to_sync(go)()
    assert LLMCall.objects.filter(user=user, operation="classify", run__isnull=True).count() == 2
    assert LLMCall.objects.filter(cost=0).count() == 2  # local models cost nothing


def test_model_error_is_booked_with_its_text_and_reraised(user: User, run: AgentRun) -> None:
    error = ModelUnavailable("Der Modellserver ist nicht erreichbar.", detail="connection refused")
    model = RecordingModel(ScriptedModel([ScriptedTurn(text="Ich beginne", error=error)]),
                           run_id=run.id, user_id=user.pk, tier=2, price_in=Decimal("1"))

    with pytest.raises(ModelUnavailable):
        _drain(model)

    call = LLMCall.objects.get()
    assert call.error.startswith("model_unavailable: Der Modellserver ist nicht erreichbar.")
    assert "connection refused" in call.error
    assert (call.prompt_tokens, call.completion_tokens, call.cost) == (0, 0, Decimal("0"))
    assert call.run_id == run.id


def test_abandoned_and_timed_out_streams_are_booked_too(user: User) -> None:
    slow = ScriptedTurn(text="Eine lange Antwort in mehreren Teilen", chunk_delay=0.2, usage=(10, 10))
    model = RecordingModel(ScriptedModel([slow, slow, slow]), user_id=user.pk, tier=1)

    async def go() -> None:
        stream = model.stream(messages=MESSAGES)
        async for _chunk in stream:
            break
        await stream.aclose()  # explicit close

        async def consume_until_error() -> None:  # like the loop's cancel check: raise mid-stream
            async for _chunk in model.stream(messages=MESSAGES):
                raise RuntimeError("abgebrochen vom Benutzer")

        with pytest.raises(RuntimeError):
            await consume_until_error()
        await asyncio.sleep(0.05)  # the abandoned generator is closed by the event loop

        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.1):
                await collect(model.stream(messages=MESSAGES))

    async_to_sync(go)()
    errors = sorted(LLMCall.objects.values_list("error", flat=True))
    assert len(errors) == 3
    assert errors.count("abgebrochen: Antwort nicht zu Ende gelesen") == 2
    assert "abgebrochen: Zeitüberschreitung oder Abbruch" in errors


def test_usage_per_user_month_aggregates_by_berlin_month(user: User) -> None:
    other = User.objects.create_user(username="sekretariat", password="pw", role=Role.SEKRETARIAT)

    def call(who: User | None, when: datetime, tokens: tuple[int, int], cost: str) -> None:
        row = LLMCall.objects.create(user=who, provider="openai", model="gpt-test", tier=3,
                                     prompt_tokens=tokens[0], completion_tokens=tokens[1], cost=Decimal(cost))
        LLMCall.objects.filter(pk=row.pk).update(created_at=when)

    call(user, datetime(2026, 1, 10, 9, 0, tzinfo=UTC), (1000, 200), "0.004500")
    call(user, datetime(2026, 1, 20, 9, 0, tzinfo=UTC), (500, 100), "0.002250")
    # 23:30 UTC on 31 January is already February in Berlin.
    call(user, datetime(2026, 1, 31, 23, 30, tzinfo=UTC), (100, 10), "0.000350")
    call(other, datetime(2026, 1, 15, 9, 0, tzinfo=UTC), (10, 1), "0.000035")
    call(None, datetime(2026, 1, 16, 9, 0, tzinfo=UTC), (7, 3), "0.000001")

    rows = usage_per_user_month()

    table = {(r.username, r.month): (r.calls, r.prompt_tokens, r.completion_tokens, r.cost) for r in rows}
    assert table == {
        ("anwalt", date(2026, 2, 1)): (1, 100, 10, Decimal("0.000350")),
        ("anwalt", date(2026, 1, 1)): (2, 1500, 300, Decimal("0.006750")),
        ("sekretariat", date(2026, 1, 1)): (1, 10, 1, Decimal("0.000035")),
        ("", date(2026, 1, 1)): (1, 7, 3, Decimal("0.000001")),
    }
    assert rows[0].month == date(2026, 2, 1)  # newest month first
    assert rows[0].tokens == 110

    only_user = usage_per_user_month(user_id=user.pk, since=datetime(2026, 1, 15, tzinfo=UTC))
    assert [(r.month, r.calls) for r in only_user] == [(date(2026, 2, 1), 1), (date(2026, 1, 1), 1)]
    assert usage_per_user_month(until=datetime(2026, 1, 1, tzinfo=UTC)) == []
