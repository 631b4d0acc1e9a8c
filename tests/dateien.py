"""Real files the document tests make: a text PDF (WeasyPrint, pages apart), a scan (an image of
printed text saved as PDF by Pillow, no text layer), a DOCX with a table (python-docx), an e-mail
with attachments (the standard library), a program that calls itself a PDF."""

from __future__ import annotations

from email.message import EmailMessage
from io import BytesIO

import docx
from PIL import Image, ImageDraw, ImageFont
from weasyprint import HTML

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def text_pdf(seiten: list[str]) -> bytes:
    """One page per entry, each a paragraph of real text."""
    body = "".join(f'<section style="page-break-after: always"><p>{s}</p></section>' for s in seiten)
    return HTML(string=f"<html><body>{body}</body></html>").write_pdf()


def scan_image(zeilen: list[str], *, size: tuple[int, int] = (1240, 1754)) -> Image.Image:
    """A page as a scanner delivers it: black text on white at 150 dpi, nothing machine-readable."""
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 34)
    y = 160
    for zeile in zeilen:
        draw.text((120, y), zeile, font=font, fill=0)
        y += 60
    return image


def scan_pdf(zeilen: list[str]) -> bytes:
    out = BytesIO()
    scan_image(zeilen).save(out, "PDF", resolution=150)
    return out.getvalue()


def docx_mit_tabelle(absaetze: list[str], tabelle: list[list[str]]) -> bytes:
    document = docx.Document()
    document.add_heading("Aufstellung der Forderung", level=1)
    for absatz in absaetze:
        document.add_paragraph(absatz)
    table = document.add_table(rows=len(tabelle), cols=len(tabelle[0]))
    for r, row in enumerate(tabelle):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_paragraph("Ende der Aufstellung.")
    out = BytesIO()
    document.save(out)
    return out.getvalue()


def eml_mit_anhang(*, betreff: str, text: str, anhaenge: list[tuple[str, str, bytes]]) -> bytes:
    """(name, mime type, content) per attachment."""
    message = EmailMessage()
    message["From"] = "Erika Mandantin <erika@example.org>"
    message["To"] = "kanzlei@example.org"
    message["Date"] = "Tue, 24 Nov 2026 09:15:00 +0100"
    message["Subject"] = betreff
    message["Message-ID"] = "<20261124091500.1@example.org>"
    message.set_content(text)
    for name, mime, data in anhaenge:
        maintype, subtype = mime.split("/")
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return bytes(message)


# A Windows program's first bytes (the "MZ" header and the DOS stub's message), as a trojan attached
# as "rechnung.pdf" starts.
PROGRAMM = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" + b"\x00" * 48 + (
    b"This program cannot be run in DOS mode.\r\r\n$" + bytes(range(256)) * 8)
