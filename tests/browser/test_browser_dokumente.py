"""Documents as a lawyer handles them in Chromium: two files dropped on the Akte page at once (one a
program calling itself a PDF), each answered on its own; the PDF's text shown page by page; the
Dokument downloaded as PDF on the letterhead and opened; a Praktikant sees no drop zone.
Screenshots and the downloaded PDF's first page go to tests/artifacts/."""

from __future__ import annotations

import base64
import io

import pypdf
import pypdfium2
import pytest
from playwright.sync_api import Page, expect

from akten.models import Briefkopf, Dokument
from tests import dateien
from tests.browser.test_browser import (
    ARTIFACTS,
    _orm_beside_playwright,
    browser,
    login,
    new_context,
    screenshot,
)
from tests.conftest import Kanzlei

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses

DROP = """([zone, files]) => {
  const transfer = new DataTransfer();
  for (const f of files) {
    const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
    transfer.items.add(new File([bytes], f.name, {type: f.type}));
  }
  for (const type of ["dragenter", "dragover", "drop"]) {
    zone.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: transfer}));
  }
}"""


def _drop(page: Page, files: list[tuple[str, str, bytes]]) -> None:
    payload = [{"name": n, "type": t, "data": base64.b64encode(d).decode()} for n, t, d in files]
    page.evaluate(DROP, [page.locator(".upload__zone").element_handle(), payload])


def test_drop_files_read_them_and_download_the_pdf(kanzlei: Kanzlei, new_context) -> None:
    Briefkopf.objects.create(kanzlei="Kanzlei Berger & Partner", anschrift="Domstraße 1\n50668 Köln",
                             ort="Köln", fusszeile="Sparkasse KölnBonn")
    akte = kanzlei.akten["A"]
    page = new_context().new_page()
    login(page, kanzlei.users["anwalt"], f"/akten/{akte.pk}/")
    expect(page.get_by_text("Dateien hierher ziehen")).to_be_visible()

    pdf = dateien.text_pdf(["Klageerwiderung der Stahlbau GmbH. Die Klage ist abzuweisen.",
                            "Die Kündigung ging am 5. November 2026 zu."])
    _drop(page, [("Klageerwiderung.pdf", "application/pdf", pdf),
                 ("rechnung.pdf", "application/pdf", dateien.PROGRAMM)])
    liste = page.locator(".upload__liste")
    expect(liste).to_contain_text("rechnung.pdf: „rechnung.pdf“ ist keine Datei, die ich lesen kann")
    expect(liste).to_contain_text("Klageerwiderung.pdf: hochgeladen – Text gelesen.")
    screenshot(page, "dokumente-hochgeladen")

    page.wait_for_load_state("load")  # the page reloads with the new Dokument
    eintrag = page.locator(".dokument", has_text="Klageerwiderung")
    expect(eintrag).to_contain_text("PDF · 2 Seiten")
    expect(eintrag).to_contain_text("Text gelesen")
    eintrag.locator("summary").click()
    expect(eintrag.locator(".seitentext__nr").nth(1)).to_have_text("S. 2")
    expect(eintrag).to_contain_text("am 5. November 2026 zu")
    screenshot(page, "dokumente-akte")
    assert list(Dokument.objects.values_list("titel", flat=True)) == ["Klageerwiderung"]

    with page.expect_download() as info:
        eintrag.get_by_role("link", name="Als PDF").click()
    download = info.value
    assert download.suggested_filename == "Klageerwiderung.pdf"
    data = open(download.path(), "rb").read()  # noqa: SIM115 (playwright keeps the file)
    text = " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages).split())
    assert "Kanzlei Berger & Partner" in text and "1/26" in text and "5. November 2026" in text
    seite = pypdfium2.PdfDocument(data)[0].render(scale=1.5).to_pil()
    seite.save(ARTIFACTS / "dokumente-download-pdf.png")


def test_praktikant_sees_no_drop_zone(kanzlei: Kanzlei, new_context) -> None:
    page = new_context().new_page()
    login(page, kanzlei.users["praktikant"], f"/akten/{kanzlei.akten['B'].pk}/")
    expect(page.get_by_role("heading", name="Dokumente")).to_be_visible()
    expect(page.get_by_text("Dateien hierher ziehen")).to_have_count(0)
