"""Löschung vormerken in Chromium: a lawyer opens a Beteiligter's „Löschung vormerken“ on the Akte, sees
when the person may be deleted, marks them and finds the mark and the Auskunft buttons on the Akte.
Screenshots go to /tmp/datenschutz-*.png and tests/artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from akten.models import Beteiligter, Loeschvormerkung
from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def shot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/datenschutz-{name}.png", full_page=True)
    screenshot(page, f"datenschutz-{name}")


def test_loeschung_vormerken_on_the_akte(kanzlei: Kanzlei, new_context) -> None:
    akte = kanzlei.akten["A"]
    mandant = Beteiligter.objects.create(akte=akte, rolle="mandant", name="Hans Müller",
                                         anschrift="Eichenweg 7\n50667 Köln", email="hans@example.de")
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], f"/akten/{akte.pk}/")
    page.goto(f"/akten/{akte.pk}/?tab=beteiligte")
    eintrag = page.locator(f"#beteiligter-{mandant.pk}")
    expect(eintrag.get_by_role("link", name="Auskunft (PDF) über Hans Müller")).to_be_visible()
    eintrag.get_by_role("link", name="Löschung vormerken für Hans Müller").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Löschung vormerken: Hans Müller")
    expect(page.locator("main")).to_contain_text("frühestens 6 Jahre nach Ende des Mandats")
    page.get_by_label("Begründung / Vermerk").fill("Brief vom 2. November 2026")
    shot(page, "formular")
    page.get_by_role("button", name="Löschung vormerken").click()
    expect(page.locator(".messages")).to_contain_text("Löschung für „Hans Müller“ vorgemerkt")
    eintrag = page.locator(f"#beteiligter-{mandant.pk}")
    expect(eintrag).to_contain_text("Löschung vorgemerkt")
    expect(eintrag.get_by_role("button", name="Vormerkung aufheben für Hans Müller")).to_be_visible()
    shot(page, "vorgemerkt")
    assert Loeschvormerkung.objects.get().beteiligter_id == mandant.pk
