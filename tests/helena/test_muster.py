"""A Muster filled from an Akte into a Dokument draft: from the Akte page and by Helena's tool; what
the Akte knows is filled in, the rest stays visible and is listed on the draft, never left silently."""

from __future__ import annotations

import pytest
from django.test import Client

from akten.models import Beteiligter, Briefkopf
from drafts.models import Draft
from helena.knowledge.models import Muster
from tests.conftest import Kanzlei
from tests.helena.tools.test_tools import call

pytestmark = pytest.mark.django_db

TEXT = """# Kündigungsschutzklage

**{{KANZLEI_NAME}}**, {{KANZLEI_ANSCHRIFT}}

An das {{GERICHT_NAME}} – Az. {{GERICHT_AKTENZEICHEN}}

In Sachen {{MANDANT_NAME}}, {{MANDANT_ANSCHRIFT}} ./. {{GEGNER_NAME}} (unser Zeichen {{AKTENZEICHEN}})

Die Kündigung vom {{KUENDIGUNG_DATUM}} ist unwirksam. Streitwert: {{STREITWERT}}. {{ORT}}, {{DATUM}}
"""


def _browser(kanzlei: Kanzlei, who: str) -> Client:
    client = Client()
    client.force_login(kanzlei.users[who])
    return client


@pytest.fixture
def muster(kanzlei: Kanzlei) -> Muster:
    akte = kanzlei.akten["A"]
    Beteiligter.objects.create(akte=akte, rolle="mandant", name="Peter Meier",
                               anschrift="Lindenweg 3\n50667 Köln")
    Beteiligter.objects.create(akte=akte, rolle="gegner", name="Stahlbau GmbH")
    Beteiligter.objects.create(akte=akte, rolle="gericht", name="Arbeitsgericht Köln",
                               aktenzeichen_extern="3 Ca 1234/26")
    Briefkopf.objects.create(kanzlei="Kanzlei Berger & Partner", anschrift="Domstraße 1\n50668 Köln",
                             ort="Köln")
    return Muster.objects.create(titel="Kündigungsschutzklage", kategorie="Arbeitsrecht", text=TEXT)


def test_the_akte_fills_what_it_knows_and_the_rest_is_listed(kanzlei: Kanzlei, muster: Muster) -> None:
    akte_id = str(kanzlei.akten["A"].pk)
    result = call(kanzlei.users["anwalt"], "create_draft_dokument",
                  {"akte_id": akte_id, "titel": "Klage Meier", "muster_id": str(muster.pk)})
    assert result.ok, result.error
    assert result.data["offene_platzhalter"] == ["KUENDIGUNG_DATUM"]
    assert "frag den Nutzer" in result.data["hinweis"]
    draft = Draft.objects.get(pk=result.data["draft_id"])
    text = draft.fields["inhalt"]
    for expected in ("Kanzlei Berger & Partner", "Domstraße 1, 50668 Köln", "Arbeitsgericht Köln",
                     "3 Ca 1234/26", "Peter Meier, Lindenweg 3, 50667 Köln", "Stahlbau GmbH", "1/26",
                     "12.000,00 €", "Köln, "):
        assert expected in text, expected
    assert "{{KUENDIGUNG_DATUM}}" in text and text.count("{{") == 1
    assert draft.warnings == ["Noch nicht ausgefüllt: {{KUENDIGUNG_DATUM}}. Bitte vor der Freigabe ergänzen."]
    assert draft.fields["titel"] == "Klage Meier"
    assert draft.context["muster"]["titel"] == "Kündigungsschutzklage"

    # Helena asks the user, then fills the rest with werte: nothing open, no warning
    again = call(kanzlei.users["anwalt"], "create_draft_dokument",
                 {"akte_id": akte_id, "titel": "Klage Meier", "muster_id": str(muster.pk),
                  "werte": {"kuendigung_datum": "03.11.2026"}})
    filled = Draft.objects.get(pk=again.data["draft_id"])
    assert "Die Kündigung vom 03.11.2026 ist unwirksam" in filled.fields["inhalt"]
    assert "offene_platzhalter" not in again.data and filled.warnings == []


def test_unknown_muster_and_foreign_akte(kanzlei: Kanzlei, muster: Muster) -> None:
    anwalt = kanzlei.users["anwalt"]
    missing = call(anwalt, "create_draft_dokument",
                   {"akte_id": str(kanzlei.akten["A"].pk), "titel": "x", "muster_id": "999999"})
    assert not missing.ok and missing.error_code == "not_found" and "search_muster" in missing.error
    foreign = call(kanzlei.users["sachbearbeiter"], "create_draft_dokument",
                   {"akte_id": str(kanzlei.akten["C"].pk), "titel": "x", "muster_id": str(muster.pk)})
    assert not foreign.ok and foreign.error_code == "not_found"
    neither = call(anwalt, "create_draft_dokument", {"akte_id": str(kanzlei.akten["A"].pk), "titel": "x"})
    assert not neither.ok and neither.error_code == "invalid_arguments"
    assert not Draft.objects.exists()


def test_from_the_akte_page(kanzlei: Kanzlei, muster: Muster) -> None:
    akte = kanzlei.akten["A"]
    client = _browser(kanzlei, "anwalt")
    page = client.get(f"/akten/{akte.pk}/").content.decode()
    assert "Dokument aus Muster" in page and "Kündigungsschutzklage" in page
    response = client.post(f"/akten/{akte.pk}/muster/", {"muster_id": muster.pk}, follow=True)
    draft = Draft.objects.get()
    assert response.redirect_chain[-1][0] == f"/entwuerfe/{draft.pk}/"
    html = response.content.decode()
    assert "Noch offen: KUENDIGUNG_DATUM" in html
    assert "Noch nicht ausgefüllt: {{KUENDIGUNG_DATUM}}" in html
    assert draft.requested_by == kanzlei.users["anwalt"] and draft.status == Draft.Status.PENDING


def test_praktikant_and_foreign_akte_are_refused_on_the_page(kanzlei: Kanzlei, muster: Muster) -> None:
    praktikant = _browser(kanzlei, "praktikant")
    akte_b = kanzlei.akten["B"]
    assert "Dokument aus Muster" not in praktikant.get(f"/akten/{akte_b.pk}/").content.decode()
    response = praktikant.post(f"/akten/{akte_b.pk}/muster/", {"muster_id": muster.pk})
    assert response.status_code == 403 and "Dokumententwürfe" in response.content.decode()
    fremd = _browser(kanzlei, "sekretariat").post(f"/akten/{kanzlei.akten['A'].pk}/muster/",
                                                  {"muster_id": muster.pk})
    assert fremd.status_code == 404
    assert not Draft.objects.exists()
