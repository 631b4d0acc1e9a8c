"""`manage.py load_urteile FILE.jsonl[.gz]`: import court decisions from an Open Legal Data dump.

The file is streamed line by line (the full dump is several GB), imported in batches and is
idempotent: a decision already present (same ECLI, or same court, file number and date) is
updated instead of duplicated. Unusable lines are reported with their line number.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Iterator
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from helena.knowledge.importers import parse_urteile_jsonl
from helena.knowledge.management.commands.load_gesetze import anzahl, sekunden, zahl
from helena.knowledge.services import import_urteile, refresh_lexikon

SHOWN_PROBLEMS = 10


def _lines(path: Path) -> Iterator[bytes]:
    """Raw lines of a .jsonl or .jsonl.gz file (gzip recognised by its magic bytes)."""
    with path.open("rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    with opener(path, "rb") as handle:
        yield from handle


class Command(BaseCommand):
    help = "Importiert Gerichtsentscheidungen aus einer JSONL-Datei (Open-Legal-Data-Format, auch .gz)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", metavar="FILE", help="JSONL-Datei, optional gzip-komprimiert")
        parser.add_argument("--batch-size", type=int, default=1000, help="Entscheidungen je Transaktion")

    def handle(self, *args, file: str, batch_size: int, **options) -> None:
        verbosity = options.get("verbosity", 1)
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"Datei nicht gefunden: {path}")
        if batch_size < 1:
            raise CommandError("--batch-size muss mindestens 1 sein.")

        start = time.perf_counter()
        lines = tqdm(
            _lines(path), desc="Entscheidungen", unit=" Zeilen", disable=None if verbosity else True
        )
        try:
            result = import_urteile(items=parse_urteile_jsonl(lines), batch_size=batch_size)
        except (OSError, EOFError) as exc:  # includes gzip.BadGzipFile and truncated archives
            raise CommandError(f"{path.name}: Datei kann nicht gelesen werden ({exc}).") from None
        finally:
            lines.close()
        woerter = refresh_lexikon()

        if not verbosity:
            return
        self.stdout.write(
            f"{anzahl(result.created, 'Entscheidung', 'Entscheidungen')} neu angelegt, "
            f"{zahl(result.updated)} aktualisiert, {anzahl(len(result.problems), 'Zeile', 'Zeilen')} "
            f"übersprungen ({sekunden(time.perf_counter() - start)} s; "
            f"Suchwortliste: {zahl(woerter)} Wörter)."
        )
        for problem in result.problems[:SHOWN_PROBLEMS]:
            self.stdout.write(f"  {problem}")
        if len(result.problems) > SHOWN_PROBLEMS:
            self.stdout.write(f"  … und {zahl(len(result.problems) - SHOWN_PROBLEMS)} weitere.")
