"""The admin's Modellstufen page in Chromium, as the Kanzlei's admin uses it: the model check's box with
its button beside each tier, what Helena learned about the models, and „Vergessen“ that drops it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from helena.llm import learned
from helena.llm.dialects import profiles
from helena.models import ModelTier
from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses
HOST = "http://modelle.kanzlei.local:11434"


def test_the_admin_sees_the_check_and_forgets_what_was_learned(kanzlei: Kanzlei, new_context: Any) -> None:
    admin = kanzlei.users["admin"]
    admin.is_staff = admin.is_superuser = True
    admin.save(update_fields=["is_staff", "is_superuser"])
    ModelTier.objects.create(tier=1, provider="ollama", model_name="gemma3:12b", base_url=HOST)
    learned.forget_all()
    learned.learn(("ollama", HOST, "gemma3:12b"), profiles.NO_TOOLS,
                  "Der Server lehnte Werkzeuge ab (HTTP 400 „does not support tools“)")
    try:
        page = new_context().new_page()
        login(page, admin, "/admin/helena/modeltier/")
        box = page.locator("#modellpruefung")
        stufe1 = box.get_by_role("row").filter(has_text="gemma3:12b")
        expect(stufe1.get_by_role("button", name="Modell prüfen")).to_be_visible()
        expect(box).to_contain_text("gemma3:12b")
        gelernt = page.locator("#gelernt")
        expect(gelernt).to_contain_text("does not support tools")
        screenshot(page, "admin-modellstufen")
        gelernt.get_by_role("button", name="Vergessen", exact=True).click()
        expect(page.locator(".messagelist")).to_contain_text("1 gelernte Angabe(n) vergessen")
        expect(page.locator("#gelernt")).to_contain_text("nichts dazugelernt")
        screenshot(page, "admin-modellstufen-vergessen")
        assert learned.learned_facts() == []
    finally:
        learned.forget_all()
