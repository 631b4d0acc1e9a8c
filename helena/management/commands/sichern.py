"""`manage.py sichern ZIEL [--passphrase-datei DATEI] [--behalten N]`: one archive with the database,
the uploaded files and the SECRET_KEY (config/backup/; docs/betrieb.md „Sicherung“).

The command lives in the top app because a backup spans every app; the work is config.backup's,
which knows no app at all."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.backup.create import sichern
from config.backup.crypto import MIN_LENGTH, PASSPHRASE_ENV, passphrase
from config.backup.errors import SicherungFehler


def zahl(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def dateien(n: int) -> str:
    return "1 Datei" if n == 1 else f"{zahl(n)} Dateien"


def sekunden(s: float) -> str:
    return f"{s:.1f} s".replace(".", ",")


def groesse(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB".replace(".", ",") if n >= 100_000 else f"{zahl(n // 1000)} kB"


class Command(BaseCommand):
    help = ("Sichert Datenbank (pg_dump), hochgeladene Dateien und SECRET_KEY in ein Archiv. ZIEL ist ein "
            "Ordner (darin helena-sicherung-JJJJ-MM-TT-HHMMSS.tar) oder eine Datei. Mit einer Passphrase "
            f"(Umgebungsvariable {PASSPHRASE_ENV} oder --passphrase-datei) wird das Archiv verschlüsselt "
            "(.tar.enc). Exit-Code 0: gesichert; 1: nichts gesichert.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ziel", metavar="ZIEL", help="Ordner oder Datei für das Archiv")
        parser.add_argument("--passphrase-datei", metavar="DATEI",
                            help=f"Datei mit der Passphrase (erste Zeile); sonst {PASSPHRASE_ENV}, sonst "
                                 "unverschlüsselt. Nie auf der Befehlszeile: dort sähe sie jeder mit `ps`.")
        parser.add_argument("--behalten", type=int, metavar="N",
                            help="Danach nur die N neuesten Sicherungen im Ordner ZIEL behalten.")

    def handle(self, *args: Any, **options: Any) -> None:
        behalten = options["behalten"]
        if behalten is not None and behalten < 1:
            raise CommandError("--behalten braucht eine Zahl ab 1.")
        try:
            secret = passphrase(options["passphrase_datei"])
            if secret is not None and len(secret) < MIN_LENGTH:
                raise SicherungFehler(f"Die Passphrase ist zu kurz: mindestens {MIN_LENGTH} Zeichen.")
            s = sichern(ziel=options["ziel"], passphrase=secret, behalten=behalten)
        except SicherungFehler as exc:
            raise CommandError(exc.message) from None
        art = "verschlüsselt" if s.verschluesselt else "unverschlüsselt – sicher aufbewahren"
        self.stdout.write(f"Sicherung geschrieben: {s.pfad} ({groesse(s.groesse)}, {art})")
        self.stdout.write(f"  {s.tabellen} Tabellen mit {zahl(s.zeilen)} Zeilen, {dateien(s.dateien)}, "
                          f"in {sekunden(s.sekunden)}")
        if s.fehlend:
            self.stdout.write(f"  Warnung: {dateien(len(s.fehlend))} während der Sicherung gelöscht, nicht "
                              f"im Archiv (die Datenbank der Sicherung kann sie noch nennen): "
                              f"{', '.join(s.fehlend[:10])}{' …' if len(s.fehlend) > 10 else ''}")
        for alt in s.entfernt:
            self.stdout.write(f"  entfernt (älter als die {behalten} neuesten): {alt.name}")
