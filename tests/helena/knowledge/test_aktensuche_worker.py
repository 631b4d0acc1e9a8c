"""The Akten vectors follow a change through a real Celery worker, and the search then finds the
new Dokument by its meaning — only for users who may see its Akte. A burst of saves is drained
once, one drain at a time, and a change outlives a lost task."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import transaction

from akten.models import Dokument, Notiz
from helena.knowledge.aktensuche import indexing
from helena.knowledge.models import AktenIndexAuftrag, AktenPassage
from tests.conftest import Kanzlei, database_url, start_celery_worker, stop_celery_worker

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


def test_a_burst_of_saves_is_one_auftrag_per_akte_and_one_drain(kanzlei: Kanzlei, settings,
                                                                monkeypatch) -> None:
    settings.HELENA_AKTEN_INDEX = "task"
    sent: list[str] = []
    monkeypatch.setattr(indexing.app, "send_task", lambda name, **_: sent.append(name))
    a, b = kanzlei.akten["A"], kanzlei.akten["B"]
    with transaction.atomic():
        for n in range(10):
            Dokument.objects.create(akte=a, titel=f"Schreiben {n}", inhalt="Mahnung wegen offener Miete.")
        Notiz.objects.create(akte=b, titel="Anruf", inhalt="Mandantin ruft zurück.")
        assert not sent  # nothing leaves before the commit
    assert set(AktenIndexAuftrag.objects.values_list("akte_id", flat=True)) == {a.pk, b.pk}
    assert sent and set(sent) == {indexing.DRAIN_TASK}

    assert indexing.drain() == 2  # one pass over both Akten, whatever number of tasks was sent
    assert not AktenIndexAuftrag.objects.exists()
    assert AktenPassage.objects.filter(akte=a, quelle="dokument").count() == 10
    assert indexing.drain() == 0


def test_only_one_drain_runs_and_an_auftrag_outlives_a_lost_task(kanzlei: Kanzlei, settings,
                                                                 monkeypatch) -> None:
    settings.HELENA_AKTEN_INDEX = "task"

    def broker_down(name: str, **_: object) -> None:
        raise ConnectionError("Redis ist nicht erreichbar")

    monkeypatch.setattr(indexing.app, "send_task", broker_down)
    akte = kanzlei.akten["C"]
    Dokument.objects.create(akte=akte, titel="Testament", inhalt="Das Testament liegt im Tresor.")
    assert AktenIndexAuftrag.objects.filter(akte_id=akte.pk).exists()  # the save went through

    with psycopg.connect(database_url(), autocommit=True) as other:  # another drain holds the lock
        other.execute("SELECT pg_advisory_lock(%s)", [indexing._DRAIN_LOCK])
        assert indexing.drain() == 0
        other.execute("SELECT pg_advisory_unlock(%s)", [indexing._DRAIN_LOCK])
    assert indexing.sweep() >= 1  # the beat task's drain takes it
    assert AktenPassage.objects.filter(akte=akte, quelle="dokument").exists()

    akte.delete()  # its Dokumente ask for it while it goes: no dangling reference, nothing to do
    assert indexing.drain() == 1
    assert not AktenPassage.objects.filter(akte_id=akte.pk).exists()
