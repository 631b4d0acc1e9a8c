"""The Akte as a workspace in Chromium: a lawyer opens a new Akte with its Mandant through the form, the
tabs switch (also without JavaScript: each tab is a link, an anchor shows its own tab), a Notiz is
written in place; on a phone (375 px) the page, its tabs and the Kollisionsprüfung's confirm step fit
without scrolling sideways. Screenshots go to tests/artifacts/ (akte-*.png)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from akten.models import Akte, Beteiligter, Frist, Kollisionspruefung
from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses
BLAU = "rgb(31, 78, 140)"  # --c-primary: the tab of the section shown is marked with it


def _breite(page: Page) -> int:
    return page.evaluate("document.scrollingElement.scrollWidth")


def _tab(page: Page, name: str) -> None:
    page.get_by_role("navigation", name="Bereiche der Akte").get_by_role("link", name=name).click()


def test_a_new_akte_with_its_mandant_and_its_tabs(kanzlei: Kanzlei, new_context: Any) -> None:
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], "/akten/")
    page.get_by_role("link", name="Neue Akte").click()
    expect(page.get_by_role("heading", name="Lege eine neue Akte an")).to_be_visible()
    vorschlag = page.get_by_label("Aktenzeichen").input_value()
    assert vorschlag  # the firm's next one, changeable
    page.get_by_label("Kurzrubrum").fill("Hoffmann ./. Lindner Hausverwaltung GmbH")
    page.get_by_label("wegen").fill("Mietminderung")
    page.get_by_label("Rechtsgebiet").select_option(label="Mietrecht")
    page.get_by_label("Gegenstandswert (EUR)").fill("12.500,00")
    page.locator("#id_mandant-name").fill("Renate Hoffmann")
    page.locator("#id_mandant-anrede").select_option(label="Frau")
    page.locator("#id_mandant-anschrift").fill("Ringstraße 4\n50667 Köln")
    page.locator("#id_mandant-email").fill("r.hoffmann@example.org")
    page.locator("#id_gegner-name").fill("Lindner Hausverwaltung GmbH")
    screenshot(page, "akte-neu-formular")
    page.get_by_role("button", name="Akte anlegen").click()

    page.wait_for_url(re.compile(r"/akten/\d+/$"))
    akte = Akte.objects.get(aktenzeichen=vorschlag)
    expect(page.locator(".messages")).to_contain_text(f"Die Akte {vorschlag} ist angelegt.")
    kopf = page.locator(".akte-header")
    expect(kopf).to_contain_text("Renate Hoffmann")
    expect(kopf).to_contain_text("Lindner Hausverwaltung GmbH")
    expect(kopf.get_by_role("link", name=re.compile("^Bearbeiten"))).to_be_visible()
    assert str(akte.gegenstandswert) == "12500.00"
    screenshot(page, "akte-angelegt")

    _tab(page, "Beteiligte")
    page.wait_for_url(re.compile(r"\?tab=beteiligte$"))
    mandant = Beteiligter.objects.get(akte=akte, rolle="mandant")
    expect(page.locator(f"#beteiligter-{mandant.pk}")).to_contain_text("Ringstraße 4")
    expect(page.locator("#dokumente")).to_be_hidden()
    expect(page.get_by_role("link", name="Beteiligte/n hinzufügen")).to_be_visible()
    screenshot(page, "akte-tab-beteiligte")

    _tab(page, "Notizen")
    page.get_by_text("Notiz schreiben", exact=True).click()
    page.locator("#notiz-neu-inhalt").fill("Mandantin ruft Donnerstag zurück.")
    page.get_by_role("button", name="Notiz speichern").click()
    expect(page.locator(".messages")).to_contain_text("Die Notiz ist gespeichert.")
    expect(page.locator(".notiz").first).to_contain_text("Mandantin ruft Donnerstag zurück.")
    expect(page.locator("#beteiligte")).to_be_hidden()
    expect(page.locator('.akte-tabs a[data-tab="notizen"]')).to_have_css("border-bottom-color", BLAU)

    _tab(page, "Aktivität")
    verlauf = page.locator("#aktivitaet .akte-verlauf")
    expect(verlauf).to_contain_text("Notiz")
    expect(verlauf).to_contain_text("Renate Hoffmann (Mandant/in)")
    screenshot(page, "akte-tab-aktivitaet")

    _tab(page, "Alles")  # the whole Akte again: the sections one below the other
    expect(page.locator("#dokumente")).to_be_visible()
    expect(page.locator("#beteiligte")).to_be_visible()


def test_an_anchor_shows_its_own_tab(kanzlei: Kanzlei, new_context: Any) -> None:
    akte = kanzlei.akten["A"]
    frist = Frist.objects.get(akte=akte, bezeichnung="Frist A offen")
    page = new_context().new_page()
    login(page, kanzlei.users["sachbearbeiter"], f"/akten/{akte.pk}/")
    page.locator(".akte-header").get_by_role("link", name=re.compile("Frist A offen")).click()
    expect(page.locator(f"#frist-{frist.pk}")).to_be_visible()
    expect(page.locator("#dokumente")).to_be_hidden()
    expect(page.locator("#uebersicht")).to_be_hidden()
    expect(page.locator('.akte-tabs [data-tab="fristen"]')).to_have_css("border-bottom-color", BLAU)
    screenshot(page, "akte-anker-frist")


def test_the_akte_fits_a_phone(kanzlei: Kanzlei, new_context: Any) -> None:
    akte = kanzlei.akten["A"]
    Beteiligter.objects.create(akte=akte, rolle="gegnervertreter",
                               name="Rechtsanwälte Klug, Weise & Partner mbB",
                               anschrift="Kaiser-Wilhelm-Ring 112\n50672 Köln",
                               email="sekretariat.prozessabteilung@klug-weise-partner.example")
    page = new_context(width=375, height=812).new_page()
    login(page, kanzlei.users["anwalt"], f"/akten/{akte.pk}/")
    expect(page.locator(".akte-tabs")).to_be_visible()
    assert _breite(page) <= 375
    screenshot(page, "akte-375px")
    page.screenshot(path="tests/artifacts/akte-375px-viewport.png")  # as seen on the phone
    for tab in ("beteiligte", "zeiten", "aktivitaet", "fristen"):
        page.goto(f"/akten/{akte.pk}/?tab={tab}")
        assert _breite(page) <= 375, tab
    screenshot(page, "akte-375px-fristen")
    page.goto(f"/akten/{akte.pk}/?tab=beteiligte")
    screenshot(page, "akte-375px-beteiligte")


def test_the_kollisionspruefung_asks_on_a_phone(kanzlei: Kanzlei, new_context: Any) -> None:
    """Hans Müller is Mandant in Akte 3/26, which the Sachbearbeitung may not see."""
    Beteiligter.objects.create(akte=kanzlei.akten["C"], rolle="mandant", name="Hans Müller")
    page = new_context(width=375, height=812).new_page()
    login(page, kanzlei.users["sachbearbeiter"], "/akten/neu/")
    page.get_by_label("Kurzrubrum").fill("Becker ./. Müller")
    page.locator("#id_mandant-name").fill("Petra Becker")
    page.locator("#id_gegner-name").fill("Hans Mueller")
    page.get_by_role("button", name="Akte anlegen").click()

    kollision = page.locator(".kollision")
    expect(kollision).to_contain_text("in einer Akte, die du nicht sehen darfst")
    page.wait_for_load_state("load")  # measured with its stylesheets
    expect(kollision).not_to_contain_text("3/26")
    assert _breite(page) <= 375
    kollision.scroll_into_view_if_needed()
    screenshot(page, "akte-kollision-375px")
    assert not Akte.objects.filter(kurzrubrum="Becker ./. Müller").exists()

    page.get_by_label("Ich habe die möglichen Kollisionen geprüft und lege die Akte trotzdem an").check()
    page.get_by_label("Begründung").fill("Anderer Hans Müller: anderes Geburtsdatum.")
    page.get_by_role("button", name="Trotzdem anlegen").click()
    page.wait_for_url(re.compile(r"/akten/\d+/$"))
    akte = Akte.objects.get(kurzrubrum="Becker ./. Müller")
    pruefung = Kollisionspruefung.objects.get(akte=akte, entscheidung="fortgesetzt")
    assert pruefung.begruendung == "Anderer Hans Müller: anderes Geburtsdatum."
    assert _breite(page) <= 375
