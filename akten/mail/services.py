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

Final or again: a 5xx refusal (RFC 5321: permanent) fails the mail at once; a 4xx (greylisting 450,
451, 452, 421, 454) and a refused login get the bounded retries; an address Django cannot put on an
envelope fails at once with the reason, never stays waiting. The admin's „Erneut senden“ starts a
failed mail again (mails_erneut_senden).
"""

from __future__ import annotations

import smtplib
import socket
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from email.utils import parseaddr

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage, get_connection
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from akten.fristen_scan import verantwortliche
from akten.mail import inhalt
from akten.mail.arten import MAIL_ARTEN, gewollt
from akten.models import Alert, HinweisEinstellung, HinweisMail, Kanzleieinstellung, User
from akten.selectors import akten_for

Art = Alert.Art

Status = HinweisMail.Status
# A Hinweis older than this is not mailed any more (e.g. when EMAIL_URL is set up later: no flood
# of yesterday's news); one unread for so long was missed in the bell too, and the mail is late.
FENSTER = timedelta(hours=24)
# A mail still waiting this long after its last attempt lost its task (the broker restarted): again.
VERLOREN = timedelta(hours=1)


def mail_eingerichtet() -> bool:
    """E-mail needs both the server (EMAIL_URL) and the sender (HELENA_MAIL_FROM); else none is sent."""
    return bool(settings.HELENA_MAIL_EINGERICHTET and settings.HELENA_MAIL_FROM)


def adressfehler(adresse: str) -> str:
    """Why an address cannot go on an envelope („anwalt@kanzlei..test“, a part over 63 characters), in
    German; "" when it can. Django's own check, the one its mail code would fail on later."""
    try:
        validate_email(adresse)
    except ValidationError:
        return (f"Die E-Mail-Adresse „{adresse[:100]}“ ist ungültig – bitte in der Verwaltung unter Benutzer "
                "berichtigen.")
    return ""


def absender_fehler() -> str:
    """What is wrong with HELENA_MAIL_FROM, in German for the admin ("" when nothing or unset): a bad
    sender fails every mail, so the Verwaltung and /konto/ say it before the first one fails."""
    absender = settings.HELENA_MAIL_FROM
    if not absender:
        return ""
    _, adresse = parseaddr(absender)
    if not adresse or adressfehler(adresse):
        return (f"Der Absender HELENA_MAIL_FROM („{absender[:100]}“) ist keine gültige E-Mail-Adresse; so "
                "scheitert jede Hinweis-E-Mail. Richtig ist etwa „Helena <helena@kanzlei.example>“.")
    return ""


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
    kandidaten = list(  # the partial index alert_mail_offen: only the Hinweise still to decide on
        Alert.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(mail__isnull=True, gelesen=False, ohne_mail=False, angelegt_am__gte=jetzt - FENSTER,
                empfaenger__isnull=False, art__in=MAIL_ARTEN)
        .select_related("empfaenger", "akte", "frist").order_by("pk"))
    je_person: dict[int, list[Alert]] = defaultdict(list)
    for alert in kandidaten:
        je_person[alert.empfaenger_id].append(alert)
    aus = _mail_aus([alerts[0].empfaenger for alerts in je_person.values()])
    zu_senden: list[int] = []
    for user_id, alle in je_person.items():
        user = alle[0].empfaenger
        alerts = _sichtbar([a for a in alle if gewollt(a, mail_aus=aus.get(user_id, frozenset()))], user)
        genommen = {a.pk for a in alerts}
        # switched off or not visible: decided, not looked at again (nor mailed late when switched on)
        Alert.objects.filter(pk__in=[a.pk for a in alle if a.pk not in genommen]).update(ohne_mail=True)
        if not alerts:
            continue
        mail = HinweisMail.objects.create(empfaenger=user, adresse=(user.email or "").strip(),
                                          eingereiht_am=jetzt)
        Alert.objects.filter(pk__in=genommen).update(mail=mail)
        if grund := _adresse_fehlt(mail.adresse):
            _nicht_verschickt(mail, grund)
        else:
            zu_senden.append(mail.pk)
    return zu_senden


def _adresse_fehlt(adresse: str) -> str:
    if not adresse:
        return ("Für diese Person ist keine E-Mail-Adresse hinterlegt (Verwaltung → Benutzer → "
                "E-Mail-Adresse).")
    return adressfehler(adresse)


@transaction.atomic
def verlorene_mails(*, jetzt: datetime | None = None) -> list[int]:
    """Mails still waiting long after they were last handed to the worker and last tried: their task
    was lost. Stamped as handed over again, so the next scans do not queue them once more."""
    jetzt = jetzt or timezone.now()
    grenze = jetzt - VERLOREN
    ids = list(HinweisMail.objects.select_for_update(skip_locked=True)
               .filter(status=Status.WARTEND, eingereiht_am__lt=grenze)
               .exclude(letzter_versuch_am__gte=grenze).values_list("pk", flat=True)[:500])
    HinweisMail.objects.filter(pk__in=ids).update(eingereiht_am=jetzt)
    return ids


@transaction.atomic
def mails_erneut_senden(*, mail_ids: list[int]) -> list[int]:
    """The admin's „Erneut senden“: failed mails wait again (the occasion is checked again when sent);
    the ids to queue. A mail sent or not needed is left as it is."""
    ids = list(HinweisMail.objects.select_for_update().filter(pk__in=mail_ids, status=Status.FEHLGESCHLAGEN)
               .values_list("pk", flat=True))
    HinweisMail.objects.filter(pk__in=ids).update(status=Status.WARTEND, eingereiht_am=timezone.now())
    return ids


def _nicht_verschickt(mail: HinweisMail, grund: str) -> None:
    mail.status, mail.grund = Status.UEBERSPRUNGEN, grund[:300]
    mail.save(update_fields=["status", "grund", "adresse"])


def _fristende(alert: Alert) -> str:
    """The Fristende a scan Hinweis was given for (its key „frist:<id>:<art>:<Fristende>:<person>“)."""
    teile = (alert.schluessel or "").split(":")
    return teile[3] if len(teile) == 5 and teile[0] == "frist" and alert.art != Art.BESTAETIGUNG else ""


def _warum_nicht_mehr(alert: Alert, *, mail_aus: frozenset[str], heute: date, jetzt: datetime) -> str:
    """"" when the Hinweis is still worth a mail now, else why not (German, for the admin): between
    collecting and sending there may be a worker outage, a moved Frist, a read bell, an opt-out."""
    frist = alert.frist
    if alert.gelesen:
        return "inzwischen in Helena gelesen"
    if not gewollt(alert, mail_aus=mail_aus):
        return "per E-Mail inzwischen abbestellt"
    if alert.angelegt_am < jetzt - FENSTER:
        return "älter als 24 Stunden"
    if alert.art == Art.BESTAETIGUNG:
        return "" if frist is not None and frist.wartet_auf_bestaetigung else "keine Bestätigung mehr offen"
    if frist is None:
        return ""
    if frist.erledigt:
        return "die Frist ist inzwischen erledigt"
    if _fristende(alert) not in ("", frist.datum.isoformat()):
        return "die Frist wurde inzwischen verschoben"
    if alert.art == Art.HEUTE and frist.datum != heute:
        return "„heute“ ist vorbei"
    if alert.art == Art.NIEMAND and verantwortliche(frist):
        return "inzwischen ist jemand verantwortlich"
    return ""


def _noch_gueltig(alerts: list[Alert], user: User) -> tuple[list[Alert], list[str]]:
    """What is still worth telling at sending time, and why the rest is not: the occasion as it is
    now (Frist not erledigt or moved, „heute“ still today, nobody responsible still), the Hinweis
    unread and still wanted, not older than FENSTER, the Akte still visible to the person."""
    if not user.is_active:
        return [], ["die Person ist deaktiviert"]
    jetzt, heute = timezone.now(), timezone.localdate()
    mail_aus = _mail_aus([user]).get(user.pk, frozenset())
    offen: list[Alert] = []
    gruende: dict[str, None] = {}
    for alert in alerts:
        if grund := _warum_nicht_mehr(alert, mail_aus=mail_aus, heute=heute, jetzt=jetzt):
            gruende[grund] = None
        else:
            offen.append(alert)
    sichtbar = _sichtbar(offen, user)
    if len(sichtbar) < len(offen):
        gruende["die Akte ist für die Person nicht mehr sichtbar"] = None
    return sichtbar, list(gruende)


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


def endgueltig(exc: BaseException) -> bool:
    """Will another attempt not change it? Only a 5xx refusal of the recipient(s) or the sender
    (RFC 5321: permanent). Greylisting (450, 451), a full mailbox or server (452), 421, 454 and a
    refused login (the admin may be fixing EMAIL_URL) get the bounded retries."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [antwort[0] for antwort in exc.recipients.values()]
        return bool(codes) and all(500 <= code < 600 for code in codes)
    if isinstance(exc, smtplib.SMTPSenderRefused):
        return 500 <= exc.smtp_code < 600
    return False


def _adressierfehler(adresse: str, exc: BaseException) -> str:
    warum = (absender_fehler() or adressfehler(adresse)
             or "Absender (HELENA_MAIL_FROM) und Empfängeradresse prüfen")
    return f"Die E-Mail ließ sich nicht adressieren – {warum} ({exc})"[:1000]


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
        if not mail_eingerichtet():
            _nicht_verschickt(mail, "Der E-Mail-Versand ist nicht mehr eingerichtet (EMAIL_URL, "
                                    "HELENA_MAIL_FROM).")
            return Versuch(status=mail.status)
        user = mail.empfaenger
        alerts, gruende = [], ["die Person gibt es nicht mehr"]
        if user is not None:
            hinweise = list(mail.hinweise.select_related("akte", "frist").order_by("pk"))
            alerts, gruende = _noch_gueltig(hinweise, user)
        if not alerts:
            _nicht_verschickt(mail, "Nicht mehr nötig: " + "; ".join(gruende) + ".")
            return Versuch(status=mail.status)
        mail.adresse = (user.email or "").strip()  # as it is now: the admin may have corrected it
        if grund := _adresse_fehlt(mail.adresse):
            _nicht_verschickt(mail, grund)
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
            if letzter_versuch or endgueltig(exc):
                mail.status = Status.FEHLGESCHLAGEN
        except (ValueError, TypeError) as exc:  # Django's sanitize_address (UnicodeError is a ValueError)
            mail.status = Status.FEHLGESCHLAGEN  # the same address fails the same way: no retry
            mail.letzter_fehler = _adressierfehler(mail.adresse, exc)
        else:
            mail.status, mail.gesendet_am = Status.GESENDET, timezone.now()
        mail.save()
    retry = fehler if fehler is not None and mail.status == Status.WARTEND else None
    return Versuch(status=mail.status, fehler=retry)
