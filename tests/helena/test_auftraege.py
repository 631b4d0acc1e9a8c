"""@Helena tasks from the outside: started over the API (or the Akte page, or a Notiz with
„@Helena“), run by a real Celery worker against the scripted model in the requester's name, and
ended with a Hinweis and the drafts; refused for an Akte the user may not see."""

from __future__ import annotations

import json
import time

import pytest
from django.test import Client

from akten.models import Alert, Notiz
from drafts.models import Draft
from helena.models import HelenaTask
from tests.conftest import Kanzlei, start_celery_worker, stop_celery_worker
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _post(client: Client, body: dict) -> tuple[int, dict]:
    response = client.post("/api/v1/helena/tasks", json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


def test_a_task_runs_in_the_background_and_ends_with_a_hinweis(kanzlei: Kanzlei,
                                                                tiers: ScriptedLLMServer) -> None:
    akte = kanzlei.akten["A"]
    tiers.script([
        {"tool_calls": [{"name": "create_notiz", "arguments": {
            "akte_id": str(akte.pk), "titel": "Sachstand",
            "inhalt": "Klage eingereicht, Gütetermin offen."}}]},
        {"text": "Ich habe eine Notiz mit dem Sachstand vorgeschlagen."},
    ])
    client = kanzlei.client("anwalt")
    status, started = _post(client, {"auftrag": "Fasse den Sachstand als Notiz zusammen", "akte_id": akte.pk})
    assert status == 202 and started["run_id"]
    worker = start_celery_worker()
    try:
        deadline = time.monotonic() + 90
        while (task := client.get("/api/v1/helena/tasks").json()[0])["status"] == "running":
            assert time.monotonic() < deadline, "the task did not end"
            time.sleep(0.5)
    finally:
        stop_celery_worker(worker)
    assert task["status"] == "finished" and task["id"] == started["id"]
    assert task["result"] == "Ich habe eine Notiz mit dem Sachstand vorgeschlagen."
    draft = Draft.objects.get(run_id=started["run_id"])
    assert (draft.kind, draft.status, draft.requested_by) == ("notiz", "pending", kanzlei.users["anwalt"])
    hinweis = Alert.objects.get(empfaenger=kanzlei.users["anwalt"], art="aufgabe")
    assert hinweis.message.startswith("Helena hat deinen Auftrag erledigt: „Fasse den Sachstand")
    assert "1 Entwurf wartet auf deine Freigabe." in hinweis.message and hinweis.akte == akte
    assert kanzlei.client("sachbearbeiter").get("/api/v1/helena/tasks").json() == []


def test_a_task_for_an_akte_one_may_not_see_is_refused(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("praktikant")  # sees B only
    assert _post(client, {"auftrag": "Prüfe die Fristen", "akte_id": str(kanzlei.akten["A"].pk)})[0] == 404
    assert _post(client, {"auftrag": "   "})[0] == 422
    assert not HelenaTask.objects.exists()


def test_a_notiz_with_at_helena_and_the_akte_form_start_tasks(kanzlei: Kanzlei) -> None:
    akte, anwalt = kanzlei.akten["A"], kanzlei.users["anwalt"]
    Notiz.objects.create(akte=akte, verfasst_von=anwalt, titel="Bitte",
                         inhalt="@Helena: Entwirf eine Sachstandsmitteilung")
    task = HelenaTask.objects.get()
    assert (task.auftrag, task.quelle, task.akte, task.requested_by) == (
        "Entwirf eine Sachstandsmitteilung", "notiz", akte, anwalt)
    assert task.run is not None and task.run.mode == "background"
    Notiz.objects.create(akte=akte, verfasst_von=anwalt, inhalt="Kein Auftrag, nur @Helena erwähnt")
    assert HelenaTask.objects.count() == 1

    page = Client()
    page.force_login(anwalt)
    html = page.get(f"/akten/{akte.pk}/").content.decode()
    assert "Auftrag an Helena" in html
    response = page.post(f"/akten/{akte.pk}/auftrag/", {"auftrag": "Prüfe die Fristen"}, follow=True)
    assert "Helena arbeitet im Hintergrund" in response.content.decode()
    assert HelenaTask.objects.filter(quelle="akte", auftrag="Prüfe die Fristen").exists()
    foreign = kanzlei.akten["D"]
    assert page.post(f"/akten/{foreign.pk}/auftrag/", {"auftrag": "x"}).status_code == 404
