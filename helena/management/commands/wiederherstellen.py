"""`manage.py wiederherstellen ARCHIV [--passphrase-datei DATEI] [--schluessel-datei DATEI]`: an archive
of `sichern` into an empty database (config/backup/restore.py; docs/betrieb.md „Sicherung“)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.backup.crypto import PASSPHRASE_ENV, passphrase
from config.backup.errors import HalbWiederhergestellt, SicherungFehler
from config.backup.restore import wiederherstellen
from helena.management.commands.sichern import dateien, sekunden, zahl

# Exit codes (docs/protocol.md): 0 restored and every table's rows as in the manifest; 1 restored, but
# a count differs (listed); 2 nothing changed (refused, damaged archive, wrong passphrase, …); 3 the
# database restored, but files, key or migrations not (the message says which, and where they lie).
OK, ABWEICHUNG, NICHTS, HALB = 0, 1, 2, 3


class Command(BaseCommand):
    help = ("Stellt ein Archiv von `sichern` in eine leere Datenbank wieder her (Datenbank, hochgeladene "
            "Dateien; den SECRET_KEY mit --schluessel-datei). Prüft vorher jede Prüfsumme: ein beschädigtes "
            "Archiv ändert nichts. Eine Sicherung einer älteren Version wird danach migriert. Exit-Code 0: "
            "wiederhergestellt; 1: wiederhergestellt, aber Zeilenzahlen weichen ab; 2: nichts verändert; 3: "
            "Datenbank wiederhergestellt, aber Dateien, Schlüssel oder Migrationen nicht (die Meldung sagt, "
            "was fehlt und wo die Dateien liegen).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archiv", metavar="ARCHIV", help="die Datei von `sichern`")
        parser.add_argument("--passphrase-datei", metavar="DATEI",
                            help=f"Datei mit der Passphrase (erste Zeile); sonst {PASSPHRASE_ENV}.")
        parser.add_argument("--schluessel-datei", metavar="DATEI",
                            help="Den SECRET_KEY der Sicherung in diese Datei schreiben (0600); `make run` "
                                 "liest var/secret_key.")

    def handle(self, *args: Any, **options: Any) -> None:
        schluessel = Path(options["schluessel_datei"]) if options["schluessel_datei"] else None
        try:
            w = wiederherstellen(archiv=Path(options["archiv"]),
                                 passphrase=passphrase(options["passphrase_datei"]),
                                 schluessel_datei=schluessel, say=self.stdout.write)
        except HalbWiederhergestellt as exc:
            raise CommandError(exc.message, returncode=HALB) from None
        except SicherungFehler as exc:
            raise CommandError(exc.message, returncode=NICHTS) from None
        m = w.manifest
        self.stdout.write(f"Wiederhergestellt: Sicherung vom {m['erstellt'][:19].replace('T', ' ')} "
                          f"(Helena {m['helena'][:12]}), {w.tabellen} Tabellen mit {zahl(w.zeilen)} Zeilen, "
                          f"{dateien(w.dateien)}, in {sekunden(w.sekunden)}.")
        if m.get("fehlend"):
            self.stdout.write(f"  Warnung: beim Sichern fehlten {dateien(len(m['fehlend']))} (während der "
                              f"Sicherung gelöscht): {', '.join(m['fehlend'][:10])}")
        if w.migriert:
            self.stdout.write(f"  migriert auf diese Version: {len(w.migriert)} Migrationen "
                              f"({', '.join(w.migriert[:5])}{' …' if len(w.migriert) > 5 else ''})")
        if w.schluessel:
            self.stdout.write(f"  SECRET_KEY der Sicherung geschrieben: {w.schluessel}")
        else:
            self.stdout.write("  SECRET_KEY nicht übernommen: angemeldete Benutzer melden sich einmal neu an "
                              "(API-Tokens gelten weiter). Übernehmen: --schluessel-datei var/secret_key "
                              "(make run) oder in eine Datei und von dort als SECRET_KEY in die .env.")
        if w.abweichungen:
            self.stderr.write("Zeilenzahlen weichen von der Sicherung ab:\n  " + "\n  ".join(w.abweichungen))
            raise CommandError("Wiederhergestellt, aber nicht vollständig wie gesichert.",
                               returncode=ABWEICHUNG)
        self.stdout.write("  Zeilenzahl jeder Tabelle wie gesichert.")
