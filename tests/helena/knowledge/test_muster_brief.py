"""A letter from a Muster is one letter (issue 31, item 5): the newcomer's path through the demo –
seed_demo, „Dokument aus Muster“ on the Akte page, approve, download – gives a PDF/DOCX on the
Kanzlei's letterhead, addressed to whom the Muster is for (the Mandantin, the court, nobody), with
letterhead, date, Zeichen and signature once; the Kündigungsschutzklage names the employer from the
Akte's Gegner; the signature says the signer's own Berufsbezeichnung."""

from __future__ import annotations

import hashlib
import io
from io import StringIO
from pathlib import Path

import pypdfium2
import pytest
from django.core.management import call_command
from django.test import Client
from docx import Document
from docx.oxml.ns import qn
from pypdf import PdfReader

from akten.dokumente.ausgabe import render
from akten.dokumente.ausgabe.kontext import briefkontext, datum_lang, heute
from akten.models import Akte, Beteiligter, Briefkopf, Dokument, User
from drafts.models import Draft
from helena.knowledge.demo import FRUEHERE_FASSUNGEN, MUSTER, seed_muster
from helena.knowledge.models import Muster
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

ARTIFACTS = Path(__file__).resolve().parents[3] / "tests" / "artifacts"
DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def demo(settings, tmp_path: Path) -> Client:
    """The demo Kanzlei, and the browser of its lawyer (Maximilian Hartmann)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path
    call_command("seed_demo", password="x-test-pw", stdout=StringIO())
    client = Client()
    client.force_login(User.objects.get(username="anwalt"))
    return client


def _entwurf(client: Client, aktenzeichen: str, titel: str) -> Draft:
    """„Dokument aus Muster“ on the Akte page."""
    akte = Akte.objects.get(aktenzeichen=aktenzeichen)
    response = client.post(f"/akten/{akte.pk}/muster/", {"muster_id": Muster.objects.get(titel=titel).pk})
    assert response.status_code == 302, response.content
    return Draft.objects.get(pk=response["Location"].rstrip("/").rsplit("/", 1)[-1])


def _freigeben(client: Client, draft: Draft) -> Dokument:
    """„Freigeben“ on the draft's card: the Dokument it makes."""
    response = client.post(f"/entwuerfe/{draft.pk}/freigeben/")
    assert response.status_code in (200, 302), response.content
    draft.refresh_from_db()
    assert draft.status == Draft.Status.APPROVED, draft.status
    return Dokument.objects.get(pk=draft.record_id)


def _download(client: Client, dokument: Dokument, format: str) -> bytes:
    response = client.get(f"/akten/dokumente/{dokument.pk}/datei/?format={format}")
    assert response.status_code == 200, response.content[:300]
    return b"".join(response.streaming_content) if response.streaming else response.content


def _seiten(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


def test_a_mandatsbestaetigung_is_one_letter_to_the_mandantin(demo: Client) -> None:
    """Akte 102/26 (Hoffmann ./. Lorenz, at the Amtsgericht Tempelhof-Kreuzberg): the letter goes
    to Frau Hoffmann, not to the court, and letterhead, date, Zeichen and signature stand once."""
    draft = _entwurf(demo, "102/26", "Mandatsbestätigung")
    assert draft.fields["empfaenger"] == "mandant"
    assert draft.fields["inhalt"].startswith("Sehr geehrte Frau Hoffmann,")
    karte = demo.get(f"/entwuerfe/{draft.pk}/").content.decode()
    assert "<dt>An</dt><dd>Mandant/in</dd>" in karte
    formular = demo.get(f"/entwuerfe/{draft.pk}/bearbeiten/").content.decode()
    assert '<option value="mandant" selected>Mandant/in</option>' in formular
    dokument = _freigeben(demo, draft)
    assert dokument.empfaenger == "mandant"

    pdf = _download(demo, dokument, "pdf")
    seiten = _seiten(pdf)
    text = "\n".join(seiten)
    erste = seiten[0]
    # the addressee: the Mandantin with her address, in the address field above the text
    assert "Frau Renate Hoffmann\nKaiserdamm 88\n14057 Berlin" in erste
    kopf = erste.split("Mandatsbestätigung")[0]
    assert "Frau Renate Hoffmann" in kopf and "Sehr geehrte" not in kopf
    # not the court, nor its Aktenzeichen
    assert "Amtsgericht" not in text and "17 C 212/26" not in text
    # the letterhead, the date, our Zeichen and the signature: once each
    assert text.count("Tel. 0221 4710-100") == 1
    assert text.count(datum_lang(heute())) == 1
    assert erste.count("Unser Zeichen") == 1
    assert all(seite.count("Unser Zeichen") == 1 for seite in seiten)  # page 2 on: the running header only
    assert text.count("Unser Zeichen: 102/26") == len(seiten)
    assert text.count("Maximilian Hartmann") == 1 and text.count("Mit freundlichen Grüßen") == 1
    assert text.index("Mit freundlichen Grüßen") < text.index("Maximilian Hartmann")
    # the signer's Berufsbezeichnung, not both forms
    assert "Maximilian Hartmann\nRechtsanwalt\n" in text + "\n"
    assert "Rechtsanwältin" not in text
    for doppelt in ("**", "{{KANZLEI", "{{ORT}}", "Unser Zeichen: {", "An das"):
        assert doppelt not in text, doppelt

    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "mandatsbestaetigung.pdf").write_bytes(pdf)
    pdfium = pypdfium2.PdfDocument(pdf)
    pdfium[0].render(scale=1.5).to_pil().save(ARTIFACTS / "mandatsbestaetigung_seite1.png")

    # the Word file: the same letter
    doc = Document(io.BytesIO(_download(demo, dokument, "docx")))
    body = "\n".join(t.text or "" for t in doc.element.body.iter(qn("w:t")))
    anschrift = doc.tables[1].rows[0].cells[0].paragraphs[0]  # the address field, line by line
    assert anschrift._p.xpath("string(.)") == "Frau Renate HoffmannKaiserdamm 8814057 Berlin"
    assert len(anschrift._p.xpath(".//w:br")) == 2
    assert "Frau Renate Hoffmann" in body and "Kaiserdamm 88" in body and "Amtsgericht" not in body
    assert body.count("Unser Zeichen") == 1 and body.count("Tel. 0221 4710-100") == 1
    assert body.count("Maximilian Hartmann") == 1 and "Rechtsanwältin" not in body
    assert "Ihr Zeichen" not in body and "{%" not in body and "{{ " not in body


def test_a_schriftsatz_goes_to_the_court_with_its_address(demo: Client) -> None:
    """The Kündigungsschutzklage of 101/26 (Müller ./. Bauer Logistik GmbH): to the Arbeitsgericht,
    the employer named from the Akte's Gegner – no ARBEITGEBER_* left open."""
    draft = _entwurf(demo, "101/26", "Kündigungsschutzklage")
    text = draft.fields["inhalt"]
    assert draft.fields["empfaenger"] == "gericht"
    assert "ARBEITGEBER" not in text and not any("ARBEITGEBER" in w for w in draft.warnings)
    assert ("gegen\n\ndie Bauer Logistik GmbH, vertreten durch den Geschäftsführer Frank Bauer, "
            "Industriestraße 40, 51149 Köln,\n\n– Beklagte –") in text
    assert "des Herrn Thomas Müller, Eichenweg 7, 51147 Köln,\n\n– Kläger –" in text
    assert "{{GEGNER" not in text and "Die Beklagte beschäftigt" in text and "bei der Beklagten als" in text

    pdf = _download(demo, _freigeben(demo, draft), "pdf")
    ARTIFACTS.mkdir(exist_ok=True)
    seite1 = pypdfium2.PdfDocument(pdf)[0].render(scale=1.5).to_pil()
    seite1.save(ARTIFACTS / "kuendigungsschutzklage_seite1.png")
    pdf_text = "\n".join(_seiten(pdf))
    assert "Arbeitsgericht Köln\nPohligstraße 9\n50969 Köln" in pdf_text
    assert pdf_text.count("Tel. 0221 4710-100") == 1 and pdf_text.count(datum_lang(heute())) == 1
    assert pdf_text.count("Maximilian Hartmann") == 1 and "Rechtsanwältin" not in pdf_text


def test_a_mahnschreiben_goes_to_the_gegner_and_a_deckungsanfrage_warns_without_a_versicherung(
        demo: Client) -> None:
    mahnung = _entwurf(demo, "101/26", "Mahnschreiben")
    assert mahnung.fields["empfaenger"] == "gegner" and not any("Empfänger" in w for w in mahnung.warnings)
    text = "\n".join(_seiten(_download(demo, _freigeben(demo, mahnung), "pdf")))
    assert "Bauer Logistik GmbH\nvertreten durch den Geschäftsführer Frank Bauer\nIndustriestraße 40" in text
    assert "Arbeitsgericht" not in text

    # 101/26 names the Mandant's Rechtsschutzversicherung; 104/26 none: said on the card, not guessed
    anfrage = _entwurf(demo, "101/26", "Deckungsanfrage Rechtsschutzversicherung")
    assert anfrage.fields["empfaenger"] == "versicherung"
    assert not any("Empfänger" in w for w in anfrage.warnings), anfrage.warnings
    anfrage = _entwurf(demo, "104/26", "Deckungsanfrage Rechtsschutzversicherung")
    assert any("keine Beteiligten der Rolle „Versicherung“" in w for w in anfrage.warnings), anfrage.warnings


def test_the_addressee_follows_the_role_and_the_signature_the_signer(kanzlei: Kanzlei, settings,
                                                                    tmp_path: Path) -> None:
    settings.MEDIA_ROOT = tmp_path
    anwalt = kanzlei.users["anwalt"]
    anwalt.first_name, anwalt.last_name, anwalt.berufsbezeichnung = "Julia", "Sommer", "Rechtsanwältin"
    anwalt.save()
    akte = kanzlei.akten["A"]
    briefkopf = Briefkopf.objects.create(kanzlei="Sommer & Partner", unterschrift="Rechtsanwälte")
    for name, anrede in (("Petra Neumann", "frau"), ("Jürgen Neumann", "herr")):
        Beteiligter.objects.create(akte=akte, rolle="mandant", name=name, anrede=anrede,
                                   anschrift="Südstraße 4\n90763 Fürth")
    Beteiligter.objects.create(akte=akte, rolle="versicherung", name="Isar Assekuranz AG", anrede="firma",
                               anschrift="Postfach 20 11 40\n80011 München", aktenzeichen_extern="KH-26-1")
    Beteiligter.objects.create(akte=akte, rolle="gericht", name="Amtsgericht Fürth",
                               anschrift="Bäumenstraße 32\n90762 Fürth", aktenzeichen_extern="1 C 7/26")

    def kontext(titel: str, empfaenger: str = ""):
        dokument = Dokument.objects.create(akte=akte, titel=titel, inhalt="Text.", empfaenger=empfaenger)
        return briefkontext(dokument, briefkopf)

    an_mandanten = kontext("Sachstand", "mandant")
    assert an_mandanten.empfaenger == "Frau Petra Neumann\nHerrn Jürgen Neumann\nSüdstraße 4\n90763 Fürth"
    assert (an_mandanten.gericht, an_mandanten.gericht_aktenzeichen, an_mandanten.ihr_zeichen) == ("", "", "")
    an_versicherung = kontext("Deckungsanfrage", "versicherung")
    assert an_versicherung.empfaenger.startswith("Isar Assekuranz AG\nPostfach 20 11 40")
    assert an_versicherung.ihr_zeichen == "KH-26-1"
    # not stated: the court (a Schriftsatz), an Aktenvermerk nobody; „niemand“: nobody
    schriftsatz = kontext("Klageerwiderung")
    assert schriftsatz.empfaenger.startswith("Amtsgericht Fürth\nBäumenstraße 32")
    assert (schriftsatz.gericht_aktenzeichen, schriftsatz.ihr_zeichen) == ("1 C 7/26", "")
    assert kontext("Aktenvermerk: Telefonat").empfaenger == ""
    assert kontext("Prozessvollmacht", "niemand").empfaenger == ""
    # the signer's own Berufsbezeichnung; without one, the Briefkopf's line
    assert (schriftsatz.unterschrift_name, schriftsatz.unterschrift) == ("Julia Sommer", "Rechtsanwältin")
    anwalt.berufsbezeichnung = ""
    anwalt.save()
    assert kontext("Schriftsatz").unterschrift == "Rechtsanwälte"

    # both formats put the address in the address field
    dokument = Dokument.objects.create(akte=akte, titel="Deckungsanfrage", inhalt="Text.",
                                       empfaenger="versicherung")
    pdf = "\n".join(_seiten(render(dokument=dokument, format="pdf").inhalt))
    assert "Isar Assekuranz AG\nPostfach 20 11 40\n80011 München" in pdf and "Ihr Zeichen: KH-26-1" in pdf
    assert "Amtsgericht" not in pdf
    doc = Document(io.BytesIO(render(dokument=dokument, format="docx").inhalt))
    body = "\n".join(t.text or "" for t in doc.element.body.iter(qn("w:t")))
    assert "Isar Assekuranz AG" in body and "Ihr Zeichen: KH-26-1" in body and "Amtsgericht" not in body


def test_the_bundled_muster_hold_only_the_text_inside_the_frame() -> None:
    for spec in MUSTER:
        for rahmen in ("{{KANZLEI_TELEFON}}", "{{KANZLEI_EMAIL}}", "{{DATUM}}", "Unser Zeichen",
                       "{{ANWALT_NAME}}", "Rechtsanwältin / Rechtsanwalt", "{{GERICHT}}", "_EMPFAENGER}}",
                       "An das", "An die"):
            assert rahmen not in spec.text, (spec.titel, rahmen)
        assert spec.empfaenger, spec.titel
        assert spec.text.count("Mit freundlichen Grüßen") <= 1
        if "Mit freundlichen Grüßen" in spec.text:  # the greeting ends the text: the signature follows
            assert spec.text.rstrip().endswith("Mit freundlichen Grüßen"), spec.titel


@pytest.mark.parametrize("titel", ["Mandatsbestätigung", "Kündigungsschutzklage"])
def test_a_database_with_the_previous_bundled_muster_gets_the_new_one(titel: str) -> None:
    """The text the last release seeded (tests/helena/data), letterhead and all: replaced, with its
    addressee; an edited one stays."""
    datei = f"muster_{titel.lower().replace('ü', 'ue').replace('ä', 'ae')}_alt.md"
    alt = (DATA / datei).read_text(encoding="utf-8")
    assert hashlib.sha256(alt.encode()).hexdigest() in FRUEHERE_FASSUNGEN[titel]
    Muster.objects.create(titel=titel, kategorie="x", text=alt)
    Muster.objects.create(titel="Mahnschreiben", kategorie="x", text=alt + "\nunsere Ergänzung")

    seed_muster()
    spec = next(s for s in MUSTER if s.titel == titel)
    muster = Muster.objects.get(titel=titel)
    assert (muster.text, muster.empfaenger) == (spec.text, spec.empfaenger)
    bearbeitet = Muster.objects.get(titel="Mahnschreiben")
    assert bearbeitet.text.endswith("unsere Ergänzung") and bearbeitet.empfaenger == ""
