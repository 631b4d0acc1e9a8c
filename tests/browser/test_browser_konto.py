"""The account page as a lawyer uses it in Chromium: from the header's name to /konto/, a token created
(shown once, copied), gone after a reload but listed, revoked; a kind of Hinweis switched off (the
Fristen of today and overdue stay on); the password changed (the old one no longer logs in).
Screenshots go to /tmp/konto-*.png and tests/artifacts/."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from akten.models import ApiToken, HinweisEinstellung
from tests.browser.test_browser import (
    PASSWORD,
    _orm_beside_playwright,
    browser,
    login,
    new_context,
    screenshot,
)
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses

NEW_PASSWORD = "Fristen-2026-sicher"


def shot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/konto-{name}.png", full_page=True)
    screenshot(page, f"konto-{name}")


def api_status(raw: str) -> int:
    return Client(headers={"Authorization": f"Bearer {raw}"}).get("/api/v1/me").status_code


def test_tokens_on_the_account_page(kanzlei: Kanzlei, new_context) -> None:
    anwalt = kanzlei.users["anwalt"]
    anwalt.first_name, anwalt.last_name = "Anna", "Berger"
    anwalt.save()
    context = new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    login(page, anwalt, "/akten/")

    page.get_by_role("link", name=re.compile("Konto")).click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/konto/")
    expect(page.get_by_role("heading", name="Dein Konto")).to_be_visible()
    expect(page.locator(".facts")).to_contain_text("Anna Berger")
    expect(page.locator(".facts")).to_contain_text("Rechtsanwalt/Rechtsanwältin")
    shot(page, "seite")

    page.get_by_label("Name").fill("Alt")
    page.get_by_label("Gültig bis (freiwillig)").fill("2020-01-01")
    page.get_by_role("button", name="Token anlegen").click()
    expect(page.get_by_text("Das Ablaufdatum liegt in der Vergangenheit")).to_be_visible()
    shot(page, "fehler")

    page.get_by_label("Name").fill("Kanzleisoftware")
    page.get_by_label("Gültig bis (freiwillig)").fill("2099-12-31")
    page.get_by_role("button", name="Token anlegen").click()
    box = page.locator("#neuer-token")
    expect(box).to_contain_text("Dein neuer Token „Kanzleisoftware“")
    raw = page.get_by_label("Neuer Token").input_value()
    assert raw.startswith("hel_") and api_status(raw) == 200
    box.get_by_role("button", name="Kopieren").click()
    expect(box).to_contain_text("Kopiert.")
    assert page.evaluate("navigator.clipboard.readText()") == raw
    shot(page, "token")

    page.reload()
    expect(page.locator("#neuer-token")).to_have_count(0)
    assert raw not in page.content()
    row = page.locator(".konto-token", has_text="Kanzleisoftware")
    expect(row).to_contain_text(raw[:12] + "…")
    expect(row).to_contain_text("31.12.2099")
    expect(row).to_contain_text("aktiv")

    row.locator("summary", has_text="Widerrufen").click()
    expect(row).to_contain_text("werden sofort abgewiesen")
    row.get_by_role("button", name="Ja, widerrufen").click()
    expect(page.locator(".messages")).to_contain_text("Der Token „Kanzleisoftware“ ist widerrufen.")
    expect(page.locator(".konto-token", has_text="Kanzleisoftware")).to_contain_text("widerrufen")
    assert api_status(raw) == 401
    assert ApiToken.objects.get(name="Kanzleisoftware").widerrufen
    shot(page, "widerrufen")
    page.set_viewport_size({"width": 375, "height": 800})
    page.locator("summary", has_text="Widerrufen").first.click()
    shot(page, "handy")


def test_hinweis_settings_and_the_password(kanzlei: Kanzlei, new_context) -> None:
    page = new_context().new_page()
    login(page, kanzlei.users["sachbearbeiter"], "/konto/")

    hinweise = page.locator("#hinweise")
    expect(hinweise.get_by_label("Frist endet heute")).to_be_disabled()
    expect(hinweise.get_by_label("Frist endet heute")).to_be_checked()
    expect(page.get_by_text("bleiben immer an, weil eine versäumte Frist")).to_be_visible()
    hinweise.get_by_label("Vorfrist erreicht").uncheck()
    page.get_by_label("Neue Hinweise kurz unten auf der Seite einblenden").uncheck()
    page.get_by_role("button", name="Einstellungen speichern", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("Deine Einstellungen für Hinweise sind gespeichert.")
    expect(hinweise.get_by_label("Vorfrist erreicht")).not_to_be_checked()
    expect(hinweise.get_by_label("Frist endet in den nächsten drei Werktagen")).to_be_checked()
    expect(page.locator("#glocke-meldungen")).to_have_attribute("data-kurzmeldungen", "aus")
    settings = HinweisEinstellung.objects.get(user=kanzlei.users["sachbearbeiter"])
    assert settings.ausgeblendet == ["vorfrist"] and not settings.kurzmeldungen

    # by e-mail: the critical kinds cannot be switched off, an optional one can
    mail = page.locator("#mail")
    expect(mail.get_by_label("Notfrist endet heute")).to_be_disabled()
    expect(mail.get_by_label("Notfrist endet heute")).to_be_checked()
    mail.get_by_label("Helena hat einen Auftrag erledigt").uncheck()
    mail.get_by_role("button", name="E-Mail-Einstellungen speichern").click()
    expect(page.locator(".messages")).to_contain_text("Deine Einstellungen für E-Mails sind gespeichert.")
    expect(page.locator("#mail").get_by_label("Helena hat einen Auftrag erledigt")).not_to_be_checked()
    settings.refresh_from_db()
    assert settings.mail_aus == ["aufgabe"]
    shot(page, "mail")
    shot(page, "hinweise")

    page.get_by_role("link", name="Passwort ändern").click()
    expect(page.get_by_role("heading", name="Passwort ändern")).to_be_visible()
    page.get_by_label("Bisheriges Passwort").fill("falsch")
    page.get_by_label(re.compile(r"^Neues Passwort:?$")).fill(NEW_PASSWORD)
    page.get_by_label("Neues Passwort wiederholen").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Passwort ändern").click()
    expect(page.get_by_text("Dein bisheriges Passwort stimmt nicht.")).to_be_visible()
    shot(page, "passwort-fehler")
    page.get_by_label("Bisheriges Passwort").fill(PASSWORD)
    page.get_by_label(re.compile(r"^Neues Passwort:?$")).fill(NEW_PASSWORD)
    page.get_by_label("Neues Passwort wiederholen").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Passwort ändern").click()
    expect(page.get_by_role("heading", name="Passwort geändert")).to_be_visible()
    shot(page, "passwort-fertig")
    page.get_by_role("link", name="Zurück zum Konto").click()
    expect(page.get_by_role("heading", name="Dein Konto")).to_be_visible()  # still logged in

    other = new_context().new_page()
    for password, ok in ((PASSWORD, False), (NEW_PASSWORD, True)):
        other.goto("/konto/anmelden/?next=/konto/")
        other.get_by_label("Benutzername").fill("sachbearbeiter")
        other.get_by_label("Passwort").fill(password)
        other.get_by_role("button", name="Anmelden").click()
        heading = "Dein Konto" if ok else "Anmelden"
        expect(other.get_by_role("heading", name=heading)).to_be_visible()
