"""A newer version of a law (issue 35): `load_gesetze` updates it in place and reports what changed,
NormAenderung keeps the wording before, the statute page says so, and a citation carries its date.

Fixtures: the bundled corpus/gesetze/kschg.zip (and burlg.zip for two laws) and modified copies of
its XML in tmp_path; the sentence vectors are faked and counted (never the whole corpus).
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.template import Context, Template
from django.test import Client
from django.utils import timezone

from helena.knowledge import services
from helena.knowledge.embeddings import DIM
from helena.knowledge.models import Gesetz, Norm, NormAenderung
from helena.knowledge.normverlauf import parse_zitiert
from helena.presentation.markdown import render_markdown
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db

CORPUS = Path(settings.BASE_DIR) / "corpus" / "gesetze"
STAND_ALT = "Zuletzt geändert durch Art. 2 G v. 14.6.2021 I 1762"
STAND_NEU = "Zuletzt geändert durch Art. 3 G v. 1.4.2026 I 99"
NEUE_NORM = ('<norm doknr="TEST27"><metadaten><jurabk>KSchG</jurabk><enbez>§ 27</enbez>'
             '<titel format="parat">Übergangsvorschrift</titel></metadaten><textdaten><text format="XML">'
             '<Content><P>Testvorschrift: nur für die Tests dieser Datei erfunden.</P></Content></text>'
             '</textdaten></norm>')


def xml_of(name: str) -> str:
    with zipfile.ZipFile(CORPUS / name) as archive:
        return archive.read(archive.namelist()[0]).decode()


def _norm_block(xml: str, bezeichnung: str) -> str:
    return next(m.group() for m in re.finditer(r"<norm\b.*?</norm>", xml, re.S)
                if f"<enbez>{bezeichnung}</enbez>" in m.group())


def geaendert(xml: str) -> str:
    """KSchG as a newer version: Stand, § 4 changed, § 25a gone, § 27 new, a footnote for § 1."""
    assert xml.count(STAND_ALT) == 1
    xml = xml.replace(STAND_ALT, STAND_NEU)
    p4 = _norm_block(xml, "§ 4")
    assert "innerhalb von drei Wochen" in p4
    xml = xml.replace(p4, p4.replace("innerhalb von drei Wochen", "innerhalb von vier Wochen", 1))
    xml = xml.replace(_norm_block(xml, "§ 25a"), "")
    p1 = _norm_block(xml, "§ 1")
    fussnote = "<fussnoten><Content><P>(+++ Testfußnote +++)</P></Content></fussnoten>"
    neu = p1.replace("<fussnoten></fussnoten>", fussnote) if "<fussnoten></fussnoten>" in p1 \
        else p1.replace("</textdaten>", fussnote + "</textdaten>")
    xml = xml.replace(p1, neu)
    return xml.replace("</dokumente>", NEUE_NORM + "</dokumente>")


def zip_with(path: Path, **members: str | bytes) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name.replace("__", "."), content)
    return path


@pytest.fixture
def eingebettet(monkeypatch) -> list[int]:
    """How many passages each call embedded (a fake model: fast, the count is what matters)."""
    calls: list[int] = []

    def fake(texts, *, progress=None):
        calls.append(len(texts))
        vectors = np.zeros((len(texts), DIM), dtype=np.float32)
        vectors[:, 0] = 1.0
        if progress is not None:
            progress(len(texts), len(texts))
        return vectors

    monkeypatch.setattr(services, "embed_passages", fake)
    monkeypatch.setattr(services, "bundled_vectors", dict)  # the lead regenerates the bundle: not read here
    return calls


def load(*paths: Path | str, dry_run: bool = False) -> str:
    out = io.StringIO()
    options = ["--dry-run"] if dry_run else []
    call_command("load_gesetze", *map(str, paths), *options, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def kschg_neu(tmp_path: Path) -> Path:
    return zip_with(tmp_path / "xml.zip", BJNR004990951__xml=geaendert(xml_of("kschg.zip")))


def _pks() -> dict[str, int]:
    return dict(Norm.objects.filter(gesetz__abk="KSchG").values_list("nummer", "pk"))


# --- the update and its report --------------------------------------------------------------


def test_the_report_says_what_changed_and_the_norms_keep_their_rows(eingebettet, kschg_neu: Path) -> None:
    first = load(CORPUS / "kschg.zip")
    assert "KSchG (Kündigungsschutzgesetz): neu, 28 Normen, Stand: zuletzt geändert durch Art. 2 G" in first
    assert sum(eingebettet) == 28
    before = _pks()
    vektor_1 = bytes(Norm.objects.get(gesetz__abk="KSchG", nummer="1").vektor)
    eingebettet.clear()

    report = load(kschg_neu)
    assert report.splitlines()[:5] == [
        "KSchG (Kündigungsschutzgesetz): 1 neu, 1 geändert, 1 aufgehoben.",
        "    Stand: zuletzt geändert durch Art. 2 G v. 14.6.2021 I 1762 → "
        "zuletzt geändert durch Art. 3 G v. 1.4.2026 I 99",
        "    neu: § 27",
        "    geändert: § 4",
        "    aufgehoben: § 25a",
    ]
    assert report.splitlines()[-1].startswith("1 Gesetz mit 28 Normen importiert in ")
    assert eingebettet == [2]  # § 4 and § 27: every other passage kept its vector
    after = _pks()
    kept = {n: pk for n, pk in before.items() if n != "25a"}
    assert {n: pk for n, pk in after.items() if n != "27"} == kept
    assert "25a" not in after and after["27"] not in before.values()
    p1, p26 = (Norm.objects.get(gesetz__abk="KSchG", nummer=n) for n in ("1", "26"))
    assert p1.fussnoten == "(+++ Testfußnote +++)"
    assert bytes(p1.vektor) == vektor_1  # a footnote is not embedded: the vector stays
    assert p26.order == 27  # one place up, § 25a is gone: written, not re-embedded
    gesetz = Gesetz.objects.get(abk="KSchG")
    assert gesetz.stand == "zuletzt geändert durch Art. 3 G v. 1.4.2026 I 99"

    records = {r.nummer: r for r in NormAenderung.objects.filter(gesetz_abk="KSchG")}
    assert {n: r.art for n, r in records.items()} == {"4": "geaendert", "25a": "aufgehoben", "27": "neu"}
    assert "innerhalb von drei Wochen" in records["4"].text_vorher
    assert records["25a"].titel_vorher == "Berlin-Klausel" and records["25a"].text_vorher
    assert {(r.stand_vorher, r.stand_nachher) for r in records.values()} == {
        (gesetz.stand.replace("Art. 3 G v. 1.4.2026 I 99", "Art. 2 G v. 14.6.2021 I 1762"), gesetz.stand)}

    eingebettet.clear()
    again = load(kschg_neu)
    assert again.splitlines()[0] == "KSchG (Kündigungsschutzgesetz): unverändert."
    assert eingebettet == [] and _pks() == after and NormAenderung.objects.count() == 3


def test_a_long_list_is_cut_after_ten(eingebettet, tmp_path: Path) -> None:
    load(CORPUS / "kschg.zip")
    xml = xml_of("kschg.zip")
    for nummer in range(1, 13):  # twelve norms gone
        xml = xml.replace(_norm_block(xml, f"§ {nummer}"), "")
    report = load(zip_with(tmp_path / "kschg.zip", kschg__xml=xml))
    assert "    aufgehoben: § 1, § 2, § 3, § 4, § 5, § 6, § 7, § 8, § 9, § 10 und 2 weitere" in report


def test_dry_run_reports_and_writes_nothing(eingebettet, kschg_neu: Path) -> None:
    load(CORPUS / "kschg.zip")
    before = list(Norm.objects.filter(gesetz__abk="KSchG").values_list("pk", "nummer", "text", "order"))
    importiert_am = Gesetz.objects.get(abk="KSchG").importiert_am
    eingebettet.clear()
    report = load(kschg_neu, dry_run=True)
    assert "KSchG (Kündigungsschutzgesetz): 1 neu, 1 geändert, 1 aufgehoben." in report
    assert "Probelauf (--dry-run): 1 Gesetz mit 28 Normen gelesen in " in report
    assert "nichts gespeichert" in report
    rows = Norm.objects.filter(gesetz__abk="KSchG").values_list("pk", "nummer", "text", "order")
    assert list(rows) == before
    assert Gesetz.objects.get(abk="KSchG").importiert_am == importiert_am
    assert not NormAenderung.objects.exists() and eingebettet == []
    Gesetz.objects.all().delete()
    assert "neu, 28 Normen" in load(CORPUS / "kschg.zip", dry_run=True) and not Gesetz.objects.exists()


def test_a_zip_with_two_laws_and_an_image(eingebettet, tmp_path: Path) -> None:
    path = zip_with(tmp_path / "zwei.zip", BJNR004990951__xml=xml_of("kschg.zip"),
                    BJNR000020963__xml=xml_of("burlg.zip"), bild__jpg=b"\xff\xd8\xff kein Gesetz")
    report = load(path)
    assert set(Gesetz.objects.values_list("abk", flat=True)) == {"KSchG", "BUrlG"}
    assert "KSchG (Kündigungsschutzgesetz): neu, 28 Normen" in report and "BUrlG (" in report
    assert report.splitlines()[-1].startswith("2 Gesetze mit ")


def test_a_folder_of_files(eingebettet, tmp_path: Path, kschg_neu: Path) -> None:
    load(CORPUS / "kschg.zip")
    folder = tmp_path / "neu"
    folder.mkdir()
    kschg_neu.rename(folder / "kschg.zip")
    (folder / "BJNR000020963.xml").write_text(xml_of("burlg.zip"), encoding="utf-8")
    (folder / "liesmich.txt").write_text("kein Gesetz", encoding="utf-8")
    report = load(folder)
    assert "KSchG (Kündigungsschutzgesetz): 1 neu, 1 geändert, 1 aufgehoben." in report
    assert re.search(r"BUrlG \(.*\): neu, \d+ Normen", report)


def test_broken_input_is_a_german_error_and_changes_nothing(eingebettet, tmp_path: Path,
                                                            kschg_neu: Path) -> None:
    load(CORPUS / "kschg.zip")
    before = list(Norm.objects.filter(gesetz__abk="KSchG").values_list("pk", "text"))
    folder = tmp_path / "gemischt"
    folder.mkdir()
    kschg_neu.rename(folder / "a_kschg.zip")  # read first, yet not written
    (folder / "b_kaputt.xml").write_text("<dokumente><norm>", encoding="utf-8")
    with pytest.raises(CommandError, match=r"b_kaputt\.xml: Datei kann nicht importiert werden – Ungültiges"):
        load(folder)
    zwei = zip_with(tmp_path / "zwei.zip", a__xml=xml_of("burlg.zip"), b__xml="<kein/>")
    with pytest.raises(CommandError, match=r"zwei\.zip: .*b\.xml: Unerwartetes Wurzelelement"):
        load(zwei)
    leer = zip_with(tmp_path / "leer.zip", bild__png=b"\x89PNG")
    with pytest.raises(CommandError, match="enthält keine XML-Datei"):
        load(leer)
    assert list(Norm.objects.filter(gesetz__abk="KSchG").values_list("pk", "text")) == before
    assert set(Gesetz.objects.values_list("abk", flat=True)) == {"KSchG"}
    assert not NormAenderung.objects.exists()


# --- the statute page -----------------------------------------------------------------------


@pytest.fixture
def aktualisiert(eingebettet, kschg_neu: Path) -> None:
    load(CORPUS / "kschg.zip")
    load(kschg_neu)


def _page(kanzlei: Kanzlei, url: str, user: str = "sekretariat") -> str:
    client = Client()
    client.force_login(kanzlei.users[user])
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_the_page_shows_stand_footnotes_and_the_change(kanzlei: Kanzlei, aktualisiert: None) -> None:
    heute = timezone.localdate().strftime("%d.%m.%Y")
    html = _page(kanzlei, "/wissen/normen/KSchG/4/")
    assert "Stand: zuletzt geändert durch Art. 3 G v. 1.4.2026 I 99" in html
    assert f"Geändert mit der Aktualisierung vom {heute}" in html
    assert "Stand vorher: zuletzt geändert durch Art. 2 G" in html
    assert "<summary>Vorherige Fassung</summary>" in html and "innerhalb von drei Wochen" in html
    assert "innerhalb von vier Wochen" in html and "nach dem Zitat" not in html
    p1 = _page(kanzlei, "/wissen/normen/KSchG/1/")
    assert "<summary>Fußnoten</summary>" in p1 and "(+++ Testfußnote +++)" in p1 and "Geändert mit" not in p1
    assert f"Neu mit der Aktualisierung vom {heute}" in _page(kanzlei, "/wissen/normen/KSchG/27/")
    anonymous = Client().get("/wissen/normen/KSchG/4/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(settings.LOGIN_URL)


def test_a_repealed_norm_stays_reachable_but_is_not_found(kanzlei: Kanzlei, aktualisiert: None) -> None:
    from helena.knowledge import selectors

    html = _page(kanzlei, "/wissen/normen/KSchG/25a/")
    assert f"Aufgehoben mit der Aktualisierung vom {timezone.localdate():%d.%m.%Y}" in html
    assert "Berlin-Klausel" in html
    assert "Letzte Fassung" in html and "Land Berlin" in html
    assert not any(hit.citation == "§ 25a KSchG" for hit in selectors.search(query="§ 25a KSchG Berlin"))
    client = Client()
    client.force_login(kanzlei.users["anwalt"])
    assert client.get("/wissen/normen/KSchG/999/").status_code == 404


def test_the_page_notices_a_change_after_the_citation(kanzlei: Kanzlei, aktualisiert: None) -> None:
    heute = timezone.localdate().strftime("%d.%m.%Y")
    html = _page(kanzlei, "/wissen/normen/KSchG/4/?zitiert=2026-01-15")
    aktualisierung = f"Diese Vorschrift wurde mit der Aktualisierung des Gesetzes vom {heute}"
    assert f"{aktualisierung} geändert – nach dem Zitat vom 15.01.2026." in html
    spaeter = (timezone.localtime() + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M")
    html = _page(kanzlei, f"/wissen/normen/KSchG/4/?zitiert={spaeter}")
    assert "nach dem Zitat" not in html and "Seit dem Zitat vom" in html and "unverändert" in html
    # A citation older than Helena's copy of the law: whether the norm changed since is unknown.
    aelter = _page(kanzlei, "/wissen/normen/KSchG/1/?zitiert=2020-01-15")
    assert "Das Zitat vom 15.01.2020 ist älter als diese Fassung des Gesetzes in Helena" in aelter
    assert "unverändert" not in aelter
    gone = _page(kanzlei, "/wissen/normen/KSchG/25a/?zitiert=2026-01-15")
    assert f"{aktualisierung} aufgehoben – nach dem Zitat vom 15.01.2026." in gone
    for kaputt in ("kaputt", "2026-13-45", "9" * 200, "0001-01-01", "2026-01-15T99:00",
                   "2026-05-01T10:00%2B99:00", "%E2%82%AC"):
        html = _page(kanzlei, f"/wissen/normen/KSchG/4/?zitiert={kaputt}")
        assert "nach dem Zitat" not in html and "Seit dem Zitat" not in html and "Geändert mit" in html
    assert parse_zitiert("2026-05-01").isoformat().startswith("2026-05-01T00:00:00+02:00")


# --- citations carry their date -------------------------------------------------------------


def test_citations_link_to_the_page_with_their_date(kanzlei: Kanzlei, eingebettet, tmp_path: Path) -> None:
    from helena.conversations.services import create_conversation
    from helena.models import AgentRun, RunEvent

    load(CORPUS / "kschg.zip")
    anwalt = kanzlei.users["anwalt"]
    conversation = create_conversation(user=anwalt)
    run = AgentRun.objects.create(conversation=conversation, user=anwalt, mode="inline", tier=1,
                                  status="done")
    text = "Die Frist steht in **§ 4 Satz 1 KSchG**; siehe §§ 1, 1a KSchG, § 25a KSchG und § 999 KSchG."
    RunEvent.objects.create(run=run, seq=1, type="done", payload={"text": text, "finish_reason": "stop"})
    stamp = timezone.localtime(run.created_at).strftime("%Y-%m-%dT%H:%M")
    client = Client()
    client.force_login(anwalt)
    answer = client.get(f"/helena/laeufe/{run.pk}/antwort/").content.decode()
    assert f'<a href="/wissen/normen/KSchG/4/?zitiert={stamp}" rel="noopener noreferrer nofollow">' \
           "§ 4 Satz 1 KSchG</a>" in answer
    assert f'href="/wissen/normen/KSchG/1/?zitiert={stamp}"' in answer
    assert f'href="/wissen/normen/KSchG/1a/?zitiert={stamp}"' in answer
    assert not any("999" in href for href in re.findall(r'href="([^"]+)"', answer))
    chat = client.get(f"/helena/gespraech/{conversation.pk}/").content.decode()
    assert f'href="/wissen/normen/KSchG/4/?zitiert={stamp}"' in chat

    # After the update the link leads to the notice, and a repealed norm's citation still leads to its page.
    load(zip_with(tmp_path / "kschg-neu.zip", kschg__xml=geaendert(xml_of("kschg.zip"))))
    answer = client.get(f"/helena/laeufe/{run.pk}/antwort/").content.decode()
    assert f'href="/wissen/normen/KSchG/25a/?zitiert={stamp}"' in answer
    page = client.get(f"/wissen/normen/KSchG/4/?zitiert={stamp}").content.decode()
    assert "geändert – nach dem Zitat vom" in page


def test_markdown_links_only_norms_and_filters_carry_the_date(eingebettet) -> None:
    load(CORPUS / "kschg.zip")
    moment = timezone.make_aware(datetime(2026, 5, 1, 9, 30))
    html = render_markdown("`§ 4 KSchG` und [eigener Link](/akten/1/) und § 4 KSchG", zitiert=moment)
    assert html.count("<a ") == 2 and 'href="/akten/1/"' not in html
    assert "<code>§ 4 KSchG</code>" in html
    assert 'href="/wissen/normen/KSchG/4/?zitiert=2026-05-01T09:30"' in html
    assert "<a " not in str(render_markdown("§ 4 KSchG"))  # no date, no link: no query either
    rendered = Template("{% load helena_markdown %}{{ text|markdown:when }}|{{ text|zitate:when }}|"
                        "{{ text|zitate:none }}")
    out = rendered.render(Context({"text": "§ 4 KSchG <b>", "when": moment, "none": None}))
    links = out.count('href="/wissen/normen/KSchG/4/?zitiert=2026-05-01T09:30"')
    assert links == 2 and "<b>" not in out and out.endswith("|§ 4 KSchG &lt;b&gt;")


def test_another_process_sees_a_norm_updated_in_place(eingebettet, kschg_neu: Path) -> None:
    """The norm postings and vectors of every process are rebuilt when rows change in place (their
    ids stay): cache.TableCache's version counts the rows' xmin, not only their number and ids."""
    from helena.knowledge.cache import TableCache

    builds: list[int] = []
    cache = TableCache(table="knowledge_norm", build=lambda: builds.append(1) or len(builds))
    cache.recheck_seconds = 0  # as another process after RECHECK_SECONDS, without invalidate()
    load(CORPUS / "kschg.zip")
    assert cache.get() == cache.get() == 1
    Norm.objects.filter(gesetz__abk="KSchG", nummer="4").update(text="Geänderter Text.")
    assert cache.get() == 2


def test_the_admin_shows_the_changes_read_only(admin_client: Client, aktualisiert: None) -> None:
    client = admin_client
    listing = client.get("/admin/knowledge/normaenderung/").content.decode()
    assert "Änderungen der Normen" in listing and "§ 25a" in listing and "aufgehoben" in listing
    record = NormAenderung.objects.get(nummer="4")
    assert client.get(f"/admin/knowledge/normaenderung/{record.pk}/change/").status_code == 200  # view only
    assert client.get("/admin/knowledge/normaenderung/add/").status_code == 403
    assert client.post(f"/admin/knowledge/normaenderung/{record.pk}/delete/").status_code == 403
