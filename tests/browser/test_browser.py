"""The chat as a lawyer uses it: Chromium (Playwright) against daphne, the scripted model server and,
for background runs, a real Celery worker.

Each test asserts what the user sees: streamed text, tool steps, draft cards and their buttons,
cancel, reload and a second tab without duplicated steps, inert model HTML, role-dependent cards
and a phone-sized screen. Screenshots of the main states go to tests/artifacts/.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect, sync_playwright

from akten.models import Frist, User
from drafts.models import Draft
from drafts.services import create_draft
from helena.conversations import services
from helena.models import AgentRun, Conversation, RateLimit
from tests.conftest import Kanzlei
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PASSWORD = "browser-pw-123"
RUN_TIMEOUT_MS = 30_000
FRIST = {"start": "2026-10-01", "dauer": {"monate": 1}, "bundesland": "NW"}

expect.set_options(timeout=15_000)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module", autouse=True)
def _orm_beside_playwright(asgi_server: str) -> Iterator[None]:
    """Allow Django ORM calls in this module's tests and fixtures while Playwright runs.

    Playwright's sync API drives its asyncio loop from a greenlet of this very thread, so the loop
    counts as "running" here even while the test's own (synchronous) code executes; Django then
    refuses every ORM call with SynchronousOnlyOperation. Nothing async touches the database in
    this thread, so the check is switched off for this module only. It is set after daphne has
    started (this fixture depends on asgi_server), so the server under test keeps the check; a
    Celery worker started later inherits the variable, which changes nothing there (it is sync).
    """
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="module")
def browser(_orm_beside_playwright: None) -> Iterator[Browser]:
    """Debian's Chromium, headless. Missing Chromium is a failure, not a skip: CI must have it."""
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: the browser tests need Debian's chromium package "
                    "(apt-get install chromium; .ci/run installs it).", pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_context(browser: Browser, asgi_server: str) -> Iterator[Any]:
    """Make browser contexts (separate cookie jars) on the test server; closed after the test."""
    contexts: list[BrowserContext] = []

    def make(*, width: int = 1100, height: int = 900) -> BrowserContext:
        context = browser.new_context(base_url=f"http://{asgi_server}", locale="de-DE",
                                      viewport={"width": width, "height": height})
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    # The server finishes what the closed pages started (a socket's disconnect, a last poll) before the
    # test's database is flushed: a query running into the flush's TRUNCATE deadlocked once in CI.
    time.sleep(0.3)


# --------------------------------------------------------------------------- helpers


def _login_password(user: User) -> None:
    """A password daphne can check: the test process hashes with MD5 (conftest), which the server's
    PASSWORD_HASHERS do not know; PBKDF2 with few iterations is quick and known to both."""
    hasher = PBKDF2PasswordHasher()
    user.password = hasher.encode(PASSWORD, hasher.salt(), iterations=1_000)
    user.save(update_fields=["password"])


def login(page: Page, user: User, next_path: str) -> None:
    """Log in through the login page, as a person would."""
    _login_password(user)
    page.goto(f"/konto/anmelden/?next={next_path}")
    page.get_by_label("Benutzername").fill(user.username)
    page.get_by_label("Passwort").fill(PASSWORD)
    page.get_by_role("button", name="Anmelden").click()
    page.wait_for_url(lambda url: urlsplit(url).path == next_path)


def chat_path(conversation: Conversation) -> str:
    return f"/helena/gespraech/{conversation.pk}/"


def composer(page: Page) -> Locator:
    return page.get_by_label("Nachricht an Helena")


def wait_connected(page: Page) -> None:
    expect(composer(page)).to_be_enabled()


def send(page: Page, text: str, *, mode: str = "Sofort") -> None:
    wait_connected(page)
    page.get_by_label("Modus").select_option(label=mode)
    composer(page).fill(text)
    composer(page).press("Enter")


def answers(page: Page) -> Locator:
    return page.locator("#chat-log article[data-run-id]")


def wait_done(answer: Locator, timeout: int = RUN_TIMEOUT_MS) -> None:
    """Finished: data-active false and the streamed text replaced by the server's rendering."""
    expect(answer).to_have_attribute("data-active", "false", timeout=timeout)
    expect(answer.locator(".chat-text--live")).to_have_count(0, timeout=timeout)


def step_rows(answer: Locator) -> list[tuple[str, str, str]]:
    return answer.locator(".chat-step").evaluate_all(
        "items => items.map(li => [li.dataset.callId, li.querySelector('.chat-step__title').textContent,"
        " li.querySelector('.chat-step__result').textContent])"
    )


def api_events(kanzlei: Kanzlei, username: str, run_id: str) -> list[dict[str, Any]]:
    return kanzlei.client(username).get(f"/api/v1/helena/runs/{run_id}/events").json()


def screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def a_wednesday(after_days: int = 40) -> date:
    day = date.today() + timedelta(days=after_days)
    return day + timedelta(days=(2 - day.weekday()) % 7)


# --------------------------------------------------------------------------- tests


def test_login_send_and_see_the_answer_stream_with_its_tool_step(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    words = ["Die ", "Frist ", "endet ", "am ", "**Montag**, ", "02.11.2026. ", "Bitte ", "trage ", "sie ",
             "in ", "den ", "Kalender ", "ein."]
    tiers.script([{"tool_calls": [{"name": "calculate_frist", "arguments": FRIST}]},
                  {"text": words, "chunk_delay": 0.2}])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], "/")
    expect(page.get_by_role("heading", name="Gespräche mit Helena")).to_be_visible()
    screenshot(page, "chat-home-empty")
    page.get_by_role("button", name="Neues Gespräch").click()
    page.wait_for_url(re.compile(r"/helena/gespraech/\d+/$"))
    expect(page.locator(".chat-header__context")).to_contain_text("Allgemein")
    wait_connected(page)
    expect(composer(page)).to_be_focused()

    send(page, "Wann endet die Frist, wenn am 01.10.2026 zugestellt wurde?")
    expect(page.locator(".chat-msg--user")).to_have_text(re.compile("Wann endet die Frist"))
    expect(composer(page)).to_be_focused()
    expect(composer(page)).to_have_value("")
    answer = answers(page).first
    expect(answer.locator(".chat-badge")).to_contain_text("⚡ Direkt")
    expect(answer.locator(".chat-badge")).to_have_attribute(
        "title", re.compile(r"^Stufe [12] · (klein|gross) \(ollama\)$"))
    expect(answer.locator(".chat-step__title")).to_have_text(["Berechne Frist: 2026-10-01"])
    live = answer.locator(".chat-text--live")
    expect(live).to_contain_text("Die Frist endet")  # streamed, still running
    expect(answer.get_by_role("button", name="Abbrechen")).to_be_visible()
    screenshot(page, "chat-streaming")

    wait_done(answer)
    expect(answer.get_by_role("button", name="Abbrechen")).to_be_hidden()
    expect(answer.locator(".chat-text")).to_contain_text("Die Frist endet am Montag, 02.11.2026.")
    expect(answer.locator(".chat-text strong")).to_have_text("Montag")  # Markdown, rendered by the server
    expect(answer.locator(".chat-step__result")).not_to_have_text("läuft …")
    expect(answer.locator(".chat-status")).to_be_hidden()
    screenshot(page, "chat-inline-answer")

    page.reload()  # the same history, rendered by the server
    answer = answers(page).first
    expect(answer.locator(".chat-step__title")).to_have_text(["Berechne Frist: 2026-10-01"])
    expect(answer.locator(".chat-text strong")).to_have_text("Montag")
    expect(page.locator(".chat-msg--user")).to_have_count(1)

    page.goto("/helena/")
    expect(page.locator(".chat-list__item")).to_contain_text("Wann endet die Frist")
    nav = page.get_by_role("navigation", name="Hauptnavigation")
    expect(nav.get_by_role("link", name="Helena", exact=True)).to_have_attribute("aria-current", "page")
    screenshot(page, "chat-home")


def test_a_draft_card_is_approved_in_the_chat_and_the_frist_is_on_the_akte(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    akte = kanzlei.akten["A"]
    datum = a_wednesday()
    arguments = {"akte_id": str(akte.pk), "bezeichnung": "Berufungsbegründung einreichen",
                 "datum": datum.isoformat()}
    tiers.script([{"tool_calls": [{"name": "create_draft_frist", "arguments": arguments}]},
                  {"text": "Ich habe einen Fristentwurf angelegt. Bitte prüfe ihn und gib ihn frei."}])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], f"/akten/{akte.pk}/")
    page.get_by_role("button", name="Mit Helena über diese Akte sprechen").click()
    page.wait_for_url(re.compile(r"/helena/gespraech/\d+/$"))
    context_link = page.locator(".chat-header__context a")
    expect(context_link).to_have_text("1/26 Meier ./. Stahlbau GmbH")  # beside the badge „Akte“, once
    expect(page.locator(".chat-header__context")).not_to_contain_text("Akte Akte")
    expect(context_link).to_have_attribute("href", f"/akten/{akte.pk}/")

    send(page, "Lege bitte die Frist für die Berufungsbegründung an.")
    answer = answers(page).first
    card = answer.locator(".draft-card")
    expect(card).to_contain_text("Berufungsbegründung einreichen")
    expect(answer.locator(".chat-step__title")).to_have_text(
        ["Legt Fristentwurf an: Berufungsbegründung einreichen"])
    wait_done(answer)
    zitat = ["Entwurf: Frist „Berufungsbegründung einreichen“ (Akte 1/26)"]  # no table, no id
    expect(answer.locator(".chat-step__sources li")).to_have_text(zitat)
    screenshot(page, "chat-draft-card")
    assert not Frist.objects.filter(bezeichnung="Berufungsbegründung einreichen").exists()

    card.get_by_role("button", name="Freigeben").click()
    expect(card).to_have_attribute("data-status", "approved")
    expect(card).to_contain_text("Freigegeben von")
    expect(card.get_by_role("button", name="Freigeben")).to_have_count(0)
    screenshot(page, "chat-draft-approved")
    frist = Frist.objects.get(akte=akte, bezeichnung="Berufungsbegründung einreichen")
    assert frist.datum == datum

    page.reload()  # the history shows the decided card, and the source as it was shown live
    expect(answers(page).first.locator(".draft-card")).to_have_attribute("data-status", "approved")
    expect(answers(page).first.locator(".chat-step__sources li")).to_have_text(zitat)

    page.goto(f"/akten/{akte.pk}/")
    expect(page.locator(f"#frist-{frist.pk}")).to_contain_text("Berufungsbegründung einreichen")
    screenshot(page, "akte-frist-from-draft")


def test_cancel_a_background_run_while_chatting_on(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any, celery_worker: subprocess.Popen
) -> None:
    tiers.script([{"text": [f"Satz {i}. " for i in range(300)], "chunk_delay": 0.1},
                  {"text": "Kurze Antwort zwischendurch."}])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))

    send(page, "Recherchiere bitte ausführlich die Rechtsprechung zur Mietminderung.", mode="Im Hintergrund")
    background = answers(page).first
    expect(background.locator(".chat-badge")).to_contain_text("🔄 Hintergrund", timeout=60_000)
    expect(background.locator(".chat-text")).to_contain_text("Satz 3.", timeout=60_000)

    send(page, "Kurze Zwischenfrage: Wie spät ist es?")  # the user keeps chatting meanwhile
    inline = answers(page).nth(1)
    expect(inline.locator(".chat-text")).to_contain_text("Kurze Antwort zwischendurch.")
    wait_done(inline)
    expect(background).to_have_attribute("data-active", "true")

    background.get_by_role("button", name="Abbrechen").click()
    expect(background.locator(".chat-notice--cancelled")).to_have_text("Abgebrochen.", timeout=RUN_TIMEOUT_MS)
    wait_done(background)
    expect(background.get_by_role("button", name="Abbrechen")).to_be_hidden()
    expect(background.locator(".chat-progress")).to_be_hidden()
    expect(background.locator(".chat-notice--done")).to_have_count(0)
    screenshot(page, "chat-background-cancelled")
    run = AgentRun.objects.get(pk=background.get_attribute("data-run-id"))
    assert run.mode == "background" and run.status == "cancelled" and run.finish_reason == "cancelled"

    page.reload()
    expect(answers(page).first.locator(".chat-notice--cancelled")).to_have_text("Abgebrochen.")


def test_a_finished_background_run_is_announced(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any, celery_worker: subprocess.Popen
) -> None:
    tiers.script([{"tool_calls": [{"name": "read_fristen", "arguments": {}}]},
                  {"text": "Recherche abgeschlossen: Du hast zwei offene Fristen."}])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    send(page, "Prüfe bitte im Hintergrund alle meine Fristen.", mode="Im Hintergrund")
    answer = answers(page).first
    wait_done(answer, timeout=60_000)
    expect(answer.locator(".chat-notice--done")).to_have_text("Hintergrundaufgabe abgeschlossen.")
    expect(answer.locator(".chat-text")).to_contain_text("Recherche abgeschlossen")
    expect(answer.locator(".chat-step__title")).to_have_text(["Lese Fristen"])
    screenshot(page, "chat-background-done")


def test_a_refused_message_is_marked_and_says_when_it_frees_up(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    tiers.script([{"text": "Gern geschehen."}])
    RateLimit.objects.create(user=kanzlei.users["sachbearbeiter"], runs_per_hour=1)
    conversation = services.create_conversation(user=kanzlei.users["sachbearbeiter"])
    page = new_context().new_page()
    login(page, kanzlei.users["sachbearbeiter"], chat_path(conversation))
    wait_connected(page)
    send(page, "Danke für die Hilfe!")
    wait_done(answers(page).first)
    send(page, "Noch eine Frage.")
    users = page.locator("#chat-log .chat-msg--user")
    expect(users.nth(1)).to_have_class(re.compile("chat-msg--failed"))
    expect(users.nth(1)).to_contain_text("nicht gesendet")
    expect(users.first).not_to_have_class(re.compile("chat-msg--failed"))
    notice = page.locator("#chat-page-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(re.compile(r"\d{1,2}:\d{2}"))  # the time it frees up
    expect(answers(page)).to_have_count(1)
    expect(composer(page)).to_have_value("Noch eine Frage.")  # back in the composer, to send later
    screenshot(page, "chat-rate-limited")


def test_reload_mid_run_continues_without_duplicated_steps(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    words = [f"Wort{i} " for i in range(50)]
    tiers.script([{"tool_calls": [{"name": "read_fristen", "arguments": {}}]},
                  {"tool_calls": [{"name": "calculate_frist", "arguments": FRIST}]},
                  {"text": words, "chunk_delay": 0.1}])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    send(page, "Welche Fristen laufen, und wann endet die neue?")
    answer = answers(page).first
    expect(answer.locator(".chat-text--live")).to_contain_text("Wort3 ")
    run_id = answer.get_attribute("data-run-id")

    page.reload()
    answer = page.locator(f'#chat-log article[data-run-id="{run_id}"]')
    expect(answer.locator(".chat-text--live")).to_contain_text("Wort20 ")  # the run goes on in the page
    live = answer.locator(".chat-text").text_content() or ""
    assert "".join(words).startswith(live), live  # no delta twice, none missing
    screenshot(page, "chat-reload-mid-run")
    wait_done(answer)
    expect(answer.locator(".chat-text")).to_contain_text("Wort49")

    events = api_events(kanzlei, "anwalt", run_id)
    calls = [e for e in events if e["type"] == "tool_call"]
    rows = step_rows(answer)
    assert [row[0] for row in rows] == [c["call_id"] for c in calls]
    assert [row[1] for row in rows] == ["Lese Fristen", "Berechne Frist: 2026-10-01"]
    results = {e["call_id"]: e["summary"] for e in events if e["type"] == "tool_result"}
    assert [row[2] for row in rows] == [results[c["call_id"]] for c in calls]
    assert answer.get_attribute("data-seq") == str(events[-1]["seq"])
    assert answers(page).count() == 1 and page.locator(".chat-msg--user").count() == 1


def test_two_tabs_show_identical_step_lists(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    tiers.script([{"tool_calls": [{"name": "read_fristen", "arguments": {}}]},
                  {"tool_calls": [{"name": "calculate_frist", "arguments": FRIST}]},
                  {"text": [f"Teil{i} " for i in range(15)], "chunk_delay": 0.05}])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    context = new_context()
    one = context.new_page()
    login(one, kanzlei.users["anwalt"], chat_path(conversation))
    two = context.new_page()
    two.goto(chat_path(conversation))
    wait_connected(one)
    wait_connected(two)

    send(one, "Welche Fristen habe ich, und wann endet die neue?")
    first, second = answers(one).first, answers(two).first
    wait_done(first)
    wait_done(second)
    expect(second.locator(".chat-text")).to_contain_text("Teil14")
    assert step_rows(first) == step_rows(second)
    assert len(step_rows(first)) == 2
    assert first.locator(".chat-text").inner_html() == second.locator(".chat-text").inner_html()
    assert first.get_attribute("data-seq") == second.get_attribute("data-seq")
    # The watching tab shows the question too, once, before the answer, as the sender does.
    question = "Welche Fristen habe ich, und wann endet die neue?"
    for page in (one, two):
        users = page.locator("#chat-log .chat-msg--user")
        expect(users).to_have_count(1)
        expect(users.first).to_have_text(re.compile(re.escape(question)))
        expect(users.first).not_to_have_attribute("data-pending", "true")
        order = page.eval_on_selector_all("#chat-log > article", "els => els.map(e => e.className)")
        assert "chat-msg--user" in order[0] and "chat-msg--assistant" in order[1]
    screenshot(one, "chat-two-tabs-sender")
    screenshot(two, "chat-two-tabs-watcher")


def test_model_html_stays_inert_live_and_after_reload(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    deltas = ["Achtung: ", "<script>window.pwned=1</script>", " und ", '<img src=x onerror="window.pwned=1">',
              " sowie ", "[Link](javascript:window.pwned=1)", " Ende."]
    tiers.script([{"text": deltas, "chunk_delay": 0.4}])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    send(page, 'Zeig mir <img src=x onerror="window.pwned=1"> bitte.')
    answer = answers(page).first

    def assert_inert(where: str) -> None:
        assert page.evaluate("typeof window.pwned") == "undefined", where
        assert page.locator("#chat-log img, #chat-log script, #chat-log [onerror]").count() == 0, where
        assert page.locator('#chat-log a[href^="javascript"]').count() == 0, where

    expect(answer.locator(".chat-text--live")).to_contain_text('<img src=x onerror="window.pwned=1">')
    expect(page.locator(".chat-msg--user")).to_contain_text('<img src=x onerror="window.pwned=1">')
    assert_inert("live")
    wait_done(answer)
    expect(answer.locator(".chat-text")).to_contain_text("<script>window.pwned=1</script>")
    page.wait_for_timeout(300)
    assert_inert("after done")
    screenshot(page, "chat-inert-html")
    page.reload()
    answer = answers(page).first
    expect(answer.locator(".chat-text")).to_contain_text('<img src=x onerror="window.pwned=1"> sowie')
    page.wait_for_timeout(300)
    assert_inert("after reload")


def test_a_praktikant_sees_a_draft_card_without_freigeben(kanzlei: Kanzlei, new_context: Any) -> None:
    akte = kanzlei.akten["B"]
    draft = create_draft(user=kanzlei.users["anwalt"], kind=Draft.Kind.FRIST, akte_id=akte.pk,
                         fields={"bezeichnung": "Räumungsfrist prüfen", "datum": a_wednesday().isoformat()})
    page = new_context().new_page()
    login(page, kanzlei.users["praktikant"], f"/akten/{akte.pk}/")
    card = page.locator(f"#draft-{draft.pk}")
    expect(card).to_contain_text("Räumungsfrist prüfen")
    expect(card).to_contain_text("Wartet auf Freigabe durch eine berechtigte Person.")
    expect(card.get_by_role("button", name="Freigeben")).to_have_count(0)
    expect(card.get_by_role("link", name="Bearbeiten")).to_have_count(0)
    expect(page.get_by_role("button", name="Mit Helena über diese Akte sprechen")).to_be_visible()
    screenshot(page, "akte-praktikant-card")


def test_the_chat_works_at_375_px(kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any) -> None:
    akte = kanzlei.akten["A"]
    long_answer = (
        "## Ergebnis\n\nDie Klage muss **innerhalb von drei Wochen** erhoben werden (§ 4 KSchG).\n\n"
        "| Ereignis | Datum | Hinweis |\n|---|---|---|\n"
        "| Zugang der Kündigung | 01.10.2026 | per Boten |\n| Fristende | 22.10.2026 | Donnerstag |\n\n"
        "```\nfristende = zugang + timedelta(weeks=3)  # ohne Feiertagsprüfung, nur zur Illustration\n```\n\n"
        "Quelle: https://www.gesetze-im-internet.de/kschg/__4.html#Kuendigungsschutzklage-Frist-Zugang "
        "Rechtsschutzversicherungsdeckungszusage"
    )
    arguments = {"akte_id": str(akte.pk), "bezeichnung": "Kündigungsschutzklage einreichen (§ 4 KSchG)",
                 "datum": a_wednesday(20).isoformat()}
    tiers.script([{"tool_calls": [{"name": "search_gesetze", "arguments": {
                      "query": "Kündigungsschutzklage dreiwöchige Klagefrist nach Zugang der schriftlichen "
                               "Kündigung"}}]},
                  {"tool_calls": [{"name": "create_draft_frist", "arguments": arguments}]},
                  {"text": long_answer}])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"], akte_id=akte.pk)
    page = new_context(width=375, height=812).new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    send(page, "Bis wann muss die Kündigungsschutzklage erhoben werden? Bitte lege auch die Frist an.")
    answer = answers(page).first
    wait_done(answer)
    expect(answer.locator(".draft-card")).to_be_visible()
    expect(answer.locator(".chat-text table")).to_be_visible()
    answer.locator(".chat-step summary").first.click()  # an opened step must fit as well
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 375
    screenshot(page, "chat-375px")
    page.screenshot(path=str(ARTIFACTS / "chat-375px-viewport.png"))  # as seen on the phone
    page.goto("/helena/")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 375
    screenshot(page, "chat-home-375px")



def test_chat_pages_are_scoped_to_their_user(kanzlei: Kanzlei) -> None:
    """No browser needed: who may open which page, and what the answer fragment returns."""
    anwalt, sachbearbeiter = kanzlei.users["anwalt"], kanzlei.users["sachbearbeiter"]
    own = services.create_conversation(user=anwalt, akte_id=kanzlei.akten["A"].pk)
    foreign = services.create_conversation(user=sachbearbeiter)
    running = AgentRun.objects.create(conversation=own, user=anwalt, mode="inline", tier=1, status="running")
    foreign_run = AgentRun.objects.create(conversation=foreign, user=sachbearbeiter, mode="inline", tier=1)
    client = Client()
    assert client.get("/").status_code == 302 and client.get(chat_path(own)).status_code == 302
    client.force_login(anwalt)

    home = client.get("/").content.decode()
    assert chat_path(own) in home and chat_path(foreign) not in home
    assert client.get("/helena/").status_code == 200
    assert client.get(chat_path(own)).status_code == 200
    assert client.get(chat_path(foreign)).status_code == 404
    assert client.get("/helena/gespraech/999999/").status_code == 404
    assert client.get(f"/helena/laeufe/{foreign_run.pk}/antwort/").status_code == 404
    assert client.get("/helena/laeufe/kein-lauf/antwort/").status_code == 404
    assert client.get(f"/helena/laeufe/{running.pk}/antwort/").status_code == 409  # no `done` yet
    assert client.post(f"/akten/{kanzlei.akten['D'].pk}/gespraech/").status_code == 404  # no access
    assert client.get(f"/akten/{kanzlei.akten['A'].pk}/gespraech/").status_code == 405

    response = client.post(f"/akten/{kanzlei.akten['A'].pk}/gespraech/")
    created = Conversation.objects.filter(user=anwalt).latest("created_at")
    assert response.status_code == 302 and response["Location"] == chat_path(created)
    assert created.akte_id == kanzlei.akten["A"].pk and created.context_type == "akte"
    response = client.post("/helena/gespraech/neu/", {"context_type": "fristen"})
    created = Conversation.objects.filter(user=anwalt).latest("created_at")
    assert response["Location"] == chat_path(created) and created.context_type == "fristen"
    assert created.akte_id is None


# --------------------------------------------------------------------------- plans and questions


def plan_rows(answer: Locator) -> list[list[str]]:
    """Each plan item as [description, status badge, acceptance line, result] (hidden parts: "")."""
    return answer.locator(".chat-plan__item").evaluate_all(
        "items => items.map(li => ['.chat-plan__desc', '.chat-plan__badge', '.chat-plan__criteria',"
        " '.chat-plan__result'].map(s => { const n = li.querySelector(s);"
        " return n.hidden ? '' : n.textContent; }))"
    )


def test_a_plan_card_follows_the_plan_and_survives_a_reload(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    from tests.helena.agent.test_plans import items, plan_call, thought_complete

    tiers.script([
        plan_call("Berufungsfrist ermitteln und zusammenfassen"),
        items(("Urteil auswerten", []), ("Fristende ermitteln", [1]), ("Ergebnis zusammenfassen", [2])),
        thought_complete("Zustellung am 01.10.2026"),
        {**thought_complete("Fristende 02.11.2026"), "delay": 2.0},  # time to see item 2 running
        thought_complete("Zusammenfassung steht"),
        {"text": "Der Plan ist abgearbeitet: Die Berufungsfrist endet am 02.11.2026."},
    ])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    send(page, "Ermittle die Berufungsfrist und fasse das Ergebnis zusammen.")
    answer = answers(page).first
    card = answer.locator(".chat-plan")
    title = "Plan: Berufungsfrist ermitteln und zusammenfassen"
    expect(card.locator(".chat-plan__title")).to_have_text(title)
    expect(card.locator(".chat-plan__progress")).to_have_text("Schritt 2/3: Fristende ermitteln")
    expect(card.locator(".chat-plan__badge")).to_have_text(["erledigt", "läuft", "offen"])
    screenshot(page, "chat-plan-card-running")

    wait_done(answer)
    expect(card.locator(".chat-plan__badge")).to_have_text(["erledigt", "erledigt", "erledigt"])
    expect(card.locator(".chat-plan__progress")).to_be_hidden()
    expect(card.locator(".chat-plan__hint")).to_be_hidden()
    expect(answer.locator(".chat-text")).to_contain_text("Die Berufungsfrist endet am 02.11.2026.")
    live = plan_rows(answer)
    assert live == [
        ["Urteil auswerten", "erledigt", "Abnahme: Urteil auswerten: erledigt", "Zustellung am 01.10.2026"],
        ["Fristende ermitteln", "erledigt", "Abnahme: Fristende ermitteln: erledigt", "Fristende 02.11.2026"],
        ["Ergebnis zusammenfassen", "erledigt", "Abnahme: Ergebnis zusammenfassen: erledigt",
         "Zusammenfassung steht"],
    ], live
    assert page.locator(".chat-extra").count() == 0  # no generic event boxes any more
    screenshot(page, "chat-plan-card")

    page.reload()  # the server draws the same card from the Plan row
    answer = answers(page).first
    expect(answer.locator(".chat-plan")).to_have_count(1)
    expect(answer.locator(".chat-plan__title")).to_have_text(title)
    assert plan_rows(answer) == live
    expect(answer.locator(".chat-plan__progress")).to_be_hidden()
    expect(answer.locator(".chat-plan__attempts")).to_have_count(3)
    for attempts in answer.locator(".chat-plan__attempts").all():
        expect(attempts).to_be_hidden()  # one attempt each: no counter


def test_a_draft_plan_asks_for_review_in_words_and_runs_on_in_the_next_answer(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    from tests.helena.agent.test_plans import items, plan_call, thought_complete

    hint = "Passt der Plan? Antworte einfach im Chat, z. B. „passt, leg los“ oder „füge vorher … hinzu“."
    tiers.script([
        plan_call("Berufung vorbereiten", "draft_only"),
        items(("Urteil auswerten", []), ("Frist berechnen", [1]), ("Entwurf vorlegen", [2])),
        {"text": "Hier ist mein Plan. Soll ich so vorgehen?"},
    ])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    send(page, "Bereite die Berufung vor, zeig mir aber erst den Plan.")
    first = answers(page).first
    wait_done(first)
    card = first.locator(".chat-plan")
    expect(card.locator(".chat-plan__hint")).to_have_text(hint)
    expect(card.locator(".chat-plan__badge")).to_have_text(["offen", "offen", "offen"])
    expect(card.get_by_role("button")).to_have_count(0)  # no buttons: the user answers in words
    screenshot(page, "chat-plan-review")
    page.reload()
    card = answers(page).first.locator(".chat-plan")
    expect(card.locator(".chat-plan__hint")).to_have_text(hint)
    expect(card.locator(".chat-plan__desc")).to_have_text(["Urteil auswerten", "Frist berechnen",
                                                           "Entwurf vorlegen"])

    tiers.script([
        plan_call("Berufung vorbereiten", "auto_execute"),
        thought_complete("Urteil ausgewertet"), thought_complete("Frist steht"),
        thought_complete("Entwurf vorgelegt"),
        {"text": "Erledigt: Der Entwurf liegt vor."},
    ])
    send(page, "Passt, leg los.")
    second = answers(page).nth(1)
    wait_done(second)
    # The card stays where the plan was made and follows it; the new answer links to it.
    expect(card.locator(".chat-plan__badge")).to_have_text(["erledigt", "erledigt", "erledigt"])
    expect(card.locator(".chat-plan__hint")).to_be_hidden()
    expect(second.locator(".chat-plan")).to_have_count(0)
    ref = second.locator(".chat-plan-ref a")
    expect(ref).to_have_text("Berufung vorbereiten")
    expect(ref).to_have_attribute("href", f"#plan-{card.get_attribute('data-plan-id')}")
    live = plan_rows(answers(page).first)
    page.reload()
    first, second = answers(page).first, answers(page).nth(1)
    assert plan_rows(first) == live
    expect(first.locator(".chat-plan__hint")).to_be_hidden()
    expect(second.locator(".chat-plan-ref a")).to_have_text("Berufung vorbereiten")


def test_helena_asks_and_the_next_message_answers(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    question = "Wann wurde das Urteil zugestellt?"
    tiers.script([
        {"tool_calls": [{"name": "ask_user",
                         "arguments": {"question": question, "answer_key": "zustellung"}}]},
        {"tool_calls": [{"name": "calculate_frist", "arguments": FRIST}]},
        {"text": "Die Berufungsfrist endet am Montag, 02.11.2026."},
    ])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    send(page, "Wann endet meine Berufungsfrist?")
    first = answers(page).first
    wait_done(first)

    def assert_waiting() -> None:
        expect(first.locator(".chat-question")).to_have_text(f"Helena fragt: {question}")
        expect(first.locator(".chat-status")).to_have_text("Wartet auf dich")
        expect(page.locator("#chat-question-hint")).to_be_visible()
        expect(composer(page)).to_have_attribute("placeholder", "Deine Antwort an Helena …")
        expect(composer(page)).to_be_focused()

    assert_waiting()
    screenshot(page, "chat-ask-user")
    page.reload()  # the same, drawn by the server
    first = answers(page).first
    wait_connected(page)
    assert_waiting()

    composer(page).fill("Am 01.10.2026")
    composer(page).press("Enter")
    expect(page.locator(".chat-msg--user")).to_have_count(2)
    assert composer(page).evaluate("el => el.placeholder") == ""  # back to normal
    expect(page.locator("#chat-question-hint")).to_be_hidden()
    second = answers(page).nth(1)
    wait_done(second)
    expect(second.locator(".chat-text")).to_contain_text("Die Berufungsfrist endet am Montag, 02.11.2026.")
    expect(second.locator(".chat-step__title")).to_have_text(["Berechne Frist: 2026-10-01"])
    expect(second.locator(".chat-question")).to_be_hidden()
    expect(first.locator(".chat-status")).to_be_hidden()  # answered: Helena no longer waits
    screenshot(page, "chat-ask-user-answered")

    run1, run2 = first.get_attribute("data-run-id"), second.get_attribute("data-run-id")
    client = kanzlei.client("anwalt")
    assert client.get(f"/api/v1/helena/runs/{run1}").json()["finish_reason"] == "waiting_on_user"
    body = client.get(f"/api/v1/helena/runs/{run2}").json()
    assert body["parent_id"] == run1 and body["finish_reason"] == "stop"

    page.reload()
    first, second = answers(page).first, answers(page).nth(1)
    expect(first.locator(".chat-question")).to_have_text(f"Helena fragt: {question}")
    expect(first.locator(".chat-status")).to_be_hidden()
    expect(page.locator("#chat-question-hint")).to_be_hidden()
    assert composer(page).evaluate("el => el.placeholder") == ""


def plan_cards(page: Page) -> list[dict[str, Any]]:
    """Every plan card as the user reads it: title, revision and review lines, hint, items."""
    return page.locator("#chat-log .chat-plan").evaluate_all(
        "cards => cards.map(c => { const text = s => { const n = c.querySelector(s);"
        " return n && !n.hidden ? n.textContent : ''; };"
        " return {title: text('.chat-plan__title'), revision: text('.chat-plan__revision'),"
        " review: text('.chat-plan__review'), hint: text('.chat-plan__hint'),"
        " items: [...c.querySelectorAll('.chat-plan__item')].map(li => li.innerText)}; })"
    )


def test_plan_review_and_replan_show_live_as_after_a_reload(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    import json

    from tests.helena.agent.test_plans import items, plan_call, thought_complete

    tiers.script([
        plan_call("Klageerwiderung vorbereiten", "agent_review"),
        items(("Klage lesen", []), ("Erwiderung schreiben", [1]), ("Vorlegen", [2])),
        {"text": json.dumps({"verdict": "rejected", "notes": "Die Erwiderungsfrist fehlt."})},
        plan_call("Klageerwiderung vorbereiten, mit Erwiderungsfrist", "agent_review"),
        items(("Klage lesen", []), ("Erwiderungsfrist notieren", [1]), ("Erwiderung schreiben", [2])),
        {"text": json.dumps({"verdict": "approved", "notes": "Vollständig."})},
        thought_complete("Klage gelesen"),
        {"text": json.dumps({"rationale": "Schon notiert.", "expected_outcome": "",
                             "action": {"type": "replan", "summary": "Die Frist steht schon in der Akte"}})},
        {"text": json.dumps({"items": [
            {"position": 2, "description": "Frist in der Akte prüfen", "acceptance_criteria": "geprüft",
             "dependencies": [1]},
            {"position": 3, "description": "Erwiderung schreiben", "acceptance_criteria": "geschrieben",
             "dependencies": [2]},
        ]})},
        thought_complete("Frist geprüft"), thought_complete("Erwiderung geschrieben"),
        {"text": "Fertig: Die Klageerwiderung ist geschrieben."},
    ])
    conversation = services.create_conversation(user=kanzlei.users["anwalt"])
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    send(page, "Bereite die Klageerwiderung vor.")
    answer = answers(page).first
    wait_done(answer)
    expect(answer.locator(".chat-plan")).to_have_count(2)
    rejected, approved = answer.locator(".chat-plan").all()
    expect(rejected.locator(".chat-plan__review")).to_have_text("Abgelehnt: Die Erwiderungsfrist fehlt.")
    expect(rejected.locator(".chat-plan__badge")).to_have_text(["offen", "offen", "offen"])
    expect(approved.locator(".chat-plan__review")).to_have_text("Freigegeben: Vollständig.")
    expect(approved.locator(".chat-plan__revision")).to_have_text(
        re.compile(r"^Plan überarbeitet \(Version \d+\): Die Frist steht schon in der Akte$"))
    expect(approved.locator(".chat-plan__desc")).to_have_text(
        ["Klage lesen", "Frist in der Akte prüfen", "Erwiderung schreiben"])
    expect(approved.locator(".chat-plan__badge")).to_have_text(["erledigt", "erledigt", "erledigt"])
    screenshot(page, "chat-plan-replanned")
    live = plan_cards(page)
    page.reload()
    expect(answers(page).first.locator(".chat-plan")).to_have_count(2)
    assert plan_cards(page) == live


def test_a_thinking_model_shows_its_reasoning_collapsed_and_never_raw_markup(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, new_context: Any
) -> None:
    """Qwen3 as Ollama serves it: reasoning in its own field, a call in Hermes markup, then the answer."""
    tiers.capabilities = ["completion", "tools", "thinking"]
    tiers.script([
        {"thinking": "Okay, the user asks about the Berufungsfrist. I should look it up.",
         "raw": '<tool_call>\n{"name": "calculate_frist", "arguments": '
                + json.dumps(FRIST) + "}\n</tool_call>", "chunk_delay": 0.05},
        {"thinking": "The result says 02.11.2026.", "text": "Die Frist endet am **Montag**, 02.11.2026.",
         "chunk_delay": 0.05},
    ])
    page = new_context().new_page()
    conversation = Conversation.objects.create(user=kanzlei.users["anwalt"])
    login(page, kanzlei.users["anwalt"], chat_path(conversation))
    wait_connected(page)
    send(page, "Wann endet die Frist, wenn am 01.10.2026 zugestellt wurde?")
    answer = answers(page).first
    wait_done(answer)
    reasoning = answer.locator(".chat-step--reasoning")
    expect(reasoning).to_have_count(2)
    expect(reasoning.first.locator("summary")).to_contain_text("Überlegung")
    expect(reasoning.first.locator(".chat-step__reasoning")).to_be_hidden()  # collapsed
    expect(answer.locator(".chat-step__title").nth(1)).to_have_text("Berechne Frist: 2026-10-01")
    expect(answer.locator(".chat-text")).to_have_text("Die Frist endet am Montag, 02.11.2026.")
    reasoning.first.locator("summary").click()
    expect(reasoning.first.locator(".chat-step__reasoning")).to_contain_text("Okay, the user asks")
    screenshot(page, "chat-reasoning")
    body = page.locator("body").inner_text()
    assert "<tool_call>" not in body and "Okay, the user" not in answer.locator(".chat-text").inner_text()
    page.reload()
    answer = answers(page).first
    expect(answer.locator(".chat-step--reasoning")).to_have_count(2)
    expect(answer.locator(".chat-text")).to_have_text("Die Frist endet am Montag, 02.11.2026.")
