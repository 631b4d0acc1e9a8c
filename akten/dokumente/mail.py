"""An e-mail (.eml) as a Dokument: who wrote to whom when about what, its text (an HTML mail as
text), and its attachments as files of their own, found wherever MIME nests them (a signed mail
wraps them one level deeper); signatures and the logos a mail shows inline are no attachments."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from email.message import EmailMessage, Message

import nh3

from akten.dokumente.typen import parse_mail

_KOPF = (("Von", "From"), ("An", "To"), ("Cc", "Cc"), ("Datum", "Date"), ("Betreff", "Subject"))
_SIGNATUREN = {"application/pkcs7-signature", "application/x-pkcs7-signature", "application/pgp-signature"}


@dataclass(frozen=True)
class Anhang:
    name: str
    daten: bytes


@dataclass(frozen=True)
class Mail:
    text: str
    anhaenge: list[Anhang]


def html_zu_text(markup: str) -> str:
    """The text of an HTML mail body: tags gone, block ends as line breaks, entities decoded."""
    markup = re.sub(r"(?is)<(script|style|head)\b.*?</\1>", " ", markup)
    markup = re.sub(r"(?i)<br\s*/?>|</(p|div|tr|li|h\d|table|blockquote)>", "\n", markup)
    text = html.unescape(nh3.clean(markup, tags=set()))
    return re.sub(r"[ \t]+", " ", re.sub(r"\n\s*\n+", "\n\n", text)).strip()


def _leaves(part: Message) -> list[Message]:
    """The parts that carry content; a forwarded mail (message/rfc822) counts as one."""
    if part.get_content_type() == "message/rfc822" or not part.is_multipart():
        return [part]
    return [leaf for sub in part.get_payload() for leaf in _leaves(sub)]


def _is_attachment(part: Message) -> bool:
    if part.get_content_type() in _SIGNATUREN:
        return False
    if part.get_content_type() == "message/rfc822":
        return True
    disposition = part.get_content_disposition()
    if disposition == "attachment":
        return True
    # inline with a name: a PDF Apple Mail shows in the text is one; a logo the HTML refers to is not
    return disposition == "inline" and bool(part.get_filename()) and not part["Content-ID"]


def _anhang(part: Message) -> Anhang | None:
    if part.get_content_type() == "message/rfc822":
        payload = part.get_payload()
        inner = payload[0] if isinstance(payload, list) else payload
        return Anhang(part.get_filename() or f"{inner['Subject'] or 'Weitergeleitete Nachricht'}.eml",
                      inner.as_bytes())
    daten = part.get_payload(decode=True)
    return Anhang(part.get_filename() or "Anhang", daten) if daten else None


def _body_text(body: Message | None) -> str:
    if body is None:
        return ""
    try:
        content = body.get_content()
    except (LookupError, UnicodeError, ValueError):
        content = (body.get_payload(decode=True) or b"").decode("utf-8", "replace")
    return html_zu_text(content) if body.get_content_subtype() == "html" else content


def lies_mail(data: bytes) -> Mail:
    message: EmailMessage = parse_mail(data)
    kopf = [f"{label}: {message[key]}" for label, key in _KOPF if message[key]]
    body = message.get_body(preferencelist=("plain", "html"))
    anhaenge = [a for part in _leaves(message) if part is not body and _is_attachment(part)
                if (a := _anhang(part)) is not None]
    if anhaenge:
        kopf.append("Anhänge: " + ", ".join(a.name for a in anhaenge))
    return Mail(text="\n".join(kopf) + "\n\n" + _body_text(body), anhaenge=anhaenge)
