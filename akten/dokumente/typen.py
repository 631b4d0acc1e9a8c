"""What an uploaded file is, decided by its content, never by its name: the file name and the
browser's content type are claims anyone can make up ("rechnung.pdf" that is a program)."""

from __future__ import annotations

import email.parser
import email.policy
import re
import zipfile
from dataclasses import dataclass
from typing import IO

from config.errors import DomainError

ERLAUBT = "PDF, Word (DOCX), E-Mail (.eml), Text und Bilder (PNG, JPEG, TIFF)"
_HEAD_BYTES = 64 * 1024
_HEADER_LINE = re.compile(rb"^[A-Za-z][A-Za-z0-9-]{1,60}:[ \t]?")
_MAIL_HEADERS = {b"from", b"to", b"subject", b"date", b"message-id", b"mime-version", b"received"}


class DateiAbgelehnt(DomainError):
    """An upload Helena will not take: its type, size or state (422, German, nothing stored)."""

    status, code, default_message = 422, "datei_abgelehnt", "Die Datei kann nicht übernommen werden."


@dataclass(frozen=True)
class Erkannt:
    dateityp: str  # Dokument.Dateityp
    mime: str
    endung: str  # for the stored file and the download name


PDF = Erkannt("pdf", "application/pdf", "pdf")
DOCX = Erkannt("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx")
EMAIL = Erkannt("eml", "message/rfc822", "eml")
TEXT = Erkannt("txt", "text/plain; charset=utf-8", "txt")
PNG = Erkannt("bild", "image/png", "png")
JPEG = Erkannt("bild", "image/jpeg", "jpg")
TIFF = Erkannt("bild", "image/tiff", "tif")


def _refuse(name: str, was: str) -> DateiAbgelehnt:
    return DateiAbgelehnt(f"„{name}“ {was}. Ich lese {ERLAUBT}.", code="dateityp")


def erkenne(datei: IO[bytes], *, name: str) -> Erkannt:
    """The file's type by its first bytes (and a DOCX by its parts); DateiAbgelehnt otherwise."""
    datei.seek(0)
    head = datei.read(_HEAD_BYTES)
    datei.seek(0)
    if not head:
        raise DateiAbgelehnt(f"„{name}“ ist leer.", code="datei_leer")
    if b"%PDF-" in head[:1024]:
        return PDF
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if head.startswith(b"\xff\xd8\xff"):
        return JPEG
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return TIFF
    if head.startswith(b"PK\x03\x04"):
        if _is_docx(datei):
            return DOCX
        raise _refuse(name, "ist ein ZIP-Archiv oder ein anderes Office-Format, kein Word-Dokument (DOCX)")
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        raise _refuse(name, "ist ein altes Office-Format (.doc, .xls oder Outlook-.msg); bitte als DOCX, "
                            "PDF oder .eml speichern")
    if b"\x00" in head or not _text(head):
        raise _refuse(name, "ist keine Datei, die ich lesen kann (unbekanntes oder ausführbares Format)")
    return EMAIL if _is_mail(head) else TEXT


def _is_docx(datei: IO[bytes]) -> bool:
    try:
        with zipfile.ZipFile(datei) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    finally:
        datei.seek(0)
    return "word/document.xml" in names and "[Content_Types].xml" in names


def decode_text(data: bytes) -> str | None:
    """UTF-8 (with or without BOM), else Windows-1252 as German offices write it; None for binary."""
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        controls = sum(1 for c in text if ord(c) < 32 and c not in "\t\n\r\f")
        return text if controls <= len(text) // 200 else None
    return None


def _text(head: bytes) -> bool:
    # a multi-byte character may be cut at the end of the head: decode what is surely whole
    return decode_text(head[: len(head) - 4] if len(head) == _HEAD_BYTES else head) is not None


def _is_mail(head: bytes) -> bool:
    """RFC 5322: header lines first, among them From and a second header a mail always has."""
    lines = head.split(b"\n", 40)
    seen: set[bytes] = set()
    for line in lines[:40]:
        line = line.rstrip(b"\r")
        if not line:
            break
        if line[:1] in (b" ", b"\t"):
            continue
        if not _HEADER_LINE.match(line):
            return False
        seen.add(line.split(b":", 1)[0].lower())
    return b"from" in seen and len(seen & _MAIL_HEADERS) >= 3


def parse_mail(data: bytes) -> email.message.EmailMessage:
    return email.parser.BytesParser(policy=email.policy.default).parsebytes(data)  # type: ignore[return-value]
