"""Which runs a process takes over and what becomes of them, on the real database: a lapsed heartbeat
or a handover makes a run takeable (by the right kind of process), a fresh one does not; a run that
had stored its `done` only gets its end recorded; one without time left or taken over too often ends
with one clear message; a process that lost its run stores nothing more (fenced by attempt)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from akten.models import Role, User
from helena.agent.events import Event
from helena.models import AgentRun, Conversation, Message, RunEvent
from helena.runs.claim import LOST, LOST_AGAIN
from helena.runs.durable import checkpoints, local
from helena.runs.events import writer
from helena.runs.execute import resume_run
from helena.runs.sweep import sweep_stale_runs

pytestmark = pytest.mark.django_db(transaction=True)

ME = "dieser-prozess"


def _run(*, mode: str = "background", beat_ago: float | None = 60, owner: str = "weg:1:x",
         attempt: int = 0, checkpoint: dict[str, Any] | None = None, takeovers: int = 0) -> AgentRun:
    user = User.objects.get_or_create(username="anwalt", defaults={"role": Role.ANWALT})[0]
    conversation = Conversation.objects.create(user=user)
    now = timezone.now()
    return AgentRun.objects.create(
        conversation=conversation, user=user, mode=mode, status=AgentRun.Status.RUNNING, owner=owner,
        attempt=attempt, takeovers=takeovers, started_at=now - timedelta(seconds=120),
        deadline=now + timedelta(minutes=5),
        heartbeat_at=None if beat_ago is None else now - timedelta(seconds=beat_ago),
        checkpoint=checkpoint or {})


def _take(modes: list[str], released: list[str], late: float | None = None) -> list[tuple[str, int, str]]:
    return checkpoints.take_over(owner=ME, modes=modes, released=released, lapse=15, late=late, limit=10)


def test_lapsed_and_handed_over_runs_are_taken_by_the_right_process() -> None:
    lapsed = _run(mode="background", beat_ago=20)
    alive = _run(mode="background", beat_ago=3)
    inline_lapsed = _run(mode="inline", beat_ago=20)
    handed_over = _run(mode="inline", beat_ago=None, owner="")
    taken = {pk: (attempt, cause) for pk, attempt, cause in _take(["background"], ["inline", "background"])}
    assert taken == {str(lapsed.pk): (1, "crash"), str(handed_over.pk): (1, "handover")}
    assert str(alive.pk) not in taken and str(inline_lapsed.pk) not in taken  # a daphne's, for now
    assert AgentRun.objects.get(pk=lapsed.pk).owner == ME
    # A worker takes a lapsed inline run only when no daphne did for `late` seconds.
    assert _take(["background"], [], late=30) == []
    AgentRun.objects.filter(pk=inline_lapsed.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=40))
    assert [pk for pk, *_ in _take(["background"], [], late=30)] == [str(inline_lapsed.pk)]
    assert _take(["background"], ["inline", "background"]) == []  # each once


def test_a_process_that_lost_its_run_stores_no_more_events() -> None:
    run = _run(attempt=0)
    assert async_to_sync(writer.store_events)(run.pk, [Event("agent_state", str(run.pk), 1, "", {})], 0)
    AgentRun.objects.filter(pk=run.pk).update(attempt=1)  # taken over meanwhile
    stamps = async_to_sync(writer.store_events)(run.pk, [Event("agent_state", str(run.pk), 2, "", {})], 0)
    assert stamps is None
    assert list(RunEvent.objects.filter(run=run).values_list("seq", flat=True)) == [1]
    assert not checkpoints.save(run_pk=run.pk, attempt=0, data={"v": 1})
    assert checkpoints.heartbeat(owner="weg:1:x", runs=[str(run.pk)]) == set()  # still its owner's


def test_a_run_that_had_stored_its_done_only_gets_its_end_recorded(monkeypatch) -> None:
    monkeypatch.setattr(local, "owner", lambda: ME)
    run = _run(owner=ME, attempt=1, checkpoint={"v": 1, "messages": [], "seq": 1, "elapsed": 3.0})
    RunEvent.objects.create(run=run, seq=1, type="run_started", payload={"mode": "background"})
    RunEvent.objects.create(run=run, seq=2, type="done", payload={
        "finish_reason": "stop", "text": "Fertig.", "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    async_to_sync(resume_run)(str(run.pk), 1)
    run.refresh_from_db()
    assert run.status == "finished" and run.text == "Fertig." and run.checkpoint == {}
    assert Message.objects.filter(run=run, text="Fertig.").count() == 1
    assert RunEvent.objects.filter(run=run, type="done").count() == 1


@pytest.mark.parametrize(("takeovers", "elapsed", "message"), [(1, 178.0, LOST), (4, 10.0, LOST_AGAIN)])
def test_a_run_that_cannot_go_on_ends_with_one_clear_message(monkeypatch, takeovers: int, elapsed: float,
                                                             message: str) -> None:
    monkeypatch.setattr(local, "owner", lambda: ME)
    attempt = takeovers + 2  # waits for the database (attempts, no takeovers) do not count
    run = _run(owner=ME, attempt=attempt, takeovers=takeovers,
               checkpoint={"v": 1, "messages": [], "seq": 1, "elapsed": elapsed})
    RunEvent.objects.create(run=run, seq=1, type="run_started", payload={"mode": "background"})
    async_to_sync(resume_run)(str(run.pk), attempt)
    run.refresh_from_db()
    assert run.status == "failed" and run.text == message
    events = list(RunEvent.objects.filter(run=run).order_by("seq").values_list("type", "payload"))
    assert [t for t, _ in events] == ["run_started", "error", "done"]
    assert events[1][1]["code"] == "run_lost" and events[1][1]["message"] == message


def test_a_run_taken_by_someone_else_is_left_alone(monkeypatch) -> None:
    monkeypatch.setattr(local, "owner", lambda: ME)
    run = _run(owner="anderer:2:y", attempt=1)
    async_to_sync(resume_run)(str(run.pk), 1)
    run.refresh_from_db()
    assert run.status == "running" and not RunEvent.objects.filter(run=run).exists()


def test_a_run_of_a_version_without_checkpoints_that_made_calls_ends_instead_of_starting_over(
        monkeypatch) -> None:
    monkeypatch.setattr(local, "owner", lambda: ME)
    run = _run(owner=ME, attempt=1)
    RunEvent.objects.create(run=run, seq=1, type="run_started", payload={"mode": "background"})
    RunEvent.objects.create(run=run, seq=2, type="tool_call", payload={"call_id": "c1", "tool": "x"})
    async_to_sync(resume_run)(str(run.pk), 1)
    run.refresh_from_db()
    assert run.status == "failed" and run.text == LOST


def test_only_the_runs_a_process_runs_get_its_heartbeat() -> None:
    """A run it owns but no longer runs (a failure left it) must lapse, so another process takes it."""
    orphan, running = _run(owner=ME, beat_ago=60), _run(owner=ME, beat_ago=60)
    assert checkpoints.heartbeat(owner=ME, runs=[str(running.pk)]) == set()
    orphan.refresh_from_db()
    running.refresh_from_db()
    assert (timezone.now() - orphan.heartbeat_at).total_seconds() > 50
    assert (timezone.now() - running.heartbeat_at).total_seconds() < 5
    assert [pk for pk, *_ in checkpoints.take_over(owner="anderer:2:y", modes=["background"], released=[],
                                                   lapse=15, late=None, limit=10)] == [str(orphan.pk)]


def test_the_sweep_records_a_stored_done_instead_of_adding_a_second() -> None:
    run = _run(owner="weg:1:x")
    AgentRun.objects.filter(pk=run.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    RunEvent.objects.create(run=run, seq=1, type="done",
                            payload={"finish_reason": "stop", "text": "Die Antwort."})
    assert sweep_stale_runs() == 1
    run.refresh_from_db()
    assert run.status == "finished" and run.text == "Die Antwort."
    assert RunEvent.objects.filter(run=run, type="done").count() == 1
    assert Message.objects.filter(run=run).count() == 1
