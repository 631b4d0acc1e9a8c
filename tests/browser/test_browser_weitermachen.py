"""The chat in Chromium while the daphne running its answer dies: the page (served by a second
daphne) shows „Helena macht weiter …“ where the answer paused and the answer once, not twice
(issue 38). Screenshot: tests/artifacts/chat-helena-macht-weiter.png."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from helena.models import AgentRun, Conversation, RunEvent
from tests.browser.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, chat_path, login
from tests.conftest import Kanzlei, daphne
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TAKEOVER = {"HELENA_RUN_TAKEOVER": "true", "DEBUG": "1", "HELENA_WS_RESYNC_SECONDS": "1"}
ANSWER = "Die Berufungsfrist endet am Mittwoch, dem 02.12.2026."


def _respond(request: dict[str, Any]) -> dict[str, Any]:
    done = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
    if done < 3:
        return {"text": f"Ich rechne Schritt {done + 1} nach. ", "delay": 1.5, "tool_calls": [
            {"name": "calculate_frist", "arguments": {"start": "2026-11-02", "dauer": {"wochen": done + 1}}}]}
    return {"text": ANSWER, "delay": 1.0}


@pytest.fixture
def servers() -> Iterator[tuple[str, str]]:
    """Two daphne processes that take over each other's runs: the first runs the answer, the
    second serves the page."""
    with daphne(TAKEOVER) as first, daphne(TAKEOVER) as second:
        previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs in this thread
        yield first, second
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def test_the_chat_shows_helena_going_on_after_her_process_died(
        kanzlei: Kanzlei, tiers: ScriptedLLMServer, servers: tuple[str, str], browser: Browser) -> None:
    first, second = servers
    tiers.respond_with(_respond)
    user = kanzlei.users["anwalt"]
    conversation = Conversation.objects.create(user=user)
    context = browser.new_context(base_url=f"http://{second}", locale="de-DE",
                                  viewport={"width": 1100, "height": 900})
    page = context.new_page()
    login(page, user, chat_path(conversation))

    headers = {"Authorization": f"Bearer {kanzlei.tokens['anwalt']}"}
    sent = httpx.post(f"http://{first}/api/v1/helena/conversations/{conversation.pk}/messages",
                      json={"text": "Wann endet die Berufungsfrist?", "mode": "inline"}, headers=headers)
    assert sent.status_code == 202, sent.text
    run_id = sent.json()["run_id"]
    deadline = time.monotonic() + 30
    while not RunEvent.objects.filter(run_id=run_id, type="tool_result").exists():
        assert time.monotonic() < deadline
        time.sleep(0.1)
    os.kill(int(AgentRun.objects.get(pk=run_id).owner.split(":")[1]), signal.SIGKILL)

    answer = page.locator(f'article[data-run-id="{run_id}"]')
    notice = answer.locator(".chat-notice", has_text="Helena macht weiter")
    expect(notice).to_be_visible(timeout=45_000)
    expect(answer.locator(".chat-text")).to_contain_text(ANSWER, timeout=30_000)
    expect(answer).to_have_attribute("data-active", "false", timeout=30_000)
    answer.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "chat-helena-macht-weiter.png"))  # the viewport (sticky composer)
    shown = answer.locator(".chat-text").inner_text()
    assert shown.count(ANSWER) == 1, shown
    assert answer.locator(".chat-notice", has_text="Helena macht weiter").count() == 1
    page.reload()  # the conversation read back from the server keeps the notice where the answer paused
    answer = page.locator(f'article[data-run-id="{run_id}"]')
    expect(answer.locator(".chat-notice", has_text="Helena macht weiter")).to_have_count(1)
    expect(answer.locator(".chat-text")).to_contain_text(ANSWER)
    context.close()
