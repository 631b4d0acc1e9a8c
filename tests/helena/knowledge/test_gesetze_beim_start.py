"""`make run` loads the bundled law at every start with `load_gesetze --if-outdated`: a new database
gets it, one that an older release filled with the corpus of 2021 is updated (with the report), one
that is current costs nothing, and a newer Stand a firm loaded itself is never replaced by the bundle.

Fixtures: copies of corpus/gesetze/kschg.zip and burlg.zip in tmp_path, whose Stand the law's
first norm states (importers.gii_xml.law_heads); the bundled vectors cover them."""

from __future__ import annotations

import io
import shutil
from datetime import date
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from helena.knowledge.importers import law_heads, parse_gii_xml_zip
from helena.knowledge.models import Gesetz, Norm, NormAenderung

pytestmark = pytest.mark.django_db

CORPUS = Path(settings.BASE_DIR) / "corpus" / "gesetze"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    for name in ("kschg.zip", "burlg.zip"):
        shutil.copy(CORPUS / name, tmp_path / name)
    return tmp_path


def start(folder: Path) -> str:
    out = io.StringIO()
    call_command("load_gesetze", str(folder), "--if-outdated", stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_a_law_heads_stand_is_the_one_its_full_text_states() -> None:
    head, = law_heads(CORPUS / "kschg.zip")
    full = parse_gii_xml_zip(CORPUS / "kschg.zip")
    assert (head.abk, head.stand, head.stand_datum) == (full.abk, full.stand, full.stand_datum)


def test_a_new_database_gets_the_laws_and_a_second_start_does_nothing(bundle: Path) -> None:
    first = start(bundle)
    assert "KSchG (Kündigungsschutzgesetz): neu, 28 Normen" in first
    assert set(Gesetz.objects.values_list("abk", flat=True)) == {"KSchG", "BUrlG"}
    pks = set(Norm.objects.values_list("pk", flat=True))
    assert "nichts zu tun (--if-outdated)" in start(bundle)
    assert set(Norm.objects.values_list("pk", flat=True)) == pks


def test_an_older_releases_corpus_is_updated_with_the_report(bundle: Path) -> None:
    start(bundle)
    kschg = Gesetz.objects.get(abk="KSchG")
    # as the release of 2021 left it: the Markdown corpus, an older Stand, an older § 4
    Gesetz.objects.filter(pk=kschg.pk).update(quelle=Gesetz.Quelle.MARKDOWN, stand="zuletzt geändert durch "
                                              "Art. 4 G v. 1.1.2021 I 1", stand_datum=date(2021, 1, 1))
    Norm.objects.filter(gesetz=kschg, nummer="4").update(text="Alte Fassung des § 4.")
    pk_4 = Norm.objects.get(gesetz=kschg, nummer="4").pk
    report = start(bundle)
    assert "KSchG (Kündigungsschutzgesetz): 1 geändert." in report and "geändert: § 4" in report
    assert "BUrlG" not in report  # current: not read again
    kschg.refresh_from_db()
    assert (kschg.quelle, kschg.stand_datum) == (Gesetz.Quelle.GII_XML, date(2021, 6, 14))
    assert Norm.objects.get(pk=pk_4).text.startswith("Will ein Arbeitnehmer geltend machen")
    assert NormAenderung.objects.get(nummer="4").text_vorher == "Alte Fassung des § 4."


def test_the_same_date_stated_otherwise_is_loaded_again(bundle: Path) -> None:
    """A release whose file adds a Hinweis to the same Stand ("… noch nicht berücksichtigt")."""
    start(bundle)
    stand = "zuletzt geändert durch Art. 2 G v. 14.6.2021 I 1762"
    Gesetz.objects.filter(abk="KSchG").update(stand=f"{stand} (alt)")
    assert "KSchG (Kündigungsschutzgesetz)" in start(bundle)
    assert Gesetz.objects.get(abk="KSchG").stand == stand


def test_a_newer_stand_the_firm_loaded_itself_stays(bundle: Path) -> None:
    start(bundle)
    Gesetz.objects.filter(abk="KSchG").update(stand="zuletzt geändert durch Art. 1 G v. 1.9.2026 I 5",
                                              stand_datum=date(2026, 9, 1))
    Norm.objects.filter(gesetz__abk="KSchG", nummer="4").update(text="Neuere Fassung, selbst geladen.")
    assert "nichts zu tun" in start(bundle)
    assert Norm.objects.get(gesetz__abk="KSchG", nummer="4").text == "Neuere Fassung, selbst geladen."
