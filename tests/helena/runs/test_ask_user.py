"""ask_user end to end over the API with the scripted model: the run pauses with `waiting_on_user`,
the next message answers it and a new run resumes from the transcript without repeating steps
(also across a worker restart); an unanswered question expires after 7 days with a note."""

from __future__ import annotations

import signal
from datetime import timedelta

import pytest
from django.utils import timezone

from helena.models import AgentRun, Conversation, Message, PendingQuestion, ToolCallLog
from tests.conftest import Kanzlei, start_celery_worker, stop_celery_worker
from tests.helena.web.test_runs_api import ask, assert_one_done, events, post, wait
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FRIST = {"start": "2026-10-01", "dauer": {"monate": 1}, "bundesland": "NW"}
QUESTION = {"question": "Wann wurde das Urteil zugestellt?", "answer_key": "Zustellung"}


def _script(server: ScriptedLLMServer) -> None:
    server.script([
        {"tool_calls": [{"name": "read_fristen", "arguments": {}}]},
        {"tool_calls": [{"name": "ask_user", "arguments": QUESTION}]},
        {"tool_calls": [{"name": "calculate_frist", "arguments": FRIST}]},
        {"text": "Die Berufungsfrist endet am Montag, 02.11.2026."},
    ])


def _resume_checks(client, server: ScriptedLLMServer, conv_id: str, first: str, second: str) -> None:
    run1, run2 = AgentRun.objects.get(pk=first), AgentRun.objects.get(pk=second)
    assert run2.parent_id == run1.pk and run2.mode == run1.mode and run2.tier == run1.tier
    assert run2.answers_question.answer == "Am 01.10.2026"
    assert Conversation.objects.get(pk=conv_id).answers == {"zustellung": "Am 01.10.2026"}
    done = assert_one_done(events(client, second))
    assert done["finish_reason"] == "stop" and "02.11.2026" in done["text"]
    # The resumed run starts from the transcript: the earlier tool calls are there, not re-executed.
    chats = [r for r in server.requests if "messages" in r]
    resumed = chats[2]["messages"]
    assert any("Am 01.10.2026" in str(m.get("content")) and m["role"] == "user" for m in resumed)
    tool_results = [str(m.get("content")) for m in resumed if m["role"] == "tool"]
    assert len(tool_results) == 2 and '"fristen"' in tool_results[0] and "waiting_on_user" in tool_results[1]
    assert ToolCallLog.objects.filter(tool="read_fristen").count() == 1
    assert ToolCallLog.objects.filter(tool="ask_user").count() == 1
    roles = [m.role for m in Message.objects.filter(conversation_id=conv_id)]
    assert roles == ["user", "user", "assistant"]


def _pause_checks(client, run_id: str) -> None:
    evs = events(client, run_id)
    done = assert_one_done(evs)
    assert done["finish_reason"] == "waiting_on_user"
    (asked,) = [e for e in evs if e["type"] == "ask_user"]
    assert asked == {**asked, "question": QUESTION["question"], "answer_key": "zustellung"}
    states = [e["state"] for e in evs if e["type"] == "agent_state"]
    assert "waiting_on_user" in states
    question = PendingQuestion.objects.get()
    assert question.answered_at is None and question.run_id is not None


def test_ask_user_pauses_and_the_answer_resumes_inline(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    _script(tiers)
    client = kanzlei.client("anwalt")
    conv_id, first = ask(client, "Wann endet meine Berufungsfrist?", mode="inline")
    assert wait(client, first)["finish_reason"] == "waiting_on_user"
    _pause_checks(client, first)
    status, body = post(client, f"/helena/conversations/{conv_id}/messages", {"text": "Am 01.10.2026"})
    assert status == 202, body
    wait(client, body["run_id"])
    _resume_checks(client, tiers, conv_id, first, body["run_id"])


def test_a_paused_background_run_resumes_on_a_new_worker(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    _script(tiers)
    client = kanzlei.client("anwalt")
    worker = start_celery_worker()
    try:
        conv_id, first = ask(client, "Wann endet meine Berufungsfrist?", mode="background")
        assert wait(client, first, timeout=60)["finish_reason"] == "waiting_on_user"
    finally:
        stop_celery_worker(worker, signal.SIGKILL)  # the worker is gone; the question is in the database
    _pause_checks(client, first)
    worker = start_celery_worker()
    try:
        status, body = post(client, f"/helena/conversations/{conv_id}/messages",
                            {"text": "Am 01.10.2026", "mode": "inline"})  # the paused run's mode wins
        assert status == 202, body
        assert wait(client, body["run_id"], timeout=60)["mode"] == "background"
    finally:
        stop_celery_worker(worker)
    _resume_checks(client, tiers, conv_id, first, body["run_id"])


def test_an_unanswered_question_expires_after_seven_days(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    tiers.script([{"tool_calls": [{"name": "ask_user", "arguments": QUESTION}]}, {"text": "Neue Antwort."}])
    client = kanzlei.client("anwalt")
    conv_id, first = ask(client, "Wann endet meine Berufungsfrist?", mode="inline")
    wait(client, first)
    PendingQuestion.objects.update(asked_at=timezone.now() - timedelta(days=8))
    status, body = post(client, f"/helena/conversations/{conv_id}/messages", {"text": "Etwas ganz anderes"})
    assert status == 202
    run = wait(client, body["run_id"])
    assert AgentRun.objects.get(pk=body["run_id"]).parent_id is None and run["text"] == "Neue Antwort."
    question = PendingQuestion.objects.get()
    assert question.expired_at is not None and question.answered_at is None
    note = Message.objects.filter(conversation_id=conv_id, text__contains="verfallen").get()
    assert "Wann wurde das Urteil zugestellt?" in note.text


def test_the_hourly_sweep_expires_old_questions(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    from helena.tasks import expire_questions

    tiers.script([{"tool_calls": [{"name": "ask_user", "arguments": QUESTION}]}])
    client = kanzlei.client("anwalt")
    conv_id, first = ask(client, "Wann endet meine Berufungsfrist?", mode="inline")
    wait(client, first)
    assert expire_questions() == 0
    PendingQuestion.objects.update(asked_at=timezone.now() - timedelta(days=7, minutes=1))
    assert expire_questions() == 1
    assert PendingQuestion.objects.get().expired_at is not None
    assert Message.objects.filter(conversation_id=conv_id, text__contains="verfallen").count() == 1
    assert expire_questions() == 0
