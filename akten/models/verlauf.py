"""The history of a record (django-simple-history): who changed it, when, old → new, and why.

The reason is free text (an Erledigt taken back says why), so it is a TextField, not the library's
100 characters; akten/seiten/verlauf.py reads the history for the pages.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from simple_history.models import HistoricalRecords


def verlauf(titel: str, **optionen: Any) -> HistoricalRecords:
    """The history manager of one record type, named in German for the admin."""
    return HistoricalRecords(history_change_reason_field=models.TextField(null=True), verbose_name=titel,
                             **optionen)
