"""Uploads into an Akte from the outside (the JSON API): real files of every format the tests make
(tests/dateien.py), their text read page by page (OCR for a scan), the refusals a user must get,
and the original back only for who may see the Akte."""

from __future__ import annotations

import io
import time
from datetime import timedelta
from pathlib import Path

import pypdf
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from akten.dokumente.services import requeue_stale_extractions
from akten.models import Beteiligter, Dokument
from tests import dateien
from tests.conftest import MEDIA_ROOT, Kanzlei

pytestmark = pytest.mark.django_db


def _client(kanzlei: Kanzlei, who: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {kanzlei.tokens[who]}")


def _upload(kanzlei: Kanzlei, who: str, akte: str, name: str, data: bytes,
            mime: str = "application/octet-stream", **extra: str):
    akte_id = kanzlei.akten[akte].pk
    return _client(kanzlei, who).post(f"/api/v1/akten/{akte_id}/dokumente",
                                      {"datei": SimpleUploadedFile(name, data, content_type=mime), **extra})


def _stored_files() -> set[Path]:
    return {p for p in MEDIA_ROOT.rglob("*") if p.is_file()}


SEITEN = [
    "Klageschrift in Sachen Meier gegen Stahlbau GmbH wegen Kündigungsschutz. Der Kläger ist seit 2019 "
    "als Schweißer beschäftigt.",
    "Die Kündigung vom 3. November 2026 ging dem Kläger am 5. November 2026 zu. Sie ist sozial "
    "ungerechtfertigt im Sinne des § 1 KSchG.",
    "Der Kläger beantragt festzustellen, dass das Arbeitsverhältnis durch die Kündigung nicht aufgelöst "
    "worden ist. Streitwert: drei Bruttomonatsgehälter.",
]


def test_text_pdf_is_read_page_by_page(kanzlei: Kanzlei) -> None:
    response = _upload(kanzlei, "anwalt", "A", "Klageschrift Meier.pdf", dateien.text_pdf(SEITEN),
                       "application/pdf", titel="Klageschrift vom 20.11.2026")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["titel"] == "Klageschrift vom 20.11.2026"
    assert body["dateityp"] == "pdf" and body["seiten"] == 3
    assert body["extraktion"]["status"] == "fertig" and body["extraktion"]["fortschritt"] == 100
    assert body["zeichen"] > 250

    detail = _client(kanzlei, "anwalt").get(f"/api/v1/dokumente/{body['id']}").json()
    assert [s["nummer"] for s in detail["seiten_text"]] == [1, 2, 3]
    seite = [" ".join(s["text"].split()) for s in detail["seiten_text"]]  # a PDF keeps its line breaks
    assert "am 5. November 2026 zu" in seite[1] and "§ 1 KSchG" in seite[1]
    assert "Streitwert" in seite[2] and "Streitwert" not in seite[1]


def test_scanned_pdf_is_read_by_ocr(kanzlei: Kanzlei) -> None:
    scan = dateien.scan_pdf(["Landgericht Köln", "Verfügung vom 12. November 2026", "Die Klageerwiderung",
                             "ist binnen zwei Wochen einzureichen."])
    response = _upload(kanzlei, "sekretariat", "B", "Scan_0042.pdf", scan)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["extraktion"]["status"] == "fertig"
    assert body["extraktion"]["ocr_seiten"] == 1
    assert "Texterkennung" in body["extraktion"]["hinweis"]
    text = _client(kanzlei, "sekretariat").get(f"/api/v1/dokumente/{body['id']}").json()["text"]
    assert "Landgericht Köln" in text
    assert "Klageerwiderung" in text and "zwei Wochen" in text


def test_scan_without_tesseract_says_so(kanzlei: Kanzlei, settings) -> None:
    settings.HELENA_TESSERACT = "/nicht/installiert/tesseract"
    response = _upload(kanzlei, "anwalt", "A", "Scan.pdf", dateien.scan_pdf(["Beschluss"]))
    assert response.status_code == 201
    extraktion = response.json()["extraktion"]
    assert extraktion["status"] == "ocr_fehlt"
    assert extraktion["text"] == "Text nicht lesbar – OCR nicht verfügbar"


def test_docx_with_table(kanzlei: Kanzlei) -> None:
    data = dateien.docx_mit_tabelle(
        ["Sehr geehrte Damen und Herren,", "wir machen folgende Positionen geltend:"],
        [["Position", "Betrag"], ["Lohn Oktober 2026", "3.200,00 €"], ["Urlaubsabgeltung", "1.450,00 €"]],
    )
    response = _upload(kanzlei, "sachbearbeiter", "A", "Forderung.docx", data)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["dateityp"] == "docx" and body["extraktion"]["status"] == "fertig"
    text = _client(kanzlei, "sachbearbeiter").get(f"/api/v1/dokumente/{body['id']}").json()["text"]
    assert "Lohn Oktober 2026 | 3.200,00 €" in text
    assert text.index("wir machen") < text.index("Urlaubsabgeltung") < text.index("Ende der Aufstellung")


def test_email_with_attachments(kanzlei: Kanzlei) -> None:
    anhang = dateien.text_pdf(["Kündigungsschreiben der Stahlbau GmbH vom 3. November 2026."])
    data = dateien.eml_mit_anhang(
        betreff="Meine Kündigung – Unterlagen", text="Guten Tag,\nanbei die Kündigung.\nErika Mandantin",
        anhaenge=[("Kündigung.pdf", "application/pdf", anhang),
                  ("Fotos.zip", "application/zip", b"PK\x03\x04" + b"\x00" * 200)],
    )
    response = _upload(kanzlei, "anwalt", "A", "Mail von Erika.eml", data, "message/rfc822")
    assert response.status_code == 201, response.json()
    mail = response.json()
    assert mail["dateityp"] == "eml"
    assert len(mail["anhaenge"]) == 1
    assert "Fotos.zip" in mail["extraktion"]["hinweis"]
    client = _client(kanzlei, "anwalt")
    text = client.get(f"/api/v1/dokumente/{mail['id']}").json()["text"]
    assert "Betreff: Meine Kündigung – Unterlagen" in text and "anbei die Kündigung" in text
    anhang_out = client.get(f"/api/v1/dokumente/{mail['anhaenge'][0]}").json()
    assert anhang_out["titel"] == "Kündigung" and anhang_out["quelle_id"] == mail["id"]
    assert "Stahlbau GmbH" in anhang_out["text"]


def test_type_is_decided_by_content_not_name(kanzlei: Kanzlei) -> None:
    before = Dokument.objects.count(), _stored_files()
    response = _upload(kanzlei, "anwalt", "A", "rechnung.pdf", dateien.PROGRAMM, "application/pdf")
    assert response.status_code == 422
    assert response.json()["code"] == "dateityp"
    assert "rechnung.pdf" in response.json()["detail"] and "PDF, Word (DOCX)" in response.json()["detail"]
    assert (Dokument.objects.count(), _stored_files()) == before

    # a PDF that calls itself a picture is taken as what it is, and comes back as .pdf
    response = _upload(kanzlei, "anwalt", "A", "foto.png", dateien.text_pdf(["Ein echtes PDF."]), "image/png")
    assert response.status_code == 201 and response.json()["dateityp"] == "pdf"
    datei = _client(kanzlei, "anwalt").get(f"/api/v1/dokumente/{response.json()['id']}/datei")
    assert datei["Content-Type"] == "application/pdf"
    assert 'filename="foto.pdf"' in datei["Content-Disposition"]


def test_oversized_and_broken_files_are_refused(kanzlei: Kanzlei, settings) -> None:
    settings.HELENA_UPLOAD_MAX_MB = 1
    before = Dokument.objects.count(), _stored_files()
    response = _upload(kanzlei, "anwalt", "A", "gross.txt", b"Text " * 300_000, "text/plain")
    assert response.status_code == 422
    assert response.json()["code"] == "datei_zu_gross" and "höchstens 1 MB" in response.json()["detail"]
    kaputt = dateien.text_pdf(["Abgeschnitten"])[:400]
    response = _upload(kanzlei, "anwalt", "A", "kaputt.pdf", kaputt)
    assert response.status_code == 422 and response.json()["code"] == "datei_beschaedigt"
    response = _upload(kanzlei, "anwalt", "A", "leer.pdf", b"")
    assert response.status_code == 422
    assert (Dokument.objects.count(), _stored_files()) == before


def test_praktikant_reads_but_may_not_upload(kanzlei: Kanzlei) -> None:
    response = _upload(kanzlei, "praktikant", "B", "notiz.txt", b"Hallo", "text/plain")
    assert response.status_code == 403
    assert "Praktikant" in response.json()["detail"]
    assert not Dokument.objects.filter(akte=kanzlei.akten["B"]).exists()
    rueckruf = "Rückruf erbeten.".encode()
    uploaded = _upload(kanzlei, "sekretariat", "B", "notiz.txt", rueckruf, "text/plain").json()
    praktikant = _client(kanzlei, "praktikant")
    assert praktikant.get(f"/api/v1/dokumente/{uploaded['id']}").json()["text"] == "Rückruf erbeten."
    datei = praktikant.get(f"/api/v1/dokumente/{uploaded['id']}/datei")
    assert datei.status_code == 200 and b"".join(datei.streaming_content) == "Rückruf erbeten.".encode()


def test_foreign_akte_and_its_documents_are_not_found(kanzlei: Kanzlei) -> None:
    assert _upload(kanzlei, "sekretariat", "A", "x.txt", b"abc", "text/plain").status_code == 404
    fremd = _upload(kanzlei, "anwalt", "C", "vertraulich.txt", b"Testament", "text/plain").json()
    sekretariat = _client(kanzlei, "sekretariat")
    for path in (f"/api/v1/dokumente/{fremd['id']}", f"/api/v1/dokumente/{fremd['id']}/datei",
                 f"/api/v1/dokumente/{fremd['id']}/datei?format=pdf",
                 f"/api/v1/akten/{kanzlei.akten['C'].pk}/dokumente"):
        response = sekretariat.get(path)
        assert response.status_code == 404, path
        assert "Testament" not in response.content.decode()
    assert Client().get(f"/api/v1/dokumente/{fremd['id']}/datei").status_code == 401


def test_files_are_not_reachable_without_the_api(kanzlei: Kanzlei) -> None:
    uploaded = _upload(kanzlei, "anwalt", "A", "geheim.txt", b"Vergleichsangebot 20.000 EUR").json()
    stored = Dokument.objects.get(pk=uploaded["id"]).datei.name
    assert "geheim" not in stored  # stored under a name of its own
    for path in (f"/media/{stored}", f"/{stored}", f"/static/../media/{stored}"):
        assert b"Vergleichsangebot" not in Client().get(path).content


@pytest.mark.django_db(transaction=True)
def test_extraction_runs_in_a_celery_worker_with_progress(kanzlei: Kanzlei, settings, celery_worker) -> None:
    settings.HELENA_DOKUMENT_EXTRAKTION = "task"
    seiten = [f"Seite {n}: Schriftsatz der Gegenseite mit Vortrag zur Sozialauswahl." for n in range(1, 6)]
    response = _upload(kanzlei, "anwalt", "A", "Erwiderung.pdf", dateien.text_pdf(seiten))
    assert response.status_code == 201
    assert response.json()["extraktion"]["status"] in ("ausstehend", "laeuft", "fertig")
    client = _client(kanzlei, "anwalt")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        body = client.get(f"/api/v1/dokumente/{response.json()['id']}").json()
        if body["extraktion"]["status"] == "fertig":
            break
        time.sleep(0.2)
    assert body["extraktion"]["status"] == "fertig", body["extraktion"]
    assert [s["nummer"] for s in body["seiten_text"]] == [1, 2, 3, 4, 5]
    assert body["seiten_text"][3]["text"].startswith("Seite 4")


def test_a_forgotten_upload_is_read_again_and_a_deleted_one_takes_its_file(
        kanzlei: Kanzlei, settings, django_capture_on_commit_callbacks) -> None:
    settings.HELENA_DOKUMENT_EXTRAKTION = "task"  # queued on commit, and this test never commits
    body = _upload(kanzlei, "anwalt", "A", "Brief.txt", b"Sehr geehrte Frau Meier").json()
    assert body["extraktion"]["status"] == "ausstehend"
    assert requeue_stale_extractions() == 0  # not forgotten yet
    Dokument.objects.filter(pk=body["id"]).update(aktualisiert_am=timezone.now() - timedelta(minutes=20))
    settings.HELENA_DOKUMENT_EXTRAKTION = "inline"
    assert requeue_stale_extractions() == 1
    dokument = Dokument.objects.get(pk=body["id"])
    assert dokument.extraktion == "fertig" and dokument.inhalt == "Sehr geehrte Frau Meier"

    path = Path(dokument.datei.path)
    assert path.exists()
    with django_capture_on_commit_callbacks(execute=True):
        dokument.delete()
    assert not path.exists()


def test_an_upload_as_pdf_is_a_text_version_without_our_signature(kanzlei: Kanzlei) -> None:
    Beteiligter.objects.create(akte=kanzlei.akten["A"], rolle="gericht", name="Arbeitsgericht Köln",
                               anschrift="Pohligstraße 9\n50969 Köln", aktenzeichen_extern="3 Ca 1234/26")
    body = _upload(kanzlei, "anwalt", "A", "Schreiben Gegenseite.txt",
                   "Wir weisen Ihre Forderung zurück.".encode()).json()
    response = _client(kanzlei, "anwalt").get(f"/api/v1/dokumente/{body['id']}/datei", {"format": "pdf"})
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    pdf = pypdf.PdfReader(io.BytesIO(b"".join(response.streaming_content)))
    text = " ".join(" ".join(page.extract_text() for page in pdf.pages).split())
    assert "Textfassung von „Schreiben Gegenseite.txt“" in text
    assert "Wir weisen Ihre Forderung zurück." in text and "1/26" in text
    assert "Rechtsanwältin" not in text and "anwalt" not in text.replace("Rechtsanw", "")
    assert "Arbeitsgericht" not in text and "Pohligstraße" not in text  # a letter to us is not to the court
