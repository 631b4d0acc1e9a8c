"""The statute page after an update of its law, in Chromium against daphne, as a lawyer follows a
citation from an old answer: the warning that the norm changed after the citation, the wording at the
time of the citation behind „Vorherige Fassung“, the official footnotes, and a repealed
norm that is still reachable. Screenshots: tests/artifacts/norm-geaendert.png, norm-aufgehoben.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei
from tests.helena.knowledge.test_gesetze_aktualisieren import CORPUS, geaendert, xml_of, zip_with

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def test_a_citation_leads_to_the_change_and_the_wording_it_cited(kanzlei: Kanzlei, new_context,
                                                                   tmp_path: Path) -> None:
    call_command("load_gesetze", str(CORPUS / "kschg.zip"), verbosity=0)
    neu = zip_with(tmp_path / "xml.zip", BJNR004990951__xml=geaendert(xml_of("kschg.zip")))
    call_command("load_gesetze", str(neu), verbosity=0)
    page = new_context().new_page()
    login(page, kanzlei.users["praktikant"], "/wissen/normen/KSchG/4/")
    page.goto("/wissen/normen/KSchG/4/?zitiert=2026-01-15")  # the link in an answer of 15.01.2026

    expect(page.get_by_role("heading", name="§ 4 KSchG")).to_be_visible()
    warnung = page.locator(".norm__zitat")
    expect(warnung).to_contain_text("geändert – nach dem Zitat vom 15.01.2026")
    expect(page.get_by_text("Stand: zuletzt geändert durch Art. 3 G v. 1.4.2026 I 99").first).to_be_visible()
    expect(page.get_by_text("innerhalb von vier Wochen").first).to_be_visible()
    aenderung = page.locator(".norm__aenderung")  # the change since is the latest: its wording before
    expect(aenderung).to_contain_text("Geändert mit der Aktualisierung vom")
    aenderung.get_by_text("Vorherige Fassung").click()
    expect(aenderung.get_by_text("innerhalb von drei Wochen")).to_be_visible()
    screenshot(page, "norm-geaendert")

    page.goto("/wissen/normen/KSchG/1/")
    page.get_by_text("Fußnoten").click()
    expect(page.get_by_text("(+++ Testfußnote +++)")).to_be_visible()

    page.goto("/wissen/normen/KSchG/25a/")
    expect(page.get_by_text("Aufgehoben mit der Aktualisierung vom")).to_be_visible()
    expect(page.get_by_role("heading", name="Letzte Fassung")).to_be_visible()
    screenshot(page, "norm-aufgehoben")
