"""The Kalender section of /konto/ in Chromium, and the feed over real HTTP from daphne: a lawyer makes
an address (shown once, copied), a calendar program fetches it without any login (urllib, a real
socket) and finds his Notfrist; a new address ends the old one, „Kalender-Abo beenden“ the new one.
Screenshots go to /tmp/kalender-*.png and tests/artifacts/."""

from __future__ import annotations

import urllib.error
import urllib.request
from datetime import date, time, timedelta

import icalendar
import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from akten.models import Frist, KalenderAbo
from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def shot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/kalender-{name}.png", full_page=True)
    screenshot(page, f"kalender-{name}")


def holen(url: str) -> tuple[int, bytes, str]:
    """What a calendar program gets: a plain GET, no cookie, no token."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read(), response.headers.get("Cache-Control", "")
    except urllib.error.HTTPError as exc:
        return exc.code, b"", ""


def test_the_kalender_section_and_the_feed_over_http(kanzlei: Kanzlei, new_context) -> None:
    anwalt = kanzlei.users["anwalt"]
    Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Berufungsbegründung, Anlagen; Beweise",
                         datum=timezone.localdate() + timedelta(days=20), ist_notfrist=True,
                         vorfrist=timezone.localdate() + timedelta(days=13), verantwortlich=anwalt)
    Frist.objects.create(akte=kanzlei.akten["A"], typ="termin", bezeichnung="Güteverhandlung",
                         datum=date(2026, 12, 15), uhrzeit=time(10, 30), verantwortlich=anwalt)
    context = new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    login(page, anwalt, "/konto/")

    section = page.locator("#kalender")
    expect(section).to_contain_text("Du hast noch kein Kalender-Abo.")
    section.get_by_text("So abonnierst du die Adresse").click()
    expect(section).to_contain_text("Aus dem Internet abonnieren")
    section.get_by_text("Was im Kalender steht").click()
    expect(section).to_contain_text("Namen von Mandanten und Gegnern stehen nicht darin")
    shot(page, "vorher")

    section.get_by_label("Meine Einträge").check()
    section.get_by_role("button", name="Kalender-Adresse anlegen").click()
    box = page.locator("#neue-kalender-adresse")
    expect(box).to_contain_text("Deine Kalender-Adresse")
    url = page.get_by_label("Kalender-Adresse").input_value()
    assert url.startswith(f"{page.url.split('/konto/')[0]}/kalender/kal_")
    expect(box.get_by_role("link", name="Im Kalenderprogramm öffnen")).to_have_attribute(
        "href", "webcal://" + url.split("://", 1)[1])
    box.get_by_role("button", name="Kopieren").click()
    expect(box).to_contain_text("Kopiert. Füge die Adresse jetzt in deinem Kalenderprogramm ein.")
    assert page.evaluate("navigator.clipboard.readText()") == url
    shot(page, "adresse")

    status, body, cache = holen(url)
    assert status == 200 and cache == "private, no-cache"
    titel = sorted(str(e["SUMMARY"]) for e in icalendar.Calendar.from_ical(body).walk("VEVENT"))
    assert "NOTFRIST: Berufungsbegründung, Anlagen; Beweise (Az. 1/26)" in titel
    assert "Termin: Güteverhandlung (Az. 1/26)" in titel
    assert any(t.startswith("Vorfrist zu NOTFRIST: Berufungsbegründung") for t in titel)

    page.reload()
    expect(page.locator("#neue-kalender-adresse")).to_have_count(0)
    assert url not in page.content()
    expect(section).to_contain_text("Dein Kalender-Abo ist eingerichtet")
    expect(section).not_to_contain_text("noch nie – trag die Adresse")  # urllib fetched it

    section.get_by_role("button", name="Neue Adresse erzeugen").click()
    neu = page.get_by_label("Kalender-Adresse").input_value()
    assert neu != url and holen(url)[0] == 404 and holen(neu)[0] == 200

    section.locator("summary", has_text="Kalender-Abo beenden").click()
    section.get_by_role("button", name="Ja, beenden").click()
    expect(page.locator(".messages")).to_contain_text("Dein Kalender-Abo ist beendet")
    assert holen(neu)[0] == 404
    assert not KalenderAbo.objects.get(user=anwalt).aktiv
    shot(page, "beendet")
    page.set_viewport_size({"width": 375, "height": 800})
    section.get_by_text("So abonnierst du die Adresse").click()
    shot(page, "handy")
