"""What a newcomer found in a fresh clone with a real browser (issue 31, item 8), in Chromium against
daphne: the login page speaks "du" and says what went wrong; "Mit Helena über diese Akte sprechen"
leaves no empty conversation in the list; the Entwürfe badge follows new, approved and rejected
drafts without a reload; "Was Helena über die Akte weiß" (not "Erinnerung"); the "Titel des
Dokuments" field looks like the others; a statute's breadcrumb names its law once.
Screenshots go to /tmp/ui-*.png and tests/artifacts/."""

from __future__ import annotations

import re
from datetime import date, timedelta
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from drafts.models import Draft
from drafts.services import create_draft, reject_draft
from helena.knowledge.models import Muster
from helena.models import Conversation
from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses

SOCKET_READS_MS = 12_000  # the notification socket reads every 5 s; twice that and some


def shot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/ui-{name}.png", full_page=True)
    screenshot(page, f"ui-{name}")


def badge(page: Page):
    return page.locator("[data-entwuerfe] .badge--count")


def frist_draft(kanzlei: Kanzlei, bezeichnung: str) -> Draft:
    return create_draft(user=kanzlei.users["anwalt"], kind=Draft.Kind.FRIST, akte_id=kanzlei.akten["A"].pk,
                        fields={"bezeichnung": bezeichnung,
                                "datum": (date.today() + timedelta(days=30)).isoformat()})


def test_the_login_page_says_du_and_what_went_wrong(kanzlei: Kanzlei, new_context) -> None:
    page = new_context().new_page()
    page.goto("/konto/anmelden/")
    expect(page.get_by_text("Melde dich mit deinem Kanzlei-Zugang an.")).to_be_visible()
    page.get_by_label("Benutzername").fill("anwalt")
    page.get_by_label("Passwort").fill("falsch")
    page.get_by_role("button", name="Anmelden").click()
    expect(page.locator(".form-errors")).to_have_text("Benutzername oder Passwort stimmen nicht.")
    expect(page.get_by_label("Benutzername")).to_have_value("anwalt")
    shot(page, "login-fehler")


def test_the_akte_page_without_empty_conversations(kanzlei: Kanzlei, new_context) -> None:
    Muster.objects.create(titel="Mandatsbestätigung", kategorie="Mandat", text="Guten Tag {{MANDANT_NAME}}")
    akte = kanzlei.akten["A"]
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], f"/akten/{akte.pk}/")

    expect(page.get_by_role("heading", name="Was Helena über die Akte weiß", exact=True)).to_be_visible()
    expect(page.get_by_text("Erinnerung")).to_have_count(0)
    titel, wahl = page.locator("#muster-titel"), page.locator("#muster-wahl")
    titel.scroll_into_view_if_needed()
    assert titel.bounding_box()["width"] == pytest.approx(wahl.bounding_box()["width"], abs=1)
    style = "e => [getComputedStyle(e).borderTopWidth, getComputedStyle(e).paddingLeft]"
    assert titel.evaluate(style) == wahl.evaluate(style)
    shot(page, "akte")

    page.get_by_role("button", name="Mit Helena über diese Akte sprechen").click()
    page.wait_for_url(re.compile(r"/helena/gespraech/\d+/$"))
    first = urlsplit(page.url).path
    expect(page.get_by_text("Noch keine Nachrichten. Was kann ich für dich tun?")).to_be_visible()
    shot(page, "akte-gespraech-leer")
    page.goto("/helena/")
    expect(page.get_by_text("Du hast noch kein Gespräch mit Helena.")).to_be_visible()
    expect(page.locator(f'a[href="{first}"]')).to_have_count(0)
    expect(page.locator(".chat-list__link")).to_have_count(0)  # no "Neues Gespräch" row
    shot(page, "gespraeche-ohne-leere")

    page.goto(f"/akten/{akte.pk}/")
    page.get_by_role("button", name="Mit Helena über diese Akte sprechen").click()
    page.wait_for_url(re.compile(r"/helena/gespraech/\d+/$"))
    assert urlsplit(page.url).path == first  # the empty one again, not a second
    assert Conversation.objects.filter(user=kanzlei.users["anwalt"]).count() == 1


def test_the_entwuerfe_badge_follows_without_a_reload(kanzlei: Kanzlei, new_context) -> None:
    anwalt = kanzlei.users["anwalt"]
    page = new_context().new_page()
    login(page, anwalt, "/akten/")
    expect(badge(page)).to_have_count(0)

    first = frist_draft(kanzlei, "Berufungsbegründung prüfen")  # e.g. a background run, elsewhere
    second = frist_draft(kanzlei, "Gütetermin vorbereiten")
    expect(badge(page)).to_have_text("2", timeout=SOCKET_READS_MS)
    expect(badge(page)).to_have_attribute("aria-label", "2 warten auf deine Freigabe")
    shot(page, "entwuerfe-badge-2")

    other = new_context().new_page()  # another tab of the same lawyer approves one
    login(other, anwalt, "/entwuerfe/")
    expect(badge(other)).to_have_text("2")
    other.locator(f"#draft-{first.pk}").get_by_role("button", name="Freigeben").click()
    expect(other.locator(f"#draft-{first.pk}")).to_contain_text("Freigegeben")
    expect(badge(other)).to_have_text("1")  # this tab asked its socket at once
    expect(badge(page)).to_have_text("1", timeout=SOCKET_READS_MS)
    shot(other, "entwuerfe-badge-1")

    reject_draft(user=kanzlei.users["admin"], draft=second)  # a colleague rejects the other
    expect(badge(page)).to_have_count(0, timeout=SOCKET_READS_MS)
    expect(badge(other)).to_have_count(0, timeout=SOCKET_READS_MS)
    shot(page, "entwuerfe-badge-0")


def test_a_statute_names_its_law_once(kanzlei: Kanzlei, new_context) -> None:
    call_command("load_gesetze", "--only", "ZPO", verbosity=0)
    page = new_context().new_page()
    login(page, kanzlei.users["sekretariat"], "/wissen/normen/ZPO/517/")
    expect(page.get_by_role("heading", name=re.compile(r"^§ 517 ZPO"))).to_be_visible()
    crumbs = page.locator(".breadcrumbs").inner_text()
    assert crumbs == "Zivilprozessordnung (ZPO) › Buch 3 - Rechtsmittel › Abschnitt 1 - Berufung", crumbs
    shot(page, "norm")
