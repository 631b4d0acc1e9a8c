"""„@Helena“ in a new Notiz starts a task (helena.proactive.auftraege.auftrag_aus_notiz), once the
Notiz is saved; and a change to an Akte's Dokumente, Notizen or Fristen asks for a refresh of
Helena's memory of it (helena/proactive/memory.py).

A task that cannot start (the rate limit, say) must not undo the Notiz: the author gets a Hinweis
saying why instead.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from akten.models import Alert, Dokument, Frist, Notiz
from config.errors import DomainError
from helena.infra import settings_cache
from helena.models import HelenaSettings, ModelTier, RateLimit, TaskRoute
from helena.proactive.auftraege import HELENA_MENTION, auftrag_aus_notiz
from helena.proactive.memory import request_refresh

log = logging.getLogger(__name__)


def _start(notiz: Notiz) -> None:
    try:
        auftrag_aus_notiz(notiz=notiz)
    except DomainError as exc:  # RunRefused among them
        log.info("task from Notiz %s refused: %s", notiz.pk, exc)
        Alert.objects.create(empfaenger=notiz.verfasst_von, akte=notiz.akte, art=Alert.Art.AUFGABE,
                             severity=Alert.Severity.WARNING,
                             message=f"Dein Auftrag an Helena aus der Notiz konnte nicht starten: {exc}")


def _notiz_saved(sender: type, instance: Notiz, created: bool, **_: Any) -> None:
    if created and (instance.inhalt or "").strip().casefold().startswith(HELENA_MENTION):
        transaction.on_commit(lambda: _start(instance))


def _akte_changed(sender: type, instance: Any, **_: Any) -> None:
    if instance.akte_id is not None:
        akte_id = instance.akte_id
        transaction.on_commit(lambda: request_refresh(akte_id=akte_id))


def connect() -> None:
    post_save.connect(_notiz_saved, sender=Notiz, dispatch_uid="helena-notiz-auftrag")
    for model in (Dokument, Notiz, Frist):
        post_save.connect(_akte_changed, sender=model, dispatch_uid=f"helena-gedaechtnis-{model.__name__}")
        post_delete.connect(_akte_changed, sender=model,
                            dispatch_uid=f"helena-gedaechtnis-del-{model.__name__}")
    # The admin's settings are cached per process (helena/infra/settings_cache.py): a change invalidates them.
    for model in (HelenaSettings, ModelTier, TaskRoute, RateLimit):
        for signal in (post_save, post_delete):
            signal.connect(settings_cache.changed, sender=model, weak=False,
                           dispatch_uid=f"helena-admin-cache-{model.__name__}")
