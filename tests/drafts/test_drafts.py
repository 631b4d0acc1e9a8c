"""Drafts from the outside: write tools propose and write nothing else; approve / edit / reject over
the JSON API create exactly the right record once; roles and Akte access are enforced (404/403);
refused input changes nothing; every decision is in the audit trail.
"""

from __future__ import annotations

import json
import threading
from datetime import date, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from akten.fristen import berechne
from akten.models import Akte, Alert, Dokument, Frist, Notiz, Zeiterfassung
from drafts.models import Draft, DraftEvent
from drafts.services import create_draft
from helena.models import ToolCallLog
from tests.conftest import Kanzlei
from tests.helena.tools.test_tools import call

pytestmark = pytest.mark.django_db

RECORD_TABLES = (Dokument, Frist, Notiz, Alert, Zeiterfassung)


def _counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in RECORD_TABLES}


def _approve(kanzlei: Kanzlei, username: str, draft_id: str, body: Any = None) -> Any:
    return kanzlei.client(username).post(
        f"/api/v1/drafts/{draft_id}/approve",
        data=json.dumps(body) if body is not None else "",
        content_type="application/json",
    )


def _reject(kanzlei: Kanzlei, username: str, draft_id: str, body: Any = None) -> Any:
    return kanzlei.client(username).post(
        f"/api/v1/drafts/{draft_id}/reject",
        data=json.dumps(body) if body is not None else "",
        content_type="application/json",
    )


def _propose(kanzlei: Kanzlei, username: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    before = _counts()
    result = call(kanzlei.users[username], tool, arguments)
    assert result.ok, result.error
    assert _counts() == before, "a write tool must create nothing but the draft"
    assert "Freigabe" in result.data["hinweis"] and result.data["status"] == "pending"
    [(event_type, event)] = result.events
    assert event_type == "draft_created"
    assert event["draft_id"] == result.data["draft_id"]
    assert 'class="draft-card' in event["html"]
    return result.data


def _naechster_werktag(tag: date) -> date:
    while tag.weekday() >= 5:
        tag += timedelta(days=1)
    return tag


# --------------------------------------------------------------------------- each kind, end to end


def test_dokument_draft_approved_creates_a_helena_dokument(kanzlei: Kanzlei) -> None:
    data = _propose(kanzlei, "sachbearbeiter", "create_draft_dokument",
                    {"akte_id": str(kanzlei.akten["A"].pk), "titel": "Klageerwiderung",
                     "inhalt": "# Klageerwiderung\n\nNamens der Beklagten …"})
    response = _approve(kanzlei, "anwalt", data["draft_id"])
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "approved" and body["record"]["type"] == "dokument"
    dokument = Dokument.objects.get(pk=body["record"]["id"])
    assert dokument.akte == kanzlei.akten["A"]
    assert dokument.titel == "Klageerwiderung" and dokument.inhalt.startswith("# Klageerwiderung")
    assert dokument.status == Dokument.Status.ENTWURF
    assert dokument.erstellt_durch == Dokument.ErstelltDurch.HELENA
    assert dokument.erstellt_von == kanzlei.users["sachbearbeiter"]
    assert dokument.freigegeben_von == kanzlei.users["anwalt"] and dokument.freigegeben_am
    assert body["record"]["url"] == f"/akten/{kanzlei.akten['A'].pk}/#dokument-{dokument.pk}"
    assert [e["action"] for e in body["history"]] == ["created", "approved"]


def test_approve_sent_as_a_form_is_no_server_error(kanzlei: Kanzlei) -> None:
    """A client that posts a form instead of JSON: empty, it approves as is; with fields, a JSON 400."""
    akte_id = str(kanzlei.akten["A"].pk)
    first = _propose(kanzlei, "anwalt", "create_notiz", {"akte_id": akte_id, "titel": "a", "inhalt": "eins"})
    second = _propose(kanzlei, "anwalt", "create_notiz", {"akte_id": akte_id, "titel": "b", "inhalt": "zwei"})
    client = kanzlei.client("anwalt")
    response = client.post(f"/api/v1/drafts/{first['draft_id']}/approve")  # an empty multipart form
    assert response.status_code == 200 and response.json()["status"] == "approved"
    response = client.post(f"/api/v1/drafts/{second['draft_id']}/approve", {"fields": "x"})
    assert response.status_code == 400 and response.json()["code"] == "bad_request"
    assert Draft.objects.get(pk=second["draft_id"]).status == Draft.Status.PENDING


def test_frist_from_start_and_dauer_is_computed_by_the_calculator(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["B"]  # Bayern
    start = (timezone.localdate() + timedelta(days=3)).isoformat()
    data = _propose(kanzlei, "anwalt", "create_draft_frist",
                    {"akte_id": str(akte.pk), "bezeichnung": "Berufungsfrist", "start": start,
                     "preset": "berufung", "datum": "2000-01-01"})
    erwartet = berechne(start=start, preset="berufung", bundesland="BY", vorfrist_tage=7)
    assert data["felder"]["datum"] == erwartet.ende.isoformat()  # the model's own date is overruled
    assert data["felder"]["ist_notfrist"] is True
    assert data["felder"]["vorfrist"] == erwartet.vorfrist.datum.isoformat()
    assert "§" in data["berechnung"]
    response = _approve(kanzlei, "anwalt", data["draft_id"])
    assert response.status_code == 200, response.content
    frist = Frist.objects.get(pk=response.json()["record"]["id"])
    assert (frist.akte, frist.typ, frist.bezeichnung) == (akte, "frist", "Berufungsfrist")
    assert frist.datum == erwartet.ende and frist.vorfrist == erwartet.vorfrist.datum
    assert frist.ist_notfrist and frist.verantwortlich == kanzlei.users["anwalt"]
    assert "Helena" in frist.notiz


def test_frist_with_explicit_date_and_typ_termin(kanzlei: Kanzlei) -> None:
    tag = _naechster_werktag(timezone.localdate() + timedelta(days=20))
    data = _propose(kanzlei, "sachbearbeiter", "create_draft_frist",
                    {"akte_id": str(kanzlei.akten["A"].pk), "bezeichnung": "Gütetermin",
                     "datum": tag.isoformat(), "typ": "termin", "uhrzeit": "09:30"})
    response = _approve(kanzlei, "sachbearbeiter", data["draft_id"])
    assert response.status_code == 200, response.content
    frist = Frist.objects.get(pk=response.json()["record"]["id"])
    assert (frist.typ, frist.datum, frist.uhrzeit.isoformat(timespec="minutes")) == ("termin", tag, "09:30")
    assert not frist.ist_notfrist and frist.vorfrist is None


def test_frist_on_a_sunday_is_flagged_and_an_edited_date_checked(kanzlei: Kanzlei) -> None:
    sonntag = timezone.localdate() + timedelta(days=30)
    sonntag += timedelta(days=(6 - sonntag.weekday()) % 7)
    data = _propose(kanzlei, "anwalt", "create_draft_frist",
                    {"akte_id": str(kanzlei.akten["A"].pk), "bezeichnung": "Stellungnahme",
                     "datum": sonntag.isoformat()})
    assert any("kein Werktag" in w and "Sonntag" in w for w in data["warnungen"])
    montag = sonntag + timedelta(days=1)
    response = _approve(kanzlei, "anwalt", data["draft_id"], {"datum": montag.isoformat()})
    assert response.status_code == 200, response.content
    assert not any("kein Werktag" in w for w in response.json()["warnings"])
    assert Frist.objects.get(pk=response.json()["record"]["id"]).datum == montag


def test_edited_date_that_disagrees_with_the_berechnung_gets_a_warning(kanzlei: Kanzlei) -> None:
    start = timezone.localdate().isoformat()
    data = _propose(kanzlei, "anwalt", "create_draft_frist",
                    {"akte_id": str(kanzlei.akten["A"].pk), "bezeichnung": "Klageerwiderung",
                     "start": start, "dauer": {"wochen": 2}})
    berechnet = date.fromisoformat(data["felder"]["datum"])
    anders = _naechster_werktag(berechnet + timedelta(days=3))
    response = _approve(kanzlei, "anwalt", data["draft_id"], {"fields": {"datum": anders.isoformat()}})
    assert response.status_code == 200, response.content
    assert any("weicht von der Fristberechnung ab" in w for w in response.json()["warnings"])
    edited = [e for e in response.json()["history"] if e["action"] == "edited"]
    changes = edited[0]["details"]["changes"]
    assert changes["datum"] == {"alt": berechnet.isoformat(), "neu": anders.isoformat()}
    assert edited[0]["user"]["username"] == "anwalt"


def test_notiz_alert_akte_update_and_zeiterfassung(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    notiz = _propose(kanzlei, "anwalt", "create_notiz",
                     {"akte_id": str(akte.pk), "titel": "Telefonat", "inhalt": "Mandant ruft zurück."})
    alert = _propose(kanzlei, "anwalt", "create_alert",
                     {"akte_id": str(akte.pk), "message": "Vergleichsangebot prüfen", "severity": "warning"})
    update = _propose(kanzlei, "anwalt", "update_akte_rag",
                      {"akte_id": str(akte.pk), "summary": "Kündigungsschutzklage, Gütetermin offen.",
                       "tags": ["kündigung", "gütetermin", "kündigung"], "status": "ruhend"})
    zeit = _propose(kanzlei, "sachbearbeiter", "create_draft_zeiterfassung",
                    {"akte_id": str(akte.pk), "dauer_minuten": 90, "taetigkeit": "Schriftsatz entworfen"})
    assert Akte.objects.get(pk=akte.pk).status == "offen"  # nothing applied before approval

    ids = {}
    for data in (notiz, alert, update, zeit):
        response = _approve(kanzlei, "anwalt", data["draft_id"])
        assert response.status_code == 200, response.content
        ids[data["draft_id"]] = response.json()["record"]
    n = Notiz.objects.get(pk=ids[notiz["draft_id"]]["id"])
    assert (n.akte, n.titel, n.inhalt, n.verfasst_von) == (akte, "Telefonat", "Mandant ruft zurück.",
                                                            kanzlei.users["anwalt"])
    a = Alert.objects.get(pk=ids[alert["draft_id"]]["id"])
    assert (a.akte, a.message, a.severity) == (akte, "Vergleichsangebot prüfen", "warning")
    assert a.empfaenger is None  # an Akte's alert is for everyone who sees the Akte
    akte.refresh_from_db()
    assert akte.summary == "Kündigungsschutzklage, Gütetermin offen." and akte.summary_aktualisiert_am
    assert akte.tags == ["kündigung", "gütetermin"] and akte.status == "ruhend"
    assert akte.rechtsgebiet == "arbeitsrecht"  # not part of the update: untouched
    assert ids[update["draft_id"]] == {"type": "akte", "id": str(akte.pk), "url": f"/akten/{akte.pk}/"}
    z = Zeiterfassung.objects.get(pk=ids[zeit["draft_id"]]["id"])
    assert (z.akte, z.user, z.dauer_minuten, z.taetigkeit, z.datum, z.abrechenbar) == (
        akte, kanzlei.users["sachbearbeiter"], 90, "Schriftsatz entworfen", timezone.localdate(), True)


def test_personal_notiz_without_akte_is_only_the_requesters(kanzlei: Kanzlei) -> None:
    data = _propose(kanzlei, "sekretariat", "create_notiz", {"inhalt": "Urlaubsantrag abgeben"})
    assert _approve(kanzlei, "admin", data["draft_id"]).status_code == 404
    assert kanzlei.client("anwalt").get(f"/api/v1/drafts/{data['draft_id']}").status_code == 404
    response = _approve(kanzlei, "sekretariat", data["draft_id"])
    assert response.status_code == 200, response.content
    notiz = Notiz.objects.get(pk=response.json()["record"]["id"])
    assert notiz.akte is None and notiz.verfasst_von == kanzlei.users["sekretariat"]


# --------------------------------------------------------------------------- exactly once


@pytest.mark.django_db(transaction=True)
def test_eight_concurrent_approvals_create_one_record(kanzlei: Kanzlei) -> None:
    draft = create_draft(user=kanzlei.users["anwalt"], kind="frist", akte_id=kanzlei.akten["A"].pk,
                         fields={"bezeichnung": "Replik", "datum": "2030-03-04"})
    barrier = threading.Barrier(8)
    statuses: list[int] = []
    lock = threading.Lock()

    def approve() -> None:
        client = Client(headers={"Authorization": f"Bearer {kanzlei.tokens['anwalt']}"})
        barrier.wait()
        try:
            response = client.post(f"/api/v1/drafts/{draft.pk}/approve", data="",
                                   content_type="application/json")
            with lock:
                statuses.append(response.status_code)
                if response.status_code == 409:
                    assert response.json()["code"] == "already_decided"
                    assert "bereits freigegeben" in response.json()["detail"]
        finally:
            connection.close()

    threads = [threading.Thread(target=approve) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [409] * 7
    assert Frist.objects.filter(bezeichnung="Replik").count() == 1
    assert DraftEvent.objects.filter(draft=draft, action="approved").count() == 1
    assert DraftEvent.objects.filter(draft=draft, action="refused").count() == 7


def test_decided_drafts_refuse_every_further_decision(kanzlei: Kanzlei) -> None:
    draft = create_draft(user=kanzlei.users["anwalt"], kind="notiz", akte_id=kanzlei.akten["A"].pk,
                         fields={"inhalt": "Akte durchsehen"})
    response = _reject(kanzlei, "anwalt", str(draft.pk), {"reason": "Schon erledigt", "feedback": "kürzer"})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "rejected"
    assert (body["rejection_reason"], body["feedback"]) == ("Schon erledigt", "kürzer")
    assert body["record"] is None and body["decided_by"]["username"] == "anwalt"
    before = _counts()
    for response in (_approve(kanzlei, "anwalt", str(draft.pk)), _reject(kanzlei, "anwalt", str(draft.pk))):
        assert response.status_code == 409
        assert "bereits abgelehnt" in response.json()["detail"]
    assert _counts() == before
    draft.refresh_from_db()
    assert draft.rejection_reason == "Schon erledigt"


# --------------------------------------------------------------------------- who may decide


def test_praktikant_and_users_without_access_are_refused(kanzlei: Kanzlei) -> None:
    b = create_draft(user=kanzlei.users["anwalt"], kind="frist", akte_id=kanzlei.akten["B"].pk,
                     fields={"bezeichnung": "Räumungsfrist", "datum": "2030-06-03"})
    a = create_draft(user=kanzlei.users["anwalt"], kind="frist", akte_id=kanzlei.akten["A"].pk,
                     fields={"bezeichnung": "Replikfrist", "datum": "2030-06-03"})
    before = _counts()
    # The praktikant sees Akte B and its draft, but may not decide it.
    seen = kanzlei.client("praktikant").get(f"/api/v1/drafts/{b.pk}")
    assert seen.status_code == 200 and seen.json()["may_decide"] is False
    for response in (_approve(kanzlei, "praktikant", str(b.pk)), _reject(kanzlei, "praktikant", str(b.pk))):
        assert response.status_code == 403
        assert response.json()["code"] == "forbidden" and "Rolle" in response.json()["detail"]
    # The Sekretariat sees B too, but a Frist is not theirs to decide.
    assert _approve(kanzlei, "sekretariat", str(b.pk)).status_code == 403
    # Nobody without access to Akte A learns that its draft exists.
    for username in ("praktikant", "sekretariat"):
        assert _approve(kanzlei, username, str(a.pk)).status_code == 404
        assert kanzlei.client(username).get(f"/api/v1/drafts/{a.pk}").status_code == 404
    assert _approve(kanzlei, None, str(a.pk)).status_code == 401
    assert _approve(kanzlei, "anwalt", "kein-uuid").status_code == 404
    assert _counts() == before
    assert Draft.objects.filter(status="pending").count() == 2
    assert DraftEvent.objects.filter(draft=b, action="refused").count() == 3


def test_sachbearbeiter_may_not_decide_akte_updates_sekretariat_may_decide_notizen(kanzlei: Kanzlei) -> None:
    update = create_draft(user=kanzlei.users["anwalt"], kind="akte_update", akte_id=kanzlei.akten["B"].pk,
                          fields={"status": "geschlossen"})
    assert _approve(kanzlei, "sachbearbeiter", str(update.pk)).status_code == 403
    assert Akte.objects.get(pk=kanzlei.akten["B"].pk).status == "offen"
    notiz = create_draft(user=kanzlei.users["anwalt"], kind="notiz", akte_id=kanzlei.akten["B"].pk,
                         fields={"inhalt": "Schlüssel abholen"})
    assert _approve(kanzlei, "sekretariat", str(notiz.pk)).status_code == 200
    assert _approve(kanzlei, "admin", str(update.pk)).status_code == 200  # ADMIN sees and decides all
    assert Akte.objects.get(pk=kanzlei.akten["B"].pk).status == "geschlossen"


def test_write_tools_follow_the_role_filter_and_akte_access(kanzlei: Kanzlei) -> None:
    akte_b, akte_c = str(kanzlei.akten["B"].pk), str(kanzlei.akten["C"].pk)
    result = call(kanzlei.users["praktikant"], "create_notiz", {"akte_id": akte_b, "inhalt": "x"})
    assert not result.ok and result.error_code == "forbidden"
    result = call(kanzlei.users["sachbearbeiter"], "update_akte_rag", {"akte_id": akte_b, "status": "ruhend"})
    assert not result.ok and result.error_code == "forbidden"
    result = call(kanzlei.users["sachbearbeiter"], "create_draft_dokument",
                  {"akte_id": akte_c, "titel": "x", "inhalt": "y"})  # Akte C: no access
    assert not result.ok and result.error_code == "not_found" and "nicht gefunden" in result.error
    assert Draft.objects.count() == 0
    assert ToolCallLog.objects.filter(tool="create_notiz", ok=False, error_code="forbidden").exists()


@pytest.mark.parametrize(
    ("tool", "arguments", "fehler"),
    [
        ("create_draft_frist", {"bezeichnung": "X", "datum": "2026-02-30"}, "30. Februar"),
        ("create_draft_frist", {"bezeichnung": "X", "start": "2026-01-10"}, "dauer oder preset"),
        ("create_draft_frist", {"bezeichnung": "X", "start": "2026-01-10", "preset": "gibtsnicht"},
         "Unbekannte Fristart"),
        ("create_draft_frist", {"bezeichnung": " ", "datum": "2030-01-10"}, "Bezeichnung"),
        ("create_draft_zeiterfassung", {"dauer_minuten": 0, "taetigkeit": "x"}, "Dauer"),
        ("create_draft_zeiterfassung", {"dauer_minuten": 30, "taetigkeit": "x", "datum": "2099-01-01"},
         "Zukunft"),
        ("update_akte_rag", {}, "Mindestens eine Änderung"),
        ("update_akte_rag", {"status": "verbrannt"}, "Status"),
    ],
)
def test_invalid_proposals_are_explained_to_the_model(
    kanzlei: Kanzlei, tool: str, arguments: dict[str, Any], fehler: str
) -> None:
    result = call(kanzlei.users["anwalt"], tool, {"akte_id": str(kanzlei.akten["A"].pk), **arguments})
    assert not result.ok and result.error_code == "invalid_arguments"
    assert fehler in result.error
    assert Draft.objects.count() == 0


# --------------------------------------------------------------------------- refused edits change nothing


@pytest.mark.parametrize(
    ("body", "fehler"),
    [
        ({"datum": "2026-02-30"}, "30. Februar"),
        ({"fields": {"datum": "morgen"}}, "Ungültiges Datum"),
        ({"vorfrist": "2031-01-01"}, "Vorfrist"),
        ({"ist_notfrist": True, "typ": "termin"}, "Notfrist"),
        ({"akte_id": "99"}, "unbekannt"),
        ({"bezeichnung": ""}, "Bezeichnung"),
    ],
)
def test_invalid_edits_are_422_and_change_nothing(
    kanzlei: Kanzlei, body: dict[str, Any], fehler: str
) -> None:
    draft = create_draft(user=kanzlei.users["anwalt"], kind="frist", akte_id=kanzlei.akten["A"].pk,
                         fields={"bezeichnung": "Replik", "datum": "2030-03-04", "vorfrist": "2030-02-25"})
    before = _counts()
    response = _approve(kanzlei, "anwalt", str(draft.pk), body)
    assert response.status_code == 422, response.content
    assert response.json()["code"] == "invalid_input" and fehler in response.json()["detail"]
    assert _counts() == before
    draft.refresh_from_db()
    assert draft.status == "pending" and draft.fields["datum"] == "2030-03-04"
    assert not DraftEvent.objects.filter(draft=draft, action__in=["edited", "approved"]).exists()


def test_malformed_bodies_are_clear_errors(kanzlei: Kanzlei) -> None:
    draft = create_draft(user=kanzlei.users["anwalt"], kind="notiz", akte_id=kanzlei.akten["A"].pk,
                         fields={"inhalt": "x"})
    client = kanzlei.client("anwalt")
    url = f"/api/v1/drafts/{draft.pk}/approve"
    response = client.post(url, data="{kaputt", content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "bad_request"
    response = client.post(url, data="[1]", content_type="application/json")
    assert response.status_code == 422
    response = client.post(f"/api/v1/drafts/{draft.pk}/reject", data=json.dumps({"reason": "x" * 3000}),
                           content_type="application/json")
    assert response.status_code == 422 and "2000" in response.json()["detail"]
    draft.refresh_from_db()
    assert draft.status == "pending"


# --------------------------------------------------------------------------- listing


def test_list_is_scoped_and_filterable(kanzlei: Kanzlei) -> None:
    anwalt = kanzlei.users["anwalt"]
    create_draft(user=anwalt, kind="frist", akte_id=kanzlei.akten["A"].pk,
                 fields={"bezeichnung": "A-Frist", "datum": "2030-03-04"})
    b_frist = create_draft(user=anwalt, kind="frist", akte_id=kanzlei.akten["B"].pk,
                           fields={"bezeichnung": "B-Frist", "datum": "2030-03-04"})
    b_notiz = create_draft(user=anwalt, kind="notiz", akte_id=kanzlei.akten["B"].pk, fields={"inhalt": "B"})
    create_draft(user=anwalt, kind="notiz", fields={"inhalt": "privat"})
    _reject(kanzlei, "anwalt", str(b_notiz.pk))

    def ids(username: str, query: str = "") -> list[str]:
        response = kanzlei.client(username).get(f"/api/v1/drafts{query}")
        assert response.status_code == 200, response.content
        assert response["X-Total-Count"] == str(len(response.json()))
        return [d["title"] for d in response.json()]

    assert sorted(ids("anwalt")) == ["A-Frist", "B", "B-Frist", "privat"]
    assert sorted(ids("praktikant")) == ["B", "B-Frist"]
    assert ids("praktikant", "?status=pending") == ["B-Frist"]
    assert sorted(ids("anwalt", f"?akte_id={kanzlei.akten['B'].pk}")) == ["B", "B-Frist"]
    assert ids("anwalt", "?kind=notiz&status=pending") == ["privat"]
    foreign = kanzlei.client("praktikant").get(f"/api/v1/drafts?akte_id={kanzlei.akten['A'].pk}")
    assert foreign.status_code == 404
    assert kanzlei.client("anwalt").get("/api/v1/drafts?status=kaputt").status_code == 422
    detail = kanzlei.client("sekretariat").get(f"/api/v1/drafts/{b_frist.pk}").json()
    assert detail["may_decide"] is False and detail["aktenzeichen"] == "2/26"


# --------------------------------------------------------------------------- in a run


def test_a_run_proposes_one_draft_and_streams_its_card(kanzlei: Kanzlei) -> None:
    """The model asks for the same Frist twice in one turn: it is one call (an identical call in one
    answer runs once, issue 34), one draft, one card in the chat, and the model is told that nothing
    is saved before approval."""
    from asgiref.sync import async_to_sync

    from helena.agent.events import Emitter
    from helena.agent.loop import run_agent
    from helena.llm.providers.openai_compat import OpenAICompatModel
    from helena.runs.setup import prepare_run
    from tests.scripted_llm_server import start_scripted_server

    anwalt, akte = kanzlei.users["anwalt"], kanzlei.akten["A"]
    arguments = {"akte_id": str(akte.pk), "bezeichnung": "Klageerwiderung", "start": "2030-03-01",
                 "dauer": {"wochen": 2}}
    setup = prepare_run(user=anwalt, question="Trag die Frist ein.", akte_id=str(akte.pk))
    with start_scripted_server() as server:
        server.script([
            {"tool_calls": [{"name": "create_draft_frist", "arguments": arguments}] * 2},
            {"text": "Ich habe die Frist zur Freigabe vorgelegt."},
        ])
        model = OpenAICompatModel("gpt-test", base_url=server.url + "/v1", api_key="test", timeout=10)
        emitter = Emitter(run_id="drafts-run")
        result = async_to_sync(run_agent)(model=model, messages=setup.messages, tools=setup.tools,
                                          ctx=setup.ctx, emitter=emitter, execute=setup.execute,
                                          known_names=setup.known_names)
        sent = server.requests_to("/v1/chat/completions")[1]["messages"]
    assert result.finish_reason == "stop"  # the echo is not a second call, so no loop either
    assert result.text == "Ich habe die Frist zur Freigabe vorgelegt."
    events = [e.as_dict() for e in emitter.events]
    types = [e["type"] for e in events]
    assert types.count("tool_result") == 1 and types.count("draft_created") == 1
    assert types.index("draft_created") > types.index("tool_result")
    (card,) = [e for e in events if e["type"] == "draft_created"]
    draft = Draft.objects.get()
    assert card["draft_id"] == str(draft.pk) and card["kind"] == "frist"
    assert "Klageerwiderung" in card["html"] and "Freigeben" in card["html"]
    assert draft.fields["datum"] == "2030-03-15" and draft.status == "pending"
    assert Frist.objects.filter(bezeichnung="Klageerwiderung").count() == 0
    tool_messages = [m["content"] for m in sent if m["role"] == "tool"]
    assert tool_messages and all("wartet auf die Freigabe" in m for m in tool_messages)


def test_the_next_run_knows_what_became_of_its_drafts(kanzlei: Kanzlei) -> None:
    from helena.conversations.services import create_conversation
    from helena.runs.setup import prepare_run

    anwalt = kanzlei.users["anwalt"]
    conversation = create_conversation(user=anwalt, akte_id=kanzlei.akten["A"].pk)
    made = {
        name: create_draft(user=anwalt, kind="notiz", akte_id=kanzlei.akten["A"].pk,
                           conversation_id=conversation.pk, fields={"inhalt": name})
        for name in ("Rückruf", "Mahnung", "Offen")
    }
    edited = {"inhalt": "Rückruf morgen"}
    assert _approve(kanzlei, "anwalt", str(made["Rückruf"].pk), edited).status_code == 200
    assert _reject(kanzlei, "anwalt", str(made["Mahnung"].pk), {"reason": "zu früh"}).status_code == 200
    setup = prepare_run(user=anwalt, question="Weiter?", conversation_id=conversation.pk)
    prompt = setup.messages[0]["content"]
    assert "„Rückruf morgen“: freigegeben von anwalt (mit Änderungen)." in prompt
    assert "„Mahnung“: abgelehnt von anwalt. Grund: zu früh" in prompt
    assert "„Offen“: wartet noch auf Freigabe." in prompt
    other = prepare_run(user=anwalt, question="Neu", conversation_id=create_conversation(user=anwalt).pk)
    assert "Deine Entwürfe" not in other.messages[0]["content"]


def test_a_draft_is_found_again_by_its_call_only_for_a_user_who_may_make_it(kanzlei: Kanzlei) -> None:
    """A run resumed after its process died makes the same call again and gets its draft back; a
    user without access to the Akte never gets it by naming the run and call (NotFound, nothing new)."""
    from config.errors import NotFound
    from helena.models import AgentRun, Conversation

    anwalt, akte = kanzlei.users["anwalt"], kanzlei.akten["A"]
    run = AgentRun.objects.create(conversation=Conversation.objects.create(user=anwalt), user=anwalt,
                                  mode="background")
    fields = {"inhalt": "Mandant anrufen"}
    first = create_draft(user=anwalt, kind="notiz", akte_id=akte.pk, fields=fields, run_id=str(run.pk),
                         call_id="c1")
    again = create_draft(user=anwalt, kind="notiz", akte_id=akte.pk, fields=fields, run_id=str(run.pk),
                         call_id="c1")
    assert again.pk == first.pk and Draft.objects.filter(run=run).count() == 1
    with pytest.raises(NotFound):  # sekretariat may make notes, but sees only Akte B
        create_draft(user=kanzlei.users["sekretariat"], kind="notiz", akte_id=akte.pk, fields=fields,
                     run_id=str(run.pk), call_id="c1")
    assert Draft.objects.filter(run=run).count() == 1
