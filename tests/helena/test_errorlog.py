"""The error log from outside: runs through the JSON API that fail in the ways an admin must hear
about (a model server answering 500, a tool whose service is down, a guard stepping in, a run without
a model), each logged once with its context and linked to its audit or ledger row; the admin lists
them with filters and a daily count."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from helena.models import ErrorLog, LLMCall, ModelTier, ToolCallLog
from tests.conftest import Kanzlei
from tests.helena.test_runs_api import ask, wait
from tests.scripted_llm_server import ScriptedLLMServer, unused_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_failed_model_call_is_logged_with_its_ledger_row(kanzlei: Kanzlei,
                                                            tiers: ScriptedLLMServer) -> None:
    tiers.script([{"status": 500, "body": "CUDA out of memory"}] * 6)
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Hallo?", mode="inline")
    run = wait(client, run_id)
    assert run["status"] == "failed"
    models = ErrorLog.objects.filter(kind="model", run_id=run_id)
    assert models.exists()
    entry = models.first()
    assert entry.llm_call is not None and entry.llm_call.error  # linked, not copied
    assert entry.llm_call == LLMCall.objects.get(pk=entry.llm_call_id)
    assert (entry.mode, entry.context_type, entry.user) == ("inline", "global", kanzlei.users["anwalt"])
    assert entry.model in ("klein", "gross")
    assert not ErrorLog.objects.filter(kind="run", run_id=run_id).exists()  # one failure, one row


def test_a_tool_whose_service_is_down_is_logged_with_its_audit_row(
    kanzlei: Kanzlei, tiers: ScriptedLLMServer, settings
) -> None:
    settings.HELENA_SEARCH_URL = f"http://127.0.0.1:{unused_port()}"  # nothing listens
    tiers.script([{"tool_calls": [{"name": "search_web", "arguments": {"query": "BAG Urlaubsabgeltung"}}]},
                  {"text": "Die Websuche geht gerade nicht."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Such im Web nach Urlaubsabgeltung.", mode="inline")
    assert wait(client, run_id)["status"] == "finished"
    entry = ErrorLog.objects.get(kind="tool", run_id=run_id)
    assert (entry.tool, entry.code) == ("search_web", "tool_failed")
    assert entry.tool_call == ToolCallLog.objects.get(run_id=run_id, tool="search_web")
    assert (entry.mode == "inline" and entry.model == "gross") or entry.model == "klein"


def test_a_refused_or_invalid_call_is_no_error(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    """A model asking for an Akte it may not see is the system working, not breaking."""
    tiers.script([{"tool_calls": [{"name": "read_akte_detail", "arguments": {"akte_id": "999999"}}]},
                  {"text": "Die Akte gibt es nicht."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Lies Akte 999999.", mode="inline")
    assert wait(client, run_id)["status"] == "finished"
    assert not ErrorLog.objects.filter(run_id=run_id).exists()


def test_a_guard_stepping_in_is_logged(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    calls = [{"name": "read_fristen", "arguments": {"status": "offen"}, "id": f"c{i}"} for i in range(9)]
    tiers.script([{"tool_calls": calls}, {"text": "Hier sind die Fristen."}])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Zeig mir alle Fristen, mehrfach.", mode="inline")
    assert wait(client, run_id)["status"] == "finished"
    entry = ErrorLog.objects.get(kind="guard", run_id=run_id)
    assert entry.code == "tool_cap" and "ersten 8" in entry.message


def test_a_run_without_a_model_is_logged(kanzlei: Kanzlei, server: ScriptedLLMServer) -> None:
    ModelTier.objects.create(tier=1, provider="openai", model_name="cloud-x", base_url=server.url + "/v1",
                             standort="extern")
    ModelTier.objects.create(tier=2, provider="ollama", model_name="aus", base_url=server.url, enabled=False)
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Hallo?", mode="inline")
    assert wait(client, run_id)["status"] == "failed"
    entry = ErrorLog.objects.get(run_id=run_id)  # one entry: the model failure, with its cause
    assert entry.kind == "model" and entry.code and "Cloud" in entry.message


def test_the_admin_lists_errors_with_filters_and_a_daily_count(kanzlei: Kanzlei, tiers: ScriptedLLMServer,
                                                                admin_client: Client) -> None:
    tiers.script([{"status": 500, "body": "kaputt"}] * 6)
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Hallo?", mode="inline")
    wait(client, run_id)
    office = admin_client
    page = office.get("/admin/helena/errorlog/").content.decode()
    assert "Fehler je Tag" in page and 'id="errors-per-day"' in page
    today = timezone.localdate().strftime("%d.%m.%Y")
    assert today in page
    total = ErrorLog.objects.count()
    assert f"<strong>{total}</strong>" in page
    for label in ("Modellaufruf", "Lauf", "Kontext", "Ausführung"):  # filters and columns
        assert label in page
    filtered = office.get("/admin/helena/errorlog/", {"kind__exact": "model"}).content.decode()
    assert "kaputt" in filtered
    entry = ErrorLog.objects.filter(kind="model").first()
    detail = office.get(f"/admin/helena/errorlog/{entry.pk}/change/").content.decode()
    assert f"/admin/helena/llmcall/{entry.llm_call_id}/change/" in detail
    assert office.post(f"/admin/helena/errorlog/{entry.pk}/delete/").status_code == 403  # a log stays
