"""Uploads as real offices and real attackers send them: a ZIP bomb dressed as DOCX, a redlined
contract, a mail relayed through many servers, a signed mail, a logo in a signature, control
characters in a subject, UTF-16 text from Notepad, a page OCR cannot read, a file that breaks the
reader, a body larger than any upload — each ends in a clear state, never a Dokument stuck in
"wird gelesen" or a server filling its disk."""

from __future__ import annotations

import http.client
import io
import json
import zipfile
from datetime import timedelta
from email.message import EmailMessage

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from lxml import etree

from akten.dokumente import lesen, ocr, services
from akten.models import Dokument
from tests import dateien
from tests.conftest import Kanzlei, daphne

pytestmark = pytest.mark.django_db
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _upload(kanzlei: Kanzlei, name: str, data: bytes) -> dict:
    client = Client(HTTP_AUTHORIZATION=f"Bearer {kanzlei.tokens['anwalt']}")
    response = client.post(f"/api/v1/akten/{kanzlei.akten['A'].pk}/dokumente",
                           {"datei": SimpleUploadedFile(name, data)})
    return {**response.json(), "http": response.status_code}


def _text(kanzlei: Kanzlei, dokument_id: str) -> str:
    client = Client(HTTP_AUTHORIZATION=f"Bearer {kanzlei.tokens['anwalt']}")
    return client.get(f"/api/v1/dokumente/{dokument_id}").json()["text"]


def test_a_zip_bomb_named_docx_is_refused(kanzlei: Kanzlei) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", " " * 30_000_000)
    body = _upload(kanzlei, "Vertrag.docx", out.getvalue())
    assert body["http"] == 422 and body["code"] == "datei_zu_gross" and "entpackt" in body["detail"]
    assert not Dokument.objects.exists()


def test_tracked_changes_are_read_as_accepted(kanzlei: Kanzlei) -> None:
    document = docx.Document()
    paragraph = document.add_paragraph("Der Mieter zahlt ")
    p = paragraph._p
    ins = etree.SubElement(p, f"{{{W}}}ins", {f"{{{W}}}id": "1", f"{{{W}}}author": "Gegenseite"})
    etree.SubElement(etree.SubElement(ins, f"{{{W}}}r"), f"{{{W}}}t").text = "nicht "
    deleted = etree.SubElement(p, f"{{{W}}}del", {f"{{{W}}}id": "2", f"{{{W}}}author": "Gegenseite"})
    etree.SubElement(etree.SubElement(deleted, f"{{{W}}}r"), f"{{{W}}}delText").text = "pünktlich "
    etree.SubElement(etree.SubElement(p, f"{{{W}}}r"), f"{{{W}}}t").text = "die Miete."
    out = io.BytesIO()
    document.save(out)
    body = _upload(kanzlei, "Mietvertrag.docx", out.getvalue())
    assert body["http"] == 201
    assert _text(kanzlei, body["id"]) == "Der Mieter zahlt nicht die Miete."
    assert "nachverfolgte Änderungen" in body["extraktion"]["hinweis"]


def test_a_relayed_mail_with_many_headers_is_a_mail(kanzlei: Kanzlei) -> None:
    relays = b"".join(b"Received: from relay%d.example.org by mx.example.org; Tue, 24 Nov 2026\r\n" % n
                      for n in range(45))
    raw = relays + dateien.eml_mit_anhang(betreff="Frist", text="Bitte um Rückruf.", anhaenge=[])
    body = _upload(kanzlei, "weitergeleitet.eml", raw)
    assert body["http"] == 201 and body["dateityp"] == "eml"
    assert "Betreff: Frist" in _text(kanzlei, body["id"])


def test_signed_mail_keeps_its_attachment_and_drops_signature_and_logo(kanzlei: Kanzlei) -> None:
    inner = EmailMessage()
    inner.set_content("Anbei die Klage.")
    inner.add_alternative('<p>Anbei die Klage.</p><img src="cid:logo@kanzlei">', subtype="html")
    inner.get_payload()[1].add_related(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, maintype="image", subtype="png",
                                       cid="<logo@kanzlei>", filename="image001.png")
    inner.add_attachment(dateien.text_pdf(["Klageschrift gegen die Stahlbau GmbH."]), maintype="application",
                         subtype="pdf", filename="Klage.pdf")
    signed = EmailMessage()
    for key, value in (("From", "Gericht <poststelle@ag.example>"), ("To", "kanzlei@example.org"),
                       ("Subject", "Zustellung Klage"), ("Date", "Tue, 24 Nov 2026 09:00:00 +0100"),
                       ("Message-ID", "<1@ag.example>")):
        signed[key] = value
    signed.make_mixed()
    signed.set_type("multipart/signed")
    signed.attach(inner)
    signature = EmailMessage()
    signature.set_content(b"0\x82\x01", maintype="application", subtype="pkcs7-signature",
                          filename="smime.p7s")
    signed.attach(signature)
    # a NUL hidden in an encoded word (RFC 2047) reaches the text only once the header is decoded
    raw = bytes(signed).replace(b"Subject: Zustellung Klage", b"Subject: =?utf-8?q?Zustellung=00_Klage?=")
    body = _upload(kanzlei, "Zustellung.eml", raw)
    assert body["http"] == 201, body
    anhaenge = Dokument.objects.filter(quelle_id=body["id"])
    assert [d.titel for d in anhaenge] == ["Klage"]
    assert "Stahlbau" in anhaenge[0].inhalt
    text = _text(kanzlei, body["id"])
    assert "Betreff: Zustellung Klage" in text and "Anbei die Klage." in text


def test_utf16_text_from_notepad(kanzlei: Kanzlei) -> None:
    body = _upload(kanzlei, "Notiz.txt", "Rückruf bei Frau Öztürk".encode("utf-16"))
    assert body["http"] == 201 and body["dateityp"] == "txt"
    assert _text(kanzlei, body["id"]) == "Rückruf bei Frau Öztürk"


def test_a_page_ocr_cannot_read_does_not_lose_the_others(kanzlei: Kanzlei, monkeypatch) -> None:
    calls = []

    def one_fails(bild) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise ocr.SeiteNichtLesbar("timeout")
        return "Zweite Seite des Faxes mit genug lesbarem Text."

    monkeypatch.setattr(ocr, "lies_bild", one_fails)
    pdf = dateien.text_pdf(["", ""])  # two pages without a text layer
    body = _upload(kanzlei, "Fax.pdf", pdf)
    assert body["extraktion"]["status"] == "teilweise"
    assert "S. 1 konnte die Texterkennung nicht lesen" in body["extraktion"]["hinweis"]
    assert "Zweite Seite des Faxes" in _text(kanzlei, body["id"])


def test_a_file_that_breaks_the_reader_ends_as_unreadable_and_is_not_tried_forever(
        kanzlei: Kanzlei, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise MemoryError("the reader died")

    monkeypatch.setattr(services, "lies", broken)
    body = _upload(kanzlei, "kaputt.txt", b"Ein Text")
    assert body["extraktion"]["status"] == "fehler"
    assert "ließ sich nicht lesen" in body["extraktion"]["hinweis"]
    dokument = Dokument.objects.get(pk=body["id"])
    assert dokument.extraktion_versuche == 1
    # a worker that died mid-way leaves "laeuft": beat tries again, then gives up after three tries
    Dokument.objects.filter(pk=dokument.pk).update(extraktion="laeuft", extraktion_versuche=3,
                                                   aktualisiert_am=timezone.now() - timedelta(hours=1))
    assert services.requeue_stale_extractions() == 0
    dokument.refresh_from_db()
    assert dokument.extraktion == "fehler" and "3 Versuchen" in dokument.extraktion_hinweis


def test_control_characters_in_a_title_still_render(kanzlei: Kanzlei) -> None:
    body = _upload(kanzlei, "Brief.txt", b"Sehr geehrte Damen und Herren")
    Dokument.objects.filter(pk=body["id"]).update(titel="Brief\x01 vom Amt")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {kanzlei.tokens['anwalt']}")
    response = client.get(f"/api/v1/dokumente/{body['id']}/datei", {"format": "docx"})
    assert response.status_code == 200


def test_too_many_pages_and_too_long_for_docx(kanzlei: Kanzlei, monkeypatch) -> None:
    monkeypatch.setattr(lesen, "MAX_SEITEN", 2)
    body = _upload(kanzlei, "Akte komplett.pdf", dateien.text_pdf(["Eins", "Zwei", "Drei"]))
    assert body["http"] == 422 and body["code"] == "zu_viele_seiten"
    assert "höchstens 2 Seiten" in body["detail"]
    lang = _upload(kanzlei, "Protokoll.txt", ("Zeile mit Text. " * 30_000).encode())
    client = Client(HTTP_AUTHORIZATION=f"Bearer {kanzlei.tokens['anwalt']}")
    response = client.get(f"/api/v1/dokumente/{lang['id']}/datei", {"format": "pdf"})
    assert response.status_code == 422 and response.json()["code"] == "zu_lang"


@pytest.mark.django_db(transaction=True)
def test_a_body_larger_than_any_upload_is_refused_before_django_reads_it(kanzlei: Kanzlei) -> None:
    with daphne({"HELENA_UPLOAD_MAX_MB": "1"}) as address:  # a request may carry 4 × 1 MB + 1 MB
        host, port = address.split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.putrequest("POST", f"/api/v1/akten/{kanzlei.akten['A'].pk}/dokumente")
        connection.putheader("Authorization", f"Bearer {kanzlei.tokens['anwalt']}")
        body = (b'--x\r\nContent-Disposition: form-data; name="datei"; filename="gross.txt"\r\n'
                b"Content-Type: text/plain\r\n\r\n" + b"x" * (6 * 1024 * 1024) + b"\r\n--x--\r\n")
        connection.putheader("Content-Type", "multipart/form-data; boundary=x")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        connection.send(body)
        response = connection.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["detail"] == ("Die Anfrage ist zu groß (höchstens 5 MB, je Datei "
                                                         "1 MB).")
    assert not Dokument.objects.exists()
