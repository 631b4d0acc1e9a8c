"""„Auftrag an Helena“ on the Akte page as a lawyer uses it in Chromium when no model server answers:
the refusal and its reason are in view at once (not a Hinweis of failure a minute later), the text
waits in the form; the Praktikant sees no form he may not use.
Screenshots: tests/artifacts/auftrag-*.png."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from playwright.sync_api import expect

from helena.models import Conversation, HelenaTask, ModelTier
from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def _dead_host() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_a_task_without_a_model_is_refused_in_view_and_keeps_its_text(kanzlei: Kanzlei,
                                                                      new_context: Any) -> None:
    host = _dead_host()
    for tier in (1, 2):
        ModelTier.objects.create(tier=tier, provider="ollama", model_name="klein", base_url=host)
    akte = kanzlei.akten["A"]
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], f"/akten/{akte.pk}/")
    form = page.locator("#auftrag")
    form.get_by_label("Was soll Helena in dieser Akte erledigen?").fill("Entwirf die Klageerwiderung")
    form.get_by_role("button", name="Auftrag geben").click()
    message = page.locator(".messages")
    expect(message).to_contain_text("Kein Sprachmodell ist erreichbar")
    expect(message).to_contain_text("Dein Auftrag wurde nicht angenommen")
    expect(message).to_be_in_viewport()
    expect(page.get_by_label("Was soll Helena in dieser Akte erledigen?")).to_have_value(
        "Entwirf die Klageerwiderung")
    screenshot(page, "auftrag-ohne-modell")
    assert not HelenaTask.objects.exists() and not Conversation.objects.exists()


def test_the_praktikant_sees_no_task_form(kanzlei: Kanzlei, new_context: Any) -> None:
    akte = kanzlei.akten["B"]
    page = new_context().new_page()
    login(page, kanzlei.users["praktikant"], f"/akten/{akte.pk}/")
    expect(page.get_by_role("heading", name=akte.aktenzeichen, exact=False).first).to_be_visible()
    expect(page.get_by_text("Auftrag an Helena")).to_have_count(0)
    expect(page.locator("#auftrag")).to_have_count(0)
    screenshot(page, "auftrag-praktikant")
