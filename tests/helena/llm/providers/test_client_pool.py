"""A run's model client goes back to a free-list at the run's end and serves the next run on the same
resident event loop; concurrent runs never share one, and a short-lived loop's client is closed."""

from __future__ import annotations

import asyncio

from helena.infra.loops import make_resident
from helena.llm.providers import http
from helena.llm.providers.ollama import OllamaModel


def test_a_client_serves_one_run_at_a_time_and_then_the_next() -> None:
    async def go() -> None:
        make_resident(asyncio.get_running_loop())
        first, second = OllamaModel("m", host="http://127.0.0.1:9"), OllamaModel("m", host="http://127.0.0.1:9")
        a, b = first._client(), second._client()
        assert a is not b  # two runs at once: a client each
        await first.aclose()
        await second.aclose()
        third = OllamaModel("m", host="http://127.0.0.1:9")
        assert third._client() in (a, b)  # taken from the free-list, not built anew
        other = OllamaModel("m", host="http://127.0.0.1:9", timeout=5)
        assert other._client() not in (a, b)  # another timeout: another client
        await third.aclose()
        await other.aclose()

    asyncio.run(go())


def test_a_short_lived_loops_client_is_closed() -> None:
    async def go() -> bool:
        model = OllamaModel("m", host="http://127.0.0.1:9")
        client = model._client()
        await model.aclose()
        again = OllamaModel("m", host="http://127.0.0.1:9")._client()
        return client._client.is_closed and again is not client

    assert asyncio.run(go())


def test_the_free_list_is_bounded() -> None:
    async def go() -> int:
        make_resident(asyncio.get_running_loop())
        models = [OllamaModel("m", host="http://127.0.0.1:8") for _ in range(http.IDLE_PER_KEY + 3)]
        for model in models:
            model._client()
        for model in models:
            await model.aclose()
        return len(http.POOL._idle[asyncio.get_running_loop()][("ollama", "http://127.0.0.1:8", 60)])

    assert asyncio.run(go()) == http.IDLE_PER_KEY
