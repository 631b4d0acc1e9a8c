"""The events of a persisted run: stored before they are broadcast, in order, without gaps, and a
failed write never lets a later event out."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from django.conf import settings

from akten.models import Role, User
from helena.infra.db import db
from helena.models import AgentRun, Conversation, RunEvent
from helena.runs.events import writer
from helena.runs.events.emitter import PersistentEmitter

pytestmark = pytest.mark.django_db(transaction=True)


def _run() -> AgentRun:
    user = User.objects.create_user(username="anwalt", password="pw", role=Role.ANWALT)
    conversation = Conversation.objects.create(user=user)
    return AgentRun.objects.create(conversation=conversation, user=user, mode=AgentRun.Mode.INLINE)


def _run_of_second_user() -> AgentRun:
    user = User.objects.create_user(username="anwalt2", password="pw", role=Role.ANWALT)
    conversation = Conversation.objects.create(user=user)
    return AgentRun.objects.create(conversation=conversation, user=user, mode=AgentRun.Mode.INLINE)


def _api_view(run: AgentRun) -> list[dict[str, Any]]:
    """What GET /runs/{id}/events returns for the run."""
    return [
        {"type": e.type, "run_id": str(run.pk), "seq": e.seq,
         "ts": e.created_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"), **e.payload}
        for e in RunEvent.objects.filter(run=run).order_by("seq")
    ]


def _listen(monkeypatch: pytest.MonkeyPatch, run: AgentRun) -> list[tuple[dict[str, Any], bool]]:
    """Broadcasts as a client sees them, each with whether it was in the database at that moment."""
    sent: list[tuple[dict[str, Any], bool]] = []

    async def broadcast(batches: list[tuple[int, list[dict[str, Any]]]]) -> None:
        for conversation_id, events in batches:
            assert conversation_id == run.conversation_id
            for event in events:
                stored = await db(RunEvent.objects.filter(run_id=run.pk, seq=event["seq"]).exists)
                sent.append((event, stored))

    monkeypatch.setattr(writer, "broadcast", broadcast)
    return sent


def test_events_are_stored_before_they_are_broadcast_in_order_and_without_gaps(monkeypatch) -> None:
    run = _run()
    sent = _listen(monkeypatch, run)

    async def go() -> PersistentEmitter:
        emitter = PersistentEmitter(run=run)
        await emitter.emit("run_started", mode="inline", tier=1, model="m", provider="ollama", max_steps=5)
        await emitter.emit("agent_state", state="thinking")
        for delta in ("Die ", "Frist ", "endet."):  # arrive faster than they are written
            await emitter.emit("text", delta=delta)
        await asyncio.sleep(0.05)
        await emitter.emit("text", delta=" Gern.")
        await emitter.emit("done", finish_reason="stop", text="Die Frist endet. Gern.",
                           usage={"prompt_tokens": 1, "completion_tokens": 1}, cap_reached=False,
                           continue_offered=False)
        await emitter.flush()
        return emitter

    emitter = asyncio.run(go())

    stored = _api_view(run)
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
    assert [event for event, _ in sent] == stored  # the same events, in the same order
    assert all(was_stored for _, was_stored in sent)
    assert [e.as_dict() for e in emitter.events] == stored
    text = "".join(e["delta"] for e in stored if e["type"] == "text")
    assert text == "Die Frist endet. Gern."
    assert stored[-1]["type"] == "done"


def test_a_failed_write_stops_the_run_and_nothing_after_it_is_sent(monkeypatch) -> None:
    run = _run()
    sent = _listen(monkeypatch, run)
    real = writer.store_events
    calls = []

    async def failing(run_id: Any, events: list[Any], attempt: int = 0) -> list[str] | None:
        calls.append(len(events))
        if len(calls) == 2:
            raise RuntimeError("database gone")
        return await real(run_id, events, attempt)

    monkeypatch.setattr(writer, "store_events", failing)

    async def go() -> None:
        emitter = PersistentEmitter(run=run)
        await emitter.emit("agent_state", state="thinking")
        await emitter.flush()
        await emitter.emit("agent_state", state="executing_tool")
        with pytest.raises(RuntimeError, match="nicht gespeichert"):
            await emitter.flush()
        with pytest.raises(RuntimeError, match="nicht gespeichert"):
            await emitter.emit("done", finish_reason="error", text="", usage={}, cap_reached=False,
                               continue_offered=False)

    asyncio.run(go())

    assert [e["seq"] for e in _api_view(run)] == [1]
    assert [event["seq"] for event, _ in sent] == [1]
    # The sweep continues after the last stored event: still no gap.
    swept = writer.persist_event(run_id=run.pk, type="error", payload={"code": "x", "message": "y"})
    assert swept["seq"] == 2


def test_runs_of_one_process_share_inserts_and_a_run_that_cannot_store_stops_alone(monkeypatch) -> None:
    """Concurrent runs' events go to the database together (one writer per event loop); when one
    run's rows are refused (here a second writer took its seq 3), the others' events are stored
    all the same, each run in order and without gaps, and only that run stops."""
    good, bad = _run(), _run_of_second_user()
    sent: dict[int, list[int]] = {good.conversation_id: [], bad.conversation_id: []}

    async def broadcast(batches: list[tuple[int, list[dict[str, Any]]]]) -> None:
        for conversation_id, events in batches:
            sent[conversation_id] += [event["seq"] for event in events]

    monkeypatch.setattr(writer, "broadcast", broadcast)
    many = []
    real_many = writer.store_many

    async def store_many(batches: list[Any]) -> Any:
        many.append(len(batches))
        return await real_many(batches)

    monkeypatch.setattr(writer, "store_many", store_many)
    RunEvent.objects.create(run=bad, seq=3, type="warning",
                            payload={"code": "x", "message": "anderer Schreiber"})

    async def stream(emitter: PersistentEmitter, words: int) -> None:
        for i in range(words):
            await emitter.emit("agent_state", state="thinking")
            await emitter.emit("text", delta=f"Wort{i} ")
            await asyncio.sleep(0)

    async def go() -> PersistentEmitter:
        first, second = PersistentEmitter(run=good, next_seq=1), PersistentEmitter(run=bad, next_seq=1)
        results = await asyncio.gather(stream(first, 20), stream(second, 20), return_exceptions=True)
        assert results[0] is None
        await first.flush()
        with pytest.raises(RuntimeError, match="nicht gespeichert"):
            await second.flush()
        return first

    emitter = asyncio.run(go())

    stored = _api_view(good)
    assert [e["seq"] for e in stored] == list(range(1, 41))
    assert [e.as_dict() for e in emitter.events] == stored
    assert sent[good.conversation_id] == list(range(1, 41))
    assert any(count == 2 for count in many)  # both runs' events in one statement
    bad_seqs = list(RunEvent.objects.filter(run=bad).order_by("seq").values_list("seq", flat=True))
    own = [seq for seq in bad_seqs if seq != 3]
    assert own == list(range(1, len(own) + 1)) and max(own, default=0) < 3  # nothing after the collision
    assert sent[bad.conversation_id] == own


def test_a_runner_loop_stores_on_its_own_connection_and_survives_losing_it(monkeypatch) -> None:
    """On a runner loop events go through the loop's own connection; when the server drops it
    (restart, idle timeout), the next batch is stored on a new one and nothing is lost."""
    from django.db import connection

    from helena.infra import loop_db
    from helena.infra.loops import make_resident

    run = _run()
    sent = _listen(monkeypatch, run)
    backends: list[int] = []

    async def go() -> None:
        make_resident(asyncio.get_running_loop())
        emitter = PersistentEmitter(run=run, next_seq=1)
        await emitter.emit("agent_state", state="thinking")
        await emitter.flush()
        backends.append(loop_db.events_connection()._conn.info.backend_pid)
        await db(_terminate, backends)
        await emitter.emit("text", delta="Weiter geht's.")
        await emitter.emit("done", finish_reason="stop", text="Weiter geht's.", usage={}, cap_reached=False,
                           continue_offered=False)
        await emitter.flush()
        await loop_db.events_connection()._conn.close()

    asyncio.run(go())

    stored = _api_view(run)
    assert [e["type"] for e in stored] == ["agent_state", "text", "done"]
    assert [event for event, _ in sent] == stored and all(was_stored for _, was_stored in sent)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [backends])
        assert cursor.fetchone()[0] == 0  # really gone: the later events took a new connection


def _terminate(pids: list[int]) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [pids])


def test_deltas_within_the_window_travel_as_one_and_the_first_at_once(monkeypatch, settings) -> None:
    settings.HELENA_STREAM_WINDOW_MS = 80
    run = _run()
    sent = _listen(monkeypatch, run)
    seen_at: dict[int, float] = {}

    async def go() -> None:
        emitter = PersistentEmitter(run=run)
        loop = asyncio.get_running_loop()
        await emitter.emit("agent_state", state="thinking")
        started = loop.time()
        await emitter.emit("text", delta="Die ")  # the first: at once
        await emitter.flush()
        seen_at[1] = loop.time() - started
        for delta in ("Frist ", "endet ", "am "):  # within the window: held, then one event
            await emitter.emit("text", delta=delta)
            await asyncio.sleep(0.01)
        await emitter.emit("reasoning", delta="(prüfen)")  # another kind: the held text goes first
        await asyncio.sleep(0.2)  # a pause: the next delta is again at once
        await emitter.emit("text", delta="Montag.")
        await emitter.emit("done", finish_reason="stop", text="Die Frist endet am Montag.",
                           usage={"prompt_tokens": 1, "completion_tokens": 1}, cap_reached=False,
                           continue_offered=False)
        await emitter.flush()

    asyncio.run(go())
    stored = _api_view(run)
    assert [(e["type"], e.get("delta")) for e in stored] == [
        ("agent_state", None), ("text", "Die "), ("text", "Frist endet am "), ("reasoning", "(prüfen)"),
        ("text", "Montag."), ("done", None)]
    assert [event for event, _ in sent] == stored
    assert seen_at[1] < 0.08  # the first token did not wait for the window


def test_a_slow_broadcast_holds_a_runs_end_once_not_once_per_batch(monkeypatch) -> None:
    """Redis hanging (each publish waits for its timeout): what piled up meanwhile goes out
    together, so a run's flush() waits about one publish, not one per batch stored meanwhile."""
    run = _run()
    publishes: list[list[int]] = []

    async def hanging(batches: list[tuple[int, list[dict[str, Any]]]]) -> None:
        await asyncio.sleep(0.3)
        publishes.append([event["seq"] for _, events in batches for event in events])

    monkeypatch.setattr(writer, "broadcast", hanging)
    monkeypatch.setattr(settings, "HELENA_EVENT_BATCH_MS", 0)

    async def go() -> float:
        emitter = PersistentEmitter(run=run, next_seq=1)
        for _ in range(20):  # twenty batches, each stored before the next is emitted
            await emitter.emit("agent_state", state="thinking")
            while not emitter._written.is_set():
                await asyncio.sleep(0.005)
        started = time.monotonic()
        await emitter.flush()
        return time.monotonic() - started

    waited = asyncio.run(go())
    assert waited < 1.0  # one chained publish per batch: 20 × 0.3 s
    assert [seq for seqs in publishes for seq in seqs] == list(range(1, 21))  # in order, each once


def test_flush_waits_for_the_broadcast_also_when_runs_are_stored_one_by_one(monkeypatch) -> None:
    """The multi-run INSERT failing, each run's events are stored on their own: a run's flush()
    still returns only once its events are out."""
    first, second = _run(), _run_of_second_user()
    out: list[int] = []

    async def broadcast(batches: list[tuple[int, list[dict[str, Any]]]]) -> None:
        await asyncio.sleep(0.1)
        out.extend(event["seq"] for _, events in batches for event in events)

    real_many = writer.store_many

    async def refused(batches: list[Any]) -> Any:
        if len(batches) > 1:
            raise RuntimeError("the statement of both runs failed")
        return await real_many(batches)

    monkeypatch.setattr(writer, "broadcast", broadcast)
    monkeypatch.setattr(writer, "store_many", refused)

    async def go() -> list[int]:
        a, b = PersistentEmitter(run=first, next_seq=1), PersistentEmitter(run=second, next_seq=1)
        await a.emit("agent_state", state="thinking")
        await b.emit("agent_state", state="thinking")
        await a.flush()
        return list(out)

    assert asyncio.run(go()) == [1, 1]  # both runs' first event was out when a's flush returned
