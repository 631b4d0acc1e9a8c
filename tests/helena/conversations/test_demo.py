"""The demo Kanzlei shows what Helena does: an example conversation with tool steps and drafts of
several kinds waiting for a decision, made by the real loop and tools with a scripted model."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from akten.models import User
from drafts.models import Draft
from helena.conversations.demo import TITLE
from helena.models import AgentRun, Conversation

pytestmark = pytest.mark.django_db


def test_seed_demo_leaves_an_example_conversation_with_pending_drafts(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    out = StringIO()
    call_command("seed_demo", password="x-test-pw", stdout=out)
    assert "Beispielgespräch" in out.getvalue()
    conversation = Conversation.objects.get(title=TITLE)
    run = AgentRun.objects.get(conversation=conversation)
    assert (run.status, run.finish_reason, run.provider) == ("finished", "stop", "scripted")
    types = list(run.events.order_by("seq").values_list("type", flat=True))
    assert types[0] == "run_started" and types[-1] == "done" and types.count("tool_call") == 4
    tools = [e.payload["tool"] for e in run.events.filter(type="tool_result")]
    assert tools == ["read_akte_detail", "create_draft_dokument", "create_draft_frist",
                     "create_draft_zeiterfassung"]
    assert all(e.payload["ok"] for e in run.events.filter(type="tool_result"))
    drafts = Draft.objects.filter(run_id=run.pk)
    assert sorted(d.kind for d in drafts) == ["dokument", "frist", "zeiterfassung"]
    assert {d.status for d in drafts} == {"pending"} and not any(d.warnings for d in drafts)

    call_command("seed_demo", password="x-test-pw", stdout=StringIO())  # once only
    assert Conversation.objects.filter(title=TITLE).count() == 1 and Draft.objects.count() == 3

    client = Client()
    client.force_login(User.objects.get(username="anwalt"))
    page = client.get(f"/helena/gespraech/{conversation.pk}/").content.decode()
    assert "Erinnerung an die Rheinische Rechtsschutz AG" in page and "Lese Akte" in page
    inbox = client.get("/entwuerfe/").content.decode()
    assert "Deckungszusage Rheinische Rechtsschutz eingegangen?" in inbox
