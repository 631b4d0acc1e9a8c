"""The second factor in Chromium, as a lawyer meets it: after the password Helena insists on setting up
the app (QR code and key), the code from the app confirms it, the ten recovery codes are shown once;
the next login asks for the code before anything else. Screenshots go to /tmp/zweitfaktor-*.png and
tests/artifacts/."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import Page, expect

from akten.models import Role, User
from tests.akten.test_zweitfaktor import code
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


def shot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/zweitfaktor-{name}.png", full_page=True)
    screenshot(page, f"zweitfaktor-{name}")


def password_step(page: Page, user: User) -> None:
    page.goto("/konto/anmelden/?next=/akten/")
    page.get_by_label("Benutzername").fill(user.username)
    page.get_by_label("Passwort").fill(PASSWORD)
    page.get_by_role("button", name="Anmelden").click()


def test_set_up_the_app_and_log_in_with_its_code(kanzlei: Kanzlei, new_context) -> None:
    anwalt = User.objects.create_user(username="kmeier", role=Role.ANWALT, first_name="Karl",
                                      last_name="Meier")
    _login_password(anwalt)
    page = new_context().new_page()
    password_step(page, anwalt)
    page.wait_for_url(lambda url: urlsplit(url).path == "/konto/zweiter-faktor/einrichten/")
    expect(page.get_by_role("heading", name="Zweiten Faktor einrichten")).to_be_visible()
    expect(page.locator("#zweitfaktor-qr svg")).to_be_visible()
    expect(page.get_by_role("navigation", name="Hauptnavigation")).to_have_count(0)
    geheimnis = page.locator("#zweitfaktor-geheimnis").inner_text()
    assert re.fullmatch(r"[A-Z2-7]{4}( [A-Z2-7]{1,4})+", geheimnis)
    shot(page, "einrichten")

    page.goto("/fristen/")  # nothing else opens
    page.wait_for_url(lambda url: urlsplit(url).path == "/konto/zweiter-faktor/einrichten/")
    device = TOTPDevice.objects.get(user=anwalt)
    page.get_by_label("Sechsstelliger Code aus deiner App").fill(code(device))
    page.get_by_role("button", name="Code prüfen und einrichten").click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/konto/zweiter-faktor/codes/")
    codes = page.locator("#zweitfaktor-codes li")
    expect(codes).to_have_count(10)
    expect(page.get_by_role("link", name="Herunterladen")).to_have_attribute(
        "download", "helena-wiederherstellungscodes.txt")
    shot(page, "codes")
    page.get_by_role("link", name="Ich habe sie gesichert – weiter").click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/fristen/")  # on to the page last asked for
    expect(page.get_by_role("navigation", name="Hauptnavigation")).to_be_visible()

    page.get_by_role("button", name=re.compile("Abmelden")).click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/konto/anmelden/")
    password_step(page, anwalt)
    page.wait_for_url(lambda url: urlsplit(url).path == "/konto/zweiter-faktor/")
    expect(page.get_by_role("heading", name="Anmeldung bestätigen")).to_be_visible()
    page.get_by_label("Code").fill("000000" if code(device, schritte=1) != "000000" else "111111")
    page.get_by_role("button", name="Bestätigen").click()
    expect(page.get_by_text("Der Code stimmt nicht")).to_be_visible()
    shot(page, "falscher-code")
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_count=0)  # no waiting here
    page.get_by_label("Code").fill(code(device, schritte=1))  # the enrolment used this step's code
    page.get_by_role("button", name="Bestätigen").click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/akten/")
    page.goto("/konto/")
    expect(page.locator("#zweiter-faktor")).to_contain_text("10 von 10 übrig")
    shot(page, "konto")
