"""Celery tasks of the firm's records (thin): the Fristen scan, reading an uploaded Dokument, an import."""

from __future__ import annotations

from celery import shared_task

from akten.dokumente.services import EXTRACT_TASK, requeue_stale_extractions, run_extraction
from akten.fristen_scan import scan_fristen
from akten.importe.laeufe import IMPORT_TASK, lauf_ausfuehren

SCAN_TASK = "akten.scan_fristen"


@shared_task(name=SCAN_TASK, ignore_result=True)
def scan_fristen_task() -> int:
    """Every few minutes (CELERY_BEAT_SCHEDULE): the day's Hinweise early, a changed Frist soon."""
    return scan_fristen().neue_hinweise


@shared_task(name=EXTRACT_TASK, ignore_result=True, acks_late=True)
def extract_dokument_task(dokument_id: int) -> None:
    """Read an uploaded Dokument's text (OCR included); progress is on the Dokument itself."""
    run_extraction(dokument_id=dokument_id)


@shared_task(name="akten.requeue_extractions", ignore_result=True)
def requeue_extractions_task() -> int:
    return requeue_stale_extractions()


@shared_task(name=IMPORT_TASK, ignore_result=True)
def import_task(lauf_id: int) -> None:
    """A Probelauf or an import of the old software's export; progress and report on the ImportLauf."""
    lauf_ausfuehren(lauf_id=lauf_id)
