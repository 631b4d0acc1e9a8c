"""Helena reads uploaded Dokumente: their text page by page with the page to cite, found by the
Akte search and read_dokumente(query=…) with the page of the hit, in the Akte's memory, and a run
with the scripted model that reads a PDF and answers with "S. 2"."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from akten.models import Dokument
from helena.knowledge.aktensuche.passages import passages_of
from helena.models import AktenGedaechtnis, ToolCallLog
from helena.proactive.memory import _material
from tests import dateien
from tests.conftest import Kanzlei
from tests.helena.tools.test_tools import call
from tests.helena.web.test_runs_api import ask, assert_one_done, events, wait
from tests.scripted_llm_server import ScriptedLLMServer

SEITEN = [
    "Klageerwiderung der Stahlbau GmbH. Die Beklagte beantragt, die Klage abzuweisen.",
    "Die Kündigung wurde dem Kläger am 5. November 2026 durch Boten in den Briefkasten eingeworfen. "
    "Eine Sozialauswahl war entbehrlich, weil der Betrieb nur neun Arbeitnehmer beschäftigt.",
    "Hilfsweise wird ein Auflösungsantrag nach § 9 KSchG gestellt.",
]


def _upload(kanzlei: Kanzlei, who: str, akte: str, name: str, data: bytes) -> dict:
    client = Client(HTTP_AUTHORIZATION=f"Bearer {kanzlei.tokens[who]}")
    response = client.post(f"/api/v1/akten/{kanzlei.akten[akte].pk}/dokumente",
                           {"datei": SimpleUploadedFile(name, data)})
    assert response.status_code == 201, response.json()
    return response.json()


@pytest.mark.django_db
def test_detail_gives_pages_to_cite_and_reads_on(kanzlei: Kanzlei) -> None:
    lang = [f"Seite {n}. " + "Vortrag zum Sachverhalt und zur Rechtslage. " * 60 for n in range(1, 26)]
    pdf = _upload(kanzlei, "anwalt", "A", "Erwiderung.pdf", dateien.text_pdf(lang))
    anwalt = kanzlei.users["anwalt"]
    first = call(anwalt, "read_dokumente_detail", {"dokument_id": pdf["id"]})
    assert first.ok and first.data["datei"]["seiten"] == 25
    pages = first.data["seiten"]
    assert pages[0]["seite"] == 1 and pages[0]["text"].startswith("Seite 1.")
    assert len(pages) < 25 and "S. 3" in first.data["hinweis"]
    weiter = pages[-1]["seite"] + 1
    assert f"seite={weiter}" in first.data["hinweis"]
    # the source is cited with the pages read, as a lawyer writes it
    assert first.sources[0]["title"] == f"{pdf['titel']}, S. 1–{weiter - 1} (Akte 1/26)"
    more = call(anwalt, "read_dokumente_detail", {"dokument_id": pdf["id"], "seite": weiter})
    assert more.data["seiten"][0]["seite"] == weiter
    assert more.data["seiten"][0]["text"].startswith(f"Seite {weiter}.")
    beyond = call(anwalt, "read_dokumente_detail", {"dokument_id": pdf["id"], "seite": 99})
    assert beyond.data["seiten"] == [] and "nur 25 Seite" in beyond.data["hinweis"]


@pytest.mark.django_db
def test_a_scan_without_ocr_is_not_made_up(kanzlei: Kanzlei, settings) -> None:
    settings.HELENA_TESSERACT = "/nicht/da"
    scan = _upload(kanzlei, "anwalt", "A", "Fax.pdf", dateien.scan_pdf(["Beschluss"]))
    result = call(kanzlei.users["anwalt"], "read_dokumente_detail", {"dokument_id": scan["id"]})
    assert result.ok
    hinweis = result.data["hinweis"]
    assert "OCR nicht verfügbar" in hinweis and "Erfinde keinen Inhalt" in hinweis


@pytest.mark.django_db
def test_search_finds_the_page_and_memory_reads_the_upload(kanzlei: Kanzlei) -> None:
    pdf = _upload(kanzlei, "anwalt", "A", "Klageerwiderung.pdf", dateien.text_pdf(SEITEN))
    anwalt = kanzlei.users["anwalt"]
    found = call(anwalt, "read_dokumente", {"akte_id": str(kanzlei.akten["A"].pk), "query": "Sozialauswahl"})
    (eintrag,) = found.data["dokumente"]
    assert eintrag["id"] == pdf["id"] and eintrag["seite"] == 2
    assert [q["title"] for q in found.sources] == ["Akte 1/26 Meier ./. Stahlbau GmbH",
                                                   f"{pdf['titel']}, S. 2 (Akte 1/26)"]
    assert eintrag["datei"]["typ"] == "PDF" and eintrag["datei"]["text"] == "Text gelesen"

    client = Client(HTTP_AUTHORIZATION=f"Bearer {kanzlei.tokens['anwalt']}")
    rows = client.get("/api/v1/knowledge/search", {"q": "Auflösungsantrag", "kind": "akten"}).json()
    row = next(r for r in rows if r["kind"] == "dokument")
    assert row["seite"] == 3 and row["source"].endswith("S. 3)")

    # the semantic index cuts an upload within its pages and keeps the page of every piece
    pieces = [p for p in passages_of(kanzlei.akten["A"]) if p.quelle == "dokument"]
    assert {p.seite for p in pieces} == {1, 2, 3}
    assert any("Briefkasten" in p.text and p.seite == 2 for p in pieces)

    memory = AktenGedaechtnis.objects.get_or_create(akte=kanzlei.akten["A"])[0]
    assert "Klageerwiderung der Stahlbau GmbH" in _material(kanzlei.akten["A"], memory)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_helena_reads_a_pdf_and_cites_the_page(kanzlei: Kanzlei, tiers: ScriptedLLMServer) -> None:
    pdf = _upload(kanzlei, "anwalt", "A", "Klageerwiderung.pdf", dateien.text_pdf(SEITEN))
    akte_id = str(kanzlei.akten["A"].pk)
    antwort = ("Laut Klageerwiderung (S. 2) wurde die Kündigung am 5. November 2026 in den Briefkasten "
               "eingeworfen.")
    suche = {"akte_id": akte_id, "query": "Briefkasten"}
    lies = {"dokument_id": pdf["id"], "seite": 2}
    tiers.script([
        {"tool_calls": [{"name": "read_dokumente", "arguments": suche}]},
        {"tool_calls": [{"name": "read_dokumente_detail", "arguments": lies}]},
        {"text": antwort},
    ])
    client = kanzlei.client("anwalt")
    frage = "Wann ist die Kündigung laut Gegenseite zugegangen?"
    _, run_id = ask(client, frage, mode="inline", akte_id=akte_id)
    wait(client, run_id)
    done = assert_one_done(events(client, run_id))
    assert done["text"] == antwort

    # what the model was given: the hit's page, then page 2's text with the rule to cite it
    chats = [r for r in tiers.requests if "messages" in r]
    tool_results = [json.loads(m["content"]) for m in chats[-1]["messages"] if m["role"] == "tool"]
    assert tool_results[0]["dokumente"][0]["seite"] == 2
    seiten = tool_results[1]["seiten"]
    assert seiten[0]["seite"] == 2 and "5. November 2026" in " ".join(seiten[0]["text"].split())
    assert "„S. 3“" in tool_results[1]["hinweis"]
    assert ToolCallLog.objects.filter(tool="read_dokumente_detail", ok=True).count() == 1
    assert Dokument.objects.get(pk=pdf["id"]).extraktion == "fertig"


@pytest.mark.django_db
def test_a_long_text_without_pages_is_read_in_parts(kanzlei: Kanzlei) -> None:
    absatz = "Die Parteien streiten über die Wirksamkeit der Kündigung. "
    text = (absatz * 600) + "ENDE DES SCHRIFTSATZES"
    docx_datei = dateien.docx_mit_tabelle([text], [["a", "b"]])
    doc = _upload(kanzlei, "anwalt", "A", "Schriftsatz.docx", docx_datei)
    anwalt = kanzlei.users["anwalt"]
    first = call(anwalt, "read_dokumente_detail", {"dokument_id": doc["id"]})
    assert first.data["teil"] == 1 and "seite=2" in first.data["hinweis"]
    assert "ENDE DES SCHRIFTSATZES" not in first.data["inhalt"]
    second = call(anwalt, "read_dokumente_detail", {"dokument_id": doc["id"], "seite": 2})
    assert second.data["teil"] == 2 and "ENDE DES SCHRIFTSATZES" in second.data["inhalt"]
    assert "Weiter" not in second.data["hinweis"]
