"""`manage.py scan_fristen`: give the Hinweise for Fristen that are due (akten/fristen_scan.py).

Celery beat runs the same scan every few minutes; the command is for a first look after an
import, or for a server without the worker. Running it twice adds nothing the second time.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from akten.fristen_scan import scan_fristen


class Command(BaseCommand):
    help = "Prüft alle offenen Fristen und gibt fällige Hinweise (Vorfrist, bald, heute, überfällig)."

    def handle(self, *args, **options) -> None:
        result = scan_fristen()
        self.stdout.write(f"{result.fristen} offene Fristen geprüft, {result.neue_hinweise} neue Hinweise.")
