"""Keeping the Akten vectors current: a change to an Akte, a Beteiligter, a Dokument or a Notiz
leaves an AktenIndexAuftrag for its Akte, in the same transaction; after the commit one task
drains them, an Akte at a time.

One drain at a time (a PostgreSQL advisory lock; a second one returns at once, since the running
one takes what comes in): a burst of saves — seeding, an import — costs one worker thread and one
database connection, not one per save, and embeds each passage once. Each Akte's vectors are
refreshed from its records as they are when the drain takes it.

settings.HELENA_AKTEN_INDEX says how: "task" sends the Celery task DRAIN_TASK (the default; a
passage costs ~50 ms to embed, which no request should wait for), "inline" drains at once after
the commit (tests, a shell), "off" leaves no Auftrag (the test suite, where most records are thrown
away within milliseconds). The beat task SWEEP_TASK drains every 10 minutes, so an Auftrag whose
task was lost (Redis down) waits at most that long.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models.signals import post_delete, post_save

from akten.models import Akte, Beteiligter, Dokument, Notiz
from config.celery import app
from helena.knowledge.aktensuche.passages import refresh_akte
from helena.knowledge.models import AktenIndexAuftrag, AktenPassage

log = logging.getLogger(__name__)

DRAIN_TASK = "helena.index_akten"  # helena/tasks.py; sent by name
SWEEP_TASK = "helena.index_unindexed_akten"
_DRAIN_LOCK = 0x48454C45  # the advisory lock key of the one drain ("HELE")


def request_refresh(akte_id: int) -> None:
    """Ask for the Akte's passages to be refreshed once the current transaction commits."""
    mode = settings.HELENA_AKTEN_INDEX
    if mode == "off":
        return
    AktenIndexAuftrag.objects.bulk_create([AktenIndexAuftrag(akte_id=akte_id)], ignore_conflicts=True)
    transaction.on_commit(lambda: _start(mode))


def _start(mode: str) -> None:
    if mode == "inline":
        drain()
        return
    try:
        app.send_task(DRAIN_TASK)
    except Exception:  # the broker is down: the Auftrag stays, the sweep drains it
        log.exception("could not send %s", DRAIN_TASK)


def drain() -> int:
    """Refresh every Akte asked for, oldest first; the number refreshed (0 if another drain runs)."""
    done = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [_DRAIN_LOCK])
            if not cursor.fetchone()[0]:
                return done
        try:
            while (akte_id := _take_next()) is not None:
                refresh_akte(akte_id=akte_id)
                done += 1
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_DRAIN_LOCK])
        if not AktenIndexAuftrag.objects.exists():  # one asked for while we let go: go on
            return done


def _take_next() -> int | None:
    """The oldest Auftrag, removed before its Akte is read: a change during the refresh leaves a
    new one."""
    with transaction.atomic():
        auftrag = AktenIndexAuftrag.objects.select_for_update(skip_locked=True).order_by("pk").first()
        if auftrag is None:
            return None
        auftrag.delete()
        return auftrag.akte_id


def sweep() -> int:
    """Ask for every Akte without passages (older than semantic search, or restored), then drain."""
    indexed = AktenPassage.objects.filter(quelle=AktenPassage.Quelle.AKTE).values("akte_id")
    missing = Akte.objects.exclude(pk__in=indexed).values_list("pk", flat=True)
    AktenIndexAuftrag.objects.bulk_create([AktenIndexAuftrag(akte_id=pk) for pk in missing],
                                          ignore_conflicts=True)
    return drain()


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
