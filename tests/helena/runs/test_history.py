"""Long conversations stay within the window (seed 004 §4.2): older turns are summarised once by
tier 1 (operation `summary`), stored and reused; the newest turns stay verbatim."""

from __future__ import annotations

import pytest

from helena.models import Conversation, LLMCall, Message
from helena.runs.history import KEEP_VERBATIM, SLACK, history_for
from tests.conftest import Kanzlei
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = pytest.mark.django_db


def _talk(conversation: Conversation, start: int, count: int) -> None:
    for i in range(start, start + count):
        role = Message.Role.USER if i % 2 == 0 else Message.Role.ASSISTANT
        Message.objects.create(conversation=conversation, role=role, text=f"Nachricht {i} zu Akte 1/26")


def test_a_sixty_message_conversation_is_summarised_once_and_reused(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer
) -> None:
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    _talk(conversation, 0, 61)  # 60 earlier messages and the question
    tiers.script([{"text": "- Akte 1/26: Berufungsfrist besprochen."}])
    turns, question = history_for(conversation=conversation)
    assert question == "Nachricht 60 zu Akte 1/26"
    assert turns[0]["role"] == "system" and "Berufungsfrist besprochen" in turns[0]["content"]
    assert [t["content"] for t in turns[1:]] == [f"Nachricht {i} zu Akte 1/26" for i in range(48, 60)]
    assert LLMCall.objects.filter(operation="summary", tier=1).count() == 1
    sent = tiers.requests_to("/api/chat")[-1]["messages"]
    assert "Nachricht 0 zu Akte 1/26" in sent[1]["content"] and "Nachricht 47 " in sent[1]["content"]
    conversation.refresh_from_db()
    assert conversation.summary_upto == Message.objects.get(text="Nachricht 47 zu Akte 1/26").pk

    # A few more turns: the stored summary is reused, the new turns are verbatim.
    _talk(conversation, 61, 4)
    turns, question = history_for(conversation=Conversation.objects.get(pk=conversation.pk))
    assert LLMCall.objects.filter(operation="summary").count() == 1
    assert turns[-1]["content"] == "Nachricht 63 zu Akte 1/26" and question == "Nachricht 64 zu Akte 1/26"

    # Enough new turns behind the summary: it is extended once, from the previous summary.
    _talk(conversation, 65, KEEP_VERBATIM + SLACK)
    tiers.script([{"text": "- Akte 1/26: Berufungsfrist besprochen, Entwurf freigegeben."}])
    turns, _ = history_for(conversation=Conversation.objects.get(pk=conversation.pk))
    assert LLMCall.objects.filter(operation="summary").count() == 2
    assert "Bisherige Zusammenfassung" in tiers.requests_to("/api/chat")[-1]["messages"][1]["content"]
    assert "Entwurf freigegeben" in turns[0]["content"] and len(turns) == KEEP_VERBATIM + 1


def test_short_conversations_go_verbatim_without_a_summary_call(kanzlei: Kanzlei) -> None:
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    _talk(conversation, 0, 9)
    turns, question = history_for(conversation=conversation)
    assert len(turns) == 8 and question == "Nachricht 8 zu Akte 1/26"
    assert not LLMCall.objects.exists()


def test_without_a_tier_1_model_the_newest_turns_are_kept(kanzlei: Kanzlei) -> None:
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    _talk(conversation, 0, 61)
    turns, _ = history_for(conversation=conversation)
    assert len(turns) == KEEP_VERBATIM and turns[-1]["content"] == "Nachricht 59 zu Akte 1/26"


def test_the_claim_reads_the_history_and_the_drafts_in_its_own_statement(kanzlei: Kanzlei) -> None:
    """claim() reads the conversation's messages and whether it has drafts in the statement that
    takes the run (helena/runs/claim.py): the model gets the same turns, in order, text unchanged,
    and the drafts' outcomes stay in the prompt."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from drafts.models import Draft
    from helena.models import AgentRun
    from helena.runs.claim import claim

    user = kanzlei.users["anwalt"]
    conversation = Conversation.objects.create(user=user)
    said = ['Frist „Berufung“ – bis wann?\nZeile 2 \\ mit {Klammern} und "Zitat"', "Bis zum 02.03.2027.",
            "Und die Begründung? 😊"]
    for i, text in enumerate(said):
        role = "user" if i % 2 == 0 else "assistant"
        Message.objects.create(conversation=conversation, role=role, text=text)
    run = AgentRun.objects.create(conversation=conversation, user=user, mode=AgentRun.Mode.INLINE)
    with CaptureQueriesContext(connection) as queries:
        claimed = claim(run.pk)
    assert claimed is not None and claimed.setup is not None
    assert [(m["role"], m["content"]) for m in claimed.setup.messages[1:]] == [
        ("user", said[0]), ("assistant", said[1]), ("user", said[2])]
    statements = [q["sql"] for q in queries.captured_queries]
    assert sum("WITH r AS" in sql for sql in statements) == 1  # the claim, seen by the capture
    assert [sql for sql in statements if "WITH r AS" not in sql
            and ("helena_message" in sql or "drafts_draft" in sql)] == []
    assert "Deine Entwürfe" not in claimed.setup.messages[0]["content"]

    Draft.objects.create(kind=Draft.Kind.FRIST, akte=kanzlei.akten["A"], requested_by=user,
                         conversation=conversation, fields={"bezeichnung": "Berufungsbegründung"})
    second = AgentRun.objects.create(conversation=conversation, user=user, mode=AgentRun.Mode.INLINE)
    claimed = claim(second.pk)
    assert claimed is not None and claimed.setup is not None
    assert "Deine Entwürfe in diesem Gespräch" in claimed.setup.messages[0]["content"]
