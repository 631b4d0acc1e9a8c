"""Conversations kept like records, in Chromium: a lawyer finds a conversation by a word of it,
renames it, keeps Helena's answer in the Akte as an Aktenvermerk (approved on its card, then listed
on the Akte page), archives it and finds it in the archive. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from akten.models import Dokument
from helena.models import RunEvent
from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei
from tests.helena.conversations.test_records import _answered

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def test_find_rename_keep_in_the_akte_and_archive(kanzlei: Kanzlei, new_context) -> None:
    _conv, run = _answered(kanzlei)
    RunEvent.objects.create(run=run, seq=3, type="done", payload={"text": run.text, "finish_reason": "stop"})
    akte = kanzlei.akten["A"]
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], "/helena/")

    rows = page.locator(".chat-list__item")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Wann endet die Berufungsfrist?")
    expect(rows.first).to_contain_text(akte.aktenzeichen)

    # search by an inflected word of the messages
    page.get_by_label("Suchen in Titeln und Nachrichten").fill("Berufungsfristen")
    page.get_by_role("button", name="Suchen").click()
    expect(rows).to_have_count(1)
    page.get_by_label("Suchen in Titeln und Nachrichten").fill("Mietminderung")
    page.get_by_role("button", name="Suchen").click()
    expect(page.get_by_text("Kein Gespräch passt zu Deiner Suche.")).to_be_visible()
    page.get_by_role("link", name="Filter zurücksetzen").click()

    # rename
    rows.first.get_by_text("Umbenennen").click()
    rows.first.get_by_label("Neuer Titel").fill("Berufung Meier – Fristende")
    rows.first.get_by_role("button", name="Speichern").click()
    expect(rows.first.locator(".chat-list__link")).to_have_text("Berufung Meier – Fristende")
    screenshot(page, "gespraeche-liste")

    # keep the answer in the Akte: a draft first, the Dokument only once approved
    rows.first.locator(".chat-list__link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Berufung Meier – Fristende")
    page.get_by_role("button", name="Als Aktenvermerk speichern").click()
    expect(page.get_by_text("Der Aktenvermerk wartet als Entwurf auf Freigabe.")).to_be_visible()
    card = page.locator(".draft-card").first
    expect(card).to_contain_text("Aktenvermerk: Berufung Meier – Fristende")
    assert not Dokument.objects.filter(akte=akte, titel__startswith="Aktenvermerk").exists()
    screenshot(page, "gespraech-aktenvermerk-entwurf")
    card.get_by_role("button", name="Freigeben").click()
    expect(card).to_have_attribute("data-status", "approved")
    dokument = Dokument.objects.get(akte=akte, titel__startswith="Aktenvermerk")
    assert "§ 517 ZPO" in dokument.inhalt and "Die Frist endet am **02.11.2026**." in dokument.inhalt
    page.goto(f"/akten/{akte.pk}/")
    expect(page.get_by_text("Aktenvermerk: Berufung Meier – Fristende").first).to_be_visible()

    # archive from the list; the archive shows it, the list does not
    page.goto("/helena/")
    rows.first.get_by_role("button", name="Archivieren").click()
    expect(page.get_by_text("Gespräch archiviert.")).to_be_visible()
    expect(rows).to_have_count(0)
    page.get_by_role("link", name="Archiv ansehen").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Berufung Meier – Fristende")
    expect(rows.first.get_by_role("button", name="Wiederherstellen")).to_be_visible()
    screenshot(page, "gespraeche-archiv")
