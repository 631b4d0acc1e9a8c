"""The admin's button on the Modellstufen: the check is queued for the Celery worker, the worker keeps
its dated result beside the tier, and the tier's page and the list show it; only staff may start it."""

from __future__ import annotations

import subprocess
import time
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from helena.model_check import services
from helena.models import ModelCheck, ModelTier
from tests.conftest import Kanzlei
from tests.helena.model_check.conftest import behaving, never_calls_tools
from tests.scripted_llm_server import ScriptedLLMServer

URL = reverse("admin:helena_modeltier_modellpruefung", args=[1])
LIST = reverse("admin:helena_modeltier_changelist")


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    """What was sent to the broker, instead of sending it."""
    sent: list[tuple[str, list[Any]]] = []
    monkeypatch.setattr(services.current_app, "send_task", lambda name, args: sent.append((name, args)))
    return sent


@pytest.mark.django_db
def test_the_button_queues_the_check_and_the_tier_shows_its_result(
        tier1: ScriptedLLMServer, admin_client: Client, queued: list, django_capture_on_commit_callbacks: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from helena import tasks

    # The worker closes its connections after a task; run here, the test's transaction must stay.
    monkeypatch.setattr(tasks, "close_old_connections", lambda: None)

    row = ModelTier.objects.get(tier=1)
    page = reverse("admin:helena_modeltier_change", args=[row.pk])
    form = admin_client.get(page).content.decode()
    assert f'action="{URL}"' in form and "Modell prüfen" in form and "noch nicht geprüft" in form
    with django_capture_on_commit_callbacks(execute=True):
        answer = admin_client.post(URL, {"next": page})
    assert answer.status_code == 302 and answer["Location"] == page
    check = ModelCheck.objects.get()
    assert queued == [("helena.modellpruefung", [check.pk])]
    assert (check.status, check.tier, check.model_name) == ("wartet", 1, "qwen3:4b")
    shown = admin_client.get(page).content.decode()
    assert "Die Modellprüfung für Stufe 1 (qwen3:4b) läuft im Hintergrund" in shown
    assert "läuft seit" in shown
    with django_capture_on_commit_callbacks(execute=True):  # a second click while it waits: no second check
        admin_client.post(URL)
    assert ModelCheck.objects.count() == 1 and len(queued) == 1

    tier1.respond_with(behaving())
    tasks.modellpruefung.apply(args=[check.pk])  # the Celery task, run here
    check.refresh_from_db()
    assert (check.status, check.suitable, check.exit_code) == ("fertig", True, 0)
    assert check.verdict == "geeignet für Stufe 1" and check.finished_at is not None
    assert check.lines[-1] == "Urteil Stufe 1: geeignet für Stufe 1"
    assert len(check.details["aufgaben"]) == 10
    shown = admin_client.get(page).content.decode()
    assert "geeignet für Stufe 1" in shown and " 1. ✓ Fristen lesen: read_fristen erkannt" in shown
    listing = admin_client.get(LIST).content.decode()
    assert 'id="modellpruefung"' in listing and ": geeignet für Stufe 1" in listing

    tasks.modellpruefung.apply(args=[check.pk])  # delivered twice: runs once
    assert ModelCheck.objects.get().finished_at == check.finished_at


@pytest.mark.django_db
def test_a_tier_without_a_model_cannot_be_checked(admin_client: Client, queued: list, settings: Any) -> None:
    settings.HELENA_TIER2_MODEL = ""
    answer = admin_client.post(reverse("admin:helena_modeltier_modellpruefung", args=[2]), follow=True)
    assert "Stufe 2 ist nicht eingerichtet; es gibt kein Modell zu prüfen." in answer.content.decode()
    assert ModelCheck.objects.count() == 0 and queued == []


@pytest.mark.django_db
def test_only_staff_with_the_right_to_change_tiers_may_start_it(tier1: ScriptedLLMServer, kanzlei: Kanzlei,
                                                                queued: list) -> None:
    anwalt = Client()
    anwalt.force_login(kanzlei.users["anwalt"])  # no staff account
    refused = anwalt.post(URL)
    assert refused.status_code == 302 and "/login/" in refused["Location"]
    assert anwalt.get(URL).status_code == 302
    staff = kanzlei.users["sachbearbeiter"]
    staff.is_staff = True  # in the admin, but without the right to change model tiers
    staff.save()
    anwalt.force_login(staff)
    assert anwalt.post(URL).status_code == 403
    assert ModelCheck.objects.count() == 0 and queued == []


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_celery_worker_runs_the_check_and_keeps_the_result(
        tier1: ScriptedLLMServer, admin_client: Client, celery_worker: subprocess.Popen) -> None:
    tier1.respond_with(never_calls_tools())
    assert admin_client.post(URL).status_code == 302
    deadline = time.monotonic() + 150  # a worker starting on a busy machine takes its time
    check = ModelCheck.objects.get()
    while check.status in ("wartet", "laeuft") and time.monotonic() < deadline:
        time.sleep(0.5)
        check.refresh_from_db()
    assert (check.status, check.suitable, check.exit_code) == ("fertig", False, 1), check.lines
    assert check.verdict.startswith("nicht geeignet für Stufe 1 – Werkzeugaufrufe unzuverlässig")
    assert check.requested_by.username == "admin"
    listing = admin_client.get(LIST).content.decode()
    assert "nicht geeignet für Stufe 1 – Werkzeugaufrufe unzuverlässig" in listing
