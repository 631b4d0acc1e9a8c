"""The Akten vectors follow a change through a real Celery worker, and the search then finds the
new Dokument by its meaning — only for users who may see its Akte."""

from __future__ import annotations

import time

import pytest

from akten.models import Dokument
from helena.knowledge.models import AktenPassage
from tests.conftest import Kanzlei, start_celery_worker, stop_celery_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_saved_dokument_is_embedded_by_the_worker_and_found(kanzlei: Kanzlei, settings) -> None:
    settings.HELENA_AKTEN_INDEX = "task"
    akte = kanzlei.akten["A"]  # anwalt may see it, praktikant may not
    dokument = Dokument.objects.create(
        akte=akte, titel="Gesprächsnotiz Betriebsrat",
        inhalt="Der Betriebsrat wurde vor der Kündigung nicht angehört; die Anhörung fehlt ganz.")
    worker = start_celery_worker()
    try:
        deadline = time.monotonic() + 90
        while not AktenPassage.objects.filter(quelle="dokument", quelle_id=dokument.pk).exists():
            assert time.monotonic() < deadline, "the worker did not embed the Dokument"
            time.sleep(0.5)
    finally:
        stop_celery_worker(worker)

    frage = {"q": "Mitbestimmung der Arbeitnehmervertretung übergangen", "kind": "akten"}
    rows = kanzlei.client("anwalt").get("/api/v1/knowledge/search", frage).json()
    assert rows and rows[0]["dokument"] == {"id": str(dokument.pk), "titel": "Gesprächsnotiz Betriebsrat"}
    assert rows[0]["semantisch"] is True
    assert kanzlei.client("praktikant").get("/api/v1/knowledge/search", frage).json() == []
