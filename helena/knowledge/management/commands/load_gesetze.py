"""`manage.py load_gesetze [PATH ...] [--xml] [--only ABK ...] [--if-empty]`: import statutes.

Without PATH the bundled corpus (corpus/gesetze/*.zip: the official XML of gesetze-im-internet.de,
one law a zip, as it serves them) is loaded. *.zip and *.xml files are read as that XML, *.md as
bundestag/gesetze Markdown (an older source a firm may still have). A law that is
already there is replaced, so the command can run again at any time; `make run` calls it with
--if-empty so that a restart does not re-import.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from helena.knowledge.importers import (
    ParsedGesetz,
    load_sachregister,
    parse_gii_xml_zip,
    parse_markdown_gesetz,
)
from helena.knowledge.models import Gesetz
from helena.knowledge.services import import_gesetz, refresh_lexikon


def default_corpus_dir() -> Path:
    return Path(settings.BASE_DIR) / "corpus" / "gesetze"


def zahl(value: int) -> str:
    """German thousands separator: 10123 → "10.123"."""
    return f"{value:,}".replace(",", ".")


def anzahl(value: int, singular: str, plural: str) -> str:
    """ "1 Gesetz", "26 Gesetze", "10.123 Normen"."""
    return f"{zahl(value)} {singular if value == 1 else plural}"


def sekunden(value: float) -> str:
    return f"{value:.1f}".replace(".", ",")


class _VectorBar:
    """A progress bar for the sentence vectors an import computes (a law the bundled vectors do not
    cover, e.g. current law from XML: about 0.1 s a norm); none when every vector is bundled."""

    def __init__(self, abk: str, *, show: bool) -> None:
        self.abk, self.show, self.bar = abk, show, None

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = tqdm(total=total, desc=f"Vektoren {self.abk}", unit="Norm",
                            disable=None if self.show else True)
        self.bar.update(done - self.bar.n)

    def __enter__(self) -> _VectorBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


class Command(BaseCommand):
    help = (
        "Importiert Gesetze (XML von gesetze-im-internet.de, ohne Pfad den mitgelieferten Korpus; "
        "auch Markdown von bundestag/gesetze). Vorhandene Gesetze mit derselben Abkürzung werden ersetzt."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "paths", nargs="*", metavar="PATH",
            help="Dateien oder Verzeichnisse (Standard: corpus/gesetze/ des Projekts)",
        )
        parser.add_argument(
            "--xml", action="store_true",
            help="Dateien als XML von gesetze-im-internet.de lesen (xml.zip oder .xml)",
        )
        parser.add_argument(
            "--only", nargs="+", metavar="ABK", default=None,
            help="nur diese Gesetze importieren, z. B. --only BGB ZPO",
        )
        parser.add_argument(
            "--if-empty", action="store_true",
            help="nichts tun, wenn bereits Gesetze importiert sind",
        )

    def handle(
        self, *args, paths: list[str], xml: bool, only: list[str] | None, if_empty: bool, **options
    ) -> None:
        verbosity = options.get("verbosity", 1)
        if if_empty and Gesetz.objects.exists():
            if verbosity:
                vorhanden = anzahl(Gesetz.objects.count(), "Gesetz", "Gesetze")
                self.stdout.write(f"Es sind bereits {vorhanden} importiert – nichts zu tun (--if-empty).")
            return

        start = time.perf_counter()
        files = self._files([Path(p) for p in paths] or [default_corpus_dir()], xml=xml)
        wanted = {abk.casefold() for abk in only} if only else None
        show_progress = verbosity > 0

        parsed: list[tuple[Path, ParsedGesetz]] = []
        for path in tqdm(files, desc="Gesetze lesen", unit="Datei", disable=None if show_progress else True):
            gesetz = self._parse(path, xml=xml)
            if wanted is None or gesetz.abk.casefold() in wanted:
                parsed.append((path, gesetz))
        if wanted is not None:
            missing = wanted - {g.abk.casefold() for _, g in parsed}
            if missing:
                raise CommandError(
                    "Nicht gefunden: " + ", ".join(sorted(a for a in only if a.casefold() in missing))
                    + f" (gesucht in {len(files)} Datei(en))."
                )

        seen: dict[str, Path] = {}
        normen = 0
        for path, gesetz in tqdm(
            parsed, desc="Gesetze importieren", unit="Gesetz", disable=None if show_progress else True
        ):
            if gesetz.abk in seen and verbosity:
                self.stderr.write(
                    f"Hinweis: {path.name} ersetzt {gesetz.abk} aus {seen[gesetz.abk].name}."
                )
            seen[gesetz.abk] = path
            try:
                register = load_sachregister(Path(settings.BASE_DIR) / "corpus" / "sachregister", gesetz.abk)
                with _VectorBar(gesetz.abk, show=show_progress) as bar:
                    import_gesetz(parsed=gesetz, stichworte=register, progress=bar.update)
            except Exception as exc:  # a DB error must name the file, not end in a traceback
                raise CommandError(f"Import von {path.name} fehlgeschlagen: {exc}") from exc
            normen += len(gesetz.normen)
        woerter = refresh_lexikon()
        if verbosity:
            gesetze = anzahl(len(parsed), "Gesetz", "Gesetze")
            self.stdout.write(
                f"{gesetze} mit {anzahl(normen, 'Norm', 'Normen')} importiert in "
                f"{sekunden(time.perf_counter() - start)} s (Suchwortliste: {zahl(woerter)} Wörter)."
            )

    def _files(self, paths: list[Path], *, xml: bool) -> list[Path]:
        suffixes = (".zip", ".xml") if xml else (".zip", ".xml", ".md")
        files: list[Path] = []
        for path in paths:
            if not path.exists():
                raise CommandError(f"Pfad nicht gefunden: {path}")
            if path.is_dir():
                found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in suffixes)
                if not found:
                    raise CommandError(
                        f"Keine Gesetzesdateien ({', '.join('*' + s for s in suffixes)}) in {path}."
                    )
                files.extend(found)
            else:
                files.append(path)
        return files

    def _parse(self, path: Path, *, xml: bool) -> ParsedGesetz:
        suffix = path.suffix.lower()
        try:
            if xml or suffix in (".zip", ".xml"):
                gesetz = parse_gii_xml_zip(path)
            elif suffix == ".md":
                gesetz = parse_markdown_gesetz(path.read_text(encoding="utf-8"))
            else:
                raise CommandError(
                    f"{path.name}: unbekanntes Dateiformat (erwartet *.md oder *.zip; XML mit --xml)."
                )
        except CommandError:
            raise
        except UnicodeDecodeError:
            raise CommandError(f"{path.name}: Datei ist nicht UTF-8-kodiert.") from None
        except OSError as exc:
            reason = exc.strerror or exc
            raise CommandError(f"{path.name}: Datei kann nicht gelesen werden ({reason}).") from None
        except Exception as exc:  # ImportFormatError and any surprise in a broken file
            raise CommandError(f"{path.name}: Datei kann nicht importiert werden – {exc}") from None
        if not gesetz.normen:
            raise CommandError(f"{path.name}: keine Normen (§ oder Art.) gefunden – Datei defekt?")
        return gesetz
