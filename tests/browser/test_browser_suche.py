"""The search box in the header as a lawyer uses it, by keyboard only, in Chromium against daphne:
Strg+K from any page, typing, ↓ to a hit, Enter onto its page; an Aktenzeichen and a citation jump
straight; Escape closes; a Praktikant finds nothing of an Akte they may not see. The screenshot of
the open list goes to tests/artifacts/suche.png (and /tmp/suche.png)."""

from __future__ import annotations

import re
import shutil
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import Page, expect

from akten.models import Beteiligter, Dokument, Frist
from helena.knowledge import cache
from tests.browser.test_browser import (
    ARTIFACTS,
    _orm_beside_playwright,
    browser,
    login,
    new_context,
    screenshot,
)
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def box(page: Page):
    return page.get_by_role("combobox", name="Suche in Akten")


def options(page: Page):
    return page.locator("#suchfeld-liste [role=option]")


def selected(page: Page):
    return page.locator("#suchfeld-liste [role=option][aria-selected=true]")


def test_keyboard_only_from_ctrl_k_to_the_frist(kanzlei: Kanzlei, new_context) -> None:
    akte = kanzlei.akten["A"]  # 1/26 Meier ./. Stahlbau GmbH
    Beteiligter.objects.create(akte=akte, rolle="gegner", name="Stahlbau GmbH")
    frist = Frist.objects.create(akte=akte, bezeichnung="Stellungnahme Stahlbau zum Gutachten",
                                 datum=timezone.localdate() + timedelta(days=9))
    Dokument.objects.create(akte=akte, titel="Gutachten Hallendach",
                            inhalt="Die Statik der Stahlbau GmbH war mangelhaft geplant.")
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], "/akten/")

    page.get_by_role("heading", name="Akten").click()  # the focus is anywhere on the page
    page.keyboard.press("Control+K")
    expect(box(page)).to_be_focused()
    page.keyboard.type("Stahlbau")
    expect(box(page)).to_have_attribute("aria-expanded", "true")
    gruppen = page.locator("#suchfeld-liste [role=group]")
    expect(gruppen).to_have_count(3)
    expect(gruppen.nth(0)).to_contain_text("Akten")
    expect(gruppen.nth(1)).to_contain_text("Fristen und Termine")
    expect(gruppen.nth(2)).to_contain_text("Dokumente")
    expect(options(page).nth(0)).to_contain_text("1/26 Meier ./. Stahlbau GmbH")
    expect(options(page).nth(1)).to_contain_text("Stellungnahme Stahlbau zum Gutachten")
    expect(options(page).last).to_have_text("Alle Treffer für „Stahlbau“ anzeigen")
    expect(page.locator("[data-suchfeld-status]")).to_have_text("3 Treffer in 3 Gruppen.")

    page.keyboard.press("ArrowDown")
    expect(selected(page)).to_contain_text("1/26 Meier")
    page.keyboard.press("ArrowDown")
    expect(selected(page)).to_contain_text("Stellungnahme Stahlbau")
    expect(box(page)).to_have_attribute("aria-activedescendant", "suchfeld-o-1")
    screenshot(page, "suche")
    shutil.copy(ARTIFACTS / "suche.png", "/tmp/suche.png")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/akten/{akte.pk}/#frist-{frist.pk}$"))
    expect(page.locator(f"#frist-{frist.pk}")).to_contain_text("Stellungnahme Stahlbau zum Gutachten")

    # Escape closes the list and leaves the text; Enter without a choice opens the results page
    page.keyboard.press("Control+K")
    page.keyboard.type("Gutachten")
    expect(options(page).first).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("[data-suchfeld-popup]")).to_be_hidden()
    expect(box(page)).to_have_attribute("aria-expanded", "false")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/suche/\?q=Gutachten$"))
    expect(page.get_by_role("heading", name="Dokumente")).to_be_visible()
    expect(page.get_by_role("link", name="Gutachten Hallendach")).to_be_visible()


def test_an_aktenzeichen_jumps_straight_and_others_stay_hidden(kanzlei: Kanzlei, new_context) -> None:
    page = new_context().new_page()
    login(page, kanzlei.users["praktikant"], "/akten/")
    expect(page.locator("[data-suchfeld-taste]")).to_have_text("Strg K")  # the hint, while not focused
    page.keyboard.press("Control+K")
    page.keyboard.type("2/26")
    expect(selected(page)).to_contain_text("2/26 Schulz ./. Wohnbau AG")  # Enter would open it
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/akten/{kanzlei.akten['B'].pk}/")

    page.keyboard.press("Control+K")
    page.keyboard.type("3/26")  # Akte C exists, but not for the Praktikant
    expect(page.locator("[data-suchfeld-status]")).to_have_text("Nichts gefunden für „3/26“.")
    expect(options(page)).to_have_count(1)  # only "Alle Treffer …"
    page.keyboard.press("Enter")  # no choice: the results page, no jump
    expect(page.get_by_text("Nichts gefunden für „3/26“.")).to_be_visible()
    screenshot(page, "suche-seite")

    # typed and Enter at once, before any list: the form goes to /suche/, which jumps
    page.keyboard.press("Control+K")
    page.keyboard.type("2/26")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/akten/{kanzlei.akten['B'].pk}/")
    page.wait_for_load_state("networkidle")  # the Akte page has loaded all it asks for


def test_a_citation_opens_the_statute_page(kanzlei: Kanzlei, new_context) -> None:
    call_command("load_gesetze", "--only", "ZPO", verbosity=0)
    time.sleep(cache.RECHECK_SECONDS + 0.5)  # the server's copy of the loaded laws is rechecked that often
    page = new_context().new_page()
    login(page, kanzlei.users["sekretariat"], "/akten/")
    page.keyboard.press("Control+K")
    page.keyboard.type("§ 517 ZPO")
    expect(selected(page)).to_contain_text("§ 517 ZPO – Berufungsfrist")
    stand = selected(page).locator(".suchfeld__stand")  # small and grey, under the norm
    expect(stand).to_have_text(re.compile(r"^Stand: zuletzt geändert durch "))
    expect(page.locator("[data-suchfeld-status]")).to_contain_text("Es sind keine Entscheidungen geladen.")
    page.keyboard.press("Enter")
    page.wait_for_url("**/wissen/normen/ZPO/517/")
    expect(page.get_by_role("heading", name="§ 517 ZPO")).to_contain_text("Berufungsfrist")
    expect(page.get_by_text("Die Berufungsfrist beträgt einen Monat")).to_be_visible()
    page.get_by_role("link", name=re.compile(r"^§ 518")).click()
    expect(page.get_by_role("heading", name=re.compile(r"^§ 518 ZPO"))).to_be_visible()
