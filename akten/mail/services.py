"""Hinweise to e-mails: collect a person's new Hinweise into one mail (vormerken), send it once
(senden). Both run in the worker (akten/tasks.py); nothing here blocks a page.

One mail per occasion: a Hinweis is one occasion (the scan gives one per Frist, Anlass, Fristende and
person: Alert.schluessel), and a Hinweis is taken into at most one mail (Alert.mail, set under a row
lock that a second collector skips). A scan that finds the same Frist overdue again tomorrow gives no
new Hinweis, so no new mail: overdue is mailed once, today once. Everything one round finds for a
person goes into one mail (a digest), so a morning with thirty Fristen is one mail, not thirty.

Idempotent by state: sending locks the mail's row; a mail already sent is never sent again, however
often its task is delivered. (If the SMTP server took the mail and the database then failed, the
next attempt sends it again: at least once, never lost.)
"""

from __future__ import annotations

import smtplib
import socket
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.utils import timezone

from akten.mail import inhalt
from akten.mail.arten import MAIL_ARTEN, gewollt
from akten.models import Alert, HinweisEinstellung, HinweisMail, Kanzleieinstellung, User
from akten.selectors import akten_for

Status = HinweisMail.Status
# A Hinweis older than this is not mailed any more (e.g. when EMAIL_URL is set up later: no flood
# of yesterday's news); one unread for so long was missed in the bell too, and the mail is late.
FENSTER = timedelta(hours=24)
# A mail still waiting this long after its last attempt lost its task (the broker restarted): again.
VERLOREN = timedelta(hours=1)


def mail_eingerichtet() -> bool:
    """E-mail needs both the server (EMAIL_URL) and the sender (HELENA_MAIL_FROM); else none is sent."""
    return bool(settings.HELENA_MAIL_EINGERICHTET and settings.HELENA_MAIL_FROM)


def _mail_aus(users: list[User]) -> dict[int, frozenset[str]]:
    rows = HinweisEinstellung.objects.filter(user__in=users).values_list("user_id", "mail_aus")
    return {user_id: frozenset(aus or ()) for user_id, aus in rows}


def _sichtbar(alerts: list[Alert], user: User) -> list[Alert]:
    """Only Hinweise about Akten the person may see now (access taken away: no mail about it)."""
    akten = {a.akte_id for a in alerts if a.akte_id is not None}
    sieht = set(akten_for(user=user).filter(pk__in=akten).values_list("pk", flat=True)) if akten else set()
    return [a for a in alerts if a.akte_id is None or a.akte_id in sieht]


@transaction.atomic
def mails_vormerken(*, jetzt: datetime | None = None) -> list[int]:
    """Take every new mail-worthy Hinweis nobody mailed yet into one mail per person; the ids of the
    mails to send. A person without an e-mail address gets a mail row „nicht verschickt“ with the
    reason, so the admin sees why nothing came."""
    if not mail_eingerichtet():
        return []
    jetzt = jetzt or timezone.now()
    kandidaten = list(
        Alert.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(mail__isnull=True, empfaenger__isnull=False, gelesen=False, art__in=MAIL_ARTEN,
                angelegt_am__gte=jetzt - FENSTER)
        .select_related("empfaenger", "akte", "frist").order_by("pk"))
    je_person: dict[int, list[Alert]] = defaultdict(list)
    for alert in kandidaten:
        je_person[alert.empfaenger_id].append(alert)
    aus = _mail_aus([alerts[0].empfaenger for alerts in je_person.values()])
    zu_senden: list[int] = []
    for user_id, alerts in je_person.items():
        user = alerts[0].empfaenger
        alerts = _sichtbar([a for a in alerts if gewollt(a, mail_aus=aus.get(user_id, frozenset()))], user)
        if not alerts:
            continue
        mail = HinweisMail.objects.create(empfaenger=user, adresse=(user.email or "").strip())
        Alert.objects.filter(pk__in=[a.pk for a in alerts]).update(mail=mail)
        if not mail.adresse:
            _nicht_verschickt(mail, "Für diese Person ist keine E-Mail-Adresse hinterlegt (Verwaltung → "
                                    "Benutzer → E-Mail-Adresse).")
        else:
            zu_senden.append(mail.pk)
    return zu_senden


def verlorene_mails(*, jetzt: datetime | None = None) -> list[int]:
    """Mails still waiting long after their last attempt (or creation): their task was lost."""
    grenze = (jetzt or timezone.now()) - VERLOREN
    return list(HinweisMail.objects.filter(status=Status.WARTEND, angelegt_am__lt=grenze)
                .exclude(letzter_versuch_am__gte=grenze).values_list("pk", flat=True)[:500])


def _nicht_verschickt(mail: HinweisMail, grund: str) -> None:
    mail.status, mail.grund = Status.UEBERSPRUNGEN, grund[:300]
    mail.save(update_fields=["status", "grund"])


def _noch_gueltig(alerts: list[Alert], user: User) -> list[Alert]:
    """What is still worth telling at sending time: the Frist not erledigt meanwhile (a Vier-Augen
    Hinweis: still waiting), the Akte still visible to the person."""
    offen = []
    for a in alerts:
        frist = a.frist
        if a.art == Alert.Art.BESTAETIGUNG:
            if frist is None or not frist.wartet_auf_bestaetigung:
                continue
        elif frist is not None and frist.erledigt:
            continue
        offen.append(a)
    return _sichtbar(offen, user) if user.is_active else []


def fehlertext(exc: BaseException) -> str:
    """Why the attempt failed, in German for the admin (the server's own words after the colon)."""
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        grund = "Der Mailserver hat die Anmeldung abgelehnt – Benutzer und Passwort in EMAIL_URL prüfen"
    elif isinstance(exc, smtplib.SMTPRecipientsRefused):
        grund = "Der Mailserver nimmt die Empfängeradresse nicht an"
    elif isinstance(exc, smtplib.SMTPSenderRefused):
        grund = "Der Mailserver nimmt den Absender (HELENA_MAIL_FROM) nicht an"
    elif isinstance(exc, ConnectionRefusedError):
        grund = "Der Mailserver ist nicht erreichbar (Verbindung abgelehnt)"
    elif isinstance(exc, (socket.timeout, TimeoutError)):
        grund = f"Der Mailserver antwortet nicht (nach {settings.EMAIL_TIMEOUT} s abgebrochen)"
    elif isinstance(exc, smtplib.SMTPException):
        grund = "Der Mailserver hat die E-Mail abgelehnt"
    else:
        grund = "Die Verbindung zum Mailserver ist gescheitert"
    return f"{grund}: {exc}"[:1000]


# Refusals that another attempt will not change: the mail fails at once instead of six times.
ENDGUELTIG = (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused, smtplib.SMTPAuthenticationError)


@dataclass(frozen=True)
class Versuch:
    status: str
    fehler: BaseException | None = None  # raised by the task after the row is saved: Celery retries


def _verschicken(mail: HinweisMail) -> None:
    nachricht = EmailMessage(
        subject=mail.betreff, body=mail.text, from_email=settings.HELENA_MAIL_FROM, to=[mail.adresse],
        headers={"Auto-Submitted": "auto-generated", "X-Helena-Hinweis-Mail": str(mail.pk)},
        connection=get_connection(timeout=settings.EMAIL_TIMEOUT))
    nachricht.send(fail_silently=False)


def mail_senden(*, mail_id: int, letzter_versuch: bool = False) -> Versuch:
    """Send one mail unless it was sent (or given up) already; its text is written now, from the
    Hinweise still worth telling, so a mail never tells of a Frist done or an Akte no longer visible."""
    with transaction.atomic():
        mail = HinweisMail.objects.select_for_update().filter(pk=mail_id).first()
        if mail is None or mail.status != Status.WARTEND:
            return Versuch(status=mail.status if mail else "unbekannt")
        user = mail.empfaenger
        alerts = list(mail.hinweise.select_related("akte", "frist").order_by("pk")) if user else []
        alerts = _noch_gueltig(alerts, user) if user else []
        if not mail_eingerichtet():
            _nicht_verschickt(mail, "Der E-Mail-Versand ist nicht mehr eingerichtet (EMAIL_URL, "
                                    "HELENA_MAIL_FROM).")
            return Versuch(status=mail.status)
        if not alerts:
            _nicht_verschickt(mail, "Nicht mehr nötig: die Fristen sind inzwischen erledigt oder die Akte "
                                    "ist für die Person nicht mehr sichtbar.")
            return Versuch(status=mail.status)
        umfang = Kanzleieinstellung.aktuell().mail_inhalt
        mail.betreff = inhalt.betreff(alerts, umfang=umfang)
        mail.text = inhalt.text(alerts, user=user, umfang=umfang)
        mail.versuche += 1
        mail.letzter_versuch_am = timezone.now()
        fehler: BaseException | None = None
        try:
            _verschicken(mail)
        except (smtplib.SMTPException, OSError) as exc:
            fehler = exc
            mail.letzter_fehler = fehlertext(exc)
            if letzter_versuch or isinstance(exc, ENDGUELTIG):
                mail.status = Status.FEHLGESCHLAGEN
        else:
            mail.status, mail.gesendet_am = Status.GESENDET, timezone.now()
        mail.save()
    retry = fehler if fehler is not None and mail.status == Status.WARTEND else None
    return Versuch(status=mail.status, fehler=retry)
