"""`manage.py import_akten FILE [--dry-run] [--als USERNAME]`: the old Kanzlei software's export in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from akten.erfassung.rechte import pruefe
from akten.importe import text
from akten.importe.ausfuehren import importiere
from akten.importe.laeufe import lauf_anlegen, lauf_ausfuehren
from akten.importe.lesen import lies
from akten.models import Role, User
from config.errors import DomainError

# Exit codes (docs/protocol.md): 0 every row went in or was there already; 1 the file was read and
# the good rows went in, but at least one row had an error; 2 nothing was imported — the file cannot
# be read, or the user may not import.
OK, ZEILEN_MIT_FEHLER, NICHTS = 0, 1, 2


class Command(BaseCommand):
    help = ("Importiert Akten mit Mandanten und Gegnern aus dem Export der alten Kanzleisoftware (CSV in "
            "UTF-8 oder Windows-1252 mit „;“ oder „,“, oder XLSX). Jede Zeile läuft durch dieselben "
            "Prüfungen wie eine Akte von Hand, mit Kollisionsprüfung; eine fehlerhafte Zeile legt nichts an, "
            "die guten Zeilen werden übernommen, vorhandene Aktenzeichen bleiben, wie sie sind. "
            "Exit-Code 0: alles übernommen oder schon vorhanden; 1: mindestens eine Zeile mit Fehler "
            "(die übrigen sind übernommen); 2: nichts importiert (Datei nicht lesbar oder keine "
            "Berechtigung).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("datei", metavar="FILE", help="CSV- oder XLSX-Datei")
        parser.add_argument("--dry-run", action="store_true", dest="probelauf",
                            help="Probelauf: jede Zeile prüfen, den Bericht zeigen, nichts speichern.")
        parser.add_argument("--als", metavar="USERNAME",
                            help="In wessen Namen importiert wird (Verlauf, Kollisionsprüfung); nur die "
                                 "Administration darf importieren. Standard: die erste aktive Person mit "
                                 "der Rolle Administrator.")

    def handle(self, *args: Any, **options: Any) -> None:
        pfad = Path(options["datei"])
        try:
            user = self._user(options.get("als"))
            pruefe(user, "import")
            inhalt = pfad.read_bytes()
            lies(inhalt, pfad.name)  # a file that cannot be read is refused before anything is kept
        except OSError as exc:
            self._abbrechen(f"Die Datei {pfad} lässt sich nicht öffnen ({exc.strerror or exc}).")
        except DomainError as exc:
            self._abbrechen(exc.message)
        if options["probelauf"]:
            bericht = importiere(user=user, inhalt=inhalt, dateiname=pfad.name, probelauf=True).als_dict()
        else:
            try:
                lauf = lauf_anlegen(user=user, inhalt=inhalt, dateiname=pfad.name, probelauf=False,
                                    starten=False)
            except DomainError as exc:
                self._abbrechen(exc.message)
            lauf_ausfuehren(lauf_id=lauf.pk)  # here, not in Celery: the command waits for its report
            lauf.refresh_from_db()
            if lauf.status != lauf.Status.FERTIG:
                self._abbrechen(lauf.meldung)
            bericht = lauf.bericht
        self.stdout.write(f"{'Probelauf' if options['probelauf'] else 'Import'} als {user.username}")
        for zeile in text.zeilen(bericht, alle=options["verbosity"] > 1):
            self.stdout.write(zeile)
        if bericht["zusammenfassung"]["fehler"]:
            raise SystemExit(ZEILEN_MIT_FEHLER)

    def _user(self, username: str | None) -> User:
        if username:
            user = User.objects.filter(username=username, is_active=True).first()
            if user is None:
                self._abbrechen(f"Einen aktiven Benutzer „{username}“ gibt es nicht.")
            return user
        aktiv = User.objects.filter(is_active=True).order_by("pk")
        user = aktiv.filter(role=Role.ADMIN).first() or aktiv.filter(is_superuser=True).first()
        if user is None:
            self._abbrechen("Es gibt keine aktive Person mit der Rolle Administrator; nenne mit --als, wer "
                            "importiert.")
        return user

    def _abbrechen(self, meldung: str) -> None:
        """The German reason alone (no „CommandError:“ before it) and exit code 2: nothing imported."""
        self.stderr.write(meldung)
        raise SystemExit(NICHTS)
