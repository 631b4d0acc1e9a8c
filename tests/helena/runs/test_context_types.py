"""Context types (seed 003 §4.1): each conversation kind adds its guidance to the system prompt,
selects the model profile, and is stored on the run for analytics."""

from __future__ import annotations

import pytest

from helena.agent.prompts import CONTEXT_GUIDANCE
from helena.conversations.services import create_conversation, start_run
from helena.runs.setup import prepare_run
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("context_type", "erwartet"),
    [
        ("global", "allgemeine Unterstützung"),
        ("akte", "frage nach, bevor du etwas"),
        ("fristen", "Rechne nie selbst"),
        ("recherche", "zitiere jede Aussage"),
        ("entwurf", "search_muster"),
    ],
)
def test_each_context_adds_its_guidance(kanzlei: Kanzlei, context_type: str, erwartet: str) -> None:
    setup = prepare_run(user=kanzlei.users["anwalt"], question="Hallo", context_type=context_type)
    prompt = setup.messages[0]["content"]
    assert erwartet in prompt
    others = [text for key, text in CONTEXT_GUIDANCE.items() if key != context_type]
    assert not any(text in prompt for text in others)


def test_tool_context_knows_the_conversation(kanzlei: Kanzlei) -> None:
    setup = prepare_run(user=kanzlei.users["anwalt"], question="Hallo", conversation_id=42)
    assert setup.ctx.conversation_id == "42"


@pytest.mark.parametrize(("context_type", "tier"), [("global", 1), ("fristen", 1), ("recherche", 2),
                                                     ("entwurf", 2)])
def test_context_selects_the_profile_and_is_stored_on_the_run(
    kanzlei: Kanzlei, context_type: str, tier: int
) -> None:
    from helena.agent.classifier import classify

    text = "Was ist eine Notfrist?"
    assert classify(text=text, mode="inline", routes={}, cloud_allowed=False).tier == 1
    user = kanzlei.users["anwalt"]
    conversation = create_conversation(user=user, context_type=context_type)
    run = start_run(user=user, conversation=conversation, text=text, mode="inline")
    assert run.context_type == context_type
    assert run.tier == tier  # a simple question is tier 1, unless the context asks for quality


def test_akte_conversation_is_akte_context_and_unknown_contexts_are_refused(kanzlei: Kanzlei) -> None:
    from helena.conversations.services import RunRefused

    user = kanzlei.users["anwalt"]
    conversation = create_conversation(user=user, akte_id=kanzlei.akten["A"].pk)
    assert conversation.context_type == "akte"
    with pytest.raises(RunRefused):
        create_conversation(user=user, context_type="geheim")
