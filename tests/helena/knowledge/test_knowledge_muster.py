"""Kanzleimuster for the demo: `seed_muster` and its hook in `manage.py seed_demo`."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from akten.dokumente.platzhalter import WAHL
from akten.models import Beteiligter
from helena.knowledge.demo import MUSTER, seed_muster
from helena.knowledge.models import PLATZHALTER_RE, Muster

pytestmark = pytest.mark.django_db

REQUIRED = {
    "Mandatsbestätigung",
    "Fristverlängerungsantrag",
    "Prozessvollmacht",
    "Kündigungsschutzklage",
    "Mahnschreiben",
}


def test_seed_creates_the_required_templates() -> None:
    assert seed_muster() == len(MUSTER)
    titel = set(Muster.objects.values_list("titel", flat=True))
    assert titel >= REQUIRED
    assert titel == {spec.titel for spec in MUSTER}
    assert set(Muster.objects.values_list("quelle", flat=True)) == {Muster.Quelle.KANZLEI}


def test_seed_is_idempotent() -> None:
    seed_muster()
    stand = dict(Muster.objects.values_list("pk", "text"))
    assert seed_muster() == 0
    assert dict(Muster.objects.values_list("pk", "text")) == stand


def test_seed_does_not_overwrite_an_edited_template() -> None:
    seed_muster()
    muster = Muster.objects.get(titel="Mahnschreiben")
    muster.text = "Unsere eigene Fassung für {{MANDANT_NAME}}."
    muster.kategorie = "Inkasso"
    muster.save()
    Muster.objects.filter(titel="Prozessvollmacht").delete()

    assert seed_muster() == 1  # only the deleted one comes back
    muster.refresh_from_db()
    assert muster.text == "Unsere eigene Fassung für {{MANDANT_NAME}}."
    assert muster.kategorie == "Inkasso"
    assert Muster.objects.filter(titel="Prozessvollmacht").exists()


def test_every_template_has_placeholders_and_lists_them() -> None:
    seed_muster()
    for muster in Muster.objects.all():
        found = PLATZHALTER_RE.findall(muster.text)
        wahlen = WAHL.findall(muster.text)
        # Every "{{" opens a well-formed UPPER_SNAKE_CASE placeholder or the gendered words of a
        # Beteiligten-role: {{MANDANT: der Kläger | die Klägerin | die klagende Partei}}.
        assert muster.text.count("{{") == len(found) + len(wahlen) == muster.text.count("}}"), muster.titel
        for rolle, formen in wahlen:
            assert rolle.lower() in Beteiligter.Rolle.values and 2 <= len(formen.split("|")) <= 3, formen
        assert len(muster.platzhalter) >= 3, muster.titel
        assert muster.platzhalter == list(dict.fromkeys(found)), muster.titel


def test_the_frame_adds_letterhead_addressee_date_and_signature_not_the_muster() -> None:
    """The DOCX/PDF prints them around the text (akten/dokumente/ausgabe/kontext.py); the Muster names
    whom it is for."""
    seed_muster()
    empfaenger = dict(Muster.objects.values_list("titel", "empfaenger"))
    assert empfaenger["Mandatsbestätigung"] == "mandant" and empfaenger["Mahnschreiben"] == "gegner"
    assert empfaenger["Kündigungsschutzklage"] == empfaenger["Fristverlängerungsantrag"] == "gericht"
    assert empfaenger["Prozessvollmacht"] == "niemand"
    for muster in Muster.objects.all():
        assert "{{KANZLEI_TELEFON}}" not in muster.text and "{{DATUM}}" not in muster.text, muster.titel
        assert "{{ANWALT_NAME}}" not in muster.text and "Unser Zeichen" not in muster.text, muster.titel


def test_templates_cite_the_expected_norms() -> None:
    texts = {spec.titel: spec.text for spec in MUSTER}
    assert "§ 224 Abs. 2 ZPO" in texts["Fristverlängerungsantrag"]
    assert "§ 520 Abs. 2 S. 3 ZPO" in texts["Antrag auf Verlängerung der Berufungsbegründungsfrist"]
    assert "§§ 81 ff. ZPO" in texts["Prozessvollmacht"]
    assert "§ 4 S. 1 KSchG" in texts["Kündigungsschutzklage"]
    assert "§ 256 Abs. 1 ZPO" in texts["Kündigungsschutzklage"]
    assert "§ 286 BGB" in texts["Mahnschreiben"] and "§ 288 Abs. 1 BGB" in texts["Mahnschreiben"]


def test_seed_demo_command_creates_the_templates_too(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    out = StringIO()
    call_command("seed_demo", password="x-test-pw", stdout=out)
    assert set(Muster.objects.values_list("titel", flat=True)) >= REQUIRED
    assert f"{len(MUSTER)} Muster" in out.getvalue()

    again = StringIO()
    call_command("seed_demo", password="x-test-pw", stdout=again)
    assert Muster.objects.count() == len(MUSTER)
    assert "nichts neu angelegt" in again.getvalue()
