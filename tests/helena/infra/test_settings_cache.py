"""The admin's settings are read once per process: a second run start asks the database nothing
about them; a change in the admin is seen at once here and, through the version in Redis, by every
other process; a rolled-back change leaves nothing behind."""

from __future__ import annotations

import time

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from helena.conversations import services
from helena.infra import settings_cache
from helena.llm import router
from helena.models import Conversation, HelenaSettings, ModelTier, RateLimit
from helena.runs import claim
from tests.conftest import Kanzlei

# Committed, as in production: a change inside an open transaction switches the cache off until
# the commit (test_a_rolled_back_change_is_not_kept).
pytestmark = pytest.mark.django_db(transaction=True)
SETTINGS_TABLES = ("helena_helenasettings", "helena_modeltier", "helena_taskroute", "helena_ratelimit")


def _settings_queries(queries: list[dict]) -> list[str]:
    return [q["sql"] for q in queries if any(t in q["sql"] for t in SETTINGS_TABLES)]


def test_a_second_run_start_reads_no_settings(kanzlei: Kanzlei, tiers, monkeypatch) -> None:
    monkeypatch.setattr(services, "dispatch", lambda run: None)
    user = kanzlei.users["anwalt"]
    conversation = Conversation.objects.create(user=user)
    first = services.start_run(user=user, conversation=conversation, text="Wann endet die Frist?",
                               mode="inline")
    claim.claim(first.pk)
    with CaptureQueriesContext(connection) as queries:
        run = services.start_run(user=user, conversation=conversation, text="Und die Berufung?",
                                 mode="inline")
        assert claim.claim(run.pk) is not None
    assert _settings_queries(queries.captured_queries) == []


def test_a_change_is_seen_here_at_once_and_elsewhere_through_redis(kanzlei: Kanzlei, tiers) -> None:
    assert router.tier_configs()[1].name == ModelTier.objects.get(tier=1).model_name
    tier = ModelTier.objects.get(tier=1)
    tier.model_name = "qwen3:8b"
    tier.save()  # the admin's save: this process forgets its copy at once
    assert router.tier_configs()[1].name == "qwen3:8b"

    # another process changes a row (here: an update that sends no signal) and bumps the version
    RateLimit.objects.create(user=kanzlei.users["anwalt"], runs_per_hour=7)
    from helena.runs.rate_limit import runs_per_hour_for

    assert runs_per_hour_for(kanzlei.users["anwalt"]) == 7
    RateLimit.objects.filter(user=kanzlei.users["anwalt"]).update(runs_per_hour=3)
    assert runs_per_hour_for(kanzlei.users["anwalt"]) == 7  # not told yet: the copy stands
    settings_cache._redis().incr(settings_cache.VERSION_KEY)
    time.sleep(settings_cache.VERSION_TTL + 0.01)
    assert runs_per_hour_for(kanzlei.users["anwalt"]) == 3


def test_a_rolled_back_change_is_not_kept(kanzlei: Kanzlei) -> None:
    before = HelenaSettings.cached().max_concurrent_runs_per_user
    try:
        with transaction.atomic():
            settings = HelenaSettings.load()
            settings.max_concurrent_runs_per_user = before + 5
            settings.save()
            assert HelenaSettings.cached().max_concurrent_runs_per_user == before + 5
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    assert HelenaSettings.cached().max_concurrent_runs_per_user == before
