"""The Auskunft (Art. 15 DSGVO) also tells the person's earlier data (the entries' history), who of the
firm read their Akten when and how (by role, not by name: EuGH C-579/21) and, when a cloud model may be
used, of the transfer to a third country (Art. 15 Abs. 2)."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from akten.models import Beteiligter, Lesezugriff
from helena.infra import settings_cache
from helena.models import HelenaSettings, ModelTier
from tests.conftest import Kanzlei


def _client(kanzlei: Kanzlei, who: str) -> Client:
    client = Client()
    client.force_login(kanzlei.users[who])
    return client


@pytest.fixture
def mandant(kanzlei: Kanzlei) -> Beteiligter:
    """Hans Müller moved: the Akte's history keeps his old address and e-mail."""
    b = Beteiligter.objects.create(akte=kanzlei.akten["A"], rolle="mandant", name="Hans Müller",
                                   anschrift="Alte Gasse 1\n50667 Köln", email="alt@example.de")
    b.anschrift, b.email = "Neuer Weg 2\n50667 Köln", "neu@example.de"
    b.save()
    b.telefon = "0221 123"  # a value added is no earlier value
    b.save()
    return b


def _auskunft(kanzlei: Kanzlei, b: Beteiligter, art: str = "auskunft_json"):
    return _client(kanzlei, "anwalt").get(reverse(f"akten:{art}", args=[b.akte_id, b.pk]))


@pytest.mark.django_db
def test_the_auskunft_lists_earlier_values_and_the_read_log_by_role(kanzlei: Kanzlei,
                                                                    mandant: Beteiligter) -> None:
    anwalt = kanzlei.users["anwalt"]
    anwalt.first_name, anwalt.last_name = "Anna", "Berger"
    anwalt.save()
    assert _client(kanzlei, "anwalt").get(reverse("akten:detail", args=[mandant.akte_id])).status_code == 200
    assert Lesezugriff.objects.filter(akte=mandant.akte, user=anwalt, weg="seite").exists()
    daten = json.loads(_auskunft(kanzlei, mandant).content)
    frueher = {(w["feld"], w["wert"]) for w in daten["fruehere_werte"]}
    assert frueher == {("Anschrift", "Alte Gasse 1\n50667 Köln"), ("E-Mail", "alt@example.de")}
    assert all(w["aktenzeichen"] == "1/26" and w["ersetzt_am"] for w in daten["fruehere_werte"])
    eintraege = daten["lesezugriffe"]["eintraege"]
    assert eintraege and daten["lesezugriffe"]["weitere"] == 0
    assert {(e["aktenzeichen"], e["weg"], e["wer"]) for e in eintraege} == {
        ("1/26", "Seite (Browser)", "Person der Kanzlei (Rechtsanwalt/Rechtsanwältin)")}
    gelesen = json.dumps(daten["lesezugriffe"])
    assert "Berger" not in gelesen and "Anna" not in gelesen  # persons of the firm by role only
    assert daten["drittland"] == []  # no cloud model: nothing sent abroad
    text = " ".join(s.extract_text() for s in PdfReader(io.BytesIO(_auskunft(kanzlei, mandant, "auskunft_pdf")
                                                                   .content)).pages)
    assert "Alte Gasse 1" in text and "Frühere Angaben" in text and "Zugriffsprotokoll" in text
    assert "Berger" not in text


@pytest.mark.django_db
def test_a_cloud_tier_in_use_adds_the_art_15_abs_2_note(kanzlei: Kanzlei, mandant: Beteiligter) -> None:
    ModelTier.objects.create(tier=3, provider="openai", model_name="cloud-x", base_url="https://api.openai.com/v1")
    settings_cache.clear()
    assert json.loads(_auskunft(kanzlei, mandant).content)["drittland"] == []  # configured, not allowed
    HelenaSettings.objects.update_or_create(pk=1, defaults={"cloud_allowed": True,
                                                            "cloud_confirmation": "AVV geprüft"})
    settings_cache.clear()
    [absatz] = json.loads(_auskunft(kanzlei, mandant).content)["drittland"]
    assert "Art. 15 Abs. 2 DSGVO" in absatz and "Art. 46 DSGVO" in absatz
