"""Helena's memory per Akte, from the outside: an approved draft asks for a refresh, the refresh
(a tier-1 call with JSON output, against the scripted model server) writes it, the next Akte chat's
prompt carries it, the API and the page show it; a bad answer keeps the old memory and is logged;
a lawyer's correction is kept and given to the next refresh; users who must be refused are."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from helena.models import AktenGedaechtnis, ErrorLog
from helena.proactive.memory import refresh, refresh_due
from helena.runs.setup import prepare_run
from tests.conftest import Kanzlei
from tests.drafts.test_drafts import _approve, _propose
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ERINNERUNG = {
    "zusammenfassung": "Kündigungsschutzklage für Herrn Meier gegen die Stahlbau GmbH; Gütetermin steht aus.",
    "risiken": ["Sozialauswahl schwer zu beweisen"], "naechste_schritte": ["Gütetermin vorbereiten"],
    "offene_fragen": ["Betriebsrat angehört?"],
}


def test_the_memory_follows_the_akte_and_reaches_the_next_chat(kanzlei: Kanzlei,
                                                                tiers: ScriptedLLMServer) -> None:
    akte, anwalt = kanzlei.akten["A"], kanzlei.users["anwalt"]
    data = _propose(kanzlei, "anwalt", "create_notiz",
                    {"akte_id": str(akte.pk), "inhalt": "Gütetermin am 10.12."})
    assert _approve(kanzlei, "anwalt", data["draft_id"]).status_code == 200
    memory = AktenGedaechtnis.objects.get(akte=akte)
    assert memory.angefordert_am is not None and memory.stand is None  # asked for, not yet written
    AktenGedaechtnis.objects.exclude(akte=akte).update(angefordert_am=None)  # the fixture's Fristen
    assert refresh_due(now=timezone.now()) == 0  # debounced: not within the first minute

    tiers.script([{"text": "```json\n" + json.dumps(ERINNERUNG, ensure_ascii=False) + "\n```"}])
    assert refresh_due(now=timezone.now() + timedelta(minutes=2)) == 1
    memory.refresh_from_db()
    assert memory.zusammenfassung == ERINNERUNG["zusammenfassung"]
    assert memory.risiken == ERINNERUNG["risiken"]
    assert memory.stand and memory.geschrieben_von == "Helena (klein)"
    assert memory.angefordert_am is None
    sent = tiers.requests[-1]["messages"][-1]["content"]
    assert "Gütetermin am 10.12." in sent  # the approved Notiz was in the material

    setup = prepare_run(user=anwalt, question="Was steht an?", akte_id=akte.pk)
    assert ERINNERUNG["zusammenfassung"] in setup.messages[0]["content"]
    assert "Betriebsrat angehört?" in setup.messages[0]["content"]

    api = kanzlei.client("anwalt").get(f"/api/v1/akten/{akte.pk}/memory").json()
    assert api["zusammenfassung"] == ERINNERUNG["zusammenfassung"]
    assert api["stand"] and api["run_id"] is None
    assert kanzlei.client("praktikant").get(f"/api/v1/akten/{akte.pk}/memory").status_code == 404
    empty = kanzlei.client("anwalt").get(f"/api/v1/akten/{kanzlei.akten['C'].pk}/memory").json()
    assert empty["zusammenfassung"] == "" and empty["stand"] is None

    tiers.script([{"text": "Das kann ich leider nicht als JSON sagen."}])
    assert refresh(akte_id=akte.pk) is False
    memory.refresh_from_db()
    assert memory.zusammenfassung == ERINNERUNG["zusammenfassung"]
    assert "passte nicht in die Form des Aktenwissens" in memory.fehler
    assert ErrorLog.objects.filter(code="memory_refresh").exists()


def test_a_lawyer_corrects_the_memory_and_the_next_refresh_builds_on_it(kanzlei: Kanzlei,
                                                                        tiers: ScriptedLLMServer) -> None:
    akte = kanzlei.akten["A"]
    page = Client()
    page.force_login(kanzlei.users["anwalt"])
    response = page.post(f"/akten/{akte.pk}/gedaechtnis/", {
        "zusammenfassung": "Mandant will einen Vergleich, keine Weiterbeschäftigung.",
        "risiken": "- Abfindung zu niedrig\n", "naechste_schritte": "Vergleichsangebot\n",
        "offene_fragen": ""},
        follow=True)
    html = response.content.decode()
    assert "Deine Korrektur ist gespeichert" in html and "Mandant will einen Vergleich" in html
    memory = AktenGedaechtnis.objects.get(akte=akte)
    assert memory.risiken == ["Abfindung zu niedrig"] and memory.korrigiert_von == kanzlei.users["anwalt"]

    tiers.script([{"text": json.dumps(ERINNERUNG, ensure_ascii=False)}])
    assert refresh(akte_id=akte.pk)
    sent = tiers.requests[-1]["messages"][-1]["content"]
    assert "Mandant will einen Vergleich" in sent and "korrigiert" in sent and "behalte die Korrektur" in sent

    sekretariat = Client()
    sekretariat.force_login(kanzlei.users["sekretariat"])  # sees Akte B, may not correct
    b = kanzlei.akten["B"]
    assert sekretariat.post(f"/akten/{b.pk}/gedaechtnis/", {"zusammenfassung": "x"}).status_code == 403
    html = sekretariat.get(f"/akten/{b.pk}/").content.decode()
    assert "Was Helena über die Akte weiß" in html and "Korrektur speichern" not in html
    foreign = kanzlei.akten["D"]
    assert page.post(f"/akten/{foreign.pk}/gedaechtnis/", {"zusammenfassung": "x"}).status_code == 404
