"""`manage.py scan_fristen`: give the Hinweise for Fristen that are due (akten/fristen_scan.py).

Celery beat runs the same scan every few minutes; the command is for a first look after an
import, or for a server without the worker. Running it twice adds nothing the second time. With
e-mail set up (EMAIL_URL, HELENA_MAIL_FROM) the new Hinweise' e-mails go to the worker (or are sent
here with HELENA_MAIL_VERSAND=inline).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from akten.fristen_scan import scan_fristen
from akten.mail.services import mail_eingerichtet, mails_vormerken
from akten.tasks import mails_verschicken


class Command(BaseCommand):
    help = "Prüft alle offenen Fristen und gibt fällige Hinweise (Vorfrist, bald, heute, überfällig)."

    def handle(self, *args, **options) -> None:
        result = scan_fristen()
        zeile = f"{result.fristen} offene Fristen geprüft, {result.neue_hinweise} neue Hinweise."
        if mail_eingerichtet():
            mails = mails_vormerken()
            mails_verschicken(mails)
            zeile += f" {len(mails)} E-Mail{'' if len(mails) == 1 else 's'} zum Versand."
        self.stdout.write(zeile)
