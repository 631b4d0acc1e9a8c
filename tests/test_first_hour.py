"""A firm's first hour with Helena, in Chromium against daphne run as deployed (DEBUG off, static
files collected): each role logs in, sees the empty and the demo states and every page it uses;
the admin sets up a model tier, a rate limit and an API token. Every page must be German (a small
list of technical terms allowed), load nothing from another server, and never show Django's debug
page. Screenshots go to tests/artifacts/first_hour/.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from playwright.sync_api import Browser, Page, expect, sync_playwright

from akten.models import Akte, ApiToken, User
from helena.conversations.demo import TITLE
from helena.models import Conversation, ModelTier, RateLimit
from tests.conftest import BASE_DIR, daphne, database_url
from tests.scripted_llm_server import unused_port

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "first_hour"
PASSWORD = "erste-stunde-123"
# Words that give away an English UI (Django's own, pydantic's, our old labels). Checked as whole
# words in the visible text of every page.
ENGLISH = {
    "the", "and", "you", "your", "please", "save", "delete", "add", "change", "history", "view", "site",
    "welcome", "home", "search", "action", "selected", "select", "username", "password",
    "error", "found", "page", "submit", "cancel", "yes", "created", "updated", "user",
    "users", "mode", "provider", "reason", "finish", "steps", "timeout", "max", "inline", "background",
    "tokens", "should", "input", "valid", "field", "required", "logout", "none", "unknown",
    "request", "traceback", "debug", "urlconf", "exception",
}
# Technical terms a German Kanzlei reads as they are.
ALLOWED = {"api", "token", "tokens", "json", "openapi", "ollama", "openai", "url", "id", "e-mail", "admin",
           "qwen3", "ok", "cloud", "websocket", "celery", "redis", "postgresql", "daphne", "markdown"}
DEBUG_MARKERS = ("Traceback", "Django Version", "URLconf", "DEBUG = True", "Request Method")


@pytest.fixture(scope="module")
def deployed(django_db_setup, tmp_path_factory) -> Iterator[str]:
    """daphne as `make run` runs it: DEBUG off, its own key, static files collected and served."""
    static_root = tmp_path_factory.mktemp("static")
    env = {"DEBUG": "0", "SECRET_KEY": "erste-stunde-" + "x" * 40, "ALLOWED_HOSTS": "127.0.0.1,localhost",
           "STATIC_ROOT": str(static_root), "OLLAMA_HOST": f"http://127.0.0.1:{unused_port()}"}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
                   cwd=BASE_DIR, env={**os.environ, **env, "DATABASE_URL": database_url()}, check=True)
    with daphne(env) as address:
        yield address


@pytest.fixture(scope="module")
def browser(deployed: str) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium not found at {CHROMIUM} (apt-get install chromium).", pytrace=False)
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # the ORM beside Playwright's loop (see test_browser)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                              args=["--headless", "--no-sandbox"])
        yield chromium
        chromium.close()
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class Walk:
    """One person's browser: every page they open is checked and photographed."""

    def __init__(self, browser: Browser, base: str, who: str) -> None:
        self.base, self.who = base, who
        self.context = browser.new_context(base_url=base, locale="de-DE",
                                           viewport={"width": 1200, "height": 900})
        self.page = self.context.new_page()
        self.foreign: list[str] = []
        self.page.on("request", self._request)

    def _request(self, request) -> None:
        url = request.url
        if not (url.startswith(self.base) or url.startswith(("data:", "blob:", "about:"))):
            self.foreign.append(url)

    def open(self, path: str, name: str, *, status: int = 200, german: bool = True) -> Page:
        response = self.page.goto(path)
        got = response.status if response is not None else None
        assert got == status, f"{self.who} {path}: {got}"
        self.check(name, german=german)
        return self.page

    def check(self, name: str, *, german: bool = True) -> None:
        page = self.page
        page.wait_for_load_state("networkidle")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{self.who}-{name}.png"), full_page=True)
        html = page.content()
        assert not any(marker in html for marker in DEBUG_MARKERS), f"debug page at {page.url}"
        text = page.inner_text("body")
        words = {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß][\w-]*", text)}
        english = sorted((words & ENGLISH) - ALLOWED) if german else []
        assert not english, f"English on {page.url} ({self.who}): {english}"
        assert not self.foreign, f"requests to other servers from {page.url}: {self.foreign}"

    def login(self, username: str) -> None:
        self.page.goto("/konto/anmelden/")
        self.check("anmelden")
        self.page.get_by_label("Benutzername").fill(username)
        self.page.get_by_label("Passwort").fill(PASSWORD)
        self.page.get_by_role("button", name="Anmelden").click()
        self.page.wait_for_url(lambda url: urlsplit(url).path == "/")

    def close(self) -> None:
        self.context.close()


def _passwords() -> None:
    hasher = PBKDF2PasswordHasher()
    for user in User.objects.all():
        user.password = hasher.encode(PASSWORD, hasher.salt(), iterations=1_000)
        user.save(update_fields=["password"])


def test_the_first_hour_of_a_kanzlei(browser: Browser, deployed: str) -> None:
    base = f"http://{deployed}"
    # The empty state: a user with no Akte and no conversation yet.
    User.objects.create_user(username="neu", password=PASSWORD, role="SACHBEARBEITER")
    _passwords()
    walk = Walk(browser, base, "neu")
    walk.login("neu")
    for path, name in [("/", "start-leer"), ("/akten/", "akten-leer"), ("/entwuerfe/", "entwuerfe-leer"),
                       ("/akten/notizen/", "notizen-leer"), ("/akten/hinweise/", "hinweise-leer")]:
        walk.open(path, name)
    walk.open("/gibt-es-nicht/", "404", status=404)
    expect(walk.page.get_by_role("heading", name="Nicht gefunden")).to_be_visible()
    walk.close()

    # as `make run` does it: in its own process (the demo conversation runs the agent loop)
    subprocess.run([sys.executable, "manage.py", "seed_demo", "--password", PASSWORD], cwd=BASE_DIR,
                   env={**os.environ, "DATABASE_URL": database_url(), "DEBUG": "1"}, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "manage.py", "scan_fristen"], cwd=BASE_DIR, check=True,
                   env={**os.environ, "DATABASE_URL": database_url(), "DEBUG": "1"},
                   stdout=subprocess.DEVNULL)
    mueller = Akte.objects.get(aktenzeichen="101/26")
    neumann = Akte.objects.get(aktenzeichen="105/26")  # not granted to the praktikant

    walk = Walk(browser, base, "anwalt")
    walk.login("anwalt")
    walk.open("/", "start")
    expect(walk.page.get_by_text(TITLE)).to_be_visible()
    conversation = Conversation.objects.get(title=TITLE)
    walk.open(f"/helena/gespraech/{conversation.pk}/", "beispielgespraech")
    expect(walk.page.get_by_text("drei Entwürfe warten auf deine Freigabe")).to_be_visible()
    walk.open("/akten/", "akten")
    # the bell counts the scan's Hinweise, live over /ws/benachrichtigungen/ as well
    expect(walk.page.locator("[data-glocke] .badge--count")).to_be_visible()
    walk.open(f"/akten/{mueller.pk}/", "akte")
    for heading in ("Was Helena über die Akte weiß", "Auftrag an Helena", "Verlauf: wer hat was geändert",
                    "Entwürfe und Dokumente", "Hinweise"):
        expect(walk.page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    page = walk.page  # the lawyer writes Helena's memory of the Akte by hand (no model here)
    page.locator("#gedaechtnis summary", has_text="Korrigieren").click()
    page.fill("#g-zusammenfassung", "Mandant will einen Vergleich; Gütetermin abwarten.")
    page.fill("#g-risiken", "Sozialauswahl schwer zu widerlegen")
    page.get_by_role("button", name="Korrektur speichern").click()
    walk.check("akte-erinnerung")
    expect(page.locator("#gedaechtnis")).to_contain_text("Mandant will einen Vergleich")
    expect(page.locator("#gedaechtnis")).to_contain_text("korrigiert von Maximilian Hartmann")
    walk.open("/aktivitaet/", "aktivitaet")
    expect(walk.page.locator(".aktivitaet__eintrag").first).to_be_visible()
    walk.open("/entwuerfe/", "entwuerfe")
    expect(walk.page.get_by_role("heading", name="Deckungszusage Rheinische Rechtsschutz")).to_be_visible()
    walk.open("/akten/notizen/", "notizen")
    walk.open("/akten/hinweise/", "hinweise")
    frist = mueller.fristen.filter(erledigt=False).first()
    walk.open(f"/akten/{mueller.pk}/fristen/{frist.pk}/bearbeiten/", "frist-bearbeiten")
    walk.close()

    for username in ("sachbearbeiter", "sekretariat"):  # every role sees its own pages in German
        walk = Walk(browser, base, username)
        walk.login(username)
        for path, name in [("/", "start"), ("/akten/", "akten"), (f"/akten/{mueller.pk}/", "akte"),
                           ("/entwuerfe/", "entwuerfe"), ("/akten/hinweise/", "hinweise"),
                           ("/akten/notizen/", "notizen")]:
            walk.open(path, name)
        walk.close()

    walk = Walk(browser, base, "praktikant")
    walk.login("praktikant")
    walk.open("/akten/", "akten")
    walk.open(f"/akten/{neumann.pk}/", "fremde-akte", status=404)
    walk.open(f"/akten/{mueller.pk}/fristen/{frist.pk}/bearbeiten/", "frist-verboten", status=403)
    expect(walk.page.get_by_role("heading", name="Kein Zugriff")).to_be_visible()
    walk.close()

    walk = Walk(browser, base, "admin")
    walk.login("admin")
    walk.open("/admin/", "verwaltung")
    for model in ("helena/helenasettings", "helena/modeltier", "helena/ratelimit", "helena/agentrun",
                  "helena/llmcall", "helena/errorlog", "helena/plan", "helena/pendingquestion",
                  "akten/apitoken", "akten/akte", "akten/frist", "akten/alert", "drafts/draft"):
        walk.open(f"/admin/{model}/", model.replace("/", "-"))
    # a model tier and a rate limit, as the admin sets them up
    page = walk.open("/admin/helena/modeltier/", "modelltiers")
    wirksam = page.locator("#wirksame-stufen")  # the environment's tiers, visible before any row exists
    expect(wirksam).to_contain_text("Server-Konfiguration (Umgebung)")
    expect(wirksam).to_contain_text("nein – der Server antwortet nicht")
    page = walk.open("/admin/helena/modeltier/add/", "modelltier-neu")
    page.select_option("#id_tier", "2")
    page.select_option("#id_provider", "ollama")
    page.fill("#id_model_name", "qwen3:14b")
    page.get_by_role("button", name="Sichern", exact=True).click()
    walk.check("modelltier-gesichert")
    assert ModelTier.objects.filter(tier=2, model_name="qwen3:14b").exists()
    page = walk.open("/admin/helena/ratelimit/", "ratenlimits")
    expect(page.locator("#ratenlimit-standard")).to_contain_text("60 Anfragen an Helena je Stunde")
    page = walk.open("/admin/helena/ratelimit/add/", "ratenlimit-neu")
    anwalt = str(User.objects.get(username="anwalt").pk)
    page.select_option("#id_user", anwalt)
    page.fill("#id_runs_per_hour", "30")
    page.get_by_role("button", name="Sichern", exact=True).click()
    walk.check("ratenlimit-gesichert")
    assert RateLimit.objects.filter(user__username="anwalt").exists()
    page = walk.open("/admin/akten/apitoken/add/", "token-neu")
    page.select_option("#id_user", anwalt)
    page.fill("#id_name", "Kanzleisoftware")
    page.get_by_role("button", name="Sichern", exact=True).click()
    walk.check("token-gesichert")
    expect(page.get_by_text("jetzt kopieren")).to_be_visible()
    assert ApiToken.objects.filter(user__username="anwalt", name="Kanzleisoftware").exists()
    # Swagger UI's own buttons are English and the API's paths are fixed by docs/protocol.md
    # (/drafts/{id}/history): the docs page must load from here, not be German.
    walk.open("/api/v1/docs", "api-doku", german=False)
    expect(page.locator(".swagger-ui")).to_be_visible()
    walk.close()
