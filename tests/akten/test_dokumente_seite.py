"""The Akte page's documents: several files at once by form (each answered on its own), the drop
zone's one-file JSON requests, the text shown page by page with its status, downloads only through
the permission check; a Praktikant sees no upload and is refused one."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from akten.models import Dokument
from tests import dateien
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


def _browser(kanzlei: Kanzlei, who: str) -> Client:
    client = Client()
    client.force_login(kanzlei.users[who])
    return client


def test_several_files_each_answered(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    client = _browser(kanzlei, "sachbearbeiter")
    pdf = dateien.text_pdf(["Erste Seite der Replik.", "Zweite Seite: Beweis."])
    response = client.post(f"/akten/{akte.pk}/dokumente/hochladen/", {"datei": [
        SimpleUploadedFile("Schriftsatz.pdf", pdf), SimpleUploadedFile("rechnung.pdf", dateien.PROGRAMM),
    ]}, follow=True)
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == f"/akten/{akte.pk}/#h-dokumente"
    assert "„Schriftsatz“ hochgeladen." in html
    assert "„rechnung.pdf“ ist keine Datei, die ich lesen kann" in html
    assert list(Dokument.objects.filter(akte=akte).values_list("titel", flat=True)) == ["Schriftsatz"]
    assert "PDF · 2 Seiten" in html and "Text gelesen" in html
    assert "S. 2" in html and "Zweite Seite: Beweis." in html
    dokument = Dokument.objects.get(akte=akte)
    assert f"/akten/dokumente/{dokument.pk}/datei/?format=pdf" in html
    assert "/media/" not in html


def test_drop_zone_requests_answer_json(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    client = _browser(kanzlei, "anwalt")
    ok = client.post(f"/akten/{akte.pk}/dokumente/hochladen/",
                     {"datei": SimpleUploadedFile("Notiz.txt", "Rückruf von Frau Meier.".encode())},
                     headers={"Accept": "application/json"})
    assert ok.status_code == 201
    assert ok.json()["dokument"]["extraktion"]["text"] == "Text gelesen"
    refused = client.post(f"/akten/{akte.pk}/dokumente/hochladen/",
                          {"datei": SimpleUploadedFile("virus.pdf", dateien.PROGRAMM)},
                          headers={"Accept": "application/json"})
    assert refused.status_code == 422 and "virus.pdf" in refused.json()["detail"]


def test_praktikant_sees_no_upload_and_is_refused(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["B"]
    client = _browser(kanzlei, "praktikant")
    assert 'id="upload"' not in client.get(f"/akten/{akte.pk}/").content.decode()
    response = client.post(f"/akten/{akte.pk}/dokumente/hochladen/",
                           {"datei": SimpleUploadedFile("a.txt", b"Hallo")})
    assert response.status_code == 403 and "Praktikant" in response.content.decode()
    assert not Dokument.objects.exists()


def test_downloads_go_through_the_permission_check(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    _browser(kanzlei, "anwalt").post(f"/akten/{akte.pk}/dokumente/hochladen/",
                                     {"datei": SimpleUploadedFile("Vergleich.txt", b"Vergleichsangebot")})
    dokument = Dokument.objects.get()
    own = _browser(kanzlei, "sachbearbeiter").get(f"/akten/dokumente/{dokument.pk}/datei/")
    assert own.status_code == 200 and b"".join(own.streaming_content) == b"Vergleichsangebot"
    assert own["Content-Disposition"] == 'attachment; filename="Vergleich.txt"'
    foreign = _browser(kanzlei, "sekretariat").get(f"/akten/dokumente/{dokument.pk}/datei/")
    assert foreign.status_code == 404 and b"Vergleichsangebot" not in foreign.content
    assert Client().get(f"/akten/dokumente/{dokument.pk}/datei/").status_code == 302  # to the login
    bad = _browser(kanzlei, "anwalt").get(f"/akten/dokumente/{dokument.pk}/datei/?format=exe")
    assert bad.status_code == 422 and "original, docx und pdf" in bad.content.decode()


def test_the_admin_shows_an_upload_without_a_media_link(kanzlei: Kanzlei, admin_client: Client) -> None:
    _browser(kanzlei, "anwalt").post(f"/akten/{kanzlei.akten['A'].pk}/dokumente/hochladen/",
                                     {"datei": SimpleUploadedFile("Vollmacht.txt", b"Vollmacht")})
    dokument = Dokument.objects.get()
    html = admin_client.get(f"/admin/akten/dokument/{dokument.pk}/change/").content.decode()
    assert f'href="/akten/dokumente/{dokument.pk}/datei/"' in html and "Vollmacht.txt" in html
    assert "/media/" not in html and 'type="file"' not in html
    assert "Text gelesen" in admin_client.get("/admin/akten/dokument/").content.decode()
