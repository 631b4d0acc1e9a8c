"""A new Hinweis that may be mailed starts its e-mail once it is committed. Whoever gives it (the
Vier-Augen step in akten/erfassung/, an Auftrag's end in Helena) need not know about e-mail; the
scan's Hinweise (bulk-created, no signal) are collected by the scan's own task."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from akten.mail.arten import MAIL_ARTEN
from akten.mail.services import mail_eingerichtet
from akten.models import Alert
from akten.tasks import hinweise_mailen_anstossen


def _neuer_hinweis(sender: type, instance: Alert, created: bool, **kwargs: Any) -> None:
    if created and instance.empfaenger_id is not None and instance.art in MAIL_ARTEN and mail_eingerichtet():
        transaction.on_commit(hinweise_mailen_anstossen)


def connect() -> None:
    post_save.connect(_neuer_hinweis, sender=Alert, weak=False, dispatch_uid="akten.hinweis_mail")
