"""The real servers Helena stands on: PostgreSQL (german FTS), Redis channel layer, a Celery worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection

from helena.tasks import healthcheck
from tests.conftest import database_url

BASE_DIR = Path(__file__).resolve().parents[2]


def test_database_is_postgresql_with_german_text_search(db) -> None:
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_tsvector('german', 'Kündigungsschutzklagen wurden erhoben')")
        (vector,) = cursor.fetchone()
    assert "kundigungsschutzklag" in vector


def test_channel_layer_roundtrip_over_redis() -> None:
    layer = get_channel_layer()
    assert type(layer).__module__.startswith("channels_redis")

    async def roundtrip() -> dict:
        channel = await layer.new_channel()
        await layer.group_add("test-gruppe", channel)
        await layer.group_send("test-gruppe", {"type": "helena.event", "text": "Fristablauf"})
        message = await layer.receive(channel)
        await layer.group_discard("test-gruppe", channel)
        return message

    assert async_to_sync(roundtrip)()["text"] == "Fristablauf"


@pytest.mark.slow
def test_celery_worker_runs_a_task_against_the_test_database(transactional_db) -> None:
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": settings.REDIS_URL}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        result = healthcheck.delay().get(timeout=60)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert result["database"] == settings.DATABASES["default"]["NAME"]
