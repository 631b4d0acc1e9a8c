"""A Muster filled from an Akte into a Dokument draft: from the Akte page and by Helena's tool; what
the Akte knows is filled in, the rest stays visible and is listed on the draft, never left silently."""

from __future__ import annotations

import hashlib
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from django.test import Client

from akten.dokumente.platzhalter import fuelle, genus_fuer, werte_fuer
from akten.models import Akte, Beteiligter, Briefkopf, User
from drafts.models import Draft
from helena.knowledge import demo
from helena.knowledge.demo import seed_muster
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


def _aus_muster(client: Client, akte: Akte, titel: str) -> Draft:
    """„Dokument aus Muster“ on the Akte page, with one of the bundled Kanzleimuster."""
    muster = Muster.objects.get(titel=titel)
    response = client.post(f"/akten/{akte.pk}/muster/", {"muster_id": muster.pk})
    assert response.status_code == 302, response.content
    return Draft.objects.get(pk=response["Location"].rstrip("/").rsplit("/", 1)[-1])


def test_the_demo_kanzlei_fills_its_letterhead_and_names_the_parties_by_anrede(settings) -> None:
    """The newcomer's path (issue 31): seed_demo, Akte 102/26, „Dokument aus Muster“."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", password="x-test-pw", stdout=StringIO())
    client = Client()
    client.force_login(User.objects.get(username="anwalt"))

    klage = _aus_muster(client, Akte.objects.get(aktenzeichen="102/26"), "Kündigungsschutzklage")
    text = klage.fields["inhalt"]
    for erwartet in ("der Frau Renate Hoffmann, Kaiserdamm 88, 14057 Berlin,\n\n– Klägerin –",
                     "Prozessbevollmächtigte: Brandt & Hartmann Rechtsanwälte, Lindenallee 12, 50968 Köln",
                     "gegen\n\nHerrn Kevin Lorenz, Glogauer Straße 19, 2. OG links, 10999 Berlin,\n\n"
                     "– Beklagter –",
                     "Namens und in Vollmacht der Klägerin", "Die am {{GEBURTSDATUM}} geborene Klägerin",
                     "Sie ist seit dem", "ihrer Weiterbeschäftigung", "Der Beklagte beschäftigt"):
        assert erwartet in text, erwartet
    for falsch in ("KANZLEI_", "des Renate", "Kläger –", "des Klägers", "Er ist", "{{MANDANT", "{{GEGNER",
                   "Die Beklagte"):
        assert falsch not in text, falsch

    # a man, a GmbH: Akte 101/26 (Thomas Müller ./. Bauer Logistik GmbH); the addressee is the
    # frame's (the Muster names its role), the text starts with the salutation
    akte = Akte.objects.get(aktenzeichen="101/26")
    mahnung = _aus_muster(client, akte, "Mahnschreiben").fields
    assert mahnung["empfaenger"] == "gegner"
    for erwartet in ("Sehr geehrte Damen und Herren,",
                     "dass wir Herrn Thomas Müller, Eichenweg 7, 51147 Köln, anwaltlich vertreten"):
        assert erwartet in mahnung["inhalt"], erwartet
    mandat = _aus_muster(client, akte, "Mandatsbestätigung").fields
    assert mandat["empfaenger"] == "mandant"
    assert mandat["inhalt"].startswith("Sehr geehrter Herr Müller,")
    assert "gegenüber\nder Bauer Logistik GmbH zu vertreten" in mandat["inhalt"]
    klage = _aus_muster(client, akte, "Kündigungsschutzklage").fields
    assert klage["empfaenger"] == "gericht"
    assert "des Herrn Thomas Müller, Eichenweg 7, 51147 Köln,\n\n– Kläger –" in klage["inhalt"]
    assert "gegen\n\ndie Bauer Logistik GmbH, vertreten durch" in klage["inhalt"]


def test_without_an_anrede_the_gendered_words_stay_open_and_are_listed(kanzlei: Kanzlei) -> None:
    seed_muster()
    akte = kanzlei.akten["A"]
    Beteiligter.objects.create(akte=akte, rolle="mandant", name="Renate Hoffmann")  # no Anrede entered
    draft = _aus_muster(_browser(kanzlei, "anwalt"), akte, "Kündigungsschutzklage")
    text = draft.fields["inhalt"]
    assert "{{MANDANT_GENITIV}}" in text and "{{MANDANT: Kläger | Klägerin | klagende Partei}}" in text
    assert "des Renate" not in text
    assert "{{MANDANT_GENITIV}}" in draft.warnings[0]
    assert "{{MANDANT: des Klägers | der Klägerin | der klagenden Partei}}" in draft.warnings[0]


@pytest.mark.parametrize(("anrede", "name", "genitiv", "akkusativ", "gruss", "klaeger"), [
    ("herr", "Rechtsanwalt Dr. Georg Pfeiffer", "des Herrn Rechtsanwalt Dr. Georg Pfeiffer",
     "Herrn Rechtsanwalt Dr. Georg Pfeiffer", "Sehr geehrter Herr Dr. Pfeiffer", "der Kläger"),
    ("frau", "Hanna von Bülow", "der Frau Hanna von Bülow", "Frau Hanna von Bülow",
     "Sehr geehrte Frau von Bülow", "die Klägerin"),
    ("firma", "Küchenstudio Wendt GmbH", "der Küchenstudio Wendt GmbH", "die Küchenstudio Wendt GmbH",
     "Sehr geehrte Damen und Herren", "die Klägerin"),
    ("firma", "Kfz-Sachverständigenbüro Huber", "der Firma Kfz-Sachverständigenbüro Huber",
     "die Firma Kfz-Sachverständigenbüro Huber", "Sehr geehrte Damen und Herren", "die Klägerin"),
    ("firma", "Sportfreunde Sülz e.V.", "des Sportfreunde Sülz e.V.", "den Sportfreunde Sülz e.V.",
     "Sehr geehrte Damen und Herren", "der Kläger"),
    ("divers", "Alex Schmidt", "von Alex Schmidt", "Alex Schmidt", "Guten Tag Alex Schmidt",
     "die klagende Partei"),
])
def test_the_forms_follow_the_anrede(kanzlei: Kanzlei, anrede: str, name: str, genitiv: str, akkusativ: str,
                                     gruss: str, klaeger: str) -> None:
    akte = kanzlei.akten["A"]
    Beteiligter.objects.create(akte=akte, rolle="mandant", name=name, anrede=anrede)
    text = ("{{MANDANT_GENITIV}} | {{MANDANT_AKKUSATIV}} | {{MANDANT_BRIEFANREDE}} | "
            "{{MANDANT: der Kläger | die Klägerin | die klagende Partei}}")
    filled = fuelle(text, werte_fuer(akte), genus=genus_fuer(akte))
    assert filled.text == f"{genitiv} | {akkusativ} | {gruss} | {klaeger}" and filled.offen == []


def test_two_mandanten_are_named_together_but_have_no_single_gender(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    Beteiligter.objects.create(akte=akte, rolle="mandant", name="Petra Neumann", anrede="frau")
    Beteiligter.objects.create(akte=akte, rolle="mandant", name="Jürgen Neumann", anrede="herr")
    filled = fuelle("{{MANDANT_GENITIV}}; {{MANDANT_BRIEFANREDE}}; {{MANDANT: der Kläger | die Klägerin}}",
                    werte_fuer(akte), genus=genus_fuer(akte))
    assert filled.text == ("der Frau Petra Neumann und des Herrn Jürgen Neumann; Sehr geehrte Frau Neumann, "
                           "sehr geehrter Herr Neumann; {{MANDANT: der Kläger | die Klägerin}}")
    assert filled.offen == ["MANDANT: der Kläger | die Klägerin"]


def test_an_unedited_bundled_muster_gets_the_new_text_an_edited_one_stays(kanzlei: Kanzlei) -> None:
    """A Muster seeded by an earlier release (its text unchanged since) named „des {{MANDANT_NAME}}“."""
    alt = "des {{MANDANT_NAME}} – Kläger –"
    frueher = {"Kündigungsschutzklage": alt, "Mahnschreiben": "Unsere eigene Fassung {{MANDANT_NAME}}"}
    for titel, text in frueher.items():
        Muster.objects.create(titel=titel, kategorie="x", text=text)
    hashes = {"Kündigungsschutzklage": frozenset({hashlib.sha256(alt.encode()).hexdigest()})}
    with mock.patch.dict(demo.FRUEHERE_FASSUNGEN, hashes):
        seed_muster()
    assert Muster.objects.get(titel="Kündigungsschutzklage").text.count("{{MANDANT_GENITIV}}") == 1
    assert Muster.objects.get(titel="Mahnschreiben").text == "Unsere eigene Fassung {{MANDANT_NAME}}"
