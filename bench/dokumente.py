"""Time to render a Schriftsatz as DOCX (python-docx + docxtpl) and as PDF (WeasyPrint), in this
process and warm; for comparison the PDF by LibreOffice (`soffice --headless --convert-to pdf` of
the DOCX, one process per call, as a server would have to run it), if `soffice` is installed.
Printed, not asserted; docs/dokumente.md records the figures and the decision they back.

    .venv/bin/python bench/dokumente.py
"""

from __future__ import annotations

import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("DATABASE_URL", "postgres://localhost/unbenutzt")  # no query is made

import django

django.setup()

from pypdf import PdfReader  # noqa: E402

from akten.dokumente.ausgabe import markdown  # noqa: E402
from akten.dokumente.ausgabe.docx import render_docx  # noqa: E402
from akten.dokumente.ausgabe.kontext import Briefkontext  # noqa: E402
from akten.dokumente.ausgabe.vorlage import eingebaute_vorlage  # noqa: E402

KONTEXT = Briefkontext(
    kanzlei="Berger & Partner Rechtsanwälte", anschrift="Domstraße 1\n50667 Köln",
    kontakt="Tel. 0221 123456\nkanzlei@berger.example", fusszeile="Sparkasse KölnBonn · IBAN DE00 0000",
    ort="Köln", datum="26. November 2026", aktenzeichen="1/26", rubrum="Meier ./. Stahlbau GmbH",
    wegen="Kündigungsschutz", mandant="Max Meier", gegner="Stahlbau GmbH",
    parteien="Max Meier ./. Stahlbau GmbH", gericht="Arbeitsgericht Köln",
    gericht_aktenzeichen="3 Ca 1234/26",
    titel="Klageerwiderung", unterschrift_name="Anna Berger", unterschrift="Rechtsanwältin",
)

ABSCHNITT = """## {n}. Abschnitt

Die Kündigung vom 30.09.2026 ist **unwirksam**. Sie ist nicht schriftlich erklärt worden (§ 623 BGB);
eine E-Mail wahrt die Schriftform nicht. Die Beklagte hat den Betriebsrat vor der Kündigung nicht
angehört (§ 102 Abs. 1 Satz 3 BetrVG). Auch eine soziale Rechtfertigung im Sinne des § 1 Abs. 2 KSchG
fehlt: Dringende betriebliche Erfordernisse, die einer Weiterbeschäftigung des Klägers entgegenstehen,
hat die Beklagte nicht dargelegt. Der pauschale Hinweis auf „Umstrukturierungen“ genügt nicht.

Der Kläger ist seit dem 01.04.2019 bei der Beklagten als Schlosser beschäftigt. Sein Bruttomonatsgehalt
betrug zuletzt 3.200,00 €. Die Beklagte beschäftigt regelmäßig mehr als zehn Arbeitnehmer, das
Kündigungsschutzgesetz ist anwendbar (§ 23 Abs. 1 KSchG).

- fehlende Schriftform
  - nur per E-Mail
  - ohne eigenhändige Unterschrift
- keine Anhörung des Betriebsrats

| Position | Betrag |
|---|--:|
| Gehalt Oktober | 3.200,00 € |
| Urlaubsabgeltung | 1.450,00 € |

> Die Beendigung von Arbeitsverhältnissen durch Kündigung oder Auflösungsvertrag bedürfen zu ihrer
> Wirksamkeit der Schriftform; die elektronische Form ist ausgeschlossen.
"""


def schriftsatz(abschnitte: int) -> str:
    return "\n".join(ABSCHNITT.format(n=n) for n in range(1, abschnitte + 1))


def messen(funktion: Callable[[], bytes], runden: int) -> tuple[float, bytes]:
    """Median in ms over `runden` calls after one warm-up call."""
    ergebnis = funktion()
    zeiten = []
    for _ in range(runden):
        start = time.perf_counter()
        ergebnis = funktion()
        zeiten.append((time.perf_counter() - start) * 1000)
    return statistics.median(zeiten), ergebnis


def seiten_im_pdf(pdf: bytes) -> int:
    return len(PdfReader(io.BytesIO(pdf)).pages)


def libreoffice(soffice: str, docx: bytes, runden: int) -> tuple[float, float, float | None, int]:
    """(first call with a new profile, median of the further calls, in ms; peak RSS of LibreOffice
    in MB, if GNU time is there to tell; pages)."""
    zeitmesser = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
    with tempfile.TemporaryDirectory() as ordner:
        pfad = Path(ordner)
        (pfad / "s.docx").write_bytes(docx)
        befehl = [*zeitmesser, soffice, f"-env:UserInstallation=file://{pfad / 'profil'}", "--headless",
                  "--convert-to", "pdf", "--outdir", str(pfad / "pdf"), str(pfad / "s.docx")]
        zeiten, spitze = [], None
        for _ in range(runden + 1):
            start = time.perf_counter()
            lauf = subprocess.run(befehl, check=True, capture_output=True, text=True, timeout=180)
            zeiten.append((time.perf_counter() - start) * 1000)
            if zeitmesser:
                spitze = max(spitze or 0, int(lauf.stderr.strip().splitlines()[-1]) / 1024)
        seiten = seiten_im_pdf((pfad / "pdf" / "s.pdf").read_bytes())
    return zeiten[0], statistics.median(zeiten[1:]), spitze, seiten


def rss_mb() -> float:
    """This process's resident memory now (Linux)."""
    with open("/proc/self/status") as status:
        zeile = next(z for z in status if z.startswith("VmRSS:"))
    return int(zeile.split()[1]) / 1024


def main() -> None:
    rss_vorher = rss_mb()
    start = time.perf_counter()
    from akten.dokumente.ausgabe.pdf import render_pdf  # timed: WeasyPrint's import is a cost of its own

    import_ms = (time.perf_counter() - start) * 1000
    vorlage = eingebaute_vorlage()
    print(f"WeasyPrint importieren: {import_ms:.0f} ms, +{rss_mb() - rss_vorher:.0f} MB (einmal je Prozess)")
    docx_fuer_lo: dict[int, bytes] = {}
    for abschnitte in (3, 50):  # about 3 and about 30 pages
        seiten = markdown.seiten(schriftsatz(abschnitte), markdown=True)
        docx_ms, docx = messen(lambda s=seiten: render_docx(vorlage=vorlage, kontext=KONTEXT, seiten=s), 5)
        pdf_ms, pdf = messen(lambda s=seiten: render_pdf(kontext=KONTEXT, seiten=s), 5)
        docx_fuer_lo[abschnitte] = docx
        print(f"{seiten_im_pdf(pdf):3d} Seiten: DOCX {docx_ms:7.0f} ms ({len(docx) // 1024} KB)   "
              f"PDF (WeasyPrint) {pdf_ms:7.0f} ms ({len(pdf) // 1024} KB)")
    spitze = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Speicher dieses Prozesses: vor WeasyPrint {rss_vorher:.0f} MB, Spitze danach {spitze:.0f} MB")

    soffice = shutil.which("soffice")
    if not soffice:
        print("LibreOffice (soffice) nicht installiert: kein Vergleich.")
        return
    for docx in docx_fuer_lo.values():
        erster, weitere, lo_spitze, seiten = libreoffice(soffice, docx, runden=3)
        speicher = f"; Spitze {lo_spitze:.0f} MB" if lo_spitze else ""
        print(f"{seiten:3d} Seiten: PDF (LibreOffice, ein Prozess je Aufruf) erster Aufruf {erster:.0f} ms, "
              f"weitere {weitere:.0f} ms{speicher}")


if __name__ == "__main__":
    main()
