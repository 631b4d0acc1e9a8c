"""One check of a tier at a time (two clicks, the button and the command), a check whose worker died,
the last checks kept per tier, and a tier's page that does not break on a wrong address."""

from __future__ import annotations

import io
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from helena.admin.tiers import check_summary
from helena.model_check import services
from helena.models import ModelCheck, ModelTier
from tests.helena.model_check.conftest import behaving
from tests.scripted_llm_server import ScriptedLLMServer

LOST = "abgebrochen (der Worker lief nicht zu Ende)"


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    sent: list[tuple[str, list[Any]]] = []
    monkeypatch.setattr(services.current_app, "send_task", lambda name, args: sent.append((name, args)))
    return sent


def befehl(*args: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    try:
        call_command("modellpruefung", *args, stdout=out, stderr=io.StringIO())
        code = 0
    except SystemExit as exc:
        code = int(exc.code)
    return code, out.getvalue().splitlines()


def aged(check: ModelCheck, hours: float) -> ModelCheck:
    ModelCheck.objects.filter(pk=check.pk).update(created_at=timezone.now() - timedelta(hours=hours))
    check.refresh_from_db()
    return check


@pytest.mark.django_db(transaction=True)
def test_two_clicks_at_the_same_moment_start_one_check(tier1: ScriptedLLMServer, queued: list,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    real = services._running

    def slow(unfinished: Any) -> Any:  # widen the gap between the look and the insert
        found = real(unfinished)
        time.sleep(0.5)
        return found

    monkeypatch.setattr(services, "_running", slow)
    results: list[bool] = []
    barrier = threading.Barrier(2)

    def click() -> None:
        try:
            barrier.wait()
            results.append(services.start_check(tier=1, requested_by=None)[1])
        finally:
            connection.close()

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(results) == [False, True]
    assert ModelCheck.objects.count() == 1 and len(queued) == 1


@pytest.mark.django_db
def test_the_command_does_not_start_while_a_check_of_the_tier_runs(tier1: ScriptedLLMServer,
                                                                   server: ScriptedLLMServer) -> None:
    running = ModelCheck.objects.create(tier=1, status="laeuft", model_name="qwen3:4b")
    since = f"{timezone.localtime(running.created_at):%H:%M}"
    busy = f"für Stufe 1 läuft schon eine Modellprüfung (seit {since}); ihr Ergebnis steht bald bei der Stufe"
    tier1.respond_with(behaving())
    code, lines = befehl("--stufe", "1")
    assert code == 2, lines  # nothing else was checked
    assert lines == [f"Stufe 1: nicht geprüft – {busy}.", f"Ergebnis: nicht geprüft – {busy}"]
    assert not tier1.requests_to("/api/chat") and ModelCheck.objects.count() == 1
    # With another tier checked, the busy one is named but the exit code is the other's.
    ModelTier.objects.create(tier=2, provider="openai", model_name="qwen2.5-14b-instruct",
                             base_url=f"{server.url}/v1", standort="intern")
    code, lines = befehl()
    assert code == 0, lines
    assert lines[0] == f"Stufe 1: nicht geprüft – {busy}."
    assert lines[-1] == f"Ergebnis: Stufe 2 geeignet; Stufe 1 nicht geprüft ({busy})"
    # The command's own check shows as running while it runs: the button then starts none.
    assert ModelCheck.objects.get(tier=2).status == "fertig"


@pytest.mark.django_db
def test_the_button_gives_the_commands_running_check(tier1: ScriptedLLMServer, queued: list,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, bool]] = []
    real = services.check_tier

    def check_tier(**kwargs: Any) -> Any:  # the admin clicks while the command checks
        check, new = services.start_check(tier=1, requested_by=None)
        seen.append((check.status, new))
        return real(**kwargs)

    monkeypatch.setattr(services, "check_tier", check_tier)
    tier1.respond_with(behaving())
    code, _ = befehl("--stufe", "1")
    assert code == 0 and seen == [("laeuft", False)] and queued == []
    check = ModelCheck.objects.get()
    assert check.status == "fertig" and check.lines[-1] == "Urteil Stufe 1: geeignet für Stufe 1"


@pytest.mark.django_db
def test_a_check_whose_worker_died_shows_as_broken_off_and_a_new_one_starts(tier1: ScriptedLLMServer,
                                                                             queued: list) -> None:
    lost = aged(ModelCheck.objects.create(tier=1, status="wartet", model_name="qwen3:4b"), hours=2)
    when = timezone.localtime(lost.created_at).strftime("%d.%m.%Y %H:%M")
    assert check_summary(lost) == f"{when}: {LOST}"
    fresh = ModelCheck.objects.create(tier=1, status="laeuft", model_name="qwen3:4b")
    assert check_summary(fresh).startswith("läuft seit ")
    fresh.delete()
    check, new = services.start_check(tier=1, requested_by=None)
    assert new and check.pk != lost.pk
    lost.refresh_from_db()
    assert (lost.status, lost.verdict) == ("fehler", LOST)


@pytest.mark.django_db
def test_the_last_20_checks_of_a_tier_are_kept(tier1: ScriptedLLMServer) -> None:
    for hours in range(25, 0, -1):
        aged(ModelCheck.objects.create(tier=1, status="fertig"), hours=hours)
    other = [ModelCheck.objects.create(tier=2, status="fertig") for _ in range(3)]
    tier1.respond_with(behaving())
    code, _ = befehl("--stufe", "1")
    assert code == 0
    kept = list(ModelCheck.objects.filter(tier=1).order_by("-created_at"))
    assert len(kept) == 20 and kept[0].verdict == "geeignet für Stufe 1"
    assert kept[-1].created_at > timezone.now() - timedelta(hours=19, minutes=30)
    assert ModelCheck.objects.filter(tier=2).count() == len(other)


@pytest.mark.django_db
def test_a_tier_page_with_an_address_that_is_no_number_is_not_an_error(admin_client: Client) -> None:
    answer = admin_client.get(reverse("admin:helena_modeltier_change", args=["abc"]))
    assert answer.status_code == 302
