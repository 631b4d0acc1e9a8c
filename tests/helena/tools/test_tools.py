"""Helena's tools: discovery, the role filter of PROTOCOL.md, the executor's error paths, the audit
trail, and every read tool's scoping (a foreign id is indistinguishable from a missing one).

Async code runs through async_to_sync, so its sync_to_async DB calls run in this test's thread and
see the test transaction.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import async_to_sync
from django.db import OperationalError
from pydantic import BaseModel, ConfigDict

from akten.fristen import format_datum
from akten.models import Beteiligter, Dokument, Notiz, Role, User, Zeiterfassung
from config.errors import NotFound
from helena.agent.checkpoint import Suspended
from helena.agent.prompts import system_prompt
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.models import ToolCallLog
from helena.tools import executor, registry
from helena.tools.registry import all_tools, not_set_up_for, roles_for, schemas_for, tools_for
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")

# PROTOCOL.md "Roles and tools": name -> (kind, parameter names).
PROTOCOL: dict[str, tuple[str, set[str]]] = {
    "read_akte": ("read", {"query", "status", "limit"}),
    "read_akte_detail": ("read", {"akte_id"}),
    "read_dokumente": ("read", {"akte_id", "query"}),
    "read_dokumente_detail": ("read", {"dokument_id", "seite"}),
    "read_fristen": ("read", {"akte_id", "status"}),
    "read_zeiterfassung": ("read", {"akte_id", "von", "bis"}),
    "search_gesetze": ("read", {"query", "gesetz", "limit"}),
    "search_urteile": ("read", {"query", "gericht", "limit"}),
    "search_muster": ("read", {"query", "limit"}),
    "get_kosten_rules": ("read", {"gegenstandswert", "gebuehren", "auftragsdatum", "anhaengigkeit",
                                  "akte_id"}),
    "calculate_frist": ("read", {"start", "dauer", "preset", "fristbeginn", "vorfrist_tage", "bundesland"}),
    "search_alle_akten": ("read", {"query", "limit"}),
    "search_web": ("read", {"query"}),
    "create_draft_dokument": ("write", {"akte_id", "titel", "inhalt", "muster_id", "werte"}),
    "create_draft_frist": ("write", {"akte_id", "bezeichnung", "datum", "typ"}),
    "create_notiz": ("write", {"inhalt", "akte_id", "titel"}),
    "create_alert": ("write", {"message", "severity", "akte_id"}),
    "update_akte_rag": ("write", {"akte_id", "summary", "status", "tags", "rechtsgebiet"}),
    "create_draft_zeiterfassung": ("write", {"akte_id", "dauer_minuten", "taetigkeit", "datum"}),
    "agent_create_plan": ("meta", {"objective", "execution_mode", "requested_outputs", "priority_entities"}),
    "ask_user": ("meta", {"question", "answer_key"}),
}
READ_TOOLS = sorted(name for name, (kind, _) in PROTOCOL.items() if kind == "read")
WRITE_TOOLS = sorted(name for name, (kind, _) in PROTOCOL.items() if kind == "write")
META_TOOLS = sorted(name for name, (kind, _) in PROTOCOL.items() if kind == "meta")

# The role filter, written out by hand from PROTOCOL.md.
ALLOWED: dict[str, set[str]] = {
    "ADMIN": set(PROTOCOL),
    "ANWALT": set(PROTOCOL),
    "SACHBEARBEITER": set(READ_TOOLS) | set(WRITE_TOOLS) - {"update_akte_rag"} | set(META_TOOLS),
    "SEKRETARIAT": set(READ_TOOLS) | {"create_notiz"} | set(META_TOOLS),
    "PRAKTIKANT": set(READ_TOOLS) | set(META_TOOLS),
}
USERNAME = {
    "ADMIN": "admin", "ANWALT": "anwalt", "SACHBEARBEITER": "sachbearbeiter",
    "SEKRETARIAT": "sekretariat", "PRAKTIKANT": "praktikant",
}


def offered_for(user: User) -> dict[str, Tool]:
    return {tool.name: tool for tool in tools_for(user)}


def call(
    user: User,
    name: str,
    arguments: dict[str, Any] | str,
    *,
    akte_id: int | None = None,
    offered: dict[str, Tool] | None = None,
    now: datetime | None = None,
    run_id: str | None = None,
) -> ToolResult:
    ctx = ToolContext(user=user, akte_id=akte_id, run_id=run_id)
    if now is not None:
        ctx.now = lambda: now
    return async_to_sync(executor.execute)(
        name=name, arguments=arguments, ctx=ctx, offered=offered_for(user) if offered is None else offered
    )


@pytest.fixture
def akten_inhalt(kanzlei: Kanzlei) -> dict[str, Any]:
    """Documents, parties, notes and time records on Akte B (praktikant sees it) and C (not)."""
    b, c = kanzlei.akten["B"], kanzlei.akten["C"]
    anwalt = kanzlei.users["anwalt"]
    out = {
        "dok_b": Dokument.objects.create(
            akte=b, titel="Räumungsklage Entwurf",
            inhalt="Die Beklagte hat die Mietsache trotz Kündigung nicht geräumt. Zeuge: Hausmeister Brandt.",
        ),
        "dok_c": Dokument.objects.create(
            akte=c, titel="Testament Vertraulich",
            inhalt="Geheimer Nachlass; der Hausmeister Brandt erbt das Ferienhaus.",
        ),
    }
    Beteiligter.objects.create(akte=b, rolle="mandant", name="Erika Schulz")
    Beteiligter.objects.create(akte=c, rolle="mandant", name="Viktor Vertraulich")
    Notiz.objects.create(akte=b, inhalt="Rückruf Wohnbau AG wegen Schlüsselübergabe", verfasst_von=anwalt)
    Notiz.objects.create(akte=c, inhalt="Schlüsselübergabe Ferienhaus", verfasst_von=anwalt)
    Zeiterfassung.objects.create(akte=b, user=anwalt, datum=date(2026, 1, 5), dauer_minuten=90,
                                 taetigkeit="Klageentwurf")
    Zeiterfassung.objects.create(akte=b, user=anwalt, datum=date(2026, 2, 10), dauer_minuten=45,
                                 taetigkeit="Telefonat Mandantin", abrechenbar=False)
    Zeiterfassung.objects.create(akte=c, user=anwalt, datum=date(2026, 1, 5), dauer_minuten=600,
                                 taetigkeit="Geheimes Gutachten")
    return out


# --------------------------------------------------------------------------- registry and role filter


def test_registry_discovers_all_protocol_read_tools() -> None:
    tools = all_tools()
    for name in READ_TOOLS:
        assert name in tools, name
        tool = tools[name]
        assert tool.kind == "read"
        assert tool.label and tool.description
        parameters = tool.schema()["function"]["parameters"]
        assert set(parameters["properties"]) == PROTOCOL[name][1], name
        assert "$defs" not in json.dumps(parameters)
    for tool in tools.values():  # tools of other modules (write/meta) follow the protocol too
        if tool.name in PROTOCOL:
            assert tool.kind == PROTOCOL[tool.name][0]
    assert all_tools() is tools  # discovered once


@pytest.mark.parametrize("role", list(ALLOWED))
def test_roles_for_is_the_protocol_role_filter(role: str) -> None:
    allowed = {name for name, (kind, _) in PROTOCOL.items() if role in roles_for(kind, name)}
    assert allowed == ALLOWED[role]


def test_roles_for_rejects_unknown_kinds() -> None:
    with pytest.raises(ValueError):
        roles_for("delete", "drop_everything")  # type: ignore[arg-type]


@pytest.mark.parametrize("role", list(ALLOWED))
def test_tools_for_each_role(kanzlei: Kanzlei, role: str) -> None:
    user = kanzlei.users[USERNAME[role]]
    offered = {tool.name for tool in tools_for(user)}
    registered = set(all_tools()) - {"search_web"}  # search_web needs HELENA_SEARCH_URL
    assert set(READ_TOOLS) - {"search_web"} <= offered
    assert offered == {name for name in registered if name not in PROTOCOL or name in ALLOWED[role]}
    assert [s["function"]["name"] for s in schemas_for(user)] == [t.name for t in tools_for(user)]


def test_superuser_gets_admin_tools_and_inactive_users_none(kanzlei: Kanzlei) -> None:
    chef = User.objects.create_user(username="chef", role=Role.PRAKTIKANT, is_superuser=True)
    assert {t.name for t in tools_for(chef)} == {t.name for t in tools_for(kanzlei.users["admin"])}
    praktikant = kanzlei.users["praktikant"]
    praktikant.is_active = False
    assert tools_for(praktikant) == []


def _fake_write_tool() -> Tool:
    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        akte_id: str
        titel: str
        inhalt: str

    async def handler(params: BaseModel, ctx: ToolContext) -> ToolResult:
        return ToolResult(ok=True, data={"draft": "ok"}, summary="Entwurf angelegt")

    return Tool(name="create_draft_dokument", description="test", kind="write", params=Params,
                handler=handler, label="Lege Entwurf an")


def test_praktikant_calling_a_tool_not_offered_is_forbidden(kanzlei: Kanzlei, monkeypatch) -> None:
    real = all_tools()
    fake = _fake_write_tool()
    tools = {**real}
    if "create_draft_dokument" not in tools:  # the write tools may not exist yet
        tools["create_draft_dokument"] = dataclasses.replace(
            fake, roles=roles_for("write", "create_draft_dokument")
        )
    monkeypatch.setattr(registry, "all_tools", lambda: tools)
    monkeypatch.setattr(executor, "all_tools", lambda: tools)
    praktikant = kanzlei.users["praktikant"]
    assert "create_draft_dokument" not in offered_for(praktikant)
    args = {"akte_id": str(kanzlei.akten["B"].pk), "titel": "X", "inhalt": "Y"}
    result = call(praktikant, "create_draft_dokument", args)
    assert not result.ok and result.error_code == "forbidden"
    assert result.error == "Dieses Werkzeug steht dir nicht zur Verfügung."
    assert "create_draft_dokument" in offered_for(kanzlei.users["anwalt"])
    log = ToolCallLog.objects.get(tool="create_draft_dokument")
    assert (log.ok, log.error_code, log.user) == (False, "forbidden", praktikant)


# --------------------------------------------------------------------------- scoping of the read tools


def _foreign_calls(kanzlei: Kanzlei, inhalt: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, id placeholder value, arguments) for every read tool that takes an id."""
    c = str(kanzlei.akten["C"].pk)
    return [
        ("read_akte_detail", c, {"akte_id": c}),
        ("read_dokumente", c, {"akte_id": c}),
        ("read_dokumente", c, {"akte_id": c, "query": "Testament"}),
        ("read_dokumente_detail", str(inhalt["dok_c"].pk), {"dokument_id": str(inhalt["dok_c"].pk)}),
        ("read_fristen", c, {"akte_id": c, "status": "all"}),
        ("read_zeiterfassung", c, {"akte_id": c}),
    ]


def test_foreign_ids_are_not_found_like_missing_ones(kanzlei: Kanzlei, akten_inhalt: dict[str, Any]) -> None:
    praktikant = kanzlei.users["praktikant"]
    for name, foreign, args in _foreign_calls(kanzlei, akten_inhalt):
        result = call(praktikant, name, args)
        assert not result.ok and result.error_code == "not_found", name
        assert result.data is None and result.sources == []
        # The id the caller sent may be echoed; nothing else of the Akte may appear.
        observation = json.dumps(result.observation(), ensure_ascii=False).replace(f"„{foreign}“", "")
        for secret in ("Vertraulich", "3/26", "Nachlass", "Testament", "Geheim", "600"):
            assert secret not in observation, (name, secret)
        for other in ("999999", "abc", "1; DROP TABLE"):
            missing = call(praktikant, name, {k: other if v == foreign else v for k, v in args.items()})
            assert missing.error_code == "not_found"
            assert missing.error == result.error.replace(foreign, other), name
        # the same tool works on the Akte the user may see
        b_args = {k: v for k, v in args.items() if k != "dokument_id"} | (
            {"akte_id": str(kanzlei.akten["B"].pk)} if "akte_id" in args else
            {"dokument_id": str(akten_inhalt["dok_b"].pk)}
        )
        b_args.pop("query", None)
        assert call(praktikant, name, b_args).ok, name
    # ids given as JSON numbers are accepted like strings
    assert call(praktikant, "read_akte_detail", {"akte_id": kanzlei.akten["B"].pk}).ok
    # the audit never links an Akte the caller cannot see
    assert not ToolCallLog.objects.filter(user=praktikant, akte=kanzlei.akten["C"]).exists()


def test_lists_and_searches_show_only_visible_akten(kanzlei: Kanzlei, akten_inhalt: dict[str, Any]) -> None:
    praktikant = kanzlei.users["praktikant"]
    listed = call(praktikant, "read_akte", {})
    assert [a["aktenzeichen"] for a in listed.data["akten"]] == ["2/26"]
    assert listed.summary == "1 Akte gefunden"
    assert listed.sources == [{"table": "akten_akte", "id": str(kanzlei.akten["B"].pk),
                               "title": "Akte 2/26 Schulz ./. Wohnbau AG"}]
    assert call(praktikant, "read_akte", {"query": "Vertraulich"}).summary == "Keine Akte gefunden"
    sb = call(kanzlei.users["sachbearbeiter"], "read_akte", {"status": "offen", "limit": 1})
    assert sb.data["anzahl"] == 2 and len(sb.data["akten"]) == 1

    for query in ("Brandt", "Schlüsselübergabe", "Vertraulich", "Geheim"):
        found = call(praktikant, "search_alle_akten", {"query": query})
        assert found.ok
        assert {r["aktenzeichen"] for r in found.data["ergebnisse"]} <= {"2/26"}, query
        assert "Vertraulich" not in json.dumps(found.data, ensure_ascii=False)
        assert "Geheim" not in json.dumps(found.data, ensure_ascii=False)

    treffer = call(praktikant, "search_alle_akten", {"query": "hausmeister brandt"}).data["ergebnisse"]
    assert treffer[0]["id"] == str(kanzlei.akten["B"].pk)
    assert treffer[0]["treffer"][0]["fundstelle"] == "dokument_text"
    assert "Brandt" in treffer[0]["treffer"][0]["text"]
    notiz = call(praktikant, "search_alle_akten", {"query": "Schlüsselübergabe"}).data["ergebnisse"]
    assert notiz[0]["treffer"][0]["fundstelle"] == "notiz"
    beteiligt = call(praktikant, "search_alle_akten", {"query": "Erika"}).data["ergebnisse"]
    assert beteiligt[0]["treffer"][0] == {"fundstelle": "beteiligter", "text": "Mandant/in: Erika Schulz"}
    # no exact phrase: single words are searched and ranked
    words = call(praktikant, "search_alle_akten", {"query": "Schulz Räumungsklage"})
    assert words.data["ergebnisse"][0]["aktenzeichen"] == "2/26" and "einzelne" in words.data["hinweis"]
    # the anwalt sees both Akten with Brandt
    both = call(kanzlei.users["anwalt"], "search_alle_akten", {"query": "Brandt"})
    assert {r["aktenzeichen"] for r in both.data["ergebnisse"]} == {"2/26", "3/26"}
    assert both.summary == "2 Akten gefunden"


def test_read_akte_detail_dokumente_fristen_zeiterfassung(
    kanzlei: Kanzlei, akten_inhalt: dict[str, Any]
) -> None:
    praktikant = kanzlei.users["praktikant"]
    b = str(kanzlei.akten["B"].pk)
    detail = call(praktikant, "read_akte_detail", {"akte_id": b})
    assert detail.summary == "Akte 2/26 gelesen"
    assert detail.data["beteiligte"] == [{"rolle": "Mandant/in", "name": "Erika Schulz"}]
    assert [f["bezeichnung"] for f in detail.data["offene_fristen"]] == ["Frist B offen"]
    assert [d["titel"] for d in detail.data["dokumente"]] == ["Räumungsklage Entwurf"]
    assert detail.data["zeit_summe_minuten"] == 135
    assert detail.data["bundesland"] == "BY"

    docs = call(praktikant, "read_dokumente", {"akte_id": b, "query": "Mietsache"})
    assert docs.summary == "1 Dokument gefunden"
    assert "Mietsache" in docs.data["dokumente"][0]["auszug"]
    assert call(praktikant, "read_dokumente", {"akte_id": b, "query": "nichts"}).summary == (
        "Kein Dokument gefunden"
    )
    full = call(praktikant, "read_dokumente_detail", {"dokument_id": str(akten_inhalt["dok_b"].pk)})
    assert full.data["inhalt"].startswith("Die Beklagte") and full.data["akte"]["aktenzeichen"] == "2/26"
    assert full.sources == [{"table": "akten_dokument", "id": str(akten_inhalt["dok_b"].pk),
                             "title": "Räumungsklage Entwurf (Akte 2/26)"}]

    offen = call(praktikant, "read_fristen", {})
    assert [f["bezeichnung"] for f in offen.data["fristen"]] == ["Frist B offen"]
    assert offen.summary == "1 offene Frist gefunden"
    vorbei = call(kanzlei.users["sachbearbeiter"], "read_fristen", {"status": "past"})
    assert {f["bezeichnung"] for f in vorbei.data["fristen"]} == {"Frist A erledigt", "Frist B erledigt"}
    a = str(kanzlei.akten["A"].pk)
    alle = call(kanzlei.users["anwalt"], "read_fristen", {"akte_id": a, "status": "all"})
    assert alle.data["anzahl"] == 2

    zeit = call(praktikant, "read_zeiterfassung", {"akte_id": b})
    summen = (zeit.data["summe_minuten"], zeit.data["abrechenbar_minuten"], zeit.data["summe"])
    assert summen == (135, 90, "2:15 h")
    assert zeit.summary == "2 Einträge, 2:15 h"
    januar = call(praktikant, "read_zeiterfassung", {"akte_id": b, "von": "01.01.2026", "bis": "2026-01-31"})
    assert januar.data["summe_minuten"] == 90
    falsch = call(praktikant, "read_zeiterfassung", {"akte_id": b, "von": "gestern"})
    assert falsch.error_code == "invalid_arguments"


# --------------------------------------------------------------------------- executor error paths


def test_unknown_tool_lists_the_available_ones(kanzlei: Kanzlei) -> None:
    praktikant = kanzlei.users["praktikant"]
    result = call(praktikant, "delete_akte", {"akte_id": "1"})
    assert not result.ok and result.error_code == "unknown_tool"
    assert "delete_akte" in result.error
    for name in offered_for(praktikant):
        assert name in result.error
    assert ToolCallLog.objects.get(tool="delete_akte").error_code == "unknown_tool"


@pytest.mark.parametrize(
    ("name", "arguments", "fields"),
    [
        ("read_akte_detail", {}, ["akte_id"]),
        ("read_fristen", {"status": "bald"}, ["status"]),
        ("read_akte", {"limit": "viele", "farbe": "rot"}, ["limit", "farbe"]),
        ("calculate_frist", {"start": "2026-01-01", "dauer": {"tage": -1}}, ["dauer.tage"]),
        ("calculate_frist", {"start": "2026-01-01", "dauer": {"stunden": 3}}, ["dauer.stunden"]),
        ("read_akte_detail", "{akte_id: 1", []),
        ("read_akte_detail", "[1, 2]", []),
    ],
)
def test_invalid_arguments_name_the_fields(
    kanzlei: Kanzlei, name: str, arguments: Any, fields: list[str]
) -> None:
    result = call(kanzlei.users["anwalt"], name, arguments)
    assert not result.ok and result.error_code == "invalid_arguments"
    assert "erneut" in result.error
    for field in fields:
        assert field in result.error
    log = ToolCallLog.objects.get(tool=name)
    assert log.error_code == "invalid_arguments" and not log.ok
    assert log.params == (arguments if isinstance(arguments, dict) else {"_raw": arguments})


def test_repairable_argument_strings_are_accepted(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    b = kanzlei.akten["B"].pk
    for raw in (json.dumps({"akte_id": str(b)}), f'```json\n{{"akte_id": "{b}"}}\n```',
                json.dumps(json.dumps({"akte_id": b})), f'Argumente: {{"akte_id": {b}}}'):
        assert call(anwalt, "read_akte_detail", raw).ok, raw
    assert call(anwalt, "read_akte", "").ok


def test_slow_tool_times_out(kanzlei: Kanzlei) -> None:
    class Params(BaseModel):
        pass

    async def slow(params: BaseModel, ctx: ToolContext) -> ToolResult:
        await asyncio.sleep(5)
        return ToolResult(ok=True)

    tool = Tool(name="slow_tool", description="test", kind="read", params=Params, handler=slow, timeout=0.05)
    result = call(kanzlei.users["anwalt"], "slow_tool", {}, offered={"slow_tool": tool})
    assert not result.ok and result.error_code == "timeout"
    assert "Zeitüberschreitung" in result.error
    assert ToolCallLog.objects.get(tool="slow_tool").error_code == "timeout"


def _flaky(tool: Tool, errors: list[BaseException], calls: list[int]) -> Tool:
    async def handler(params: BaseModel, ctx: ToolContext) -> ToolResult:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return await tool.handler(params, ctx)

    return dataclasses.replace(tool, handler=handler)


def test_transient_db_error_is_retried_then_succeeds(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    calls: list[int] = []
    tool = _flaky(all_tools()["read_akte"], [OperationalError("server closed the connection")], calls)
    result = call(anwalt, "read_akte", {}, offered={"read_akte": tool})
    assert result.ok and len(calls) == 2
    assert result.data["anzahl"] == 3


def test_persistent_transient_error_gives_up_after_two_retries(kanzlei: Kanzlei, monkeypatch) -> None:
    monkeypatch.setattr(executor, "RETRY_DELAYS", (0.0, 0.0))
    calls: list[int] = []
    tool = _flaky(all_tools()["read_akte"], [OperationalError("down")] * 5, calls)
    result = call(kanzlei.users["anwalt"], "read_akte", {}, offered={"read_akte": tool})
    assert result.error_code == "tool_failed" and len(calls) == 3
    assert "vorübergehend" in result.error


def test_in_a_run_a_database_that_stays_away_suspends_the_run(kanzlei: Kanzlei, monkeypatch) -> None:
    """Not the tool's failure the model should work around: the run waits for the database and
    makes the call again from its checkpoint (helena/runs/resume.py)."""
    monkeypatch.setattr(executor, "RETRY_DELAYS", (0.0, 0.0))
    tool = _flaky(all_tools()["read_akte"], [OperationalError("down")] * 5, [])

    async def record_reads() -> None:
        return None

    ctx = ToolContext(user=kanzlei.users["anwalt"], run_id="run-1", record_reads=record_reads)
    with pytest.raises(Suspended):
        async_to_sync(executor.execute)(name="read_akte", arguments={}, ctx=ctx, offered={"read_akte": tool})


@pytest.mark.parametrize(
    ("error", "code"),
    [(NotFound(), "not_found"), (ValueError("kaputt /srv/secret.py"), "tool_failed")],
)
def test_other_errors_are_not_retried_and_leak_no_traceback(
    kanzlei: Kanzlei, error: Exception, code: str
) -> None:
    calls: list[int] = []
    tool = _flaky(all_tools()["read_akte"], [error], calls)
    result = call(kanzlei.users["anwalt"], "read_akte", {}, offered={"read_akte": tool})
    assert result.error_code == code and len(calls) == 1
    assert "secret" not in result.error and "Traceback" not in result.error


def test_audit_rows_for_ok_and_failed_calls(kanzlei: Kanzlei, akten_inhalt: dict[str, Any]) -> None:
    anwalt = kanzlei.users["anwalt"]
    b = kanzlei.akten["B"]
    ok = call(anwalt, "read_zeiterfassung", {"akte_id": str(b.pk)}, run_id="run-1")
    failed = call(anwalt, "read_akte_detail", {"akte_id": "999999"}, akte_id=kanzlei.akten["A"].pk)
    assert ok.ok and not failed.ok
    rows = {row.tool: row for row in ToolCallLog.objects.all()}
    good, bad = rows["read_zeiterfassung"], rows["read_akte_detail"]
    assert (good.ok, good.user, good.akte, good.run_id) == (True, anwalt, b, "run-1")
    assert good.summary == ok.summary
    assert good.params == {"akte_id": str(b.pk)} and good.duration_ms >= 0 and good.created_at
    assert (bad.ok, bad.error_code, bad.user) == (False, "not_found", anwalt)
    assert bad.akte == kanzlei.akten["A"]  # the invalid id falls back to the Akte in focus
    assert bad.run_id is None and "nicht gefunden" in bad.error


# --------------------------------------------------------------------------- calculators


@pytest.mark.parametrize(
    ("username", "focus", "bundesland", "ende", "quelle"),
    [
        ("sachbearbeiter", "B", None, "2026-01-07", "Akte 2/26"),  # BY: Heilige Drei Könige
        ("sachbearbeiter", "A", None, "2026-01-06", "Akte 1/26"),  # NW: a working day
        ("sachbearbeiter", None, None, "2026-01-06", "Kanzleisitz"),
        ("praktikant", "A", None, "2026-01-06", "Kanzleisitz"),  # A is not visible to praktikant
        ("sachbearbeiter", "A", "Bayern", "2026-01-07", "angegeben"),
    ],
)
def test_calculate_frist_uses_the_focused_akte_bundesland(
    kanzlei: Kanzlei, username: str, focus: str | None, bundesland: str | None, ende: str, quelle: str
) -> None:
    args: dict[str, Any] = {"start": "2025-12-23", "dauer": {"wochen": 2}}
    if bundesland:
        args["bundesland"] = bundesland
    akte_id = kanzlei.akten[focus].pk if focus else None
    result = call(kanzlei.users[username], "calculate_frist", args, akte_id=akte_id)
    assert result.ok, result.error
    assert (result.data["ende"], result.data["bundesland_quelle"]) == (ende, quelle)
    assert result.summary == f"Frist endet am {date.fromisoformat(ende):%d.%m.%Y}"


def test_calculate_frist_default_is_the_firm_bundesland(kanzlei: Kanzlei, settings) -> None:
    settings.KANZLEI_BUNDESLAND = "BY"
    result = call(kanzlei.users["anwalt"], "calculate_frist", {"start": "2025-12-23", "dauer": {"wochen": 2}})
    assert (result.data["bundesland"], result.data["ende"]) == ("BY", "2026-01-07")
    bad = call(kanzlei.users["anwalt"], "calculate_frist", {"start": "31.02.2026", "dauer": {"tage": 3}})
    assert bad.error_code == "invalid_arguments" and "Datum" in bad.error


def test_get_kosten_rules_computes_the_known_example(kanzlei: Kanzlei) -> None:
    today_2026 = datetime(2026, 3, 2, 10, 0, tzinfo=BERLIN)  # after 01.06.2025: table 2025
    args = {"gegenstandswert": "5000", "gebuehren": [{"nr": "3100"}, {"nr": "3104"}]}
    result = call(kanzlei.users["praktikant"], "get_kosten_rules", args, now=today_2026)
    assert result.ok, result.error
    rvg = result.data["rvg"]
    assert "2025" in rvg["tabelle"] and rvg["gebuehr_1_0"] == "354.50"
    assert (rvg["netto"], rvg["ust"], rvg["gesamt"]) == ("906.25", "172.19", "1078.44")
    assert result.data["gkg"]["positionen"][0]["nr"] == "1210"
    assert result.data["stichtag"] == "2026-03-02"
    assert result.summary.startswith("Anwaltsgebühren 1.078,44 EUR")
    # the same with JSON numbers and without gebuehren (default 3100 + 3104)
    assert call(kanzlei.users["anwalt"], "get_kosten_rules", {"gegenstandswert": 5000},
                now=today_2026).data["rvg"]["gesamt"] == "1078.44"
    # before 01.06.2025 the tool picks the 2021 table
    may_2025 = datetime(2025, 5, 31, 12, tzinfo=BERLIN)
    old = call(kanzlei.users["anwalt"], "get_kosten_rules", args, now=may_2025)
    assert "2021" in old.data["rvg"]["tabelle"] and old.data["rvg"]["gebuehr_1_0"] == "334.00"
    # only court fees
    gkg = call(kanzlei.users["anwalt"], "get_kosten_rules",
               {"gegenstandswert": "5000", "gebuehren": [{"nr": 1220}]}, now=today_2026)
    assert gkg.data["rvg"] is None and gkg.data["gkg"]["positionen"][0]["nr"] == "1220"
    bad = call(kanzlei.users["anwalt"], "get_kosten_rules", {"gegenstandswert": "5000",
                                                            "gebuehren": [{"nr": "9999"}]})
    assert bad.error_code == "invalid_arguments" and "9999" in bad.error


def test_get_kosten_rules_without_value_lists_the_rules(kanzlei: Kanzlei) -> None:
    result = call(kanzlei.users["sekretariat"], "get_kosten_rules", {})
    assert result.ok
    vv = {row["nr"]: row for row in result.data["vv_rvg"]}
    assert vv["3100"]["satz"] == "1.3" and vv["2300"]["rahmen"] == "0.5 bis 2.5"
    tabellen = {(t["gesetz"], t["gueltig_ab"]): t for t in result.data["tabellen"]}
    assert set(tabellen) == {("RVG", "2025-06-01"), ("RVG", "2021-01-01"), ("GKG", "2025-06-01"),
                             ("GKG", "2021-01-01")}
    assert tabellen[("RVG", "2025-06-01")]["gebuehr_bis_500"] == "51.50"
    assert {row["nr"] for row in result.data["kv_gkg"]} >= {"1210", "1220"}


# --------------------------------------------------------------------------- knowledge and web


def test_knowledge_tools_through_the_executor(kanzlei: Kanzlei) -> None:
    praktikant = kanzlei.users["praktikant"]
    muster = call(praktikant, "search_muster", {"query": "Vollmacht"})
    assert muster.ok and muster.summary == "Keine Treffer" and muster.data["results"] == []
    leer = call(praktikant, "search_gesetze", {"query": "   "})
    assert leer.error_code == "invalid_arguments" and leer.error == "Bitte einen Suchbegriff angeben."


def test_search_gesetze_cites_sources(kanzlei: Kanzlei, knowledge_corpus: None) -> None:
    result = call(kanzlei.users["praktikant"], "search_gesetze", {"query": "§ 517 ZPO", "limit": 3})
    assert result.ok and result.sources[0] == {"corpus": "gesetze", "citation": "§ 517 ZPO"}


class _Searx(BaseHTTPRequestHandler):
    status = 200
    requests: list[str] = []

    def do_GET(self) -> None:
        type(self).requests.append(self.path)
        body = json.dumps({
            "query": "x",
            "results": [
                {"title": f"Treffer {i}", "url": f"https://example.org/{i}", "content": "Inhalt " * 200}
                for i in range(8)
            ] + [{"title": "kaputt", "url": "javascript:alert(1)"}],
        }).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def searx() -> Iterator[tuple[str, type[_Searx]]]:
    handler = type("Searx", (_Searx,), {"status": 200, "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_search_web_is_not_offered_without_url(kanzlei: Kanzlei, settings) -> None:
    settings.HELENA_SEARCH_URL = ""
    anwalt = kanzlei.users["anwalt"]
    assert "search_web" not in offered_for(anwalt)
    assert "search_web" in all_tools()
    refused = call(anwalt, "search_web", {"query": "Wohnbau AG Adresse"})
    assert refused.error_code == "not_configured"
    assert refused.error == "Die Websuche ist in dieser Kanzlei nicht eingerichtet."
    # the model is told, so it does not try
    prompt = system_prompt(tools=tools_for(anwalt), today=format_datum(date(2026, 11, 2)), user_name="A",
                           role="ANWALT", not_set_up=not_set_up_for(anwalt))
    assert "In dieser Kanzlei nicht eingerichtet" in prompt and "Websuche" in prompt


def test_search_web_against_a_searxng_endpoint(kanzlei: Kanzlei, settings, searx, monkeypatch) -> None:
    url, handler = searx
    settings.HELENA_SEARCH_URL = url + "/"
    praktikant = kanzlei.users["praktikant"]
    assert "search_web" in offered_for(praktikant)
    result = call(praktikant, "search_web", {"query": "Wohnbau AG Adresse"})
    assert result.ok, result.error
    assert [r["url"] for r in result.data["results"]] == [f"https://example.org/{i}" for i in range(5)]
    assert len(result.data["results"][0]["content"]) <= 501
    assert result.summary == "5 Webtreffer"
    assert result.sources[0] == {"url": "https://example.org/0", "title": "Treffer 0"}
    assert handler.requests[0].startswith("/search?q=Wohnbau+AG+Adresse&format=json")

    monkeypatch.setattr(executor, "RETRY_DELAYS", (0.0, 0.0))
    handler.status = 503
    down = call(praktikant, "search_web", {"query": "Wohnbau AG Adresse"})
    assert down.error_code == "tool_failed" and len(handler.requests) == 4  # 1 + 2 retries
    handler.status = 404
    assert call(praktikant, "search_web", {"query": "Wohnbau"}).error_code == "tool_failed"
    assert len(handler.requests) == 5  # a 4xx is not retried


def test_read_fristen_judges_overdue_by_ctx_now(kanzlei: Kanzlei) -> None:
    """'überfällig' is judged by the firm's calendar day of ctx.now (injectable per run)."""
    heute = datetime.now(BERLIN).date()
    late_evening = datetime.combine(heute + timedelta(days=6), datetime.min.time(), tzinfo=BERLIN)
    result = call(kanzlei.users["praktikant"], "read_fristen", {}, now=late_evening)
    assert result.data["fristen"][0]["ueberfaellig"] is True
    assert result.summary == "1 offene Frist gefunden, davon 1 überfällig"


def test_audit_admin_is_read_only(kanzlei: Kanzlei) -> None:
    from django.test import Client

    call(kanzlei.users["anwalt"], "read_akte", {"query": "Meier"})
    admin = kanzlei.users["admin"]
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client = Client()
    client.force_login(admin)
    page = client.get("/admin/helena/toolcalllog/", {"q": "read_akte", "ok__exact": "1"})
    assert page.status_code == 200 and "read_akte" in page.content.decode()
    row = ToolCallLog.objects.get()
    assert client.get("/admin/helena/toolcalllog/add/").status_code == 403
    assert client.post(f"/admin/helena/toolcalllog/{row.pk}/delete/").status_code == 403
    assert client.get(f"/admin/helena/toolcalllog/{row.pk}/change/").status_code == 200
