"""A Dokument as DOCX and PDF on the Kanzlei's letterhead (akten/dokumente/ausgabe): what a lawyer
sees when they open the file, what an admin sees when they upload their own Word template, and
that rendering a PDF fetches nothing."""

from __future__ import annotations

import io
import logging
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pypdfium2
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from docx import Document
from docx.oxml.ns import qn
from pypdf import PdfReader

from akten.dokumente.ausgabe import render
from akten.dokumente.ausgabe.kontext import datum_lang, heute
from akten.dokumente.ausgabe.pdf import pdf_aus_html
from akten.models import Akte, Beteiligter, Briefkopf, Dokument
from config.errors import DomainError
from tests.conftest import Kanzlei

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"

SCHRIFTSATZ = """# Klageerwiderung

## I. Sachverhalt

Die Kündigung vom 30.09.2026 ist **unwirksam**, weil sie *nicht schriftlich* erfolgte (§ 623 BGB).
Das Verfahren läuft unter Az. 3 Ca 1234/26. Die Beklagte nennt sie „betriebsbedingt“.

Umlaute: ÄÖÜäöüß – Größe, Maß, Übermaß.

- fehlende Schriftform
  - nur per E-Mail
  - ohne Unterschrift
- keine Anhörung des Betriebsrats

1. Die Klage wird abgewiesen.
2. Der Kläger trägt die Kosten.

| Position | Betrag |
|---|--:|
| Gehalt Oktober | 3.200,00 € |
| Urlaubsabgeltung | 1.450,00 € |

> Die Beendigung von Arbeitsverhältnissen durch Kündigung bedarf zu ihrer Wirksamkeit der Schriftform.

### Rechtliche Würdigung

Die Klage ist `unbegründet`.
"""


@pytest.fixture
def media(settings, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def akte(kanzlei: Kanzlei) -> Akte:
    anwalt = kanzlei.users["anwalt"]
    anwalt.first_name, anwalt.last_name = "Anna", "Berger"
    anwalt.save()
    akte = kanzlei.akten["A"]
    for rolle, name, zeichen in (("mandant", "Max Meier", ""), ("gegner", "Stahlbau GmbH", ""),
                                 ("gericht", "Arbeitsgericht Köln", "3 Ca 1234/26")):
        Beteiligter.objects.create(akte=akte, rolle=rolle, name=name, aktenzeichen_extern=zeichen)
    return akte


@pytest.fixture
def briefkopf(media: Path) -> Briefkopf:
    return Briefkopf.objects.create(
        kanzlei="Berger & Partner Rechtsanwälte", anschrift="Domstraße 1\n50667 Köln", ort="Köln",
        kontakt="Tel. 0221 123456\nkanzlei@berger.example",
        fusszeile="Sparkasse KölnBonn · IBAN DE00 3705 0198 0000 0000 00", unterschrift="Rechtsanwältin")


@pytest.fixture
def dokument(akte: Akte) -> Dokument:
    return Dokument.objects.create(akte=akte, titel="Klageerwiderung", inhalt=SCHRIFTSATZ)


def docx_texte(inhalt: bytes) -> tuple[Document, str, str]:
    """The document, the text of its body (paragraphs and tables) and of its headers and footers."""
    doc = Document(io.BytesIO(inhalt))
    body = "\n".join(t.text or "" for t in doc.element.body.iter(qn("w:t")))
    rand = "\n".join(t.text or "" for section in doc.sections
                     for teil in (section.header, section.footer, section.first_page_footer)
                     for t in teil._element.iter(qn("w:t")))
    return doc, body, rand


def pdf_text(inhalt: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(inhalt)).pages)


def word_template(*absaetze: str, ohne_styles: bool = False) -> bytes:
    doc = Document()
    for text in absaetze:
        doc.add_paragraph(text)
    if ohne_styles:  # Word saves only the styles a document uses: no list, heading or table styles
        weg = ("starts-with(@w:styleId, 'List') or starts-with(@w:styleId, 'Heading') "
               "or @w:styleId='TableGrid'")
        for style in doc.styles.element.xpath(f"./w:style[{weg}]"):
            style.getparent().remove(style)
    ausgabe = io.BytesIO()
    doc.save(ausgabe)
    return ausgabe.getvalue()


def test_docx_on_the_letterhead(dokument: Dokument, briefkopf: Briefkopf) -> None:
    ausgabe = render(dokument=dokument, format="docx")
    assert ausgabe.name == "Klageerwiderung.docx"
    assert ausgabe.mime == "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    doc, body, rand = docx_texte(ausgabe.inhalt)

    for text in ("Berger & Partner Rechtsanwälte", "Domstraße 1", "50667 Köln", "Tel. 0221 123456",
                 f"Köln, {datum_lang(heute())}", "Unser Zeichen: 1/26", "Max Meier ./. Stahlbau GmbH",
                 "wegen Kündigungsschutz", "Arbeitsgericht Köln", "Az. 3 Ca 1234/26", "Anna Berger",
                 "Rechtsanwältin", "§\u00a0623 BGB",  # no line break between § and its number
                 "„betriebsbedingt“", "ÄÖÜäöüß", "Urlaubsabgeltung",
                 "1.450,00 €", "bedarf zu ihrer Wirksamkeit der Schriftform"):
        assert text in body, text
    assert "Sparkasse KölnBonn" in rand
    assert "{{" not in body + rand and "{%" not in body + rand
    assert body.count("Klageerwiderung") == 1  # the title once, not repeated by the text's "# …"

    styles = {p.text: p.style.name for p in doc.paragraphs}
    assert styles["I. Sachverhalt"] == "Heading 2"
    assert styles["Rechtliche Würdigung"] == "Heading 3"
    assert styles["fehlende Schriftform"] == "List Bullet"
    assert styles["nur per E-Mail"] == "List Bullet 2"
    assert styles["Die Klage wird abgewiesen."] == "List Number"
    laeufe = {r.text: r for p in doc.paragraphs for r in p.runs}
    assert laeufe["unwirksam"].bold and laeufe["nicht schriftlich"].italic

    tabelle = doc.tables[-1]
    assert [c.text for c in tabelle.rows[0].cells] == ["Position", "Betrag"]
    assert [c.text for c in tabelle.rows[2].cells] == ["Urlaubsabgeltung", "1.450,00 €"]
    assert tabelle.rows[0].cells[0].paragraphs[0].runs[0].bold


def test_each_numbered_list_starts_at_its_own_number(akte: Akte, media: Path) -> None:
    dokument = Dokument.objects.create(akte=akte, titel="Anträge", inhalt="1. a\n2. b\n\nText\n\n3. c\n4. d")
    doc = Document(io.BytesIO(render(dokument=dokument, format="docx").inhalt))
    nummerierung = doc.part.numbering_part.element
    starts = []
    for text in ("a", "c"):
        (absatz,) = [p for p in doc.paragraphs if p.text == text]
        num_id = absatz._p.pPr.numPr.numId.val
        (start,) = nummerierung.xpath(f'./w:num[@w:numId="{num_id}"]//w:startOverride/@w:val')
        starts.append((num_id, start))
    assert starts[0][0] != starts[1][0]  # two lists: the second does not continue the first
    assert [start for _, start in starts] == ["1", "3"]


def test_pdf_on_the_letterhead(dokument: Dokument, briefkopf: Briefkopf) -> None:
    ausgabe = render(dokument=dokument, format="pdf")
    assert ausgabe.name == "Klageerwiderung.pdf" and ausgabe.mime == "application/pdf"
    assert ausgabe.inhalt.startswith(b"%PDF")
    text = pdf_text(ausgabe.inhalt)
    flach = " ".join(text.split())
    for erwartet in ("Berger & Partner Rechtsanwälte", "Domstraße 1", f"Köln, {datum_lang(heute())}",
                     "Unser Zeichen: 1/26", "Max Meier ./. Stahlbau GmbH", "Arbeitsgericht Köln",
                     "Az. 3 Ca 1234/26", "Klageerwiderung", "I. Sachverhalt", "unwirksam", "§ 623 BGB",
                     "„betriebsbedingt“", "ÄÖÜäöüß", "Größe, Maß, Übermaß", "Urlaubsabgeltung", "1.450,00 €",
                     "Anna Berger", "Rechtsanwältin", "Sparkasse KölnBonn", "Seite 1 von 1"):
        assert erwartet in flach, erwartet
    assert "{{" not in text and "<" not in text

    ARTIFACTS.mkdir(exist_ok=True)
    pdf = pypdfium2.PdfDocument(ausgabe.inhalt)
    pdf[0].render(scale=1.5).to_pil().save(ARTIFACTS / "dokument_pdf_seite1.png")
    assert len(pdf) == 1


def test_upload_text_keeps_its_lines_and_pages(akte: Akte, briefkopf: Briefkopf) -> None:
    """An uploaded PDF's extracted text: no Markdown (a "* " stays), its lines kept, a page per page."""
    dokument = Dokument.objects.create(
        akte=akte, titel="Kündigung/Schreiben", dateityp="pdf", extraktion="fertig",
        inhalt="Stahlbau GmbH\nIndustriestraße 5\n* kein Aufzählungspunkt\fSeite zwei des Schreibens\f")
    pdf = render(dokument=dokument, format="pdf")
    assert pdf.name == "Kündigung Schreiben.pdf"
    seiten = [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf.inhalt)).pages]
    assert len(seiten) == 2
    assert "Industriestraße 5 * kein Aufzählungspunkt" in seiten[0]
    assert "Seite zwei des Schreibens" in seiten[1] and "Seite zwei" not in seiten[0]

    doc = Document(io.BytesIO(render(dokument=dokument, format="docx").inhalt))
    texte = [p.text for p in doc.paragraphs]
    assert "Stahlbau GmbH\nIndustriestraße 5\n* kein Aufzählungspunkt" in texte
    umbrueche = [br for p in doc.paragraphs for br in p._p.iter(qn("w:br")) if br.get(qn("w:type")) == "page"]
    assert len(umbrueche) == 1


def test_admin_template_is_used_for_the_docx(admin_client: Client, dokument: Dokument, media: Path) -> None:
    vorlage = word_template("Briefkopf {{ kanzlei }}", "Zeichen {{ aktenzeichen }}", "{{p inhalt }}",
                            "Ende der Vorlage", ohne_styles=True)
    response = admin_client.post(reverse("admin:akten_briefkopf_add"), {
        "kanzlei": "Kanzlei Vorlage", "anschrift": "", "kontakt": "", "ort": "Köln",
        "unterschrift": "Rechtsanwalt", "fusszeile": "",
        "vorlage": SimpleUploadedFile("kopf.docx", vorlage),
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Briefkopf.objects.get().vorlage

    doc, body, _ = docx_texte(render(dokument=dokument, format="docx").inhalt)
    texte = [p.text for p in doc.paragraphs]
    assert texte[:2] == ["Briefkopf Kanzlei Vorlage", "Zeichen 1/26"]
    assert texte[-1] == "Ende der Vorlage"
    # the template has no list or heading styles: the lists carry their sign, the heading is bold
    assert "•\tfehlende Schriftform" in texte and "–\tnur per E-Mail" in texte
    assert "1.\tDie Klage wird abgewiesen." in texte
    (ueberschrift,) = [p for p in doc.paragraphs if p.text == "I. Sachverhalt"]
    assert ueberschrift.runs[0].bold
    assert "Urlaubsabgeltung" in body and "{{" not in body


@pytest.mark.parametrize(("datei", "meldung"), [
    (b"%PDF-1.7 kein Word", "keine Word-Datei"),
    (word_template("{% if kanzlei %}{{ kanzlei }}", "{{p inhalt }}"),
     "Platzhalter der Vorlage sind fehlerhaft"),
    (word_template("{{ aktenzeichn }}", "{{p inhalt }}"),
     "Unbekannte Platzhalter in der Vorlage: {{ aktenzeichn }}"),
    (word_template("{{ kanzlei }", "{{p inhalt }}"), "Ein Platzhalter ist nicht geschlossen"),
    (word_template("{{ kanzlei }}"), "keinen Platz für den Text"),
    (word_template("Text: {{ inhalt }}"), "mitten in einem Absatz"),
], ids=["kein-docx", "jinja-fehler", "unbekannter-platzhalter", "offen", "ohne-inhalt", "inhalt-ohne-p"])
def test_admin_refuses_a_broken_template(admin_client: Client, media: Path, datei: bytes,
                                         meldung: str) -> None:
    response = admin_client.post(reverse("admin:akten_briefkopf_add"), {
        "kanzlei": "Kanzlei", "unterschrift": "Rechtsanwalt",
        "vorlage": SimpleUploadedFile("kopf.docx", datei),
    })
    assert response.status_code == 200
    fehler = " ".join(response.context["adminform"].form.errors["vorlage"])
    assert meldung in fehler
    assert not Briefkopf.objects.exists()
    assert not any(media.rglob("*.docx"))


def test_admin_offers_the_builtin_template_and_one_letterhead(admin_client: Client,
                                                              briefkopf: Briefkopf) -> None:
    seite = admin_client.get(reverse("admin:akten_briefkopf_change", args=[briefkopf.pk])).content.decode()
    url = reverse("admin:akten_briefkopf_vorlage")
    assert f'href="{url}"' in seite and "{{ aktenzeichen }}" in seite

    response = admin_client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="Briefkopf-Vorlage.docx"'
    _, body, rand = docx_texte(response.content)
    assert "{{ kanzlei }}" in body and "{{p inhalt }}" in body and "{{ fusszeile }}" in rand

    assert admin_client.get(reverse("admin:akten_briefkopf_add")).status_code == 403
    assert Client().get(url).status_code == 302  # to the login


class _Zaehler(BaseHTTPRequestHandler):
    anfragen: list[str] = []

    def do_GET(self) -> None:
        self.anfragen.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_pdf_fetches_no_url(akte: Akte, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Neither a file on the server nor the network is reached from inside a PDF, whether the URL
    comes from Markdown or (should markdown-it ever let HTML through) from HTML itself."""
    geheim = tmp_path / "geheim.txt"
    geheim.write_text("STRENG-GEHEIM")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Zaehler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    basis = f"http://127.0.0.1:{server.server_port}"
    try:
        caplog.set_level(logging.WARNING)
        html = (f'<html><head><link rel="stylesheet" href="{basis}/stil.css">'
                f'<style>@import url("{basis}/import.css"); body {{ background: url("{geheim.as_uri()}") }}'
                f'</style></head><body><p>Text</p><img src="{geheim.as_uri()}"><img src="{basis}/bild.png">'
                f'<img src="file:///etc/passwd"></body></html>')
        inhalt = pdf_aus_html(html)

        dokument = Dokument.objects.create(akte=akte, titel="Bilder", inhalt=(
            f"![Logo]({basis}/logo.png) ![Passwort](file:///etc/passwd) [Link]({basis}/link)"))
        text = pdf_text(render(dokument=dokument, format="pdf").inhalt)
    finally:
        server.shutdown()
        server.server_close()
    assert _Zaehler.anfragen == []
    assert "STRENG-GEHEIM" not in pdf_text(inhalt) and "root:" not in pdf_text(inhalt)
    verweigert = [r.getMessage() for r in caplog.records if "verweigert" in r.getMessage()]
    assert any(geheim.as_uri() in m for m in verweigert) and any(f"{basis}/bild.png" in m for m in verweigert)
    assert any("file:///etc/passwd" in m for m in verweigert)
    assert "[Bild: Logo]" in text and "root:" not in text


def test_a_dokument_without_text_has_no_docx_or_pdf(akte: Akte) -> None:
    for inhalt in ("", "  \n\f\n "):
        dokument = Dokument.objects.create(akte=akte, titel="Leer", inhalt=inhalt)
        for format in ("docx", "pdf"):
            with pytest.raises(DomainError) as fehler:
                render(dokument=dokument, format=format)
            assert fehler.value.code == "kein_text" and fehler.value.status == 422


def test_letterhead_without_briefkopf_and_parties(kanzlei: Kanzlei) -> None:
    """No Briefkopf saved, no Beteiligte, no Anwalt: the defaults stand in, nothing is left as a tag."""
    akte = kanzlei.akten["B"]
    dokument = Dokument.objects.create(akte=akte, titel='Notiz: "Räumung" <intern>',
                                       inhalt="Kurzer Text & mehr, Muster für {{MANDANT_NAME}}.")
    docx = render(dokument=dokument, format="docx")
    assert docx.name == "Notiz Räumung intern.docx"
    _, body, rand = docx_texte(docx.inhalt)
    assert "Kanzlei" in body and "Schulz ./. Wohnbau AG" in body and 'Notiz: "Räumung" <intern>' in body
    # the text's own braces are text, not a placeholder of the template
    assert "Kurzer Text & mehr, Muster für {{MANDANT_NAME}}." in body
    assert re.findall(r"\{[{%]", body + rand) == ["{{"]
    text = " ".join(pdf_text(render(dokument=dokument, format="pdf").inhalt).split())
    assert "Schulz ./. Wohnbau AG" in text and "wegen Räumung" in text
    assert "Kurzer Text & mehr, Muster für {{MANDANT_NAME}}." in text


VERMERK = """# Aktenvermerk

Telefonat mit dem Mandanten: Er bringt den Arbeitsvertrag am Montag vorbei."""


def test_an_aktenvermerk_is_addressed_to_nobody_and_signed_by_its_author(akte: Akte, briefkopf: Briefkopf,
                                                                        kanzlei: Kanzlei) -> None:
    """An internal note has no court and court Aktenzeichen above it, though the Akte has both; it
    names the one who wrote it, without the lawyer's line („Als Aktenvermerk speichern“, issue 31)."""
    autorin = kanzlei.users["sachbearbeiter"]
    autorin.first_name, autorin.last_name = "Lea", "Schmitt"
    autorin.save()
    vermerk = Dokument.objects.create(akte=akte, titel="Aktenvermerk: Telefonat mit dem Mandanten",
                                      inhalt=VERMERK, erstellt_von=autorin)
    text = " ".join(pdf_text(render(dokument=vermerk, format="pdf").inhalt).split())
    _, body, _ = docx_texte(render(dokument=vermerk, format="docx").inhalt)
    for ausgabe in (text, " ".join(body.split())):
        assert "Arbeitsgericht Köln" not in ausgabe and "3 Ca 1234/26" not in ausgabe
        for erwartet in ("Berger & Partner Rechtsanwälte", "Unser Zeichen: 1/26",
                         "Max Meier ./. Stahlbau GmbH", "Aktenvermerk: Telefonat mit dem Mandanten",
                         "Arbeitsvertrag am Montag", "Lea Schmitt"):
            assert erwartet in ausgabe, erwartet
        assert "Anna Berger" not in ausgabe and "Rechtsanwältin" not in ausgabe.replace("Rechtsanwälte", "")


def test_telephone_and_email_of_the_briefkopf_are_on_the_letterhead(dokument: Dokument, media: Path) -> None:
    Briefkopf.objects.create(kanzlei="Berger & Partner", telefon="0221 123456",
                             email="kanzlei@berger.example", kontakt="Fax 0221 123457")
    text = " ".join(pdf_text(render(dokument=dokument, format="pdf").inhalt).split())
    assert "Tel. 0221 123456 kanzlei@berger.example Fax 0221 123457" in text
    assert "Arbeitsgericht Köln" in text  # a Schriftsatz keeps its court


def test_a_download_name_says_gegen_for_the_kurzrubrums_slashes() -> None:
    from akten.dokumente.typen import download_name

    assert download_name("Gespräch Müller ./. Bauer Logistik GmbH 2026-11-27", endung="pdf") == (
        "Gespräch Müller gegen Bauer Logistik GmbH 2026-11-27.pdf")
    assert download_name('a/b\\c:"d"', endung="md") == "a b c d.md"
