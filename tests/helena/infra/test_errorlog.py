"""The error log from outside: runs through the JSON API that fail in the ways an admin must hear
about (a model server answering 500, a tool whose service is down, a guard stepping in, a run without
a model), each logged once with its context and linked to its audit or ledger row; the same failure
again within the hour counts on its entry (a model server that is down is one entry, not two per
memory refresh); the admin lists them with filters, a daily count and local times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from django.utils import timezone

from helena.infra.errorlog import arecord_error, errors_per_day, record_error
from helena.llm import router
from helena.models import ErrorLog, LLMCall, ModelTier, ToolCallLog
from helena.proactive.memory import refresh_due, request_refresh
from tests.conftest import Kanzlei
from tests.helena.web.test_runs_api import ask, wait
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
    # nine different calls (an identical call in one answer runs once): every Akte choice × status
    akten = (None, str(kanzlei.akten["A"].pk), "999999")
    choices = [{"status": status, **({"akte_id": akte} if akte else {})}
               for akte in akten for status in ("active", "past", "all")]
    calls = [{"name": "read_fristen", "arguments": arguments, "id": f"c{i}"}
             for i, arguments in enumerate(choices)]
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
    total = sum(ErrorLog.objects.values_list("anzahl", flat=True))  # failures, not rows
    assert f"<strong>{total}</strong>" in page
    for label in ("Modellaufruf", "Lauf", "Kontext", "Ausführung"):  # filters and columns
        assert label in page
    filtered = office.get("/admin/helena/errorlog/", {"kind__exact": "model"}).content.decode()
    assert "kaputt" in filtered
    entry = ErrorLog.objects.filter(kind="model").first()
    detail = office.get(f"/admin/helena/errorlog/{entry.pk}/change/").content.decode()
    assert f"/admin/helena/llmcall/{entry.llm_call_id}/change/" in detail
    assert office.post(f"/admin/helena/errorlog/{entry.pk}/delete/").status_code == 403  # a log stays


# --- one entry per cause and hour (issue 31) -----------------------------------------------------


def _refresh_every_akte(kanzlei: Kanzlei) -> int:
    for akte in kanzlei.akten.values():
        request_refresh(akte_id=akte.pk)
    assert refresh_due(now=timezone.now() + timedelta(minutes=2)) == 0  # all failed
    return len(kanzlei.akten)


def test_memory_refreshes_without_a_reachable_model_are_one_entry_with_a_count(kanzlei: Kanzlei) -> None:
    """A fresh install: the model server is not running, and every changed Akte's refresh fails."""
    router.clear_health_cache()
    ModelTier.objects.create(tier=1, provider="ollama", model_name="klein",
                             base_url=f"http://127.0.0.1:{unused_port()}")
    failures = _refresh_every_akte(kanzlei) + _refresh_every_akte(kanzlei)
    assert LLMCall.objects.filter(operation="gedaechtnis").count() == failures  # each call is booked
    entry = ErrorLog.objects.get()  # the cause once, not a pair per refresh
    assert entry.anzahl == failures and entry.zuletzt_am >= entry.created_at
    assert (entry.kind, entry.context_type, entry.model) == ("model", "akte", "klein")
    assert entry.llm_call == LLMCall.objects.filter(operation="gedaechtnis").latest("pk")  # the latest
    assert f"×{failures}, zuletzt" in str(entry)
    assert errors_per_day()[0]["total"] == failures  # the daily count counts failures, not rows


def test_different_causes_stay_different_entries(kanzlei: Kanzlei) -> None:
    router.clear_health_cache()
    tier = ModelTier.objects.create(tier=1, provider="ollama", model_name="klein", enabled=False)
    no_model = _refresh_every_akte(kanzlei)  # tier 1 switched off
    entry = ErrorLog.objects.get()
    assert entry.code == "memory_refresh" and "Kein Sprachmodell" in entry.message
    assert entry.anzahl == no_model

    tier.enabled, tier.base_url = True, f"http://127.0.0.1:{unused_port()}"
    tier.save()
    unreachable = _refresh_every_akte(kanzlei)  # switched on, but nothing listens
    unavailable = ErrorLog.objects.exclude(pk=entry.pk).get()
    assert unavailable.llm_call is not None and unavailable.anzahl == unreachable

    down = "Suchdienst nicht erreichbar"
    record_error(kind="tool", code="tool_failed", tool="search_web", message=down)
    record_error(kind="tool", code="tool_failed", tool="read_dokumente", message=down)
    async_to_sync(arecord_error)(kind="websocket", code="ValueError", message="kaputt")
    async_to_sync(arecord_error)(kind="websocket", code="ValueError", message="kaputt")
    async_to_sync(arecord_error)(kind="websocket", code="ValueError", message="anders kaputt")
    counts = {(e.kind, e.tool, e.message): e.anzahl for e in ErrorLog.objects.all()}
    assert counts == {
        ("model", "", entry.message): no_model,
        ("model", "", unavailable.message): unreachable,
        ("tool", "search_web", down): 1,
        ("tool", "read_dokumente", down): 1,
        ("websocket", "", "kaputt"): 2,
        ("websocket", "", "anders kaputt"): 1,
    }

    ErrorLog.objects.filter(message="kaputt").update(created_at=timezone.now() - timedelta(hours=2))
    record_error(kind="websocket", code="ValueError", message="kaputt")  # an hour later: a new entry
    assert sorted(ErrorLog.objects.filter(message="kaputt").values_list("anzahl", flat=True)) == [1, 2]


def test_the_admin_shows_local_time_in_title_and_column(kanzlei: Kanzlei, admin_client: Client) -> None:
    record_error(kind="model", code="model_unavailable", message="Ollama antwortet nicht")
    entry = ErrorLog.objects.get()
    first = datetime(2026, 1, 15, 12, 30, tzinfo=UTC)  # 13:30 in Berlin (winter time)
    ErrorLog.objects.filter(pk=entry.pk).update(created_at=first, zuletzt_am=first + timedelta(minutes=35),
                                                anzahl=3)
    entry.refresh_from_db()
    assert str(entry) == "15.01.2026 13:30 Modellaufruf model_unavailable (×3, zuletzt 14:05)"

    listing = admin_client.get("/admin/helena/errorlog/").content.decode()
    detail = admin_client.get(f"/admin/helena/errorlog/{entry.pk}/change/").content.decode()
    for page in (listing, detail):
        assert "13:30" in page and "12:30" not in page
        assert "×3, zuletzt 14:05" in page
    assert "<h2>15.01.2026 13:30 Modellaufruf model_unavailable (×3, zuletzt 14:05)</h2>" in detail
