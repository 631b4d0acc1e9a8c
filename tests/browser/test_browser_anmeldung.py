"""The login throttle as a person meets it in Chromium: five wrong passwords, the German message with
the time, the right password refused too; the Verwaltung lifts the lock in the admin („Sperre
aufheben“); then the right password logs in. Screenshots: tests/artifacts/anmeldung-*.png."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from axes.models import AccessAttempt
from playwright.sync_api import Page, expect

from tests.browser.test_browser import (
    PASSWORD,
    _login_password,
    _orm_beside_playwright,
    browser,
    new_context,
    screenshot,
)
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def versuchen(page: Page, username: str, password: str) -> None:
    page.get_by_label("Benutzername").fill(username)
    page.get_by_label("Passwort").fill(password)
    page.get_by_role("button", name="Anmelden").click()


def test_locked_after_five_wrong_passwords_until_the_verwaltung_unlocks(kanzlei: Kanzlei,
                                                                        new_context) -> None:
    anwalt, admin = kanzlei.users["anwalt"], kanzlei.users["admin"]
    _login_password(anwalt)
    admin.is_staff = admin.is_superuser = True
    admin.save()
    _login_password(admin)

    page = new_context().new_page()
    page.goto("/konto/anmelden/")
    for _ in range(4):
        versuchen(page, "anwalt", "falsch-geraten")
        expect(page.get_by_role("alert")).to_have_text("Benutzername oder Passwort stimmen nicht.")
    versuchen(page, "anwalt", "falsch-geraten")
    meldung = page.get_by_role("alert")
    expect(meldung).to_contain_text("Zu viele falsche Anmeldeversuche. Die Anmeldung ist bis")
    expect(meldung).to_contain_text("auch mit dem richtigen Passwort")
    screenshot(page, "anmeldung-gesperrt")

    versuchen(page, "anwalt", PASSWORD)  # the right password: still refused
    expect(page.get_by_role("alert")).to_contain_text("Die Anmeldung ist bis")
    assert urlsplit(page.url).path == "/konto/anmelden/"

    verwaltung = new_context().new_page()
    verwaltung.goto("/admin/login/?next=/admin/akten/zugriffsversuch/")
    verwaltung.get_by_label("Benutzername").fill("admin")
    verwaltung.get_by_label("Passwort").fill(PASSWORD)
    verwaltung.get_by_role("button", name="Anmelden").click()
    verwaltung.wait_for_url(lambda url: urlsplit(url).path == "/admin/akten/zugriffsversuch/")
    zeile = verwaltung.get_by_role("row").filter(has_text="anwalt")
    expect(zeile).to_contain_text("127.0.0.1")
    zeile.get_by_role("checkbox").check()
    aktion = "Sperre aufheben (Benutzername und Adresse der gewählten Zeilen)"
    verwaltung.locator("select[name=action]").select_option(label=aktion)
    verwaltung.get_by_role("button", name="Ausführen").click()
    expect(verwaltung.get_by_text("Sperre aufgehoben: 127.0.0.1, anwalt.", exact=False)).to_be_visible()
    screenshot(verwaltung, "anmeldung-aufgehoben")
    assert not AccessAttempt.objects.filter(username="anwalt").exists()

    versuchen(page, "anwalt", PASSWORD)
    page.wait_for_url(lambda url: urlsplit(url).path == "/")


def test_the_bell_says_abgemeldet_when_the_login_ends_elsewhere(kanzlei: Kanzlei, new_context) -> None:
    """„Überall abmelden“ from another device: the open page's bell does not reconnect but says so and
    links to the login page (back to this page)."""
    from akten.accounts.sitzungen import ueberall_abmelden
    from tests.browser.test_browser import login

    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], "/akten/")
    page.wait_for_timeout(500)  # the bell's socket is open
    ueberall_abmelden(user=kanzlei.users["anwalt"])
    meldung = page.locator(".glocke-meldung--abgemeldet")
    expect(meldung).to_contain_text("Du bist abgemeldet. Bitte melde dich neu an.")
    expect(meldung.get_by_role("link")).to_have_attribute("href", "/konto/anmelden/?next=%2Fakten%2F")
    screenshot(page, "anmeldung-abgemeldet")
