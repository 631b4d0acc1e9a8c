"""On a runner loop (daphne's inline runner, a worker's runner) a run writes its model, its ledger
row and its end through the loop's own connection (helena/infra/loop_db.py), not on a database
thread, and the records are the same as through the ORM: committed, as in production."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest

from helena.conversations import services
from helena.infra import db as infra_db
from helena.infra import loop_db, settings_cache
from helena.infra.loops import make_resident
from helena.models import AgentRun, Conversation, LLMCall, Message, ModelTier
from helena.runs.execute import execute_run
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db(transaction=True)
ANSWER = "Die Berufungsfrist beträgt einen Monat ab Zustellung (§ 517 ZPO)."


def on_a_runner_loop(work: Any) -> None:
    async def go() -> None:
        make_resident(asyncio.get_running_loop())
        try:
            await work()
        finally:
            for connection in (loop_db.events_connection(), loop_db.statements_connection()):
                if connection._conn is not None:
                    await connection._conn.close()

    asyncio.run(go())


def test_a_run_writes_model_ledger_and_end_on_its_loops_connection(kanzlei: Kanzlei, tiers,
                                                                    monkeypatch) -> None:
    tiers.script([{"text": ANSWER}])
    # Priced: the end must see the ledger row it sums (the tokens alone would fall back to the result's)
    ModelTier.objects.update(price_input_per_1k=Decimal("0.50"), price_output_per_1k=Decimal("1.50"))
    settings_cache.clear()
    monkeypatch.setattr(services, "dispatch", lambda run: None)
    user = kanzlei.users["anwalt"]
    conversation = Conversation.objects.create(user=user)
    run = services.start_run(user=user, conversation=conversation, text="Wie lang ist die Berufungsfrist?",
                             mode="inline")
    hops: list[str] = []  # what went to a database thread
    real_call = infra_db._call

    def call(fn: Any, args: Any, kwargs: Any) -> Any:
        hops.append(getattr(fn, "__name__", repr(fn)))
        return real_call(fn, args, kwargs)

    monkeypatch.setattr(infra_db, "_call", call)
    statements: list[str] = []
    real_fetch = loop_db.LoopConnection.fetch

    async def fetch(self: loop_db.LoopConnection, sql: str, params: Any, **options: Any) -> Any:
        if self is loop_db.statements_connection():
            statements.append(" ".join(sql.split()[:3]))
        return await real_fetch(self, sql, params, **options)

    monkeypatch.setattr(loop_db.LoopConnection, "fetch", fetch)
    on_a_runner_loop(lambda: execute_run(run.pk))

    run.refresh_from_db()
    assert run.status == AgentRun.Status.FINISHED and run.text == ANSWER
    assert run.provider == "ollama" and run.model in {"klein", "gross"}
    call_row = LLMCall.objects.get(run=run)
    assert (call_row.model, call_row.tier, call_row.user_id, call_row.error) == (
        run.model, run.tier, user.pk, "")
    assert (run.prompt_tokens, run.completion_tokens) == (call_row.prompt_tokens, call_row.completion_tokens)
    assert run.cost == call_row.cost > 0
    assert list(Message.objects.filter(run=run).values_list("role", "text")) == [
        (Message.Role.ASSISTANT, ANSWER)]
    assert not {"_write", "record_outcome", "fetch_sync"} & set(hops), hops
    assert any(s.startswith("UPDATE helena_agentrun SET") for s in statements), statements  # the model
    assert any(s.startswith('INSERT INTO "helena_llmcall"') for s in statements), statements
    assert any(s.startswith("WITH run AS") for s in statements), statements  # the end with the answer


def _terminate(pids: list[int]) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [pids])


def test_a_connection_ended_while_idle_is_replaced_before_anything_is_sent(kanzlei: Kanzlei) -> None:
    """The server ends the loop's idle connection (restart, terminated): the next statement goes out
    once, on a new connection; one that breaks on its way is not sent again but raised, as the
    database's outage (a ledger row or a run's end must not be written twice)."""
    from config.db_unavailable import ist_ausfall
    from config.postgres.base import quiet

    outcome: dict[str, Any] = {}

    async def work() -> None:
        connection = loop_db.statements_connection()
        first = (await loop_db.fetch("SELECT pg_backend_pid()", []))[0][0]
        await infra_db.db(_terminate, [first])
        async with asyncio.timeout(5):
            while quiet(connection._conn):  # the FATAL has not arrived yet
                await asyncio.sleep(0.01)
        outcome["second"] = (await loop_db.fetch("SELECT pg_backend_pid()", []))[0][0]
        outcome["first"] = first
        try:
            await loop_db.fetch("SELECT pg_terminate_backend(pg_backend_pid())", [])
        except Exception as exc:  # the test looks at it
            outcome["error"] = exc

    on_a_runner_loop(work)
    assert outcome["second"] != outcome["first"]
    assert ist_ausfall(outcome.get("error"))
