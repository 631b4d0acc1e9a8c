"""Celery tasks of the firm's records (thin): the Fristen scan and the Hinweis e-mails, reading an
uploaded Dokument, an import, the read log's retention, the deletions a data protection request marked."""

from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.conf import settings

from akten.datenschutz.loeschung import loeschungen_ausfuehren
from akten.dokumente.services import EXTRACT_TASK, requeue_stale_extractions, run_extraction
from akten.fristen_scan import scan_fristen
from akten.importe.laeufe import IMPORT_TASK, lauf_ausfuehren
from akten.lesezugriffe.services import aufraeumen
from akten.mail.services import mail_eingerichtet, mail_senden, mails_vormerken, verlorene_mails

SCAN_TASK = "akten.scan_fristen"
MAILEN_TASK = "akten.hinweise_mailen"
MAIL_TASK = "akten.hinweis_mail_senden"
AUFRAEUMEN_TASK = "akten.zugriffe_aufraeumen"
LOESCH_TASK = "akten.loeschungen_ausfuehren"
MAIL_VERSUCHE = 6  # the first and five retries: 1, 2, 4, 8, 16 × HELENA_MAIL_RETRY_SEKUNDEN later
log = logging.getLogger(__name__)


@shared_task(name=SCAN_TASK, ignore_result=True)
def scan_fristen_task() -> int:
    """Every few minutes (CELERY_BEAT_SCHEDULE): the day's Hinweise early, a changed Frist soon; then
    their e-mails (and any whose task was lost)."""
    neue = scan_fristen().neue_hinweise
    mails_verschicken(mails_vormerken() + verlorene_mails())
    return neue


@shared_task(name=MAILEN_TASK, ignore_result=True)
def hinweise_mailen_task() -> int:
    """A Hinweis was given by a record change (akten/mail/signals.py): its e-mail now, not at the
    next scan."""
    ids = mails_vormerken()
    mails_verschicken(ids)
    return len(ids)


@shared_task(name=MAIL_TASK, bind=True, ignore_result=True, acks_late=True,
             autoretry_for=(smtplib.SMTPException, OSError), max_retries=MAIL_VERSUCHE - 1,
             retry_backoff=settings.HELENA_MAIL_RETRY_SEKUNDEN, retry_backoff_max=3600, retry_jitter=False)
def mail_senden_task(self, mail_id: int) -> str:
    """One e-mail, idempotent by its row's state; an SMTP error is kept on the row and raised, so
    Celery tries again later (bounded, with backoff), the last failure marks it failed."""
    versuch = mail_senden(mail_id=mail_id, letzter_versuch=self.request.retries >= self.max_retries)
    if versuch.fehler is not None:
        raise versuch.fehler
    return versuch.status


def mails_verschicken(ids: list[int]) -> None:
    """Each mail to the worker (HELENA_MAIL_VERSAND=task), or sent right here (inline: tests and a
    shell only — it sends and retries in the caller, a request included). A broker error costs only
    that mail's task (verlorene_mails queues it again), never the rest of the list."""
    for mail_id in dict.fromkeys(ids):
        try:
            if settings.HELENA_MAIL_VERSAND == "inline":
                mail_senden_task.apply(args=[mail_id])
            else:
                mail_senden_task.delay(mail_id)
        except Exception:
            log.warning("Hinweis-E-Mail %s nicht an den Worker gegeben; sie wird nach einer Stunde erneut "
                        "eingereiht.", mail_id, exc_info=True)


def hinweise_mailen_anstossen() -> None:
    """After a commit that gave a mail-worthy Hinweis; the broker down costs at most the time to the
    next scan (which collects the same Hinweise), never the request that gave the Hinweis."""
    if not mail_eingerichtet():
        return
    try:
        if settings.HELENA_MAIL_VERSAND == "inline":
            hinweise_mailen_task.apply()
        else:
            hinweise_mailen_task.delay()
    except Exception:
        log.warning("Hinweis-E-Mails nicht angestoßen; der nächste Fristen-Scan holt sie nach.",
                    exc_info=True)


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


@shared_task(name=AUFRAEUMEN_TASK, ignore_result=True)
def zugriffe_aufraeumen_task() -> int:
    """Hourly (CELERY_BEAT_SCHEDULE): reads older than the firm's period leave the read log."""
    return aufraeumen()


@shared_task(name=LOESCH_TASK, ignore_result=True)
def loeschungen_ausfuehren_task() -> int:
    """Every hour (CELERY_BEAT_SCHEDULE): delete what was marked and may go now (§ 50 BRAO ended)."""
    return loeschungen_ausfuehren()
