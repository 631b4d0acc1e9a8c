"""Helena's reads land in the read log (akten.lesezugriffe) with weg=helena and the run's id: a real run
through the JSON API against the scripted model, the real executor and the run's port — one INSERT per
step (the rows of a step share their moment); a search's hit quoting a Dokument is a read of it; a list,
a search hit by the Akte's own name and a refused read are no reads; the Akte in focus, whose facts are
in the prompt, is a read of it with the run's first reads."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from akten.models import Dokument, Lesezugriff, Zeiterfassung
from helena.agent.tooling import ToolContext
from helena.tools.executor import execute
from helena.tools.registry import tools_for
from tests.conftest import Kanzlei
from tests.helena.web.test_runs_api import ask, wait
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_run_s_tool_reads_are_logged_per_step(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    a, d = kanzlei.akten["A"], kanzlei.akten["D"]  # the anwalt sees A, not D
    dokument = Dokument.objects.create(akte=a, titel="Kündigung", inhalt="Hiermit kündigen wir …")
    Zeiterfassung.objects.create(akte=a, user=kanzlei.users["anwalt"], dauer_minuten=15,
                                 taetigkeit="Telefonat")
    tiers.script([
        {"tool_calls": [{"name": "read_akte_detail", "arguments": {"akte_id": str(a.pk)}},
                        {"name": "read_dokumente_detail", "arguments": {"dokument_id": str(dokument.pk)}}]},
        {"tool_calls": [{"name": "read_akte", "arguments": {"query": "Meier"}},
                        {"name": "search_alle_akten", "arguments": {"query": "Kündigung"}},
                        {"name": "read_akte_detail", "arguments": {"akte_id": str(d.pk)}},
                        {"name": "read_zeiterfassung", "arguments": {"akte_id": str(a.pk)}},
                        {"name": "read_fristen", "arguments": {}}]},
        {"text": "Die Kündigung liegt vor."},
    ])
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Was steht in der Kündigung in 1/26?", mode="inline")
    assert wait(client, run_id)["status"] == "finished"
    rows = list(Lesezugriff.objects.order_by("zeitpunkt", "bereich"))
    assert [(z.weg, z.bereich, z.akte_id, z.dokument_id, str(z.run_id), z.person) for z in rows] == [
        ("helena", "akte", a.pk, None, run_id, "anwalt"),
        ("helena", "dokument", a.pk, dokument.pk, run_id, "anwalt"),
        # search_alle_akten: the Dokument's hit quotes it; Akte A's own „wegen Kündigungsschutz“ does not
        ("helena", "dokument_auszug", a.pk, dokument.pk, run_id, "anwalt"),
        ("helena", "zeiten", a.pk, None, run_id, "anwalt"),
    ]
    assert rows[2].dokument_titel == "Kündigung"
    assert rows[0].zeitpunkt == rows[1].zeitpunkt < rows[2].zeitpunkt == rows[3].zeitpunkt  # INSERT a step
    # the Akte's lawyer sees them, with the run
    log = client.get(f"/api/v1/akten/{a.pk}/zugriffe").json()
    assert {(r["weg_text"], r["bereich"], r["run_id"]) for r in log} == {
        ("Helena (im Auftrag)", b, run_id) for b in ("akte", "dokument", "dokument_auszug", "zeiten")}


def test_the_akte_in_focus_is_read_by_the_run_once(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    """The prompt holds the Akte's Beteiligte, Fristen, summary and memory: a read even when no tool
    runs; with a tool reading the same Akte in the first step, one row (the step's batch)."""
    a, b = kanzlei.akten["A"], kanzlei.akten["B"]
    tiers.script([{"text": "Die Akte betrifft eine Kündigung."}])
    client = kanzlei.client("anwalt")
    _, ohne_werkzeug = ask(client, "Worum geht es?", mode="inline", akte_id=str(a.pk))
    assert wait(client, ohne_werkzeug)["status"] == "finished"
    tiers.script([{"tool_calls": [{"name": "read_akte_detail", "arguments": {"akte_id": str(b.pk)}},
                                  {"name": "read_akte_detail", "arguments": {"akte_id": str(a.pk)}}]},
                  {"text": "Erledigt."}])
    _, mit_werkzeug = ask(client, "Vergleiche mit 2/26.", mode="inline", akte_id=str(a.pk))
    assert wait(client, mit_werkzeug)["status"] == "finished"
    got = sorted((str(z.run_id), z.akte_id, z.bereich) for z in Lesezugriff.objects.all())
    assert got == sorted([(ohne_werkzeug, a.pk, "akte"), (mit_werkzeug, a.pk, "akte"),
                          (mit_werkzeug, b.pk, "akte")])



def test_a_tool_call_outside_a_run_is_logged_at_once(kanzlei: Kanzlei) -> None:
    user = kanzlei.users["sachbearbeiter"]
    offered = {t.name: t for t in tools_for(user)}
    ctx = ToolContext(user=user)
    result = async_to_sync(execute)(name="read_fristen", arguments={"akte_id": str(kanzlei.akten["B"].pk)},
                                    ctx=ctx, offered=offered)
    assert result.ok
    z = Lesezugriff.objects.get()
    assert (z.weg, z.bereich, z.akte_id, z.run_id, z.person) == ("helena", "fristen", kanzlei.akten["B"].pk,
                                                                   None, "sachbearbeiter")
    assert ctx.reads == []
