"""Fristen kept by hand as the staff use them in Chromium: a Frist entered through the form with the
Fristenrechner (Zustellung + Fristart → Fristende with the shift explained, live and without
JavaScript), saved and found in the Fristenbuch; a Notfrist marked erledigt with a Vermerk by one
person and confirmed by a second (Vier-Augen-Prinzip); the Fristenbuch on a phone.
Screenshots go to tests/artifacts/fristen-*.png."""

from __future__ import annotations

import re
from datetime import time, timedelta
from urllib.parse import urlsplit

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from akten.fristen import BUNDESLAENDER, berechne, format_datum
from akten.models import Frist
from tests.browser.test_browser import _orm_beside_playwright, browser, login, new_context, screenshot
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def shot(page: Page, name: str) -> None:
    screenshot(page, f"fristen-{name}")


def zustellung_mit_verschiebung(land: str = "NW"):
    """A Zustellung ahead whose Berufungsfrist ends on a day that is no Werktag (so it is shifted)."""
    tag = timezone.localdate() + timedelta(days=20)
    while True:
        ergebnis = berechne(start=tag, preset="berufung", bundesland=land, vorfrist_tage=7)
        if ergebnis.verschoben:
            return tag, ergebnis
        tag += timedelta(days=1)


def test_a_frist_through_the_form_with_the_fristenrechner(kanzlei: Kanzlei, new_context) -> None:
    akte = kanzlei.akten["A"]
    start, ergebnis = zustellung_mit_verschiebung(akte.bundesland)
    page = new_context().new_page()
    login(page, kanzlei.users["sachbearbeiter"], f"/akten/{akte.pk}/")
    page.get_by_role("link", name="Neue Frist", exact=True).first.click()
    page.wait_for_url(lambda url: urlsplit(url).path == f"/akten/{akte.pk}/fristen/neu/")

    page.get_by_label("Zustellung bzw. Ereignis am").fill(start.isoformat())
    page.get_by_label("Fristart").select_option("berufung")
    box = page.locator("[data-ergebnis] .berechnung")
    expect(box).to_contain_text(f"Fristende {format_datum(ergebnis.ende)}")
    for v in ergebnis.verschoben:
        expect(box).to_contain_text(f"{format_datum(v.datum)} übersprungen: {v.grund}")
    expect(box).to_contain_text("§ 193 BGB, § 222 Abs. 2 ZPO")
    if akte.bundesland:  # by its name, as the server renders it, not its code ("Feiertage in NW")
        expect(box).to_contain_text(f"(Feiertage in {BUNDESLAENDER[akte.bundesland]})")
    expect(page.get_by_label("Datum (Fristende bzw. Termin)")).to_have_value(ergebnis.ende.isoformat())
    expect(page.locator("#id_vorfrist")).to_have_value(ergebnis.vorfrist.datum.isoformat())
    expect(page.get_by_label("Bezeichnung")).to_have_value("Berufungsfrist")
    expect(page.get_by_label("Notfrist (nicht verlängerbar)")).to_be_checked()
    shot(page, "formular-berechnet")

    # a date typed by hand that differs: the warning comes from the server while typing
    page.get_by_label("Datum (Fristende bzw. Termin)").fill(ergebnis.unverschobenes_ende.isoformat())
    page.get_by_label("Datum (Fristende bzw. Termin)").dispatch_event("change")
    warnungen = page.locator("[data-warnungen]")
    expect(warnungen).to_contain_text("weicht von der Fristberechnung ab")
    expect(warnungen).to_contain_text("ist kein Werktag")
    shot(page, "formular-warnung")
    page.get_by_label("Datum (Fristende bzw. Termin)").fill(ergebnis.ende.isoformat())
    page.get_by_label("Datum (Fristende bzw. Termin)").dispatch_event("change")
    expect(warnungen).to_be_hidden()

    page.get_by_label("Bezeichnung").fill("Berufung gegen das Urteil des ArbG")
    page.get_by_role("button", name="Speichern").click()
    expect(page.locator(".messages")).to_contain_text("ist gespeichert")
    expect(page.get_by_role("heading", name="Berufung gegen das Urteil des ArbG")).to_be_visible()
    expect(page.locator(".berechnung")).to_contain_text("übersprungen")
    expect(page.locator(".verlauf")).to_contain_text("Angelegt")
    frist = Frist.objects.get(bezeichnung="Berufung gegen das Urteil des ArbG")
    assert frist.datum == ergebnis.ende and frist.ist_notfrist and frist.berechnung["preset"] == "berufung"
    shot(page, "frist-seite")

    page.goto(f"/akten/{akte.pk}/?tab=fristen")
    eintrag = page.locator(f"#frist-{frist.pk}")
    expect(eintrag).to_contain_text("Berufung gegen das Urteil des ArbG")
    expect(eintrag.locator("summary", has_text="Erledigt")).to_be_visible()
    shot(page, "akte-tab")

    page.get_by_role("link", name="Fristen", exact=True).click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/fristen/")
    row = page.locator(f"#frist-{frist.pk}")
    expect(row).to_contain_text("Berufung gegen das Urteil des ArbG")
    expect(row).to_contain_text("Notfrist")
    expect(row).to_contain_text(f"Akte {akte.aktenzeichen}")
    expect(page.locator(".buch-gruppe", has=row).locator("h2")).to_contain_text(format_datum(ergebnis.ende))
    shot(page, "buch")


def test_berechnen_without_javascript(kanzlei: Kanzlei, browser, asgi_server: str) -> None:
    akte = kanzlei.akten["B"]  # Bayern
    start, ergebnis = zustellung_mit_verschiebung(akte.bundesland)
    context = browser.new_context(base_url=f"http://{asgi_server}", locale="de-DE", java_script_enabled=False,
                                  viewport={"width": 1000, "height": 900})
    try:
        page = context.new_page()
        login(page, kanzlei.users["anwalt"], f"/akten/{akte.pk}/fristen/neu/")
        page.get_by_label("Zustellung bzw. Ereignis am").fill(start.isoformat())
        page.get_by_label("Fristart").select_option("berufung")
        page.get_by_role("button", name="Berechnen").click()
        expect(page.locator(".berechnung")).to_contain_text(f"Fristende {format_datum(ergebnis.ende)}")
        expect(page.get_by_label("Datum (Fristende bzw. Termin)")).to_have_value(ergebnis.ende.isoformat())
        shot(page, "ohne-js-berechnet")
        page.get_by_role("button", name="Speichern").click()
        expect(page.locator(".messages")).to_contain_text("„Berufungsfrist“ ist gespeichert.")
    finally:
        context.close()
    assert Frist.objects.get(akte=akte, bezeichnung="Berufungsfrist").datum == ergebnis.ende


def test_a_notfrist_is_confirmed_by_a_second_person(kanzlei: Kanzlei, new_context) -> None:
    frist = Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Einspruch gegen Versäumnisurteil",
                                 ist_notfrist=True, datum=timezone.localdate() + timedelta(days=2),
                                 verantwortlich=kanzlei.users["sachbearbeiter"])
    erste = new_context().new_page()
    login(erste, kanzlei.users["sachbearbeiter"], "/fristen/")
    row = erste.locator(f"#frist-{frist.pk}")
    row.locator("summary", has_text="Erledigt").click()
    row.get_by_role("button", name="Als erledigt vermerken").click()  # empty: the browser asks for it
    expect(row.get_by_label("Was wurde getan?")).to_be_visible()
    row.get_by_label("Was wurde getan?").fill("Einspruch per beA eingelegt, Eingangsbestätigung in der Akte")
    shot(erste, "erledigt-vermerk")
    row.get_by_role("button", name="Als erledigt vermerken").click()
    expect(erste.locator(".messages")).to_contain_text("wartet auf die Bestätigung durch eine zweite Person")
    row = erste.locator(f"#frist-{frist.pk}")
    expect(row).to_contain_text("wartet auf Bestätigung durch eine zweite Person")
    expect(row.get_by_role("button", name=re.compile("Bestätigen"))).to_have_count(0)
    expect(row).to_contain_text("bestätigen muss eine zweite Person")
    # back at "#frist-…", the next action's form stays closed (it opened by itself: "Warum ist die Frist
    # wieder offen?" right after the Erledigt)
    expect(row.get_by_label("Warum ist die Frist wieder offen?")).to_be_hidden()
    shot(erste, "wartet")

    zweite = new_context().new_page()
    login(zweite, kanzlei.users["anwalt"], "/fristen/")
    row = zweite.locator(f"#frist-{frist.pk}")
    expect(row).to_contain_text("Einspruch per beA eingelegt")
    row.get_by_role("button", name=re.compile("Bestätigen")).click()
    expect(zweite.locator(".messages")).to_contain_text("ist erledigt: Erledigung bestätigt.")
    expect(zweite.locator(f"#frist-{frist.pk}")).to_have_count(0)  # no longer open
    zweite.goto(f"/akten/{frist.akte_id}/fristen/{frist.pk}/")
    expect(zweite.locator(".frist-seite__status")).to_contain_text("erledigt")
    verlauf = zweite.locator(".verlauf")
    expect(verlauf).to_contain_text("Erledigung bestätigt (Vier-Augen-Prinzip)")
    expect(verlauf).to_contain_text("Erledigt, wartet auf Bestätigung (Vier-Augen-Prinzip)")
    shot(zweite, "bestaetigt")
    frist.refresh_from_db()
    assert frist.erledigt and frist.bestaetigt_von == kanzlei.users["anwalt"]


def test_the_fristenbuch_on_a_phone(kanzlei: Kanzlei, new_context) -> None:
    heute = timezone.localdate()
    Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Stellungnahme zur Klageerwiderung",
                         datum=heute - timedelta(days=1), verantwortlich=kanzlei.users["anwalt"])
    Frist.objects.create(akte=kanzlei.akten["B"], bezeichnung="Berufungsbegründung", datum=heute,
                         ist_notfrist=True)
    Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Gütetermin Arbeitsgericht", typ="termin",
                         datum=heute + timedelta(days=1), uhrzeit=time(9, 30))
    page = new_context(width=375, height=800).new_page()
    login(page, kanzlei.users["anwalt"], "/fristen/")
    gruppen = page.locator(".buch-gruppe h2")
    expect(gruppen.first).to_contain_text("Überfällig")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shot(page, "handy")
    zeile = page.locator(".buch-zeile", has_text="Berufungsbegründung")
    zeile.locator("summary", has_text="Erledigt").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shot(page, "handy-erledigt")
    page.get_by_role("link", name="nach Wochen").click()
    expect(page.locator(".buch-gruppe h2").nth(1)).to_contain_text("KW")
    shot(page, "handy-wochen")
    page.goto("/fristen/kontrolle/")
    expect(page.get_by_role("heading", name=re.compile("Fristenkontrolle"))).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shot(page, "handy-kontrolle")
    page.goto(f"/akten/{kanzlei.akten['A'].pk}/fristen/neu/")
    page.get_by_label("Zustellung bzw. Ereignis am").fill((heute + timedelta(days=3)).isoformat())
    page.get_by_label("Fristart").select_option("kuendigungsschutzklage")
    expect(page.locator("[data-ergebnis] .berechnung")).to_contain_text("(§ 4 S. 1 KSchG)")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shot(page, "handy-formular")


def test_the_fristenkontrolle_headings_keep_their_words(kanzlei: Kanzlei, new_context) -> None:
    """At 1280 px the columns „Verantwortlich“ and „erledigt“ broke letter by letter („Verantwortlic|h“)."""
    Frist.objects.create(akte=kanzlei.akten["A"], bezeichnung="Stellungnahme zur Klageerwiderung",
                         datum=timezone.localdate() + timedelta(days=1),
                         verantwortlich=kanzlei.users["anwalt"])
    page = new_context(width=1280).new_page()
    login(page, kanzlei.users["anwalt"], "/fristen/kontrolle/")
    expect(page.locator(".kontrolle-tabelle th").first).to_be_visible()
    zeilen = page.evaluate("""() => [...document.querySelectorAll('.kontrolle-tabelle th')].map((th) => {
        const range = document.createRange(); range.selectNodeContents(th);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return [th.textContent.trim(), tops.size]; })""")
    assert zeilen and all(anzahl == 1 for _, anzahl in zeilen), zeilen
    shot(page, "kontrolle-1280")

