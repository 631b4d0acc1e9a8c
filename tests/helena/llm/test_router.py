"""Complexity classifier and model router: tiers from admin rows or the environment, health checks,
fallback when a tier is missing, forbidden or down, and escalation.

Async code runs through async_to_sync, so the router's sync_to_async DB reads run in this test's
thread and see the rows of the test transaction.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from asgiref.sync import async_to_sync

from helena.agent.classifier import Classification, classify, classify_with_model
from helena.llm import router
from helena.llm.base import LLMError, ModelUnavailable, collect
from helena.llm.providers import health
from helena.llm.providers.ollama import OllamaModel
from helena.llm.providers.openai_compat import OpenAICompatModel
from helena.llm.providers.scripted import ScriptedModel, ScriptedTurn
from helena.llm.wrappers.redacting import RedactingModel
from helena.models import HelenaSettings, ModelTier, TaskRoute
from tests.scripted_llm_server import ScriptedLLMServer, start_scripted_server, unused_port

# --- classifier -------------------------------------------------------------------------------------

CASES = [
    # (text, mode, tier, task_type)
    ("Wann läuft die Berufungsfrist in der Akte 101/26 ab?", "inline", 1, "frage"),
    ("Welche Frist gilt für die Kündigungsschutzklage?", "inline", 1, "frage"),
    ("Wie viel kostet ein Verfahren mit 12.000 € Streitwert nach RVG?", "inline", 1, "frage"),
    ("Zeig mir die offenen Fristen", "inline", 1, "frage"),
    ("Liste die offenen Akten von Frau Schneider", "inline", 1, "frage"),
    ("Zeig mir den Entwurf", "inline", 1, "frage"),
    ("Entwirf eine Klageerwiderung für die Akte Müller", "background", 2, "schriftsatz"),
    ("Erstelle einen Schriftsatz: Berufung gegen das Urteil des AG Köln", "background", 2, "schriftsatz"),
    ("Formuliere einen Antrag auf Akteneinsicht", "background", 2, "schriftsatz"),
    ("Schreibe eine E-Mail an den Mandanten wegen des Termins", "background", 2, "entwurf"),
    ("Kannst du dem Mandanten einen Brief schreiben?", "background", 2, "entwurf"),
    ("Verfasse eine kurze Notiz zum Telefonat mit der Versicherung", "background", 2, "entwurf"),
    ("Recherchiere die Rechtsprechung des BAG zur Verdachtskündigung", "background", 2, "recherche"),
    ("Vergleiche die Kündigungsfristen in allen Arbeitsrechtsakten", "background", 2, "recherche"),
    ("Prüfe alle offenen Fristen auf Kollisionen mit Feiertagen", "background", 2, "recherche"),
    ("Fasse alle Dokumente der Akte 101/26 zusammen", "background", 2, "recherche"),
    ("Analysiere die Erfolgsaussichten der Räumungsklage", "background", 2, "recherche"),
    ("Was steht im Schreiben der Gegenseite vom 3. März?", "inline", 2, "frage"),
    ("Erkläre mir den Unterschied zwischen ordentlicher und außerordentlicher Kündigung im "
     "Arbeitsrecht, mit Blick auf die Rechtsprechung", "inline", 2, "frage"),
    ("Wie ist die Rechtslage, wenn der Vermieter die Kaution nicht zurückzahlt und der Mieter "
     "schon ausgezogen ist und keine neue Anschrift hinterlassen hat?", "inline", 2, "frage"),
    ("Was steht im Schriftsatz der Gegenseite zur Klage?", "inline", 2, "frage"),
]


@pytest.mark.parametrize(("text", "mode", "tier", "task_type"), CASES)
def test_classifier_rules(text: str, mode: str, tier: int, task_type: str) -> None:
    result = classify(text=text)
    assert (result.mode, result.tier, result.task_type) == (mode, tier, task_type), result.reason
    assert result.reason and len(result.reason) <= 300


def test_explicit_mode_overrides_the_mode_only() -> None:
    inline = classify(text="Entwirf eine Klageerwiderung", mode="inline")
    assert (inline.mode, inline.tier, inline.task_type) == ("inline", 2, "schriftsatz")
    background = classify(text="Wann ist der Termin?", mode="background")
    assert (background.mode, background.tier) == ("background", 1)
    assert "vom Benutzer" in background.reason
    assert classify(text="Wann ist der Termin?", mode="auto").mode == "inline"


def test_task_route_to_the_cloud_needs_cloud_allowed() -> None:
    text = "Entwirf eine Klage gegen die Bauer Logistik GmbH"
    routes = {"schriftsatz": 3}
    assert classify(text=text, routes=routes, cloud_allowed=True).tier == 3
    refused = classify(text=text, routes=routes, cloud_allowed=False)
    assert refused.tier == 2
    assert "nicht freigegeben" in refused.reason
    assert classify(text=text, cloud_allowed=True).tier == 2  # no route: tier 2 even with cloud


def test_task_route_applies_to_any_task_type() -> None:
    assert classify(text="Wann ist der Termin?", routes={"frage": 2}).tier == 2
    assert classify(text="Recherchiere die BGH-Rechtsprechung", routes={"recherche": 3},
                    cloud_allowed=True).tier == 3
    assert classify(text="Schreibe eine Notiz", routes={"frage": 1}).tier == 2  # other type


def _llm(answer: str | Exception) -> ScriptedModel:
    if isinstance(answer, Exception):
        return ScriptedModel([ScriptedTurn(error=answer)])
    return ScriptedModel([answer])


def test_llm_classifier_uses_valid_json() -> None:
    fallback = classify(text="Hilf mir mit der Akte Müller")
    model = _llm('<think>hm</think>Gern: {"mode": "background", "tier": 2, "task_type": "recherche", '
                 '"reason": "mehrere Quellen"}')
    result = asyncio.run(classify_with_model(model=model, text="Hilf mir mit der Akte Müller",
                                             fallback=fallback))
    assert (result.mode, result.tier, result.task_type) == ("background", 2, "recherche")
    assert "mehrere Quellen" in result.reason
    assert model.calls[0].messages[-1]["content"] == "Hilf mir mit der Akte Müller"


@pytest.mark.parametrize("answer", [
    "Das ist eine einfache Frage.",
    '{"mode": "sofort", "tier": 1, "task_type": "frage", "reason": "x"}',
    '{"mode": "inline", "tier": 7, "task_type": "frage", "reason": "x"}',
    '{"mode": "inline", "tier": 1, "task_type": "", "reason": "x"}',
    '{"mode": "inline", "tier": 1',
    LLMError("kaputt"),
])
def test_llm_classifier_falls_back_on_anything_odd(answer: str | Exception) -> None:
    fallback = Classification("inline", 2, "frage", "Regeln")
    result = asyncio.run(classify_with_model(model=_llm(answer), text="Hallo", fallback=fallback))
    assert result == fallback


def test_llm_classifier_cannot_send_to_the_cloud_on_its_own() -> None:
    fallback = Classification("inline", 2, "frage", "Regeln")
    answer = '{"mode": "background", "tier": 3, "task_type": "frage", "reason": "schwer"}'
    result = asyncio.run(classify_with_model(model=_llm(answer), text="x", fallback=fallback,
                                             cloud_allowed=True))
    assert result.tier == 2


# --- router: configuration ----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _fresh_health_cache() -> None:
    router.clear_health_cache()
    yield
    router.clear_health_cache()


@pytest.fixture
def server() -> ScriptedLLMServer:
    with start_scripted_server() as srv:
        yield srv


@pytest.fixture
def env(settings) -> object:
    settings.OLLAMA_HOST = "http://ollama.lan:11434"  # an intranet name: local
    settings.HELENA_TIER1_MODEL = "qwen3:4b"
    settings.HELENA_TIER2_MODEL = "qwen3:14b"
    settings.HELENA_TIER3_MODEL = ""
    settings.OPENAI_BASE_URL = ""
    settings.OPENAI_API_KEY = ""
    return settings


def allow_cloud() -> None:
    settings_row = HelenaSettings.load()
    settings_row.cloud_allowed, settings_row.cloud_confirmation = True, "AVV geschlossen"
    settings_row.save()


def down_url() -> str:
    return f"http://127.0.0.1:{unused_port()}"


def resolve(tier: int, *, cloud_allowed: bool = False) -> router.Resolved:
    return async_to_sync(router.resolve)(tier=tier, cloud_allowed=cloud_allowed)


def row(tier: int, **fields: object) -> ModelTier:
    defaults: dict[str, object] = {"provider": "openai" if tier == 3 else "ollama",
                                   "model_name": f"modell-{tier}"}
    defaults.update(fields)
    return ModelTier.objects.update_or_create(tier=tier, defaults=defaults)[0]


@pytest.mark.django_db
def test_env_defaults_without_rows(env) -> None:
    (one, _), (two, _) = router.get_model_for_tier(1), router.get_model_for_tier(2)
    assert isinstance(one, OllamaModel) and isinstance(two, OllamaModel)
    assert (one.name, one.host) == ("qwen3:4b", "http://ollama.lan:11434")
    assert (two.name, two.host) == ("qwen3:14b", "http://ollama.lan:11434")
    assert router.get_model_for_tier(3) is None  # unset = no cloud
    env.HELENA_TIER3_MODEL = "gpt-4o-mini"
    env.OPENAI_BASE_URL = "https://cloud.example/v1"
    env.OPENAI_API_KEY = "sk-test"
    assert router.get_model_for_tier(3) is None  # configured, but the firm has not opted in
    allow_cloud()
    redacting, config = router.get_model_for_tier(3)
    assert isinstance(redacting, RedactingModel) and config.cloud  # a cloud model only ever redacted
    three = redacting.inner
    assert isinstance(three, OpenAICompatModel)
    assert (three.name, three.base_url) == ("gpt-4o-mini", "https://cloud.example/v1")
    assert three.api_key == "sk-test"


@pytest.mark.django_db
def test_admin_row_overrides_env_and_changes_apply_to_the_next_resolve(env, server) -> None:
    tier2 = row(2, model_name="llama3.3:70b", base_url=server.url, context_window=4096,
                price_input_per_1k=Decimal("0.001"))
    resolved = resolve(2)
    assert (resolved.tier, resolved.name, resolved.host, resolved.provider) == (2, "llama3.3:70b", server.url,
                                                                              "ollama")
    assert resolved.price_in == Decimal("0.001") and resolved.fallback_note == ""
    assert asyncio.run(resolved.model.context_window()) == 4096  # the override caps the window

    tier2.model_name = "mistral-small:24b"
    tier2.save()
    assert resolve(2).name == "mistral-small:24b"  # no restart, no cache


@pytest.mark.django_db
def test_resolved_model_talks_to_the_configured_host(env, server) -> None:
    row(1, model_name="klein", base_url=server.url, context_window=2048)
    server.script([{"text": "Hallo aus Stufe eins"}])
    resolved = resolve(1)
    turn = asyncio.run(collect(resolved.model.stream(messages=[{"role": "user", "content": "Hi"}])))
    assert turn.text == "Hallo aus Stufe eins"
    chat = server.requests_to("/api/chat")[0]
    assert chat["model"] == "klein" and chat["options"]["num_ctx"] == 2048


@pytest.mark.django_db
def test_disabled_tier_is_skipped(env, server) -> None:
    row(1, base_url=server.url)
    row(2, base_url=server.url, enabled=False)
    assert router.get_model_for_tier(2) is None  # a disabled row does not fall back to the env
    resolved = resolve(2)
    assert resolved.tier == 1 and resolved.requested_tier == 2
    assert "Stufe 2 ist nicht eingerichtet" in resolved.fallback_note


@pytest.mark.django_db
def test_context_window_override_for_the_cloud(env) -> None:
    row(3, model_name="gpt-4o", base_url="https://cloud.example/v1", context_window=32000)
    allow_cloud()
    model = router.get_model_for_tier(3)[0].inner
    assert isinstance(model, OpenAICompatModel)
    assert asyncio.run(model.context_window()) == 32000


# --- router: fallback ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_tier2_down_falls_back_to_healthy_tier1(env, server) -> None:
    dead = down_url()
    row(1, model_name="klein", base_url=server.url)
    row(2, model_name="gross", base_url=dead)
    resolved = resolve(2)
    assert (resolved.tier, resolved.name, resolved.host) == (1, "klein", server.url)
    assert dead in resolved.fallback_note and "Stufe 1 (klein)" in resolved.fallback_note


@pytest.mark.django_db
def test_tier1_down_tries_the_other_local_tier(env, server) -> None:
    row(1, base_url=down_url())
    row(2, base_url=server.url)
    assert resolve(1).tier == 2


@pytest.mark.django_db
def test_all_local_down_with_cloud_goes_to_tier3(env, server) -> None:
    row(1, base_url=down_url())
    row(2, base_url=down_url())
    row(3, model_name="cloud-modell", base_url=server.url + "/v1")
    resolved = resolve(2, cloud_allowed=True)
    assert (resolved.tier, resolved.provider, resolved.name) == (3, "openai", "cloud-modell")
    assert resolved.fallback_note


@pytest.mark.django_db
def test_all_down_without_cloud_asks_for_the_admin_and_logs_the_host(env) -> None:
    dead = down_url()
    row(1, base_url=dead)
    row(2, base_url=dead)
    row(3, model_name="cloud-modell", base_url="https://cloud.example/v1")
    with pytest.raises(ModelUnavailable) as info:
        resolve(2, cloud_allowed=False)
    # the lawyer reads what to do; the address is for the admin (detail → Fehlerprotokoll)
    assert str(info.value) == ("Helena kann gerade nicht antworten: Kein Sprachmodell ist erreichbar. "
                               "Bitte wende dich an die Administration der Kanzlei.")
    assert dead not in str(info.value) and f"{dead} antwortet nicht" in info.value.detail


@pytest.mark.django_db
def test_env_default_host_down_is_named_for_the_admin(env) -> None:
    env.OLLAMA_HOST = down_url()
    with pytest.raises(ModelUnavailable) as info:
        resolve(1)
    assert env.OLLAMA_HOST in info.value.detail


@pytest.mark.django_db
def test_nothing_configured_at_all(env) -> None:
    env.HELENA_TIER1_MODEL = ""
    env.HELENA_TIER2_MODEL = ""
    with pytest.raises(ModelUnavailable) as info:
        resolve(2, cloud_allowed=True)
    assert "Kein Sprachmodell eingerichtet" in str(info.value)


@pytest.mark.django_db
def test_cloud_requested_but_not_allowed_uses_best_local(env, server) -> None:
    row(1, base_url=server.url)
    row(2, model_name="gross", base_url=server.url)
    row(3, model_name="cloud-modell", base_url=server.url + "/v1")
    resolved = resolve(3, cloud_allowed=False)
    assert (resolved.tier, resolved.name) == (2, "gross")
    assert "Cloud" in resolved.fallback_note
    assert resolve(3, cloud_allowed=True).tier == 3


@pytest.mark.django_db
def test_unconfigured_tier_uses_next_lower(env, server) -> None:
    row(1, base_url=server.url)
    row(2, base_url=server.url)
    assert resolve(3, cloud_allowed=True).tier == 2  # cloud allowed, but no tier 3 configured


@pytest.mark.django_db
def test_cloud_allowed_needs_settings_and_a_tier3_model(env) -> None:
    assert router.is_cloud_allowed() is False
    settings_row = HelenaSettings.load()
    settings_row.cloud_allowed = True
    settings_row.save()
    assert router.is_cloud_allowed() is False  # no tier 3 configured
    row(3, model_name="cloud-modell", base_url="https://cloud.example/v1")
    assert router.is_cloud_allowed() is True


@pytest.mark.django_db
def test_task_routes_for_the_classifier() -> None:
    TaskRoute.objects.create(task_type="schriftsatz", tier=3)
    assert router.task_routes() == {"schriftsatz": 3}


# --- health check ----------------------------------------------------------------------------------


def test_health_check_is_cached_per_host(server, monkeypatch) -> None:
    calls: list[str] = []
    probe = health._probe

    async def counting(host: str) -> bool:
        calls.append(host)
        return await probe(host)

    monkeypatch.setattr(health, "_probe", counting)
    dead = down_url()

    async def checks() -> list[bool]:
        return [await health.is_healthy(server.url), await health.is_healthy(server.url + "/"),
                await health.is_healthy(dead), await health.is_healthy(dead)]

    assert asyncio.run(checks()) == [True, True, False, False]
    assert calls == [server.url, dead]  # the second check within 5 s made no request

    # Once the result is older than the TTL, the host is asked again.
    stamp, healthy = health._health_cache[server.url]
    health._health_cache[server.url] = (stamp - health.HEALTH_TTL - 0.1, healthy)
    assert asyncio.run(health.is_healthy(server.url)) is True
    assert calls == [server.url, dead, server.url]


def test_health_check_has_a_short_timeout() -> None:
    assert health.HEALTH_TIMEOUT <= 2 and 3 <= health.HEALTH_TTL <= 10


# --- escalation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("tier", "cloud", "configured", "expected"), [
    (1, False, {1, 2}, 2),
    (1, True, {1, 2, 3}, 2),
    (2, False, {1, 2, 3}, None),
    (2, True, {1, 2, 3}, 3),
    (2, True, {1, 2}, None),  # cloud allowed but not configured
    (3, True, {1, 2, 3}, None),  # never beyond 3
    (1, True, {1, 3}, 3),  # tier 2 missing: straight to the cloud, if allowed
    (1, False, {1, 3}, None),
])
def test_escalate(tier: int, cloud: bool, configured: set[int], expected: int | None) -> None:
    assert router.escalate(tier, cloud_allowed=cloud, configured=configured) == expected


@pytest.mark.django_db
def test_escalate_reads_the_configuration(env) -> None:
    assert router.escalate(1) == 2
    assert router.escalate(2) is None  # no cloud
    row(3, model_name="cloud-modell", base_url="https://cloud.example/v1")
    settings_row = HelenaSettings.load()
    settings_row.cloud_allowed = True
    settings_row.save()
    assert router.escalate(2) == 3
    assert router.escalate(3) is None
