"""The DOCX: the letterhead template (built-in or the admin's own) filled by docxtpl, the text as a
subdocument written from the Markdown tokens with python-docx.

The text uses the template's styles (Heading 1-3, List Bullet/Number, Table Grid), so it looks like
the Kanzlei's own documents. An admin's template may lack some of them (Word stores only the styles
a document uses): then a heading is a bold paragraph, a list item gets a "• "/"1. " prefix, a table
gets plain borders.
"""

from __future__ import annotations

import io

from docx.enum.table import WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Cm, Pt
from docx.text.paragraph import Paragraph
from docx.text.run import Run
from docxtpl import DocxTemplate
from docxtpl.subdoc import Subdoc
from jinja2.sandbox import SandboxedEnvironment
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from akten.dokumente.ausgabe.kontext import Briefkontext

MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_MONO = "Courier New"
_EINRUECKUNG = Cm(0.75)  # per list level and per quote level


def jinja_umgebung() -> SandboxedEnvironment:
    """Autoescape: a "&" or "<" in a name must not break the XML. Sandboxed: a template is data an
    admin uploaded, not code."""
    return SandboxedEnvironment(autoescape=True)


def render_docx(*, vorlage: bytes, kontext: Briefkontext, seiten: list[list[Token]]) -> bytes:
    tpl = DocxTemplate(io.BytesIO(vorlage))
    inhalt = tpl.new_subdoc()
    _Text(inhalt, styles={style.name for style in tpl.get_docx().styles}).seiten(seiten)
    tpl.render({**kontext.als_dict(), "inhalt": inhalt}, jinja_env=jinja_umgebung())
    tpl.docx.core_properties.title = kontext.titel[:255]  # what Word shows as the title
    ausgabe = io.BytesIO()
    tpl.save(ausgabe)
    return ausgabe.getvalue()


class _Text:
    """Writes the syntax tree of each page into the subdocument, block by block."""

    def __init__(self, doc: Subdoc, *, styles: set[str]) -> None:
        self.doc = doc
        self.styles = styles

    def seiten(self, seiten: list[list[Token]]) -> None:
        for nummer, tokens in enumerate(seiten):
            if nummer:
                self.doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
            for block in SyntaxTreeNode(tokens).children:
                self.block(block, einzug=0)

    def block(self, node: SyntaxTreeNode, *, einzug: int) -> None:
        """`einzug`: the levels a quote or list indents this block by."""
        if node.type == "heading":
            self.ueberschrift(node, int(node.tag[1]))
        elif node.type == "paragraph":
            self.inline(self.absatz(einzug=einzug), node)
        elif node.type in ("bullet_list", "ordered_list"):
            self.liste(node, ebene=0, einzug=einzug)
        elif node.type == "blockquote":
            for kind in node.children:
                self.block(kind, einzug=einzug + 1)
        elif node.type == "table":
            self.tabelle(node)
        elif node.type == "hr":
            linie_unten(self.absatz(einzug=einzug))
        elif node.type in ("fence", "code_block"):
            absatz = self.absatz(einzug=einzug)
            self.lauf(absatz, node.content.rstrip("\n"), code=True)

    def absatz(self, *, einzug: int = 0, style: str | None = None) -> Paragraph:
        absatz = self.doc.add_paragraph(style=style if style in self.styles else None)
        if einzug:
            absatz.paragraph_format.left_indent = _EINRUECKUNG * einzug
        return absatz

    def ueberschrift(self, node: SyntaxTreeNode, ebene: int) -> None:
        style = f"Heading {min(ebene, 3)}"
        absatz = self.absatz(style=style)
        if style not in self.styles:  # the template has no heading styles: bold, a little larger
            absatz.paragraph_format.space_before = Pt(12)
            absatz.paragraph_format.keep_with_next = True
        for lauf in self.inline(absatz, node):
            if style not in self.styles:
                lauf.bold = True
                lauf.font.size = Pt(13 if ebene == 1 else 12 if ebene == 2 else 11)

    def liste(self, node: SyntaxTreeNode, *, ebene: int, einzug: int) -> None:
        nummeriert = node.type == "ordered_list"
        basis = "List Number" if nummeriert else "List Bullet"
        style = basis if ebene == 0 else f"{basis} {min(ebene + 1, 3)}"
        mit_style = style in self.styles
        num_id = self.neue_nummerierung(style, int(node.attrs.get("start", 1))) \
            if nummeriert and mit_style else None
        for item in node.children:
            for position, kind in enumerate(item.children):
                if kind.type in ("bullet_list", "ordered_list"):
                    self.liste(kind, ebene=ebene + 1, einzug=einzug)
                    continue
                if position or kind.type != "paragraph":  # a second paragraph of the item
                    self.block(kind, einzug=einzug + ebene + 1)
                    continue
                absatz = self.absatz(style=style if mit_style else None, einzug=einzug)
                if mit_style:
                    if num_id is not None:
                        _nummer(absatz, num_id)
                else:
                    zeichen = f"{item.info}." if nummeriert else ("•", "–", "◦")[min(ebene, 2)]
                    _haengend(absatz, einzug + ebene + 1)
                    absatz.add_run(f"{zeichen}\t")
                self.inline(absatz, kind)

    def neue_nummerierung(self, style: str, start: int) -> int | None:
        """A numbered list starts at its own first number, not where the previous list ended:
        a new w:num on the style's list definition, restarted."""
        try:
            num_pr = self.doc.styles[style].element.pPr.numPr
            numbering = self.doc.part.numbering_part.element
            (abstract,) = numbering.xpath(f'./w:num[@w:numId="{num_pr.numId.val}"]/w:abstractNumId/@w:val')
        except (AttributeError, KeyError, ValueError, NotImplementedError):
            return None  # the style is not tied to a list definition: Word numbers it as it likes
        num = numbering.add_num(int(abstract))
        num.add_lvlOverride(ilvl=0).add_startOverride(start)
        return int(num.numId)

    def tabelle(self, node: SyntaxTreeNode) -> None:
        zeilen = [zeile for teil in node.children for zeile in teil.children]
        spalten = max(len(zeile.children) for zeile in zeilen)
        tabelle = self.doc.add_table(rows=len(zeilen), cols=spalten)
        tabelle.alignment = WD_TABLE_ALIGNMENT.CENTER
        if "Table Grid" in self.styles:
            tabelle.style = "Table Grid"
        else:
            _rahmen(tabelle)
        for zeile, tr in zip(tabelle.rows, zeilen, strict=True):
            for zelle, td in zip(zeile.cells, tr.children, strict=False):
                absatz = zelle.paragraphs[0]
                if "right" in str(td.attrs.get("style", "")):
                    absatz.alignment = WD_ALIGN_PARAGRAPH.RIGHT
                elif "center" in str(td.attrs.get("style", "")):
                    absatz.alignment = WD_ALIGN_PARAGRAPH.CENTER
                for lauf in self.inline(absatz, td):
                    if td.type == "th":
                        lauf.bold = True
        self.doc.add_paragraph()  # Word glues a following table to this one otherwise

    def inline(self, absatz: Paragraph, node: SyntaxTreeNode) -> list[Run]:
        """The runs of a paragraph, heading or cell (node: the block whose child is `inline`)."""
        laeufe: list[Run] = []
        for kind in node.children:
            if kind.type == "inline":
                self._laeufe(absatz, kind.children, laeufe, fett=False, kursiv=False, durch=False)
        return laeufe

    def _laeufe(self, absatz: Paragraph, nodes: list[SyntaxTreeNode], laeufe: list[Run], *,
                fett: bool, kursiv: bool, durch: bool) -> None:
        for node in nodes:
            if node.type in ("strong", "em", "s", "link"):
                self._laeufe(absatz, node.children, laeufe, fett=fett or node.type == "strong",
                             kursiv=kursiv or node.type == "em", durch=durch or node.type == "s")
            elif node.type in ("text", "code_inline"):
                lauf = self.lauf(absatz, node.content, code=node.type == "code_inline")
                lauf.bold, lauf.italic, lauf.font.strike = fett or None, kursiv or None, durch or None
                laeufe.append(lauf)
            elif node.type == "hardbreak":
                absatz.add_run().add_break()
            elif node.type == "softbreak":
                laeufe.append(absatz.add_run(" "))

    @staticmethod
    def lauf(absatz: Paragraph, text: str, *, code: bool = False) -> Run:
        lauf = absatz.add_run(text)  # python-docx turns "\n" into a break and "\t" into a tab
        if code:
            lauf.font.name = _MONO
        return lauf


def _nummer(absatz: Paragraph, num_id: int) -> None:
    num_pr = absatz._p.get_or_add_pPr().get_or_add_numPr()
    num_pr.get_or_add_ilvl().val = 0
    num_pr.get_or_add_numId().val = num_id


def _haengend(absatz: Paragraph, ebenen: int) -> None:
    """A hanging indent: the prefix in the margin, the text aligned beside it."""
    absatz.paragraph_format.left_indent = _EINRUECKUNG * ebenen
    absatz.paragraph_format.first_line_indent = -_EINRUECKUNG
    absatz.paragraph_format.tab_stops.add_tab_stop(_EINRUECKUNG * ebenen)


# What must follow a paragraph's border and a table's borders in their properties (the schema's
# order; Word refuses a document that breaks it).
_NACH_PBDR = ("w:shd", "w:tabs", "w:suppressAutoHyphens", "w:kinsoku", "w:wordWrap", "w:overflowPunct",
              "w:topLinePunct", "w:autoSpaceDE", "w:autoSpaceDN", "w:bidi", "w:adjustRightInd",
              "w:snapToGrid", "w:spacing", "w:ind", "w:contextualSpacing", "w:mirrorIndents",
              "w:suppressOverlap", "w:jc", "w:textDirection", "w:textAlignment", "w:textboxTightWrap",
              "w:outlineLvl", "w:divId", "w:cnfStyle", "w:rPr", "w:sectPr", "w:pPrChange")
_NACH_TBLBORDERS = ("w:shd", "w:tblLayout", "w:tblCellMar", "w:tblLook", "w:tblCaption", "w:tblDescription",
                    "w:tblPrChange")


def linie_unten(absatz: Paragraph) -> None:
    rand = OxmlElement("w:pBdr")
    rand.append(_linie("w:bottom", staerke="6", abstand="1"))
    absatz._p.get_or_add_pPr().insert_element_before(rand, *_NACH_PBDR)


def _rahmen(tabelle) -> None:
    """Thin borders on every cell, for a template without the "Table Grid" style."""
    rahmen = OxmlElement("w:tblBorders")
    for seite in ("top", "left", "bottom", "right", "insideH", "insideV"):
        rahmen.append(_linie(f"w:{seite}", staerke="4", abstand="0"))
    tabelle._tbl.tblPr.insert_element_before(rahmen, *_NACH_TBLBORDERS)


def _linie(name: str, *, staerke: str, abstand: str):
    linie = OxmlElement(name)
    for attribut, wert in (("w:val", "single"), ("w:sz", staerke), ("w:space", abstand), ("w:color", "auto")):
        linie.set(qn(attribut), wert)
    return linie
