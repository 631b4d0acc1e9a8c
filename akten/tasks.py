"""Celery tasks of the firm's records (thin): the Fristen scan."""

from __future__ import annotations

from celery import shared_task

from akten.hinweise import scan_fristen

SCAN_TASK = "akten.scan_fristen"


@shared_task(name=SCAN_TASK, ignore_result=True)
def scan_fristen_task() -> int:
    """Every few minutes (CELERY_BEAT_SCHEDULE): the day's Hinweise early, a changed Frist soon."""
    return scan_fristen().neue_hinweise
