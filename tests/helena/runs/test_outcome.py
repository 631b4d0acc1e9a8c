"""The end of a run (helena/runs/outcome.py): recorded once, with the answer as a message, and only
by the attempt that owns the run."""

from __future__ import annotations

import pytest

from akten.models import Role, User
from helena.agent.loop import AgentResult
from helena.llm.base import Usage
from helena.models import AgentRun, Conversation, Message
from helena.runs.outcome import arecord_outcome, record_outcome

pytestmark = pytest.mark.django_db


def _running(attempt: int = 1) -> AgentRun:
    user = User.objects.create_user(username="anwalt", password="pw", role=Role.ANWALT)
    conversation = Conversation.objects.create(user=user)
    return AgentRun.objects.create(conversation=conversation, user=user, mode=AgentRun.Mode.INLINE,
                                   status=AgentRun.Status.RUNNING, attempt=attempt)


def _result(text: str) -> AgentResult:
    return AgentResult(finish_reason="stop", text=text, usage=Usage(prompt_tokens=12, completion_tokens=3),
                       steps=1, messages=[{"role": "assistant", "content": text}])


def test_the_owning_attempt_records_status_totals_and_the_answer_in_its_conversation() -> None:
    run = _running()
    record_outcome(run_pk=run.pk, result=_result("Die Frist endet am 02.03.2027."), attempt=1)
    run.refresh_from_db()
    assert (run.status, run.text, run.prompt_tokens, run.completion_tokens) == (
        AgentRun.Status.FINISHED, "Die Frist endet am 02.03.2027.", 12, 3)
    answer = Message.objects.get(run=run)
    assert (answer.conversation_id, answer.role, answer.text) == (
        run.conversation_id, Message.Role.ASSISTANT, "Die Frist endet am 02.03.2027.")


def test_an_attempt_that_lost_the_run_records_nothing_not_even_the_message() -> None:
    run = _running(attempt=2)
    record_outcome(run_pk=run.pk, result=_result("Veraltet."), attempt=1)
    run.refresh_from_db()
    assert run.status == AgentRun.Status.RUNNING and run.text == ""
    assert not Message.objects.filter(run=run).exists()


def test_a_second_end_changes_nothing_and_writes_no_second_message() -> None:
    run = _running()
    record_outcome(run_pk=run.pk, result=_result("Erste Antwort."), attempt=1)
    record_outcome(run_pk=run.pk, result=_result("Zweite Antwort."), attempt=1)
    assert list(Message.objects.filter(run=run).values_list("text", flat=True)) == ["Erste Antwort."]


def test_an_empty_answer_ends_the_run_without_a_message() -> None:
    run = _running()
    record_outcome(run_pk=run.pk, result=_result(""), attempt=1)
    run.refresh_from_db()
    assert run.status == AgentRun.Status.FINISHED
    assert not Message.objects.filter(run=run).exists()


@pytest.mark.django_db(transaction=True)  # the runner loop's own connection sees committed rows only
def test_the_end_on_a_runner_loops_connection_is_recorded_once_and_only_by_the_owner() -> None:
    from tests.helena.runs.test_loop_statements import on_a_runner_loop

    run = _running()
    lost = AgentRun.objects.create(conversation=run.conversation, user=run.user, mode=AgentRun.Mode.INLINE,
                                   status=AgentRun.Status.RUNNING, attempt=2)

    async def ends() -> None:
        await arecord_outcome(run_pk=run.pk, result=_result("Erste Antwort."), attempt=1)
        await arecord_outcome(run_pk=run.pk, result=_result("Zweite Antwort."), attempt=1)
        await arecord_outcome(run_pk=lost.pk, result=_result("Veraltet."), attempt=1)

    on_a_runner_loop(ends)
    run.refresh_from_db()
    lost.refresh_from_db()
    assert (run.status, run.text, run.prompt_tokens, run.completion_tokens) == (
        AgentRun.Status.FINISHED, "Erste Antwort.", 12, 3)
    assert list(Message.objects.filter(run=run).values_list("text", flat=True)) == ["Erste Antwort."]
    assert lost.status == AgentRun.Status.RUNNING and not Message.objects.filter(run=lost).exists()
