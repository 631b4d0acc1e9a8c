"""Importers of the knowledge base: statute Markdown and XML, decisions (JSONL), the lexicon.

Fixtures: the bundled corpus (corpus/gesetze/), tests/data/gii_kschg_sample.xml (a real KSchG
excerpt in the gesetze-im-internet.de layout) and tests/data/urteile_sample.jsonl (synthetic
decisions with obvious test markers – never real case law).
"""

from __future__ import annotations

import gzip
import io
import time
import zipfile
from dataclasses import replace
from datetime import date
from functools import cache
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from helena.knowledge.importers import (
    ImportFormatError,
    ImportProblem,
    ParsedGesetz,
    ParsedUrteil,
    canonical_abk,
    load_sachregister,
    parse_gii_xml_zip,
    parse_markdown_gesetz,
    parse_stand_datum,
    parse_urteile_jsonl,
)
from helena.knowledge.models import Gesetz, Lexem, Norm, Urteil
from helena.knowledge.services import import_gesetz, import_urteile, refresh_lexikon

CORPUS = Path(settings.BASE_DIR) / "corpus" / "gesetze"
DATA = Path(__file__).resolve().parents[2] / "data"
URTEILE = DATA / "urteile_sample.jsonl"


@cache
def corpus(name: str) -> ParsedGesetz:
    """A law of the bundled corpus (corpus/gesetze/<name>.zip, the official XML)."""
    return parse_gii_xml_zip(CORPUS / f"{name}.zip")


def norm(gesetz: ParsedGesetz, nummer: str):
    return next(n for n in gesetz.normen if n.nummer == nummer)


def xml_zip(tmp_path: Path, xml: bytes | None = None) -> Path:
    path = tmp_path / "xml.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("BJNR004990951.xml", xml or (DATA / "gii_kschg_sample.xml").read_bytes())
    return path


def stem(word: str) -> str:
    """What PostgreSQL's german configuration makes of a word (asked, not guessed)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme FROM unnest(to_tsvector('german', %s))", [word])
        return cursor.fetchone()[0]


# --- the bundled corpus (official XML) -----------------------------------------------------


def test_structure_path_follows_the_laws_outline() -> None:
    bgb = corpus("bgb")
    assert norm(bgb, "437").gliederung == (
        "Buch 2 - Recht der Schuldverhältnisse › Abschnitt 8 - Einzelne Schuldverhältnisse › "
        "Titel 1 - Kauf, Tausch › Untertitel 1 - Allgemeine Vorschriften"
    )
    # A new Titel replaces the old one and drops its Untertitel.
    assert norm(bgb, "20").gliederung.endswith("Titel 1 - Natürliche Personen, Verbraucher, Unternehmer")
    assert norm(bgb, "80").gliederung.endswith("Titel 2 - Juristische Personen › Untertitel 2 - Rechtsfähige "
                                               "Stiftungen")
    assert norm(bgb, "21").gliederung.endswith("Untertitel 1 - Vereine › Kapitel 1 - Allgemeine Vorschriften")


def test_current_law_is_bundled() -> None:
    """The law of 2026, not of 2021: the Kündigungsbutton, digital products, the new fee table."""
    bgb = corpus("bgb")
    assert norm(bgb, "312k").titel == "Kündigung von Verbraucherverträgen im elektronischen Geschäftsverkehr"
    assert norm(bgb, "327").titel == "Anwendungsbereich"
    assert "51,50 Euro" in norm(corpus("rvg"), "13").text
    assert "zehntausend Euro" in norm(corpus("gvg"), "23").text


# --- Markdown parser (bundestag/gesetze, an older source a firm may still have) -------------


def test_markdown_levels_with_a_small_document() -> None:
    text = (
        "---\nTitle: Beispielgesetz\njurabk: BspG\nslug: bspg\n\n---\n\n# Beispielgesetz (BspG)\n\n"
        "Ausfertigungsdatum\n:   2001-02-03\n\n"
        "## Teil 1 - Eins\n\n### Abschnitt 1 - A\n\n#### § 1 Erste\n\nText \\*eins\\* 13\\. Juni.\n\n"
        "### Abschnitt 2 - B\n\n#### § 2\n\n(1) Satz.\n\n(2) Satz.\n\n"
        "## Teil 2 - Zwei\n\n### (XXXX) §§ 3 bis 5 (weggefallen)\n\n### § 5a (weggefallen)\n\n-\n"
    )
    parsed = parse_markdown_gesetz(text)
    assert (parsed.abk, parsed.titel) == ("BspG", "Beispielgesetz")
    assert (parsed.stand, parsed.stand_datum) == ("Ausfertigung vom 03.02.2001", date(2001, 2, 3))
    assert [(n.bezeichnung, n.nummer, n.titel, n.gliederung) for n in parsed.normen] == [
        ("§ 1", "1", "Erste", "Teil 1 - Eins › Abschnitt 1 - A"),
        ("§ 2", "2", "", "Teil 1 - Eins › Abschnitt 2 - B"),
        ("§ 3", "3", "", "Teil 2 - Zwei"),
        ("§ 4", "4", "", "Teil 2 - Zwei"),
        ("§ 5", "5", "", "Teil 2 - Zwei"),
        ("§ 5a", "5a", "", "Teil 2 - Zwei"),
    ]
    assert [n.order for n in parsed.normen] == [1, 2, 3, 4, 5, 6]
    assert parsed.normen[0].text == "Text *eins* 13. Juni."
    assert parsed.normen[1].text == "(1) Satz.\n\n(2) Satz."
    assert {n.text for n in parsed.normen[2:]} == {"(weggefallen)"}


def test_norm_without_title_and_art_normalisation() -> None:
    gg = corpus("gg")
    art3 = norm(gg, "3")
    assert (art3.bezeichnung, art3.titel) == ("Art. 3", "")
    assert art3.text.startswith("(1) Alle Menschen sind vor dem Gesetz gleich.\n\n(2) Männer und Frauen")
    assert norm(gg, "143a").bezeichnung == "Art. 143a"
    assert norm(gg, "75").text == "(weggefallen)"
    assert norm(gg, "präambel").text.startswith("Im Bewußtsein seiner Verantwortung")
    assert norm(corpus("brao"), "43a").bezeichnung == "§ 43a"


def test_egbgb_articles_and_their_paragraphs_are_citable() -> None:
    """The EGBGB files its articles as units of the outline: Art. 6 has its own text, Art. 229 and
    Art. 246a are made of paragraphs cited "Art. 229 § 6 EGBGB"."""
    egbgb = corpus("bgbeg")
    assert egbgb.abk == "EGBGB"
    assert norm(egbgb, "6").titel == "Öffentliche Ordnung (ordre public)"
    art_229_6 = norm(egbgb, "229§6")
    assert art_229_6.bezeichnung == "Art. 229 § 6"
    assert art_229_6.titel.startswith("Überleitungsvorschrift zum Verjährungsrecht")
    assert art_229_6.gliederung.endswith("Art 229")
    assert norm(egbgb, "246a§1").text.startswith("(1) Der Unternehmer ist nach § 312d Absatz 1")
    assert norm(egbgb, "anlage1").titel.startswith("(zu Artikel 246a § 1 Absatz 2 Satz 2) Muster")


def test_stand_and_abbreviations() -> None:
    bgb = corpus("bgb")
    assert bgb.stand == "zuletzt geändert durch Art. 1 G v. 29.3.2026 I Nr. 83"
    assert bgb.stand_datum == date(2026, 3, 29)
    assert (bgb.abk, bgb.titel, bgb.quelle) == ("BGB", "Bürgerliches Gesetzbuch", "gii_xml")
    assert corpus("woeigg").abk == "WEG" and corpus("gkg_2004").abk == "GKG"
    assert corpus("sgb_5").abk == "SGB V" and corpus("sgb_10").abk == "SGB X"
    # A change in force that the text does not contain yet is part of the Stand everyone sees.
    assert corpus("asylvfg_1992").stand == (
        "zuletzt geändert durch Art. 1 G v. 22.12.2025 I Nr. 364; Hinweis: Änderung durch Art. 1 Nr. 1 bis "
        "92 G v. 23.4.2026 I Nr. 111 mWv 12.6.2026 noch nicht berücksichtigt")
    mietneinv = corpus("mietneinv")  # no Stand: its Ausfertigung
    assert (mietneinv.stand, mietneinv.stand_datum) == ("Ausfertigung vom 18.08.2021", date(2021, 8, 18))
    assert parse_stand_datum("Art. 1 G v. 31.2.2021 I 1") is None
    assert canonical_abk("BDSG 2018") == "BDSG" and canonical_abk("SGB 12") == "SGB XII"


def test_text_is_readable_and_footnotes_stand_apart() -> None:
    kschg_1 = norm(corpus("kschg"), "1")
    assert kschg_1.text.startswith("(1) Die Kündigung des Arbeitsverhältnisses gegenüber einem Arbeitnehmer, "
                                   "dessen")
    assert "\n\n(2) Sozial ungerechtfertigt" in kschg_1.text
    assert "\n\n1. in Betrieben des privaten Rechts\n\n    a) die Kündigung" in kschg_1.text
    bgb_14 = norm(corpus("bgb"), "14")
    assert bgb_14.text.endswith("Amtlicher Hinweis:\nDiese Vorschrift dient der Umsetzung der eingangs "
                                "zu den Nummern 3, 4, 6, 7, 9 und 11 genannten Richtlinien.")
    assert "\n2 000 | 500 | 41,50\n" in norm(corpus("rvg"), "13").text  # a table: one row a line
    art_6 = norm(corpus("bgbeg"), "6")
    assert art_6.fussnoten == "(+++ Art. 6: Zur Anwendung vgl. Art. 17 Abs. 2 Nr. 5 BGBEG +++)"
    assert "+++" not in art_6.text


def test_anlagen_are_citable() -> None:
    rvg = corpus("rvg")
    vv = norm(rvg, "anlage1")
    assert (vv.bezeichnung, vv.titel, vv.gliederung) == (
        "Anlage 1", "(zu § 2 Absatz 2) Vergütungsverzeichnis", "")
    assert "Teil 3 | Zivilsachen" in vv.text and "3100" not in vv.text  # what precedes the first entry


def test_fee_schedules_are_split_into_their_numbered_entries() -> None:
    """Nr. 3100 VV RVG, Nr. 1210 KV GKG, Vorbemerkung 3 VV RVG are norms of their own, each with
    its fee, its Anmerkung and the Teil and Abschnitt it sits in (as the Bundesgesetzblatt has it)."""
    rvg, gkg = corpus("rvg"), corpus("gkg_2004")
    nr3100 = norm(rvg, "vv3100")
    assert nr3100.bezeichnung == "Nr. 3100 VV"
    assert nr3100.titel == "Verfahrensgebühr, soweit in Nummer 3102 nichts anderes bestimmt ist"
    assert "Gebühr oder Satz der Gebühr nach § 13 RVG: 1,3" in nr3100.text
    assert "(1) Die Verfahrensgebühr für ein vereinfachtes Verfahren über den Unterhalt" in nr3100.text
    # The XML prints a Teil's heading only in the table of contents: the entry's number says it.
    assert nr3100.gliederung.startswith("Anlage 1 Vergütungsverzeichnis › Teil 3 Zivilsachen")
    assert nr3100.gliederung.endswith("› Abschnitt 1 Erster Rechtszug")
    assert "0,5 bis 2,5" in norm(rvg, "vv2300").text
    post = "Pauschale für Entgelte für Post- und Telekommunikationsdienstleistungen"
    assert norm(rvg, "vv7002").titel == post
    assert norm(rvg, "vv7002").gliederung == "Anlage 1 Vergütungsverzeichnis › Teil 7 Auslagen"
    vorb3 = norm(rvg, "vvvorb3")
    assert vorb3.bezeichnung == "Vorbemerkung 3 VV"
    assert "(4) Soweit wegen desselben Gegenstands eine Geschäftsgebühr nach Teil 2 entsteht" in vorb3.text
    nr1210 = norm(gkg, "kv1210")
    assert (nr1210.bezeichnung, nr1210.titel) == ("Nr. 1210 KV", "Verfahren im Allgemeinen")
    assert "Gebühr oder Satz der Gebühr nach § 34 GKG: 3,0" in nr1210.text
    assert nr1210.gliederung.endswith("Unterabschnitt 1 Verfahren vor dem Amts- oder Landgericht")
    assert norm(corpus("brao"), "gv1110").text.endswith("240,00 EUR")
    entries = [n for n in rvg.normen if n.nummer.startswith("vv") and "vorb" not in n.nummer]
    assert len(entries) > 200 and [n.order for n in rvg.normen] == list(range(1, len(rvg.normen) + 1))
    assert norm(rvg, "anlage2").text.count(" | ") > 20  # the fee table stays one norm


def test_three_versions_of_a_norm_stay_apart() -> None:
    """A source that prints a norm three times, differently, keeps each one citable."""
    xml = "".join(
        f'<norm><metadaten><jurabk>TG</jurabk><enbez>§ 1</enbez></metadaten><textdaten><text format="XML">'
        f"<Content><P>Fassung {n}</P></Content></text></textdaten></norm>" for n in (1, 2, 3))
    parsed = parse_gii_xml_zip(f"<dokumente>{xml}</dokumente>".encode())
    assert [(n.bezeichnung, n.nummer) for n in parsed.normen] == [
        ("§ 1", "1"), ("§ 1 (weitere Fassung)", "1#2"), ("§ 1 (3. Fassung)", "1#3")]


def test_whole_corpus_parses_with_unique_citations() -> None:
    total = 0
    for path in sorted(CORPUS.glob("*.zip")):
        parsed = corpus(path.stem)
        nummern = [n.nummer for n in parsed.normen]
        assert len(nummern) == len(set(nummern)), path.name
        assert parsed.stand and parsed.stand_datum, path.name
        total += len(nummern)
    assert total > 20000


# --- XML parser -----------------------------------------------------------------------------


def test_xml_sample(tmp_path: Path) -> None:
    parsed = parse_gii_xml_zip(xml_zip(tmp_path))
    assert (parsed.abk, parsed.titel, parsed.quelle) == ("KSchG", "Kündigungsschutzgesetz", "gii_xml")
    assert parsed.stand == "zuletzt geändert durch Art. 2 G v. 14.6.2021 I 1762"
    assert parsed.stand_datum == date(2021, 6, 14)
    assert [(n.bezeichnung, n.order) for n in parsed.normen] == [
        ("§ 1", 1), ("§ 4", 2), ("§ 7", 3), ("§ 16", 4)
    ]
    p1 = parsed.normen[0]
    assert p1.titel == "Sozial ungerechtfertigte Kündigungen"
    assert p1.gliederung == "Erster Abschnitt - Allgemeiner Kündigungsschutz"
    assert [para[:3] for para in p1.text.split("\n\n") if para.startswith("(")] == [
        "(1)", "(2)", "(3)", "(4)", "(5)"
    ]
    assert parsed.normen[3].gliederung.startswith("Zweiter Abschnitt - Kündigungsschutz im Rahmen")
    # Same law, same text whichever format it came from.
    markdown = corpus("kschg")
    for xml_norm in parsed.normen:
        md_norm = norm(markdown, xml_norm.nummer)
        assert (xml_norm.titel, xml_norm.text, xml_norm.gliederung) == (
            md_norm.titel, md_norm.text, md_norm.gliederung
        )


def test_xml_markup() -> None:
    # Synthetic markup test (not a real law): BR, SUP, footnotes, tables, ranges, Anlagen.
    xml = """<?xml version="1.0" encoding="UTF-8"?><dokumente>
    <norm><metadaten><jurabk>MarkupG 2004</jurabk><langue>Markup-Testdokument</langue></metadaten></norm>
    <norm><metadaten><jurabk>MarkupG 2004</jurabk><enbez>Inhaltsübersicht</enbez></metadaten>
      <textdaten><text><TOC><Title>Inhalt</Title></TOC></text></textdaten></norm>
    <norm><metadaten><jurabk>MarkupG 2004</jurabk><enbez>§§ 1 bis 2</enbez><titel>(weggefallen)</titel>
      </metadaten><textdaten><text><Content><P>-</P></Content></text></textdaten></norm>
    <norm><metadaten><jurabk>MarkupG 2004</jurabk><enbez>Art 3</enbez><titel>Fläche in m<SUP>2</SUP></titel>
      </metadaten><textdaten><text><Content><P><FnR ID="F1"/>(1) Eins<BR/>zwei</P>
      <table><tgroup cols="2"><tbody><row><entry>A</entry><entry>B</entry></row>
      <row><entry>1</entry><entry>2</entry></row></tbody></tgroup></table></Content>
      <Footnotes><Footnote ID="F1"><B>Amtlicher Hinweis:</B> Dient der Umsetzung.</Footnote></Footnotes>
      </text></textdaten></norm>
    <norm><metadaten><jurabk>MarkupG 2004</jurabk><enbez>Anlage 1</enbez><titel>(zu § 3) Verzeichnis</titel>
      </metadaten><textdaten><text><Content><P>Inhalt</P></Content></text></textdaten></norm>
    </dokumente>""".encode()
    parsed = parse_gii_xml_zip(xml)
    assert (parsed.abk, parsed.stand, parsed.stand_datum) == ("MarkupG", "", None)
    assert [(n.bezeichnung, n.nummer, n.titel, n.text) for n in parsed.normen] == [
        ("§ 1", "1", "", "(weggefallen)"),
        ("§ 2", "2", "", "(weggefallen)"),
        ("Art. 3", "3", "Fläche in m2",
         "(1) Eins\nzwei\n\nA | B\n1 | 2\n\nAmtlicher Hinweis: Dient der Umsetzung."),
        ("Anlage 1", "anlage1", "(zu § 3) Verzeichnis", "Inhalt"),
    ]


def test_xml_rejects_entities_and_broken_archives(tmp_path: Path) -> None:
    bomb = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><dokumente>&a;</dokumente>'
    with pytest.raises(ImportFormatError, match="Entity"):
        parse_gii_xml_zip(xml_zip(tmp_path, bomb))
    utf16 = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE d [<!ENTITY a "aaaa">]><dokumente/>'
    with pytest.raises(ImportFormatError, match="UTF-8"):  # the entity check must not be bypassed
        parse_gii_xml_zip(xml_zip(tmp_path, utf16.encode("utf-16")))
    with pytest.raises(ImportFormatError, match="ZIP"):
        parse_gii_xml_zip(b"PK\x03\x04 kaputt")
    with pytest.raises(ImportFormatError, match="XML"):
        parse_gii_xml_zip(b"<dokumente><norm>")


# --- statute import -------------------------------------------------------------------------


@pytest.mark.django_db
def test_import_gesetz_is_idempotent_and_replaces_text() -> None:
    kschg = corpus("kschg")
    first = import_gesetz(parsed=kschg)
    counts = (Gesetz.objects.count(), Norm.objects.filter(gesetz__abk="KSchG").count())
    pks = set(Norm.objects.filter(gesetz__abk="KSchG").values_list("pk", flat=True))
    second = import_gesetz(parsed=kschg)
    assert (Gesetz.objects.count(), Norm.objects.filter(gesetz__abk="KSchG").count()) == counts
    assert counts[1] == len(kschg.normen) == 28
    assert second.pk == first.pk  # updated in place (tests/helena/knowledge/test_gesetze_aktualisieren.py)
    assert set(Norm.objects.filter(gesetz__abk="KSchG").values_list("pk", flat=True)) == pks
    assert second.stand_datum == date(2021, 6, 14)

    changed = replace(kschg, normen=[replace(n) for n in kschg.normen])
    norm(changed, "4").text = "Geänderter Text."  # § 4 in a newer version
    import_gesetz(parsed=changed)
    assert Norm.objects.get(gesetz__abk="KSchG", nummer="4").text == "Geänderter Text."
    assert Norm.objects.filter(gesetz__abk="KSchG").count() == counts[1]


@pytest.mark.django_db
def test_load_gesetze_reads_an_xml_zip_a_folder_and_a_bare_xml_file(tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("load_gesetze", str(xml_zip(tmp_path)), stdout=out)
    assert out.getvalue().startswith("KSchG (Kündigungsschutzgesetz): neu, 4 Normen, Stand: ")
    assert out.getvalue().splitlines()[-1].startswith("1 Gesetz mit 4 Normen importiert in ")
    gesetz = Gesetz.objects.get(abk="KSchG")
    assert (gesetz.quelle, gesetz.stand_datum) == ("gii_xml", date(2021, 6, 14))
    assert gesetz.source_label == (
        "nicht amtliche Fassung, Stand: zuletzt geändert durch Art. 2 G v. 14.6.2021 I 1762"
    )
    text = gesetz.normen.get(nummer="1").text
    assert "\n\n(2) Sozial ungerechtfertigt" in text and "\n\n    a) die Kündigung" in text
    # --xml reads a directory of xml.zip files; an unzipped .xml file is read as well
    call_command("load_gesetze", "--only", "KSchG", verbosity=0)
    call_command("load_gesetze", str(tmp_path), "--xml", verbosity=0)
    assert Norm.objects.filter(gesetz__abk="KSchG").count() == 4
    call_command("load_gesetze", "--only", "KSchG", verbosity=0)
    call_command("load_gesetze", str(DATA / "gii_kschg_sample.xml"), verbosity=0)
    assert Norm.objects.filter(gesetz__abk="KSchG").count() == 4


@pytest.mark.django_db
def test_only_skips_the_other_laws_of_a_folder_unread(tmp_path: Path) -> None:
    """`--only KSchG` on a folder: a file that says in its first norm that it holds another law is
    not read further, so damage further down in it stops nothing; damage in the wanted law does."""
    sample = (DATA / "gii_kschg_sample.xml").read_bytes()
    (tmp_path / "kschg.xml").write_bytes(sample)
    other = sample.replace(b"KSchG", b"AnderesG")
    other = other[:other.index(b"</norm>") + len(b"</norm>")] + b"<norm><metadaten>abgeschnitten"
    (tmp_path / "anderes.xml").write_bytes(other)

    call_command("load_gesetze", str(tmp_path), "--only", "KSchG", verbosity=0)
    assert list(Gesetz.objects.values_list("abk", flat=True)) == ["KSchG"]
    assert Norm.objects.filter(gesetz__abk="KSchG").count() == 4

    with pytest.raises(CommandError, match=r"anderes\.xml"):
        call_command("load_gesetze", str(tmp_path), "--only", "AnderesG", verbosity=0)
    assert not Gesetz.objects.filter(abk="AnderesG").exists()


@pytest.mark.django_db
def test_load_gesetze_whole_corpus() -> None:
    Gesetz.objects.all().delete()
    out = io.StringIO()
    start = time.perf_counter()
    call_command("load_gesetze", stdout=out)
    elapsed = time.perf_counter() - start
    assert elapsed < 60
    assert Gesetz.objects.count() == 109
    normen = Norm.objects.count()
    assert normen > 20000
    last = out.getvalue().splitlines()[-1]
    assert last.startswith(f"109 Gesetze mit {normen:,} Normen importiert in ".replace(",", "."))

    p517 = Norm.objects.get(gesetz__abk="ZPO", nummer="517")
    assert (p517.bezeichnung, p517.titel, p517.citation) == ("§ 517", "Berufungsfrist", "§ 517 ZPO")
    assert "Notfrist" in p517.text
    assert Norm.objects.get(gesetz__abk="GG", nummer="3").bezeichnung == "Art. 3"
    assert Norm.objects.get(gesetz__abk="BRAO", nummer="43a").titel == "Grundpflichten"
    assert Lexem.objects.filter(wort=stem("Berufungsfrist")).exists()

    # a second run finds every law as it is and writes nothing
    out = io.StringIO()
    call_command("load_gesetze", stdout=out)
    assert out.getvalue().count(": unverändert.") == 109
    assert (Gesetz.objects.count(), Norm.objects.count()) == (109, normen)


@pytest.mark.django_db
def test_load_gesetze_if_empty_skips_when_laws_exist() -> None:
    Gesetz.objects.all().delete()
    call_command("load_gesetze", "--if-empty", "--only", "KSchG", "BUrlG", verbosity=0)
    assert set(Gesetz.objects.values_list("abk", flat=True)) == {"KSchG", "BUrlG"}
    out = io.StringIO()
    call_command("load_gesetze", "--if-empty", stdout=out)
    assert Gesetz.objects.count() == 2
    assert "bereits 2 Gesetze importiert" in out.getvalue()


@pytest.mark.django_db
def test_load_gesetze_errors_are_german(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"Pfad nicht gefunden: .*gibt-es-nicht"):
        call_command("load_gesetze", str(tmp_path / "gibt-es-nicht"))
    with pytest.raises(CommandError, match="Keine Gesetzesdateien"):
        call_command("load_gesetze", str(tmp_path))
    broken = tmp_path / "kaputt.md"
    broken.write_text("---\nTitle: Ohne Ende\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"kaputt\.md"):
        call_command("load_gesetze", str(broken))
    empty = tmp_path / "leer.md"
    empty.write_text("---\njurabk: LeerG\n---\n\n# Leer\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"leer\.md: keine Normen"):
        call_command("load_gesetze", str(empty))
    bad_zip = tmp_path / "kaputt.zip"
    bad_zip.write_bytes(b"PK\x03\x04 nicht wirklich ein zip")
    with pytest.raises(CommandError, match=r"kaputt\.zip"):
        call_command("load_gesetze", str(bad_zip))
    with pytest.raises(CommandError, match="Nicht gefunden: XYZ"):
        call_command("load_gesetze", "--only", "XYZ", verbosity=0)
    assert not Gesetz.objects.filter(abk="LeerG").exists()


# --- decisions ------------------------------------------------------------------------------


def test_parse_urteile_reports_bad_lines() -> None:
    items = list(parse_urteile_jsonl(URTEILE.read_bytes().splitlines()))
    urteile = [i for i in items if isinstance(i, ParsedUrteil)]
    problems = [i for i in items if isinstance(i, ImportProblem)]
    assert [u.aktenzeichen for u in urteile] == ["TEST 1/26", "TEST 2/26", "TEST 3/26"]
    assert [(p.line_no, p.message.split(" ")[0]) for p in problems] == [
        (4, "Kein"), (5, "Gericht"), (6, "Ungültiges"), (7, "Aktenzeichen")
    ]
    first = urteile[0]
    assert (first.gericht, first.datum, first.typ, first.ecli) == (
        "Testgericht", date(2026, 1, 15), "Urteil", "ECLI:DE:TEST:2026:1"
    )
    assert first.quelle == "https://de.openlegaldata.io/case/testgericht-2026-01-15-test-1-26"
    assert first.leitsatz == "Synthetischer Testleitsatz zur Kündigungsschutzklage."
    assert "ohne rechtliche Bedeutung.\nZweite Zeile.\n\nZweiter Absatz & Schluss." in first.text
    assert "<" not in first.text
    assert urteile[2].leitsatz == "Synthetischer Leitsatz aus dem Feld abstract."


@pytest.mark.django_db
def test_load_urteile_is_idempotent(tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("load_urteile", str(URTEILE), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("3 Entscheidungen neu angelegt, 0 aktualisiert, 4 Zeilen übersprungen")
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["Zeile 4", "Zeile 5", "Zeile 6", "Zeile 7"]
    assert Urteil.objects.count() == 3

    gz = tmp_path / "urteile.jsonl.gz"
    gz.write_bytes(gzip.compress(URTEILE.read_bytes()))
    out = io.StringIO()
    call_command("load_urteile", str(gz), stdout=out)
    assert out.getvalue().startswith("0 Entscheidungen neu angelegt, 3 aktualisiert, 4 Zeilen übersprungen")
    assert Urteil.objects.count() == 3
    urteil = Urteil.objects.get(ecli="ECLI:DE:TEST:2026:1")
    assert urteil.citation == "Testgericht, 15.01.2026 – TEST 1/26"
    # the decisions' words are in the lexicon (PostgreSQL's german stemmer: lower case, no umlauts)
    assert stem("Kündigungsschutzklage") == "kundigungsschutzklag"
    assert Lexem.objects.filter(wort="kundigungsschutzklag").exists()


@pytest.mark.django_db
def test_load_urteile_errors(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="Datei nicht gefunden"):
        call_command("load_urteile", str(tmp_path / "fehlt.jsonl"))
    broken = tmp_path / "kaputt.jsonl.gz"
    broken.write_bytes(b"\x1f\x8b kein gzip")
    with pytest.raises(CommandError, match=r"kaputt\.jsonl\.gz"):
        call_command("load_urteile", str(broken), verbosity=0)


def _urteil(**changes) -> ParsedUrteil:
    base = ParsedUrteil(
        gericht="Testgericht", datum=date(2026, 2, 1), aktenzeichen="TEST 9/26", typ="Urteil",
        leitsatz="", text="Synthetisch.", ecli="", quelle="Test",
    )
    return replace(base, **changes)


@pytest.mark.django_db
def test_import_urteile_matches_without_ecli_and_dedupes_batches() -> None:
    result = import_urteile(items=[_urteil(), _urteil(text="Neuer als die Zeile davor.")])
    assert (result.created, result.updated) == (1, 0)
    assert Urteil.objects.get().text == "Neuer als die Zeile davor."
    # the same decision, now with an ECLI: updates the row instead of adding one
    result = import_urteile(items=[_urteil(ecli="ECLI:DE:TEST:2026:9", text="Mit ECLI.")], batch_size=1)
    assert (result.created, result.updated) == (0, 1)
    # and a later line without ECLI keeps it
    result = import_urteile(items=iter([_urteil(text="Wieder ohne ECLI."), ImportProblem(3, "kaputt")]))
    assert (result.created, result.updated, len(result.problems)) == (0, 1, 1)
    assert Urteil.objects.get().ecli == "ECLI:DE:TEST:2026:9"
    result = import_urteile(items=[_urteil(aktenzeichen="TEST 10/26")])
    assert (result.created, Urteil.objects.count()) == (1, 2)


# --- lexicon --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_refresh_lexikon_collects_stems() -> None:
    Gesetz.objects.all().delete()
    import_gesetz(parsed=corpus("kschg"))
    count = refresh_lexikon()
    assert count == Lexem.objects.count() > 500
    # "Änderungskündigung" (title of § 2 KSchG) as the german stemmer stores it
    assert stem("Änderungskündigung") == "anderungskund"
    wort = Lexem.objects.get(wort="anderungskund")
    assert wort.ndoc >= 1
    assert Lexem.objects.get(wort=stem("Kündigungsschutz")).ndoc >= 1
    assert not Lexem.objects.filter(wort__regex=r"^[0-9]+$").exists()
    assert refresh_lexikon() == count  # rebuilt, not appended


@pytest.mark.django_db
def test_sachregister_keywords_make_norms_findable(tmp_path: Path) -> None:
    (tmp_path / "kschg.json").write_text(
        '{"§ 4": ["Zauberwortfrist", "gekündigt klagen"], "Art. 9": ["nicht da"], "kaputt": 3}',
        encoding="utf-8",
    )
    (tmp_path / "kschg_teil2.json").write_text('{"§ 4": ["Dreiwochenfrist"]}', encoding="utf-8")
    (tmp_path / "bgb.json").write_text("{kein json", encoding="utf-8")
    register = load_sachregister(tmp_path, "KSchG")
    assert register == {"4": "Zauberwortfrist · gekündigt klagen · Dreiwochenfrist", "9": "nicht da"}
    assert load_sachregister(tmp_path, "BGB") == {}
    import_gesetz(parsed=corpus("kschg"), stichworte=register)
    refresh_lexikon()
    from helena.knowledge.selectors import search

    assert [hit.citation for hit in search(query="Zauberwortfrist", kind="gesetz")][:1] == ["§ 4 KSchG"]


def test_bundled_sachregister_refers_to_existing_norms() -> None:
    directory = Path(settings.BASE_DIR) / "corpus" / "sachregister"
    for path in sorted(directory.glob("*.json")):
        law = path.stem.split("_")[0]
        file = {"gkg": "gkg_2004", "uwg": "uwg_2004", "bdsg": "bdsg_2018", "weg": "woeigg"}.get(law, law)
        numbers = {n.nummer for n in corpus(file).normen}
        register = load_sachregister(directory, corpus(file).abk)
        unknown = sorted(set(register) - numbers)
        assert not unknown, f"{path.name}: {unknown[:10]}"
