"""@Helena tasks from the outside: started over the API (or the Akte page, or a Notiz with
„@Helena“), run by a real Celery worker against the scripted model in the requester's name, and
ended with a Hinweis and the drafts; refused for an Akte the user may not see."""

from __future__ import annotations

import json
import socket
import time

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from akten.models import Alert, Notiz
from drafts.models import Draft
from helena.infra import settings_cache
from helena.llm.router import clear_health_cache
from helena.models import Conversation, HelenaTask, ModelTier
from helena.proactive.auftraege import auftrag_geben
from helena.runs.execute import execute_run
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
    client = kanzlei.client("sekretariat")  # sees B only
    assert _post(client, {"auftrag": "Prüfe die Fristen", "akte_id": str(kanzlei.akten["A"].pk)})[0] == 404
    assert _post(client, {"auftrag": "   "})[0] == 422
    assert not HelenaTask.objects.exists()


def test_a_notiz_with_at_helena_and_the_akte_form_start_tasks(kanzlei: Kanzlei,
                                                              tiers: ScriptedLLMServer) -> None:
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


def _dead_model_server() -> str:
    """The address of a port nobody listens on: a model server that is down."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def no_model(kanzlei: Kanzlei) -> None:
    host = _dead_model_server()
    for tier in (1, 2):
        ModelTier.objects.create(tier=tier, provider="ollama", model_name="klein", base_url=host)
    clear_health_cache()


UNREACHABLE = "Kein Sprachmodell ist erreichbar"


def test_without_a_reachable_model_a_task_is_refused_at_once_and_says_why(kanzlei: Kanzlei,
                                                                           no_model: None) -> None:
    akte, anwalt = kanzlei.akten["A"], kanzlei.users["anwalt"]
    response = kanzlei.client("anwalt").post("/api/v1/helena/tasks", json.dumps(
        {"auftrag": "Prüfe die Fristen", "akte_id": akte.pk}), content_type="application/json")
    assert response.status_code == 503 and response.json()["code"] == "model_unavailable"
    assert UNREACHABLE in response.json()["detail"]

    page = Client()
    page.force_login(anwalt)
    response = page.post(f"/akten/{akte.pk}/auftrag/", {"auftrag": "Entwirf die Klageerwiderung"})
    assert response.status_code == 302 and "#" not in response["Location"]  # the message is at the top
    html = page.get(response["Location"]).content.decode()
    assert UNREACHABLE in html and "Dein Auftrag wurde nicht angenommen" in html
    assert "Helena arbeitet im Hintergrund an deinem Auftrag" not in html
    assert ">Entwirf die Klageerwiderung</textarea>" in html  # the text waits in the form, not retyped
    assert ">Entwirf die Klageerwiderung</textarea>" not in page.get(response["Location"]).content.decode()
    page.post(f"/akten/{akte.pk}/auftrag/", {"auftrag": "Nur für Akte A"})
    other = page.get(f"/akten/{kanzlei.akten['B'].pk}/").content.decode()
    assert "Nur für Akte A" not in other  # the refused text waits in its own Akte's form only
    assert ">Nur für Akte A</textarea>" in page.get(response["Location"]).content.decode()

    Notiz.objects.create(akte=akte, verfasst_von=anwalt, inhalt="@Helena prüfe die Fristen")
    hinweis = Alert.objects.get(empfaenger=anwalt, art="aufgabe")
    assert "konnte nicht starten" in hinweis.message and UNREACHABLE in hinweis.message
    assert not HelenaTask.objects.exists() and not Conversation.objects.exists()
    # A foreign Akte stays a 404, whatever the model does.
    response = kanzlei.client("anwalt").post("/api/v1/helena/tasks", json.dumps(
        {"auftrag": "x", "akte_id": kanzlei.akten["D"].pk}), content_type="application/json")
    assert response.status_code == 404


def test_the_hinweis_of_a_failed_task_says_why(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    anwalt = kanzlei.users["anwalt"]
    task = auftrag_geben(user=anwalt, auftrag="Prüfe die Fristen", akte_id=kanzlei.akten["A"].pk)
    ModelTier.objects.update(base_url=_dead_model_server())  # the server went down after the start
    settings_cache.clear()
    clear_health_cache()
    async_to_sync(execute_run)(task.run_id)
    task.refresh_from_db()
    assert task.status == HelenaTask.Status.FEHLGESCHLAGEN
    hinweis = Alert.objects.get(empfaenger=anwalt, art="aufgabe")
    assert hinweis.message.startswith("Dein Auftrag an Helena ist fehlgeschlagen: „Prüfe die Fristen“.")
    assert UNREACHABLE in hinweis.message


def test_the_praktikant_gets_no_task_form_and_no_task(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    akte, praktikant = kanzlei.akten["B"], kanzlei.users["praktikant"]
    page = Client()
    page.force_login(praktikant)
    html = page.get(f"/akten/{akte.pk}/").content.decode()
    assert "Auftrag an Helena" not in html and 'name="auftrag"' not in html
    response = page.post(f"/akten/{akte.pk}/auftrag/", {"auftrag": "Prüfe die Fristen"}, follow=True)
    assert "Deine Rolle darf Helena keine Aufträge geben" in response.content.decode()
    status, body = _post(kanzlei.client("praktikant"), {"auftrag": "Prüfe die Fristen", "akte_id": akte.pk})
    assert status == 403 and body["code"] == "forbidden"
    Notiz.objects.create(akte=akte, verfasst_von=praktikant, inhalt="@Helena prüfe die Fristen")
    assert not HelenaTask.objects.exists()
    sekretariat = Client()
    sekretariat.force_login(kanzlei.users["sekretariat"])  # may make Notiz drafts: gives tasks
    assert "Auftrag an Helena" in sekretariat.get(f"/akten/{akte.pk}/").content.decode()
