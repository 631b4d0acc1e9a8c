"""`manage.py seed_demo [--password PW]`: create the demo Kanzlei (idempotent): the firm's records
(akten.demo), Helena's Kanzleimuster (helena.knowledge.demo) and an example conversation with
drafts waiting for a decision (helena.conversations.demo).

`--nur-demo-datenbank` is what `make run` calls at every start: a database that holds a firm's own
users or Akten (one restored from a backup, say) is left alone, exit code 3 (KEINE_DEMO_DATENBANK)."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from akten.demo import DEFAULT_PASSWORD, fremde_daten, seed_demo_kanzlei
from helena.conversations.demo import seed_demo_gespraech
from helena.knowledge.demo import MUSTER, seed_muster

KEINE_DEMO_DATENBANK = 3  # config/launcher.py knows the number too (it imports no Django)


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
        parser.add_argument(
            "--nur-demo-datenbank",
            action="store_true",
            help="Nichts anlegen und kein Passwort setzen, wenn die Datenbank Benutzer oder Akten enthält, "
            "die nicht zur Demo gehören (so startet `make run`); Exit-Code 3.",
        )

    def handle(self, *args, password: str, nur_demo_datenbank: bool = False, **options) -> None:
        if not password:
            raise CommandError("Das Passwort darf nicht leer sein.")
        fremd = fremde_daten() if nur_demo_datenbank else []
        if fremd:
            self.stdout.write(
                f"Keine Demo-Daten angelegt: die Datenbank enthält Daten der Kanzlei ({', '.join(fremd)}, "
                "die nicht zur Demo gehören). Kein Passwort wurde geändert."
            )
            raise SystemExit(KEINE_DEMO_DATENBANK)
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
