"""„Zugriffe – wer hat gelesen“ in Chromium: a Sachbearbeiterin reads the Akte, the lawyer of the Akte
finds her read in the Aktivität tab, opens the whole log, filters it to her and downloads the CSV.
Screenshots go to /tmp/lesezugriffe-*.png and tests/artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def shot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/lesezugriffe-{name}.png", full_page=True)
    screenshot(page, f"lesezugriffe-{name}")


def test_the_lawyer_sees_who_read_the_akte(kanzlei: Kanzlei, new_context) -> None:
    akte = kanzlei.akten["A"]
    sachbearbeiter = kanzlei.users["sachbearbeiter"]
    sachbearbeiter.first_name, sachbearbeiter.last_name = "Sara", "Sachs"
    sachbearbeiter.save()
    lesende = new_context().new_page()
    login(lesende, sachbearbeiter, f"/akten/{akte.pk}/")
    lesende.goto(f"/akten/{akte.pk}/?tab=notizen")
    expect(lesende.get_by_role("heading", name="Zugriffe – wer hat gelesen")).to_have_count(0)

    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], f"/akten/{akte.pk}/")
    page.get_by_role("navigation", name="Bereiche der Akte").get_by_role("link", name="Aktivität").click()
    section = page.locator("#lesezugriffe")
    expect(section).to_contain_text("Sara Sachs · Notizen der Akte")
    expect(section).to_contain_text("Sara Sachs · die Akte")
    shot(page, "akte")

    section.get_by_role("link", name="Alle Zugriffe ansehen und filtern").click()
    expect(page.get_by_role("heading", name="Zugriffe – wer hat gelesen")).to_be_visible()
    page.get_by_label("Person").select_option(label="Sara Sachs")
    page.get_by_role("button", name="Filtern").click()
    expect(page.get_by_text("2 Zugriffe", exact=True)).to_be_visible()
    expect(page.locator(".lesezugriffe")).not_to_contain_text("anwalt ·")
    shot(page, "seite")
    with page.expect_download() as download:
        page.get_by_role("link", name="Als CSV herunterladen").click()
    inhalt = Path(download.value.path()).read_text(encoding="utf-8-sig")
    assert inhalt.splitlines()[0].startswith("Zeitpunkt;Person;Benutzername;Weg;Was")
    assert inhalt.count("Sara Sachs;sachbearbeiter;Seite (Browser)") == 2
