"""What an uploaded file is, decided by its content, never by its name: the file name and the
browser's content type are claims anyone can make up ("rechnung.pdf" that is a program)."""

from __future__ import annotations

import email.parser
import email.policy
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from config.errors import DomainError

ERLAUBT = "PDF, Word (DOCX), E-Mail (.eml), Text und Bilder (PNG, JPEG, TIFF)"
_HEAD_BYTES = 64 * 1024
_HEADER_LINE = re.compile(rb"^[A-Za-z][A-Za-z0-9-]{1,60}:[ \t]?")
_MAIL_HEADERS = {b"from", b"to", b"subject", b"date", b"message-id", b"mime-version", b"received"}
MAX_ENTPACKT = 200 * 1024 * 1024  # a DOCX unpacked; real ones stay far below, even with pictures


# Characters XML 1.0 forbids (a DOCX or PDF cannot hold them) and PostgreSQL refuses (NUL); extracted
# text and e-mail headers sometimes have them. Form feed stays: it separates pages (seiten.py).
_STEUERZEICHEN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f\ufffe\uffff]")


# Not in a download name: path separators, quotes, what Windows forbids, control characters.
_NICHT_IM_NAMEN = re.compile(r'[\\/"\'<>:|?*\x00-\x1f\x7f]+')


def download_name(stem: str, *, endung: str) -> str:
    """A file name to download as (Content-Disposition): the stem without paths, quotes or control
    characters, at most 100 characters, ending in the file's real type."""
    stem = stem.replace("./.", " gegen ")  # the Kurzrubrum's „Müller ./. Bauer“ as a lawyer says it
    name = " ".join(_NICHT_IM_NAMEN.sub(" ", stem).split()).strip(" .")[:100].strip(" .")
    return f"{name or 'Dokument'}.{endung}"


def stem_of(filename: str) -> str:
    """A file name without its folders (a browser may send them, Windows style too) and extension."""
    return Path(filename.replace("\\", "/").split("/")[-1]).stem


def bereinigt(text: str) -> str:
    """The text without characters a database or a document format cannot hold, with \\n line ends."""
    return _STEUERZEICHEN.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


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
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if head.startswith(b"\xff\xd8\xff"):
        return JPEG
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return TIFF
    if b"%PDF-" in head[:1024]:  # PDF readers accept junk before the header, so do we
        return PDF
    if head.startswith(b"PK\x03\x04"):
        if _is_docx(datei, name=name):
            return DOCX
        raise _refuse(name, "ist ein ZIP-Archiv oder ein anderes Office-Format, kein Word-Dokument (DOCX)")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with its byte order mark (Windows Notepad)
        return EMAIL if _is_mail(_utf16_as_utf8(head)) else TEXT
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        raise _refuse(name, "ist ein altes Office-Format (.doc, .xls oder Outlook-.msg); bitte als DOCX, "
                            "PDF oder .eml speichern")
    if b"\x00" in head or not _text(head):
        raise _refuse(name, "ist keine Datei, die ich lesen kann (unbekanntes oder ausführbares Format)")
    return EMAIL if _is_mail(head) else TEXT


def _is_docx(datei: IO[bytes], *, name: str) -> bool:
    """A Word document's parts, and not a ZIP bomb: what unpacks to far more than it is is refused."""
    try:
        with zipfile.ZipFile(datei) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    finally:
        datei.seek(0)
    names = {info.filename for info in infos}
    packed = sum(info.compress_size for info in infos)
    unpacked = sum(info.file_size for info in infos)
    if unpacked > MAX_ENTPACKT or unpacked > 100 * max(packed, 64 * 1024):
        raise DateiAbgelehnt(f"„{name}“ entpackt sich auf {unpacked // (1024 * 1024)} MB; so etwas ist kein "
                             f"gewöhnliches Word-Dokument und wird nicht gelesen.", code="datei_zu_gross")
    has_main = any(n.startswith("word/document") and n.endswith(".xml") for n in names)
    return has_main and "[Content_Types].xml" in names


def _utf16_as_utf8(head: bytes) -> bytes:
    return head[: len(head) // 2 * 2].decode("utf-16", "replace").encode()


def decode_text(data: bytes) -> str | None:
    """UTF-16 with a byte order mark, UTF-8 (with or without BOM), else Windows-1252 as German offices
    write it; None for binary."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data[: len(data) // 2 * 2].decode("utf-16", "replace")
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
    """RFC 5322: header lines first (a relayed mail has dozens), among them From and two others a
    mail always has."""
    seen: set[bytes] = set()
    for line in head.split(b"\n"):
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
