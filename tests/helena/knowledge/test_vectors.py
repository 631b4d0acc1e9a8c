"""Semantic search's vectors: shipped with the bundled corpus, computed for a law loaded from XML,
ranked in memory (helena/knowledge/embeddings.py, dense.py, services.norm_vectors)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helena.knowledge import dense, services
from helena.knowledge.embeddings import DIM, embed_query, from_bytes, norm_passage, passage_key
from helena.knowledge.importers import parse_gii_xml_zip
from helena.knowledge.models import Gesetz, Norm

DATA = Path(__file__).resolve().parents[2] / "data"


def test_a_question_is_a_unit_vector_and_nearer_to_its_norm_than_to_others() -> None:
    question = embed_query("Kann mir mein Chef per WhatsApp kündigen?")
    assert question.shape == (DIM,) and abs(float(np.linalg.norm(question)) - 1.0) < 1e-3
    passages = [
        norm_passage(citation="§ 623 BGB", titel="Schriftform der Kündigung", stichworte="",
                     text="Die Beendigung von Arbeitsverhältnissen durch Kündigung oder Auflösungsvertrag "
                          "bedürfen zu ihrer Wirksamkeit der Schriftform; die elektronische Form ist "
                          "ausgeschlossen."),
        norm_passage(citation="§ 242 StGB", titel="Diebstahl", stichworte="",
                     text="Wer eine fremde bewegliche Sache einem anderen in der Absicht wegnimmt, ..."),
    ]
    vectors = services.embed_passages(passages)
    assert float(vectors[0] @ question) > float(vectors[1] @ question)


@pytest.mark.django_db
def test_the_bundled_vectors_cover_every_norm_of_the_bundled_corpus(knowledge_corpus: None) -> None:
    """corpus/vektoren.npz is current: loading the corpus computed no vector (re-run
    `manage.py embed_gesetze` when the corpus or the passage recipe changes)."""
    bundled = services.bundled_vectors()
    norms = list(Norm.objects.select_related("gesetz"))
    assert len(norms) > 9000
    stale = [n.citation for n in norms if passage_key(services.passage_of(n)) not in bundled]
    assert stale == []
    assert all(n.vektor is not None and from_bytes(bytes(n.vektor)).shape == (DIM,) for n in norms)


@pytest.mark.django_db
def test_a_law_loaded_from_xml_gets_its_vectors_computed_and_is_found_by_meaning(monkeypatch) -> None:
    monkeypatch.setattr(services, "bundled_vectors", dict)  # as for a law the bundle does not know
    parsed = parse_gii_xml_zip(DATA / "gii_kschg_sample.xml")
    seen: list[tuple[int, int]] = []
    gesetz = services.import_gesetz(parsed=parsed, progress=lambda done, total: seen.append((done, total)))
    norms = list(Norm.objects.filter(gesetz=gesetz))
    assert norms and all(n.vektor is not None for n in norms)
    assert seen and seen[-1][0] == seen[-1][1]  # the import said how far it was
    dense.invalidate()
    vector = embed_query("Wie lange habe ich Zeit, gegen meine Entlassung vor Gericht zu gehen?")
    ranked = dense.dense_index().rank(vector, gesetz_id=gesetz.pk, limit=3)
    assert ranked and {pk for pk, _ in ranked} <= {n.pk for n in norms}
    other = Gesetz.objects.create(abk="XYZ", titel="Anderes Gesetz")
    assert dense.dense_index().rank(vector, gesetz_id=other.pk, limit=3) == []


@pytest.mark.django_db
def test_load_gesetze_shows_how_far_the_vectors_of_an_xml_law_are(monkeypatch) -> None:
    """A bar per law whose vectors are computed (tqdm draws it on a terminal only)."""
    from django.core.management import call_command

    from helena.knowledge.management.commands import load_gesetze

    bars: list[dict] = []

    class Bar:
        def __init__(self, *, total: int, desc: str, **_: object) -> None:
            self.n, self.state = 0, {"desc": desc, "total": total, "n": 0, "closed": False}
            bars.append(self.state)

        def update(self, step: int) -> None:
            self.n += step
            self.state["n"] = self.n

        def close(self) -> None:
            self.state["closed"] = True

    def fake_tqdm(items: object = None, **kw: object) -> object:  # the file bars pass through
        return items if items is not None else Bar(**kw)

    monkeypatch.setattr(load_gesetze, "tqdm", fake_tqdm)
    monkeypatch.setattr(services, "bundled_vectors", dict)
    Gesetz.objects.filter(abk="KSchG").delete()  # a law loaded before keeps its vectors (in place)
    call_command("load_gesetze", str(DATA / "gii_kschg_sample.xml"), "--xml", verbosity=1)
    assert bars == [{"desc": "Vektoren KSchG", "total": 4, "n": 4, "closed": True}]
    assert Norm.objects.filter(gesetz__abk="KSchG", vektor__isnull=True).count() == 0
