"""Helena's admin pages: settings with the cloud confirmation, read-only records, the usage report."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from akten.models import Role, User
from helena.models import (
    AgentRun,
    Conversation,
    HelenaSettings,
    LLMCall,
    Message,
    ModelTier,
    RateLimit,
    RunEvent,
    TaskRoute,
)
from tests.conftest import zweiter_faktor_gegeben

pytestmark = pytest.mark.django_db

NEW_MODELS = [ModelTier, TaskRoute, HelenaSettings, RateLimit, Conversation, AgentRun, LLMCall]


@pytest.fixture
def superuser() -> User:
    return User.objects.create_superuser(username="chefin", password="pw", email="", role=Role.ADMIN)


@pytest.fixture
def chefin(superuser: User) -> Client:
    return zweiter_faktor_gegeben(superuser)


@pytest.fixture
def records(superuser: User) -> dict[str, object]:
    """One object of each model, so change pages and filters have something to show."""
    anwalt = User.objects.create_user(username="anwalt", password="pw", role=Role.ANWALT)
    conversation = Conversation.objects.create(user=anwalt, title="Kündigung Meier")
    run = AgentRun.objects.create(conversation=conversation, user=anwalt, mode=AgentRun.Mode.INLINE,
                                  status=AgentRun.Status.FINISHED, model="qwen3:14b", provider="ollama",
                                  finish_reason="stop", prompt_tokens=1200, completion_tokens=300)
    Message.objects.create(conversation=conversation, role=Message.Role.USER, text="Frist prüfen")
    Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, text="Die Frist läuft",
                           run=run)
    RunEvent.objects.create(run=run, seq=1, type="run_started", payload={"mode": "inline"})
    RunEvent.objects.create(run=run, seq=2, type="done", payload={"finish_reason": "stop"})
    call = LLMCall.objects.create(run=run, user=anwalt, provider="openai", model="gpt-test", tier=3,
                                  prompt_tokens=12345, completion_tokens=678, latency_ms=900,
                                  cost=Decimal("0.037643"))
    return {
        ModelTier: ModelTier.objects.create(tier=3, provider=ModelTier.Provider.OPENAI, model_name="gpt-test",
                                            price_input_per_1k=Decimal("0.0025"),
                                            price_output_per_1k=Decimal("0.01")),
        TaskRoute: TaskRoute.objects.create(task_type="schriftsatz", tier=2),
        HelenaSettings: HelenaSettings.load(),
        RateLimit: RateLimit.objects.create(role=Role.PRAKTIKANT, runs_per_hour=10),
        Conversation: conversation,
        AgentRun: run,
        LLMCall: call,
    }


def _url(model: type, view: str, *args: object) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_all_helena_models_are_registered() -> None:
    for model in NEW_MODELS:
        assert model in admin.site._registry


@pytest.mark.parametrize("model", NEW_MODELS, ids=lambda m: m.__name__)
def test_changelist_and_change_page_render(chefin: Client, records: dict, model: type) -> None:
    listing = chefin.get(_url(model, "changelist"), follow=True)
    assert listing.status_code == 200
    assert chefin.get(_url(model, "changelist"), {"q": "test"}, follow=True).status_code == 200
    obj = records[model]
    assert chefin.get(_url(model, "change", obj.pk)).status_code == 200


@pytest.mark.parametrize("model", [ModelTier, TaskRoute, RateLimit], ids=lambda m: m.__name__)
def test_add_page_renders_for_settings(chefin: Client, model: type) -> None:
    assert chefin.get(_url(model, "add")).status_code == 200


@pytest.mark.parametrize("model", [Conversation, AgentRun, LLMCall], ids=lambda m: m.__name__)
def test_records_cannot_be_added(chefin: Client, model: type) -> None:
    assert chefin.get(_url(model, "add")).status_code == 403


def test_run_page_shows_its_events_and_conversation_its_messages(chefin: Client, records: dict) -> None:
    run_page = chefin.get(_url(AgentRun, "change", records[AgentRun].pk)).content.decode()
    assert "run_started" in run_page and "done" in run_page
    conversation_page = chefin.get(_url(Conversation, "change", records[Conversation].pk)).content.decode()
    assert "Frist prüfen" in conversation_page and "Die Frist läuft" in conversation_page


def test_changelists_filter(chefin: Client, records: dict) -> None:
    assert chefin.get(_url(AgentRun, "changelist"), {"status__exact": "finished"}).status_code == 200
    response = chefin.get(_url(LLMCall, "changelist"), {"provider": "openai", "operation": "agent_step"})
    assert response.status_code == 200
    assert "gpt-test" in response.content.decode()


def test_settings_singleton_no_add_no_delete(chefin: Client, records: dict) -> None:
    settings_row = records[HelenaSettings]
    assert chefin.get(_url(HelenaSettings, "add")).status_code == 403
    assert chefin.get(_url(HelenaSettings, "delete", settings_row.pk)).status_code == 403
    response = chefin.get(_url(HelenaSettings, "changelist"))
    assert response.status_code == 302
    assert response["Location"] == _url(HelenaSettings, "change", settings_row.pk)


def _settings_form(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "cloud_confirmation": "",
        "inline_max_steps": 5,
        "background_max_steps": 20,
        "inline_timeout_s": 30,
        "background_timeout_s": 180,
        "max_tool_calls_per_turn": 8,
        "max_concurrent_runs_per_user": 3,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not False}


def test_switching_on_the_cloud_needs_the_confirmation_text(chefin: Client) -> None:
    row = HelenaSettings.load()
    response = chefin.post(_url(HelenaSettings, "change", row.pk), _settings_form(cloud_allowed="on"))
    assert response.status_code == 200  # form shown again
    assert "Die Cloud kann nur freigegeben werden" in response.content.decode()
    row.refresh_from_db()
    assert row.cloud_allowed is False
    assert row.cloud_confirmed_by is None


def test_switching_on_the_cloud_records_who_confirmed(chefin: Client, superuser: User) -> None:
    row = HelenaSettings.load()
    text = "Kanzleiinhaberin bestätigt AVV und Verschwiegenheitsvereinbarung vom 02.01.2026."
    response = chefin.post(_url(HelenaSettings, "change", row.pk),
                           _settings_form(cloud_allowed="on", cloud_confirmation=text))
    assert response.status_code == 302
    row.refresh_from_db()
    assert row.cloud_allowed is True
    assert row.cloud_confirmation == text
    assert row.cloud_confirmed_by == superuser
    assert row.cloud_confirmed_at is not None

    # Saving other settings keeps the recorded confirmation.
    first_confirmed_at = row.cloud_confirmed_at
    chefin.post(_url(HelenaSettings, "change", row.pk),
                _settings_form(cloud_allowed="on", cloud_confirmation=text, inline_max_steps=6))
    row.refresh_from_db()
    assert row.inline_max_steps == 6
    assert row.cloud_confirmed_at == first_confirmed_at


def test_first_settings_row_is_the_one_load_reads(chefin: Client) -> None:
    assert not HelenaSettings.objects.exists()
    response = chefin.post(_url(HelenaSettings, "add"), _settings_form(max_concurrent_runs_per_user=2))
    assert response.status_code == 302
    assert HelenaSettings.load().max_concurrent_runs_per_user == 2
    assert HelenaSettings.objects.count() == 1


def test_rate_limit_form_needs_role_or_user(chefin: Client) -> None:
    response = chefin.post(_url(RateLimit, "add"), {"role": "", "user": "", "runs_per_hour": 5})
    assert response.status_code == 200
    assert "Bitte eine Rolle oder einen Benutzer angeben." in response.content.decode()
    response = chefin.post(_url(RateLimit, "add"), {"role": Role.ANWALT, "user": "", "runs_per_hour": 5})
    assert response.status_code == 302
    response = chefin.post(_url(RateLimit, "add"), {"role": Role.ANWALT, "user": "", "runs_per_hour": 9})
    assert "Für diese Rolle gibt es bereits ein Limit." in response.content.decode()
    assert RateLimit.objects.get().runs_per_hour == 5


def test_usage_view_renders_the_numbers_and_is_linked(chefin: Client, records: dict) -> None:
    LLMCall.objects.create(user=records[LLMCall].user, provider="openai", model="gpt-test", tier=3,
                           prompt_tokens=1000, completion_tokens=22, cost=Decimal("0.002000"))
    listing = chefin.get(_url(LLMCall, "changelist")).content.decode()
    usage_url = reverse("admin:helena_llmcall_usage")
    assert usage_url in listing and "Nutzung je Benutzer und Monat" in listing

    response = chefin.get(usage_url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Nutzung je Benutzer und Monat" in html
    assert "anwalt" in html
    assert "13.345" in html  # input tokens, German thousands separator
    assert "700" in html  # output tokens
    assert "0,0396" in html  # cost in EUR, 4 places
    row = response.context["rows"][0]
    assert (row.calls, row.prompt_tokens, row.completion_tokens, row.cost) == (
        2, 13345, 700, Decimal("0.039643"))


def test_usage_view_is_for_staff_only(records: dict) -> None:
    client = zweiter_faktor_gegeben(User.objects.get(username="anwalt"))
    response = client.get(reverse("admin:helena_llmcall_usage"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
