"""Conversations as records, from outside (issue 23): the list with search and filters, rename,
archive, pin, delete (soft; archived when drafts of it were approved), the Aktenvermerk draft
approved into the Akte, the export — and another user's conversation is 404 everywhere."""

from __future__ import annotations

import io
import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from pypdf import PdfReader

from akten.models import Dokument, Frist, User
from drafts.models import Draft
from helena.conversations.demo import TITLE as DEMO_TITLE
from helena.conversations.title import propose_title
from helena.models import AgentRun, Conversation, Message, RunEvent
from tests.conftest import Kanzlei
from tests.helena.web.test_runs_api import ask, wait
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True)]

API = "/api/v1/helena/conversations"


def call(client: Client, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
    response = getattr(client, method)(path, json.dumps(body) if body is not None else None,
                                       content_type="application/json")
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.content


def listed(client: Client, **params: str) -> list[dict]:
    response = client.get(API, params)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.slow
def test_helena_titles_the_conversation_and_the_list_finds_it(kanzlei: Kanzlei,
                                                              tiers: ScriptedLLMServer) -> None:
    frist = {"start": "2026-10-01", "dauer": {"monate": 1}, "bundesland": "NW"}
    tiers.script([{"tool_calls": [{"name": "calculate_frist", "arguments": frist}]},
                  {"text": "Die Berufungsfrist endet am 02.11.2026."}])
    client = kanzlei.client("anwalt")
    conv_id, run_id = ask(client, "Hallo Helena, kannst du mir sagen, wann die Berufungsfrist endet? "
                                  "Zugestellt am 01.10.2026.", mode="inline",
                          akte_id=str(kanzlei.akten["A"].pk))
    assert wait(client, run_id)["status"] == "finished"
    [item] = listed(client)
    assert item["id"] == conv_id and item["titel"] == "Wann die Berufungsfrist endet?"
    assert item["aktenzeichen"] == kanzlei.akten["A"].aktenzeichen and item["zustand"] == ""
    # German full text over the messages: inflected forms and a prefix still find it
    assert [c["id"] for c in listed(client, q="Berufungsfristen")] == [conv_id]
    assert [c["id"] for c in listed(client, q="zugest")] == [conv_id]
    assert listed(client, q="Kündigungsschutz") == []
    assert [c["id"] for c in listed(client, akte_id=str(kanzlei.akten["A"].pk))] == [conv_id]
    assert listed(client, akte_id=str(kanzlei.akten["B"].pk)) == []
    # an Akte the user may not see is 404, not an empty list
    assert kanzlei.client("praktikant").get(API, {"akte_id": str(kanzlei.akten["A"].pk)}).status_code == 404
    # the user's own name wins, and Helena does not overwrite it later
    status, body = call(client, "patch", f"{API}/{conv_id}", {"titel": "  Berufung   Meier "})
    assert status == 200 and body["titel"] == "Berufung Meier"
    assert Conversation.objects.get(pk=conv_id).titel_von_hand


def test_archive_pin_and_the_list(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    ids = [call(client, "post", API, {})[1]["id"] for _ in range(3)]
    status, body = call(client, "patch", f"{API}/{ids[0]}", {"archiviert": True})
    assert status == 200 and body["archiviert"]
    assert {c["id"] for c in listed(client)} == set(ids[1:])
    assert [c["id"] for c in listed(client, archiviert="true")] == [ids[0]]
    assert {c["id"] for c in listed(client, archiviert="alle")} == set(ids)
    call(client, "patch", f"{API}/{ids[1]}", {"angeheftet": True})
    assert listed(client)[0]["id"] == ids[1]  # pinned first, though older
    status, _ = call(client, "patch", f"{API}/{ids[0]}", {"archiviert": False})
    assert status == 200 and len(listed(client)) == 3


@pytest.mark.parametrize("body", [{"titel": ""}, {"titel": "   "}, {"titel": "x" * 201},
                                  {"titel": "a\u0000b"}, {"archiviert": "vielleicht"}, {"titel": 5}])
def test_bad_changes_are_refused_in_german_and_change_nothing(kanzlei: Kanzlei, body: dict) -> None:
    client = kanzlei.client("anwalt")
    conv_id = call(client, "post", API, {})[1]["id"]
    status, answer = call(client, "patch", f"{API}/{conv_id}", body)
    assert status in (400, 422) and isinstance(answer, dict) and answer["detail"]
    conversation = Conversation.objects.get(pk=conv_id)
    assert conversation.title == "" and not conversation.archiviert


@pytest.mark.parametrize("params", [{"archiviert": "ja"}, {"von": "gestern"}, {"limit": "0"},
                                    {"von": "2026-11-02", "bis": "2026-11-01"}, {"q": "x" * 201}])
def test_bad_list_filters_are_refused(kanzlei: Kanzlei, params: dict) -> None:
    response = kanzlei.client("anwalt").get(API, params)
    assert response.status_code in (400, 422) and response.json()["detail"]


def test_search_takes_any_text(kanzlei: Kanzlei) -> None:
    """Operators of PostgreSQL's tsquery syntax are words to the user, never a 500."""
    client = kanzlei.client("anwalt")
    conv = Conversation.objects.create(user=kanzlei.users["anwalt"], title="Räumungsklage Müller")
    Message.objects.create(conversation=conv, role="user", text="Wie läuft die Räumung ab?")
    for q in ["Räumung", "räumungsklage", "müller & | ! :* ( )", "'", "§ 573 BGB", "der die das", "_"]:
        assert client.get(API, {"q": q}).status_code == 200, q
    assert [c["id"] for c in listed(client, q="räumungsklage")] == [str(conv.pk)]


def test_another_users_conversation_is_404_everywhere(kanzlei: Kanzlei) -> None:
    mine = Conversation.objects.create(user=kanzlei.users["anwalt"], akte=kanzlei.akten["B"], title="Geheim")
    Message.objects.create(conversation=mine, role="user", text="Vergleichsangebot Stahlbau")
    other = kanzlei.client("sekretariat")  # sees Akte B, but not the Anwalt's conversations
    assert listed(other, q="Vergleichsangebot") == [] and listed(other) == []
    assert call(other, "patch", f"{API}/{mine.pk}", {"titel": "Meins"})[0] == 404
    assert call(other, "delete", f"{API}/{mine.pk}")[0] == 404
    assert call(other, "post", f"{API}/{mine.pk}/aktenvermerk", {})[0] == 404
    assert other.get(f"{API}/{mine.pk}/export").status_code == 404
    assert kanzlei.client(None).get(API).status_code == 401
    mine.refresh_from_db()
    assert mine.title == "Geheim" and mine.geloescht_am is None


def _answered(kanzlei: Kanzlei, *, user: str = "anwalt",
              akte: str | None = "A") -> tuple[Conversation, AgentRun]:
    """A conversation with one finished answer that used a tool with a source (as stored by a run)."""
    owner = kanzlei.users[user]
    conv = Conversation.objects.create(user=owner, akte=kanzlei.akten[akte] if akte else None)
    Message.objects.create(conversation=conv, role="user", text="Wann endet die Berufungsfrist?")
    run = AgentRun.objects.create(conversation=conv, user=owner, status=AgentRun.Status.FINISHED,
                                  finish_reason="stop", model="klein",
                                  text="Die Frist endet am **02.11.2026**.")
    Message.objects.create(conversation=conv, role="assistant", text=run.text, run=run)
    RunEvent.objects.create(run=run, seq=1, type="tool_call", payload={
        "call_id": "c1", "tool": "search_gesetze", "arguments": {"query": "Berufungsfrist"}})
    RunEvent.objects.create(run=run, seq=2, type="tool_result", payload={
        "call_id": "c1", "ok": True, "summary": "§ 517 ZPO gefunden",
        "source": [{"citation": "§ 517 ZPO", "corpus": "gesetze"}]})
    return conv, run


def test_aktenvermerk_is_a_draft_and_approved_into_the_akte(kanzlei: Kanzlei) -> None:
    conv, run = _answered(kanzlei)
    client = kanzlei.client("anwalt")
    status, draft = call(client, "post", f"{API}/{conv.pk}/aktenvermerk", {})
    assert status == 201 and draft["kind"] == "dokument" and draft["status"] == "pending"
    assert draft["akte_id"] == str(kanzlei.akten["A"].pk) and draft["conversation_id"] == str(conv.pk)
    inhalt = draft["fields"]["inhalt"]
    for expected in ("> Wann endet die Berufungsfrist?", "Die Frist endet am **02.11.2026**.",
                     "§ 517 ZPO", "Durchsuche", "Festgehalten von", kanzlei.akten["A"].aktenzeichen):
        assert expected in inhalt, expected
    assert not Dokument.objects.filter(titel=draft["fields"]["titel"]).exists()  # nothing written yet
    status, decided = call(client, "post", f"/api/v1/drafts/{draft['id']}/approve")
    assert status == 200 and decided["status"] == "approved"
    dokument = Dokument.objects.get(pk=decided["record"]["id"])
    assert dokument.akte == kanzlei.akten["A"] and "§ 517 ZPO" in dokument.inhalt
    # one answer only
    status, one = call(client, "post", f"{API}/{conv.pk}/aktenvermerk", {"run_id": str(run.pk)})
    assert status == 201 and one["run_id"] == str(run.pk)
    assert call(client, "post", f"{API}/{conv.pk}/aktenvermerk", {"run_id": "nope"})[0] == 404


def test_aktenvermerk_needs_an_akte_and_a_role_that_may_write(kanzlei: Kanzlei) -> None:
    conv, _ = _answered(kanzlei, akte=None)
    status, body = call(kanzlei.client("anwalt"), "post", f"{API}/{conv.pk}/aktenvermerk", {})
    assert status == 422 and "Akte" in body["detail"]
    conv, _ = _answered(kanzlei, user="praktikant", akte="B")
    status, body = call(kanzlei.client("praktikant"), "post", f"{API}/{conv.pk}/aktenvermerk", {})
    assert status == 403 and body["detail"]
    assert not Draft.objects.exists()


def test_delete_is_soft_and_keeps_what_went_into_an_akte(kanzlei: Kanzlei) -> None:
    client = kanzlei.client("anwalt")
    conv, run = _answered(kanzlei)
    status, body = call(client, "delete", f"{API}/{conv.pk}")
    assert status == 200 and body["ergebnis"] == "geloescht"
    assert listed(client, archiviert="alle") == []
    assert client.get(f"{API}/{conv.pk}").status_code == 404
    assert call(client, "delete", f"{API}/{conv.pk}")[0] == 404
    assert RunEvent.objects.filter(run=run).count() == 2  # the audit stays
    kept, _ = _answered(kanzlei)
    draft = call(client, "post", f"{API}/{kept.pk}/aktenvermerk", {})[1]
    call(client, "post", f"/api/v1/drafts/{draft['id']}/approve")
    status, body = call(client, "delete", f"{API}/{kept.pk}")
    assert status == 200 and body["ergebnis"] == "archiviert" and "archiviert" in body["message"]
    assert [c["id"] for c in listed(client, archiviert="true")] == [str(kept.pk)]


def test_delete_waits_for_a_running_answer(kanzlei: Kanzlei) -> None:
    conv, run = _answered(kanzlei)
    AgentRun.objects.filter(pk=run.pk).update(status=AgentRun.Status.RUNNING)
    status, body = call(kanzlei.client("anwalt"), "delete", f"{API}/{conv.pk}")
    assert status == 409 and "arbeitet" in body["detail"]
    assert listed(kanzlei.client("anwalt"))[0]["zustand"] == "laeuft"


def test_export_as_markdown_and_pdf(kanzlei: Kanzlei) -> None:
    conv, _ = _answered(kanzlei)
    client = kanzlei.client("anwalt")
    md = client.get(f"{API}/{conv.pk}/export", {"format": "md"})
    assert md.status_code == 200 and md["Content-Type"].startswith("text/markdown")
    text = b"".join(md.streaming_content).decode()
    assert "Die Frist endet am **02.11.2026**." in text and "§ 517 ZPO" in text
    assert ".md" in md["Content-Disposition"]
    pdf = client.get(f"{API}/{conv.pk}/export", {"format": "pdf"})
    assert pdf.status_code == 200 and b"".join(pdf.streaming_content).startswith(b"%PDF")
    assert client.get(f"{API}/{conv.pk}/export", {"format": "exe"}).status_code == 422


@pytest.mark.parametrize(("question", "title"), [
    ("Hallo Helena, kannst du mir bitte sagen, wann die Berufungsfrist endet? Zustellung am 1.10.",
     "Wann die Berufungsfrist endet?"),
    ("bitte fasse die Akte 1/26 zusammen", "Fasse die Akte 1/26 zusammen"),
    ("Guten Morgen! Wie hoch sind die Gebühren nach RVG bei einem Gegenstandswert von 12.500 Euro für "
     "eine außergerichtliche Vertretung?",
     "Wie hoch sind die Gebühren nach RVG bei einem Gegenstandswert von…"),
    ("", ""),
])
def test_proposed_titles(question: str, title: str) -> None:
    assert propose_title(question) == title


def test_pages_rename_archive_and_search(kanzlei: Kanzlei) -> None:
    conv, run = _answered(kanzlei)
    client = Client()
    client.force_login(kanzlei.users["anwalt"])
    page = client.get("/helena/").content.decode()
    assert "Wann endet die Berufungsfrist?" in page and "Archivieren" in page
    client.post(f"/helena/gespraech/{conv.pk}/aendern/", {"titel": "Berufung Meier", "zurueck": "/helena/"})
    assert "Berufung Meier" in client.get("/helena/").content.decode()
    assert "Berufung Meier" in client.get("/helena/", {"q": "Berufungsfristen"}).content.decode()
    assert "Kein Gespräch passt" in client.get("/helena/", {"q": "Mietminderung"}).content.decode()
    chat = client.get(f"/helena/gespraech/{conv.pk}/").content.decode()
    assert "Als Aktenvermerk speichern" in chat and "Diese Antwort als Aktenvermerk" in chat
    response = client.post(f"/helena/gespraech/{conv.pk}/aktenvermerk/", {"run_id": str(run.pk)})
    assert response.status_code == 302 and Draft.objects.filter(conversation=conv).count() == 1
    client.post(f"/helena/gespraech/{conv.pk}/aendern/", {"archiviert": "1", "zurueck": "/helena/"})
    assert "Berufung Meier" not in client.get("/helena/").content.decode()
    assert "Berufung Meier" in client.get("/helena/", {"archiv": "1"}).content.decode()
    # an open redirect is not where "zurueck" sends you
    response = client.post(f"/helena/gespraech/{conv.pk}/aendern/", {"angeheftet": "1",
                                                                     "zurueck": "//evil.example/"})
    assert response["Location"] == f"/helena/gespraech/{conv.pk}/"
    md = client.get(f"/helena/gespraech/{conv.pk}/export.md")
    assert md.status_code == 200 and "Berufung Meier" in b"".join(md.streaming_content).decode()
    assert client.get(f"/helena/gespraech/{conv.pk}/export.exe").status_code in (400, 422)
    other = Client()
    other.force_login(kanzlei.users["sekretariat"])
    assert other.get(f"/helena/gespraech/{conv.pk}/").status_code == 404
    assert other.post(f"/helena/gespraech/{conv.pk}/loeschen/").status_code == 404
    assert other.get(f"/helena/gespraech/{conv.pk}/export.md").status_code == 404
    response = client.post(f"/helena/gespraech/{conv.pk}/loeschen/")
    assert response.status_code == 302 and Conversation.objects.get(pk=conv.pk).geloescht_am is not None
    assert client.get(f"/helena/gespraech/{conv.pk}/").status_code == 404


def test_an_empty_conversation_is_opened_again_and_never_listed(kanzlei: Kanzlei) -> None:
    """Issue 31: "Mit Helena über diese Akte sprechen" (or "Neues Gespräch") and nothing asked must
    not leave an empty "Neues Gespräch" in the list; the next click opens the same one again."""
    client = Client()
    client.force_login(kanzlei.users["anwalt"])
    akte = kanzlei.akten["A"]
    first = client.post(f"/akten/{akte.pk}/gespraech/")["Location"]
    assert client.post(f"/akten/{akte.pk}/gespraech/")["Location"] == first
    general = client.post("/helena/gespraech/neu/")["Location"]
    assert general != first and client.post("/helena/gespraech/neu/")["Location"] == general
    fristen = client.post("/helena/gespraech/neu/", {"context_type": "fristen"})["Location"]
    assert fristen not in (first, general)
    assert Conversation.objects.filter(user=kanzlei.users["anwalt"]).count() == 3
    page = client.get("/helena/").content.decode()
    assert "Du hast noch kein Gespräch mit Helena" in page and "Neues Gespräch</a>" not in page
    assert f'<option value="{akte.pk}"' not in page  # no Akte filter for a conversation without a word

    conversation = Conversation.objects.get(pk=first.rstrip("/").rsplit("/", 1)[1])
    Message.objects.create(conversation=conversation, role="user", text="Wann ist der Gütetermin?")
    page = client.get("/helena/").content.decode()
    assert "Wann ist der Gütetermin?" in page and f'<option value="{akte.pk}"' in page
    assert client.post(f"/akten/{akte.pk}/gespraech/")["Location"] != first  # asked: a new one now
    assert len(listed(client)) == 4  # the API lists what a client made, empty or not


def test_an_empty_conversation_is_reopened_only_for_its_owner_and_akte(kanzlei: Kanzlei) -> None:
    """Another user's empty conversation about the same Akte is never opened for me; an Akte I may not
    see is a 404 however many empty conversations others hold about it."""
    anwalt, sachbearbeiter = Client(), Client()
    anwalt.force_login(kanzlei.users["anwalt"])
    sachbearbeiter.force_login(kanzlei.users["sachbearbeiter"])  # sees A and B, not C
    akte = kanzlei.akten["A"]
    his = anwalt.post(f"/akten/{akte.pk}/gespraech/")["Location"]
    mine = sachbearbeiter.post(f"/akten/{akte.pk}/gespraech/")["Location"]
    assert mine != his and sachbearbeiter.get(his).status_code == 404
    anwalt.post(f"/akten/{kanzlei.akten['C'].pk}/gespraech/")
    assert sachbearbeiter.post(f"/akten/{kanzlei.akten['C'].pk}/gespraech/").status_code == 404
    assert not Conversation.objects.filter(user=kanzlei.users["sachbearbeiter"],
                                           akte=kanzlei.akten["C"]).exists()


def _pdf_text(inhalt: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(inhalt)).pages).split())


def test_sources_read_as_a_lawyer_cites_them_in_export_and_aktenvermerk(settings) -> None:
    """The demo's example conversation (real tools, issue 31): Akte, drafts by kind and title; no table
    name, no id – in the PDF, the Markdown and the Aktenvermerk alike."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", password="x-test-pw", stdout=StringIO())
    anwalt = User.objects.get(username="anwalt")
    client = Client()
    client.force_login(anwalt)
    conv = Conversation.objects.get(user=anwalt, title=DEMO_TITLE)
    quellen = ["Akte 101/26 Müller ./. Bauer Logistik GmbH",
               "Entwurf: Dokument „Erinnerung: Deckungsanfrage Kündigungsschutzklage Müller“ (Akte 101/26)",
               "Entwurf: Frist „Deckungszusage Rheinische Rechtsschutz eingegangen?“ (Akte 101/26)",
               "Entwurf: Zeiterfassung „Prüfung Deckungszusage, Erinnerung an die Versicherung“ "
               "(Akte 101/26)"]

    pdf = _pdf_text(b"".join(client.get(f"{API}/{conv.pk}/export", {"format": "pdf"}).streaming_content))
    markdown = b"".join(client.get(f"{API}/{conv.pk}/export", {"format": "md"}).streaming_content).decode()
    vermerk = call(client, "post", f"{API}/{conv.pk}/aktenvermerk", {})[1]["fields"]["inhalt"]
    for text in (pdf, markdown, vermerk):
        for quelle in quellen:
            assert quelle in text, quelle
        for intern in ("akten_akte", "drafts_draft", "akten_", f"Lese Akte ({conv.akte_id})"):
            assert intern not in text, intern
    for quelle in quellen:
        assert f"- {quelle}\n" in markdown


def test_an_aktenvermerk_carries_nothing_of_other_akten(kanzlei: Kanzlei) -> None:
    """A Vermerk is read by everyone who sees its Akte: a tool result that named other Akten (a search
    over the Akten) keeps neither its result nor those sources in it; the export for its owner does."""
    conv, run = _answered(kanzlei)  # about Akte A
    a, c = kanzlei.akten["A"], kanzlei.akten["C"]
    RunEvent.objects.create(run=run, seq=3, type="tool_call", payload={
        "call_id": "c2", "tool": "search_akten", "arguments": {"query": "Nachlass"}})
    RunEvent.objects.create(run=run, seq=4, type="tool_result", payload={
        "call_id": "c2", "ok": True, "summary": "Treffer: 3/26 Vertraulich ./. Geheim", "source": [
            {"table": "akten_akte", "id": str(c.pk), "title": "Akte 3/26 Vertraulich ./. Geheim"}]})
    RunEvent.objects.create(run=run, seq=5, type="tool_call", payload={
        "call_id": "c3", "tool": "read_akte_detail", "arguments": {"akte_id": str(a.pk)}})
    RunEvent.objects.create(run=run, seq=6, type="tool_result", payload={
        "call_id": "c3", "ok": True, "summary": "Akte 1/26 gelesen", "source": [
            {"table": "akten_akte", "id": str(a.pk), "title": "Akte 1/26 Meier ./. Stahlbau GmbH"}]})
    status, draft = call(kanzlei.client("anwalt"), "post", f"{API}/{conv.pk}/aktenvermerk")
    assert status == 201
    inhalt = draft["fields"]["inhalt"]
    assert "3/26" not in inhalt and "Vertraulich" not in inhalt  # sachbearbeiter sees A, not C
    assert "(nennt weitere Akten – nicht übernommen)" in inhalt
    assert "Akte 1/26 Meier ./. Stahlbau GmbH" in inhalt and "§ 517 ZPO" in inhalt
    export = b"".join(kanzlei.client("anwalt").get(f"{API}/{conv.pk}/export", {"format": "md"})
                      .streaming_content).decode()
    assert "Akte 3/26 Vertraulich ./. Geheim" in export  # the owner's own copy keeps what he saw


def test_a_source_without_title_is_not_cited_to_who_may_no_longer_see_it(kanzlei: Kanzlei) -> None:
    conv, run = _answered(kanzlei, user="sachbearbeiter")  # sees A and B, not C
    RunEvent.objects.create(run=run, seq=3, type="tool_call", payload={
        "call_id": "c2", "tool": "read_akte_detail", "arguments": {}})
    RunEvent.objects.create(run=run, seq=4, type="tool_result", payload={
        "call_id": "c2", "ok": True, "summary": "gelesen", "source": [
            {"table": "akten_akte", "id": str(kanzlei.akten["C"].pk)}]})
    export = b"".join(kanzlei.client("sachbearbeiter").get(f"{API}/{conv.pk}/export", {"format": "md"})
                      .streaming_content).decode()
    assert "3/26" not in export and "Vertraulich" not in export
    assert "- Akte (nicht einsehbar)" in export


def test_sources_stored_without_a_title_are_cited_from_the_records(kanzlei: Kanzlei) -> None:
    """A conversation recorded before sources had titles: its ids are looked up, never printed."""
    conv, run = _answered(kanzlei)
    akte = kanzlei.akten["A"]
    dokument = Dokument.objects.create(akte=akte, titel="Klageerwiderung", inhalt="Text")
    frist = Frist.objects.create(akte=akte, bezeichnung="Berufungsbegründung", datum=date(2026, 12, 2),
                                 ist_notfrist=False)
    draft = Draft.objects.create(kind=Draft.Kind.FRIST, akte=akte, requested_by=kanzlei.users["anwalt"],
                                 fields={"bezeichnung": "Wiedervorlage Deckungszusage"})
    RunEvent.objects.create(run=run, seq=3, type="tool_call", payload={
        "call_id": "c2", "tool": "read_akte_detail", "arguments": {"akte_id": str(akte.pk)}})
    RunEvent.objects.create(run=run, seq=4, type="tool_result", payload={
        "call_id": "c2", "ok": True, "summary": "Akte 1/26 gelesen", "source": [
            {"table": "akten_akte", "id": str(akte.pk)}, {"table": "akten_dokument", "id": str(dokument.pk)},
            {"table": "akten_frist", "id": str(frist.pk)}, {"table": "drafts_draft", "id": str(draft.pk)},
            {"table": "drafts_draft", "id": "00000000-0000-0000-0000-000000000000"},
            {"corpus": "urteile", "citation": "BAG, 12.03.2024 – 2 AZR 1/24"},
            {"url": "https://www.bundesarbeitsgericht.de/", "title": "Bundesarbeitsgericht"}]})
    markdown = b"".join(kanzlei.client("anwalt").get(f"{API}/{conv.pk}/export", {"format": "md"})
                        .streaming_content).decode()
    quellen = markdown.split("**Quellen:**")[1].strip().splitlines()
    assert quellen == ["- § 517 ZPO", "- Akte 1/26 Meier ./. Stahlbau GmbH", "- Klageerwiderung (Akte 1/26)",
                       "- Frist „Berufungsbegründung“ bis 02.12.2026 (Akte 1/26)",
                       "- Entwurf: Frist „Wiedervorlage Deckungszusage“ (Akte 1/26)",
                       "- Entwurf (nicht mehr vorhanden)", "- BAG, 12.03.2024 – 2 AZR 1/24",
                       "- Bundesarbeitsgericht (https://www.bundesarbeitsgericht.de/)"]
    assert "- Lese Akte: Akte 1/26 gelesen" in markdown  # the tool's line names no id either
