"""The letterhead as a Word template: the built-in one (built here with python-docx, so it needs no
binary file in the repository and an admin can download it, change it in Word and upload it again),
and the check an uploaded template passes before it is saved.

A template is a DOCX with docxtpl tags: `{{ kanzlei }}`, `{{ aktenzeichen }}` … (kontext.PLATZHALTER)
and `{{p inhalt }}` alone in a paragraph, where the text goes.
"""

from __future__ import annotations

import functools
import io
import zipfile
from datetime import UTC, datetime

from django.core.exceptions import ValidationError
from docx import Document
from docx.document import Document as DocxDocument
from docx.enum.section import WD_SECTION_START
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.exceptions import OpcError
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Cm, Pt, RGBColor
from docx.table import _Cell
from docx.text.paragraph import Paragraph
from docxtpl import DocxTemplate
from jinja2 import TemplateError, TemplateSyntaxError
from lxml import etree

from akten.dokumente.ausgabe import markdown
from akten.dokumente.ausgabe.docx import jinja_umgebung, linie_unten, render_docx
from akten.dokumente.ausgabe.kontext import PLATZHALTER, Briefkontext

_SCHRIFT = "Arial"  # Word's and LibreOffice's (Liberation Sans) standard; the PDF uses DejaVu Sans
_GRAU = RGBColor(0x55, 0x55, 0x55)

# What the check renders an uploaded template with.
_BEISPIEL = Briefkontext(
    kanzlei="Kanzlei Muster", anschrift="Musterstraße 1\n12345 Musterstadt", kontakt="Tel. 0123 456",
    fusszeile="Bankverbindung", ort="Musterstadt", datum="1. Januar 2026", aktenzeichen="1/26",
    rubrum="Muster ./. Beispiel", wegen="Forderung", mandant="Muster", gegner="Beispiel",
    parteien="Muster ./. Beispiel", empfaenger="Amtsgericht Musterstadt\nGerichtsstraße 1\n12345 Musterstadt",
    gericht="Amtsgericht Musterstadt", gericht_aktenzeichen="1 C 1/26", ihr_zeichen="",
    titel="Schriftsatz", unterschrift_name="Dr. Muster", unterschrift="Rechtsanwalt",
)


@functools.cache
def eingebaute_vorlage() -> bytes:
    """The built-in letterhead (A4, Arial 11 pt): Kanzlei and its address at the top, the addressee
    (a court with its Aktenzeichen) beside place, date and our Zeichen, „In Sachen …“, the title,
    the text, the signature; the Fußzeile and „Seite X von Y“ at the bottom of every page, our
    Zeichen atop every further page."""
    doc = Document()
    _eigenschaften(doc)
    _seite(doc)
    _styles(doc)
    _kopf(doc)
    _bezug(doc)
    titel = doc.add_paragraph()
    titel.paragraph_format.space_before, titel.paragraph_format.space_after = Pt(18), Pt(12)
    titel.paragraph_format.keep_with_next = True
    _lauf(titel, "{{ titel }}", groesse=14, fett=True)
    doc.add_paragraph("{{p inhalt }}")
    doc.add_paragraph("{%p if unterschrift_name or unterschrift %}")  # none under an upload's text
    gruss = doc.add_paragraph()
    gruss.paragraph_format.space_before = Pt(42)
    gruss.paragraph_format.keep_with_next = True
    _lauf(gruss, "______________________________")
    doc.add_paragraph("{{ unterschrift_name }}").paragraph_format.keep_with_next = True
    doc.add_paragraph("{{ unterschrift }}")
    doc.add_paragraph("{%p endif %}")
    ausgabe = io.BytesIO()
    doc.save(ausgabe)
    return ausgabe.getvalue()


def pruefen(inhalt: bytes) -> None:
    """Refuses (ValidationError, German, naming the problem) a file that is no DOCX, a tag left open
    or unreadable for Jinja, an unknown placeholder, or a text placeholder missing or not alone in
    its paragraph: found when it is uploaded, not when a lawyer needs the document."""
    try:
        tpl = DocxTemplate(io.BytesIO(inhalt))
        doc = tpl.get_docx()
    except (OpcError, zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
        raise ValidationError("Die Datei ist keine Word-Datei (DOCX). Bitte in Word als "
                              "„Word-Dokument (*.docx)“ speichern.") from exc
    offen = _offener_platzhalter(doc)
    if offen:
        raise ValidationError("Ein Platzhalter ist nicht geschlossen (es fehlt „}}“ oder „%%}“) in: "
                              "„%(absatz)s“", params={"absatz": offen})
    try:
        namen = tpl.get_undeclared_template_variables(jinja_env=jinja_umgebung())
    except TemplateError as exc:
        raise _fehlerhaft(exc) from exc
    unbekannt = sorted(namen - set(PLATZHALTER))
    if unbekannt:
        raise ValidationError("Unbekannte Platzhalter in der Vorlage: %(namen)s. Möglich sind: %(moeglich)s.",
                              params={"namen": ", ".join(f"{{{{ {n} }}}}" for n in unbekannt),
                                      "moeglich": ", ".join(PLATZHALTER)})
    if "inhalt" not in namen:
        raise ValidationError("Die Vorlage hat keinen Platz für den Text: Bitte {{p inhalt }} allein in "
                              "einen eigenen Absatz schreiben.")
    try:
        ergebnis = render_docx(vorlage=inhalt, kontext=_BEISPIEL, seiten=markdown.seiten(
            "Der **Text** des Dokuments.\n\n- ein Punkt\n\n1. eine Zahl", markdown=True))
    except TemplateError as exc:
        raise _fehlerhaft(exc) from exc
    except Exception as exc:  # whatever else breaks on this file would break every download later
        raise ValidationError("Die Vorlage lässt sich nicht mit Text füllen (%(fehler)s).",
                              params={"fehler": type(exc).__name__}) from exc
    if Document(io.BytesIO(ergebnis)).element.body.xpath(".//w:p//w:p"):
        raise ValidationError("{{ inhalt }} steht mitten in einem Absatz: Bitte {{p inhalt }} (mit „p“) "
                              "allein in einen eigenen Absatz schreiben.")


def _offener_platzhalter(doc: DocxDocument) -> str:
    """The first paragraph (body, headers, footers) with a tag left open. docxtpl would not complain:
    it swallows the paragraph into the next tag's, and the line is silently gone."""
    teile = [doc.element.body] + [teil._element for section in doc.sections
                                  for teil in (section.header, section.footer, section.first_page_header,
                                               section.first_page_footer, section.even_page_header,
                                               section.even_page_footer) if not teil.is_linked_to_previous]
    for teil in teile:
        for absatz in teil.iter(qn("w:p")):
            text = "".join(t.text or "" for t in absatz.iter(qn("w:t")))
            if text.count("{{") != text.count("}}") or text.count("{%") != text.count("%}"):
                return " ".join(text.split())[:120]
    return ""


def _fehlerhaft(exc: TemplateError) -> ValidationError:
    """Jinja's own words (English) and the text around the fault, so the admin finds the spot."""
    fehler = exc.message or type(exc).__name__
    umgebung = " ".join(" ".join(getattr(exc, "docx_context", None) or []).split())
    if isinstance(exc, TemplateSyntaxError) and umgebung:
        fehler = f"{fehler} – bei „{umgebung[:160]}“"
    return ValidationError("Die Platzhalter der Vorlage sind fehlerhaft: %(fehler)s",
                           params={"fehler": fehler})


# --- the built-in template, piece by piece ---------------------------------------------------------


def _eigenschaften(doc: DocxDocument) -> None:
    """No trace of python-docx's sample file: its author, comment and preview picture."""
    eigenschaften = doc.core_properties
    eigenschaften.author = eigenschaften.comments = eigenschaften.last_modified_by = ""
    eigenschaften.created = eigenschaften.modified = datetime.now(UTC)
    eigenschaften.revision = 1
    paket = doc.part.package
    for r_id, beziehung in list(paket.rels.items()):
        if beziehung.reltype == RT.THUMBNAIL:
            paket.rels.pop(r_id)


def _seite(doc: DocxDocument) -> None:
    section = doc.sections[0]
    section.start_type = WD_SECTION_START.NEW_PAGE
    section.page_width, section.page_height = Cm(21), Cm(29.7)
    section.top_margin, section.bottom_margin = Cm(2), Cm(2.5)
    section.left_margin, section.right_margin = Cm(2.5), Cm(2)
    section.header_distance, section.footer_distance = Cm(1), Cm(1)
    section.different_first_page_header_footer = True
    section.first_page_header.paragraphs[0].text = ""
    kopf = section.header.paragraphs[0]
    kopf.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    _lauf(kopf, "Unser Zeichen: {{ aktenzeichen }}", groesse=8, farbe=_GRAU)
    for fuss in (section.footer, section.first_page_footer):
        zeile = fuss.paragraphs[0]
        zeile.alignment = WD_ALIGN_PARAGRAPH.CENTER
        _lauf(zeile, "{{ fusszeile }}", groesse=8, farbe=_GRAU)
        seite = fuss.add_paragraph()
        seite.alignment = WD_ALIGN_PARAGRAPH.RIGHT
        _lauf(seite, "Seite ", groesse=8, farbe=_GRAU)
        _feld(seite, "PAGE")
        _lauf(seite, " von ", groesse=8, farbe=_GRAU)
        _feld(seite, "NUMPAGES")


def _styles(doc: DocxDocument) -> None:
    """Arial everywhere, black headings (python-docx's default has blue Calibri Light)."""
    standard = doc.styles.element.xpath("./w:docDefaults/w:rPrDefault/w:rPr/w:rFonts")
    for schrift in standard:
        _nur_schrift(schrift)
    normal = doc.styles["Normal"]
    normal.font.name, normal.font.size = _SCHRIFT, Pt(11)
    normal.paragraph_format.space_after = Pt(6)
    normal.paragraph_format.line_spacing = 1.15
    for ebene, groesse in ((1, 13), (2, 12), (3, 11)):
        style = doc.styles[f"Heading {ebene}"]
        style.font.size, style.font.bold = Pt(groesse), True
        style.font.color.rgb = RGBColor(0, 0, 0)
        style.font.italic = ebene == 3 or None
        _nur_schrift(style.element.rPr.rFonts)
        style.paragraph_format.space_before, style.paragraph_format.space_after = Pt(12), Pt(6)


def _nur_schrift(r_fonts) -> None:
    """One font for every script; the theme's fonts (which take precedence) removed."""
    for attribut in list(r_fonts.attrib):
        if "Theme" in attribut or "theme" in attribut:
            del r_fonts.attrib[attribut]
    for attribut in ("w:ascii", "w:hAnsi", "w:cs", "w:eastAsia"):
        r_fonts.set(qn(attribut), _SCHRIFT)


def _kopf(doc: DocxDocument) -> None:
    """The Kanzlei on the left, its address and contact right-aligned beside it, a line below."""
    tabelle = doc.add_table(rows=1, cols=2)
    tabelle.autofit = False
    links, rechts = tabelle.rows[0].cells
    links.width, rechts.width = Cm(9.5), Cm(7)
    name = links.paragraphs[0]
    _lauf(name, "{{ kanzlei }}", groesse=18, fett=True)
    angaben = ((rechts.paragraphs[0], "{{ anschrift }}"), (rechts.add_paragraph(), "{{ kontakt }}"))
    for absatz, text in angaben:
        absatz.alignment = WD_ALIGN_PARAGRAPH.RIGHT
        absatz.paragraph_format.space_after = Pt(2)
        _lauf(absatz, text, groesse=9, farbe=_GRAU)
    linie = doc.add_paragraph()
    linie.paragraph_format.space_after = Pt(18)
    linie_unten(linie)


def _bezug(doc: DocxDocument) -> None:
    """The addressee (and a court's Aktenzeichen) on the left, place, date and the Zeichen on the
    right, side by side as DIN 5008 places them (a table like the letterhead's: an address has as
    many lines as it has); then the parties."""
    tabelle = doc.add_table(rows=1, cols=2)
    tabelle.autofit = False
    links, rechts = tabelle.rows[0].cells
    links.width, rechts.width = Cm(10), Cm(6.5)
    links.paragraphs[0].paragraph_format.space_after = Pt(0)
    _lauf(links.paragraphs[0], "{{ empfaenger }}")
    az = _wenn(links, "gericht_aktenzeichen", "Az. {{ gericht_aktenzeichen }}")
    az.paragraph_format.space_before = Pt(6)
    datum = rechts.paragraphs[0]
    _lauf(datum, "{% if ort %}{{ ort }}, {% endif %}{{ datum }}")
    ihr = _wenn(rechts, "ihr_zeichen", "Ihr Zeichen: {{ ihr_zeichen }}")
    unser = rechts.add_paragraph()
    _lauf(unser, "Unser Zeichen: {{ aktenzeichen }}")
    for absatz in (datum, ihr, unser):
        absatz.alignment = WD_ALIGN_PARAGRAPH.RIGHT
        absatz.paragraph_format.space_after = Pt(0)
    sache = doc.add_paragraph()
    sache.paragraph_format.space_before, sache.paragraph_format.space_after = Pt(24), Pt(0)
    _lauf(sache, "In Sachen")
    parteien = doc.add_paragraph()
    parteien.paragraph_format.space_after = Pt(0)
    _lauf(parteien, "{{ parteien }}", fett=True)
    doc.add_paragraph("{% if wegen %}wegen {{ wegen }}{% endif %}")


def _wenn(zelle: _Cell, feld: str, text: str) -> Paragraph:
    """A line only when `feld` is set: the tags stand in paragraphs of their own, which docxtpl removes
    (no empty line where there is no Zeichen)."""
    zelle.add_paragraph(f"{{%p if {feld} %}}")
    absatz = zelle.add_paragraph()
    _lauf(absatz, text)
    zelle.add_paragraph("{%p endif %}")
    return absatz


def _lauf(absatz: Paragraph, text: str, *, groesse: float | None = None, fett: bool = False,
          farbe: RGBColor | None = None) -> None:
    lauf = absatz.add_run(text)
    lauf.bold = fett or None
    if groesse:
        lauf.font.size = Pt(groesse)
    if farbe is not None:
        lauf.font.color.rgb = farbe


def _feld(absatz: Paragraph, anweisung: str) -> None:
    """A field Word and LibreOffice fill in on every page (PAGE, NUMPAGES)."""
    feld = OxmlElement("w:fldSimple")
    feld.set(qn("w:instr"), anweisung)
    lauf = OxmlElement("w:r")
    eigenschaften = OxmlElement("w:rPr")
    for name, wert in (("w:color", "555555"), ("w:sz", "16")):
        element = OxmlElement(name)
        element.set(qn("w:val"), wert)
        eigenschaften.append(element)
    text = OxmlElement("w:t")
    text.text = "1"
    lauf.extend([eigenschaften, text])
    feld.append(lauf)
    absatz._p.append(feld)
