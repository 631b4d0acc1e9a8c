"""The per-user socket registry in Redis: a live socket's entry is kept alive by its process, one
that is gone expires (so a process that died without cleaning up does not lock its users out)."""

from __future__ import annotations

import asyncio

import pytest

from helena.realtime import socket_limits


def test_a_live_sockets_entry_outlives_the_ttl_and_a_closed_ones_does_not(monkeypatch) -> None:
    monkeypatch.setattr(socket_limits, "ttl", lambda: 0.6)
    user_id = 987_654

    async def scenario() -> tuple[int, int, int]:
        assert await socket_limits.register(user_id=user_id, channel="live")
        assert await socket_limits.register(user_id=user_id, channel="left")
        socket_limits._live.get().entries.pop("left")  # its process stopped refreshing it (died)
        await asyncio.sleep(1.5)  # over two TTLs: only a refreshed entry is still there
        both = await socket_limits.open_count(user_id=user_id)
        await socket_limits.unregister(user_id=user_id, channel="live")
        after = await socket_limits.open_count(user_id=user_id)
        return both, after, len(socket_limits._live.get().entries)

    assert asyncio.run(scenario()) == (1, 0, 0)


@pytest.fixture(autouse=True)
def _clean_registry() -> None:
    import redis
    from django.conf import settings

    redis.Redis.from_url(settings.REDIS_URL).delete(socket_limits.KEY.format(user_id=987_654))
