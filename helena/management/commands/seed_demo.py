"""`manage.py seed_demo [--password PW]`: create the demo Kanzlei (idempotent): the firm's records
(akten.demo), Helena's Kanzleimuster (helena.knowledge.demo) and an example conversation with
drafts waiting for a decision (helena.conversations.demo)."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from akten.demo import DEFAULT_PASSWORD, seed_demo_kanzlei
from helena.conversations.demo import seed_demo_gespraech
from helena.knowledge.demo import MUSTER, seed_muster


class Command(BaseCommand):
    help = (
        "Legt eine Demo-Kanzlei an (fünf Benutzer, Akten mit Beteiligten, Dokumenten, Fristen und "
        "Zeiterfassung, dazu Kanzleimuster). Mehrfach ausführbar: Vorhandenes bleibt, nur die "
        "Passwörter werden gesetzt."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--password",
            default=DEFAULT_PASSWORD,
            help=f"Passwort für alle Demo-Benutzer (Standard: {DEFAULT_PASSWORD})",
        )

    def handle(self, *args, password: str, **options) -> None:
        if not password:
            raise CommandError("Das Passwort darf nicht leer sein.")
        with transaction.atomic():
            s = seed_demo_kanzlei(password=password)
            neu_angelegt = s.neu_angelegt + seed_muster()
            gespraech = seed_demo_gespraech()
        neu = f"{neu_angelegt} Datensätze neu angelegt" if neu_angelegt else "nichts neu angelegt"
        self.stdout.write(self.style.SUCCESS(f"Demo-Kanzlei bereit ({neu})."))
        self.stdout.write(
            f"  {s.akten} Akten, {s.beteiligte} Beteiligte, {s.dokumente} Dokumente, "
            f"{s.fristen} Fristen/Termine ({s.fristen_offen} offen, davon "
            f"{s.fristen_ueberfaellig} überfällig), {s.zeiterfassungen} Zeiterfassungen, "
            f"{s.notizen} Notizen, {s.alerts} Hinweise, {s.zugriffe} Aktenzugriffe, {len(MUSTER)} Muster"
        )
        if gespraech:
            self.stdout.write("  ein Beispielgespräch mit Helena, drei Entwürfe warten auf Freigabe (anwalt)")
        shown = password if password == DEFAULT_PASSWORD else "wie mit --password angegeben"
        self.stdout.write(f"  Logins (Passwort: {shown}):")
        for username, role in s.benutzer:
            self.stdout.write(f"    {username:<15} {role}")
