"""Keeping the Akten vectors current: a change to an Akte, a Beteiligter, a Dokument or a Notiz
asks for a refresh of that Akte once its transaction commits.

settings.HELENA_AKTEN_INDEX says how: "task" sends the Celery task INDEX_TASK (the default; a
passage costs ~50 ms to embed, which no request should wait for), "inline" refreshes at once
(tests, a management shell), "off" does nothing (the test suite, where most records are thrown
away within milliseconds). Several saves of one Akte ask several times; a refresh with nothing
new to embed only reads the Akte's records (a few milliseconds).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from akten.models import Akte, Beteiligter, Dokument, Notiz
from config.celery import app
from helena.knowledge.aktensuche.passagen import refresh_akte
from helena.knowledge.models import AktenPassage

log = logging.getLogger(__name__)

INDEX_TASK = "helena.index_akte"  # helena/tasks.py; sent by name
SWEEP_BATCH = 200


def request_refresh(akte_id: int) -> None:
    """Refresh the Akte's passages after the current transaction commits."""
    mode = settings.HELENA_AKTEN_INDEX
    if mode == "off":
        return
    transaction.on_commit(lambda: _send(akte_id, mode))


def _send(akte_id: int, mode: str) -> None:
    if mode == "inline":
        refresh_akte(akte_id=akte_id)
        return
    try:
        app.send_task(INDEX_TASK, args=[akte_id])
    except Exception:  # the broker is down: the sweep picks the Akte up later
        log.exception("could not ask for a refresh of Akte %s", akte_id)


def unindexed_akten(*, limit: int = SWEEP_BATCH) -> list[int]:
    """Akten without any passage: created before semantic search, or their task was lost."""
    indexed = AktenPassage.objects.filter(quelle=AktenPassage.Quelle.AKTE).values("akte_id")
    return list(Akte.objects.exclude(pk__in=indexed).order_by("pk").values_list("pk", flat=True)[:limit])


def _changed(sender: type, instance: Any, **_: Any) -> None:
    akte_id = instance.pk if sender is Akte else instance.akte_id
    if akte_id is not None:
        request_refresh(akte_id)


def connect() -> None:
    """Called from KnowledgeConfig.ready."""
    for model in (Akte, Beteiligter, Dokument, Notiz):
        post_save.connect(_changed, sender=model, dispatch_uid=f"aktensuche-save-{model.__name__}")
        if model is not Akte:  # a deleted Akte takes its passages with it (CASCADE)
            post_delete.connect(_changed, sender=model, dispatch_uid=f"aktensuche-delete-{model.__name__}")
