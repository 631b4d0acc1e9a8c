"""`manage.py load_gesetze [PATH ...] [--xml] [--only ABK ...] [--if-empty] [--if-outdated] [--dry-run]`.

Without PATH the bundled corpus (corpus/gesetze/*.zip: the official XML of gesetze-im-internet.de,
one law a zip, as it serves them) is loaded. A PATH is a file or a folder of files: *.zip (one or
more XML files inside) and *.xml are read as that XML, *.md as bundestag/gesetze Markdown (an older
source a firm may still have). Every file is read before anything is written, so bad input changes
nothing. A law that is already there is updated in place (services.update_gesetz) and the command
reports, per law, what changed since the last load; --dry-run reports and writes nothing. `make run`
calls it with --if-outdated at every start: a new database gets the bundled laws, one with the
corpus of an older release is updated (with the report), an up-to-date one costs 0.1 s.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from helena.knowledge.aktualisierung import Bericht, zahl
from helena.knowledge.importers import (
    ParsedGesetz,
    law_heads,
    load_sachregister,
    parse_gii_xml_files,
    parse_markdown_gesetz,
)
from helena.knowledge.models import Gesetz
from helena.knowledge.services import refresh_lexikon, update_gesetz

ERSTES_LADEN_ZEILEN = 10  # a first load of more laws than this reports one line (-v 2: all)


def default_corpus_dir() -> Path:
    return Path(settings.BASE_DIR) / "corpus" / "gesetze"


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
        "auch Markdown von bundestag/gesetze). Vorhandene Gesetze werden aktualisiert; der Bericht "
        "sagt je Gesetz, welche Normen neu, geändert oder aufgehoben sind."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "paths", nargs="*", metavar="PATH",
            help="Dateien (.zip, .xml, .md) oder Verzeichnisse (Standard: corpus/gesetze/ des Projekts)",
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
        parser.add_argument(
            "--if-outdated", action="store_true",
            help="nur die Gesetze laden, die fehlen oder deren geladene Fassung älter ist als die Datei "
                 "(was `make run` bei jedem Start tut; eine neuere, selbst geladene Fassung bleibt)",
        )
        parser.add_argument(
            "--dry-run", action="store_true",
            help="nur berichten, was sich ändern würde; nichts speichern",
        )

    def handle(
        self, *args, paths: list[str], xml: bool, only: list[str] | None, if_empty: bool,
        dry_run: bool = False, if_outdated: bool = False, **options,
    ) -> None:
        verbosity = options.get("verbosity", 1)
        if if_empty and Gesetz.objects.exists():
            if verbosity:
                vorhanden = anzahl(Gesetz.objects.count(), "Gesetz", "Gesetze")
                self.stdout.write(f"Es sind bereits {vorhanden} importiert – nichts zu tun (--if-empty).")
            return

        start = time.perf_counter()
        files = self._files([Path(p) for p in paths] or [default_corpus_dir()], xml=xml)
        if if_outdated:
            files = self._outdated(files)
            if not files:
                if verbosity:
                    self.stdout.write("Die geladenen Gesetze sind so aktuell wie die Dateien – nichts zu tun "
                                      "(--if-outdated).")
                return
        parsed = self._read(files, xml=xml, only=only, show_progress=verbosity > 0)
        berichte = self._import(parsed, dry_run=dry_run, show_progress=verbosity > 0)
        woerter = None if dry_run else refresh_lexikon()
        if verbosity:
            # A first load of many laws (make run on a new database) is one line; -v 2 lists them.
            erstes_laden = (len(berichte) > ERSTES_LADEN_ZEILEN and verbosity < 2
                            and all(b.erstmals for b in berichte))
            for bericht in [] if erstes_laden else berichte:
                self.stdout.write("\n".join(bericht.zeilen()))
            gesetze = anzahl(len(berichte), "Gesetz", "Gesetze")
            normen = anzahl(sum(b.normen for b in berichte), "Norm", "Normen")
            dauer = sekunden(time.perf_counter() - start)
            if woerter is None:
                self.stdout.write(f"Probelauf (--dry-run): {gesetze} mit {normen} gelesen in {dauer} s, "
                                  "nichts gespeichert.")
            else:
                self.stdout.write(f"{gesetze} mit {normen} importiert in {dauer} s "
                                  f"(Suchwortliste: {zahl(woerter)} Wörter).")

    def _read(self, files: list[Path], *, xml: bool, only: list[str] | None,
              show_progress: bool) -> list[tuple[Path, ParsedGesetz]]:
        """Every law of every file, read before anything is written; the last file of a law wins."""
        wanted = {abk.casefold() for abk in only} if only else None
        by_abk: dict[str, tuple[Path, ParsedGesetz]] = {}
        for path in tqdm(files, desc="Gesetze lesen", unit="Datei", disable=None if show_progress else True):
            if wanted is not None and not self._may_hold(path, wanted):
                continue
            for gesetz in self._parse(path, xml=xml):
                if wanted is not None and gesetz.abk.casefold() not in wanted:
                    continue
                if gesetz.abk in by_abk and show_progress:
                    frueher = by_abk[gesetz.abk][0].name
                    self.stderr.write(f"Hinweis: {path.name} ersetzt {gesetz.abk} aus {frueher}.")
                    del by_abk[gesetz.abk]  # in the order of the file that wins
                by_abk[gesetz.abk] = (path, gesetz)
        if wanted is not None:
            missing = wanted - {abk.casefold() for abk in by_abk}
            if missing:
                raise CommandError(
                    "Nicht gefunden: " + ", ".join(sorted(a for a in only if a.casefold() in missing))
                    + f" (gesucht in {len(files)} Datei(en))."
                )
        return list(by_abk.values())

    @staticmethod
    def _may_hold(path: Path, wanted: set[str]) -> bool:
        """Whether a file can hold one of the wanted laws, by its first norms alone: `--only KSchG`
        reads one law of the 109 bundled, not all (0.1 s a file instead of a whole parse)."""
        if path.suffix.lower() not in (".zip", ".xml"):
            return True  # Markdown names its law only once parsed
        try:
            heads = law_heads(path)
        except Exception:  # a broken file is parsed and named as before
            return True
        return any(head.abk.casefold() in wanted for head in heads)

    def _import(self, parsed: list[tuple[Path, ParsedGesetz]], *, dry_run: bool,
                show_progress: bool) -> list[Bericht]:
        """One transaction a law (services.update_gesetz); a failure names the file and what is saved."""
        berichte: list[Bericht] = []
        for path, gesetz in tqdm(parsed, desc="Gesetze prüfen" if dry_run else "Gesetze importieren",
                                 unit="Gesetz", disable=None if show_progress else True):
            try:
                register = load_sachregister(Path(settings.BASE_DIR) / "corpus" / "sachregister", gesetz.abk)
                with _VectorBar(gesetz.abk, show=show_progress) as bar:
                    result = update_gesetz(parsed=gesetz, stichworte=register, progress=bar.update,
                                           dry_run=dry_run)
            except Exception as exc:  # a DB error must name the file, not end in a traceback
                gespeichert = ", ".join(b.abk for b in berichte) if berichte and not dry_run else ""
                if gespeichert:
                    refresh_lexikon()  # the laws saved before are searched as they are now
                raise CommandError(
                    f"Import von {gesetz.abk} aus {path.name} fehlgeschlagen: {exc}"
                    + (f" (bereits gespeichert: {gespeichert})" if gespeichert else " (nichts gespeichert)")
                ) from exc
            berichte.append(result.bericht)
        return berichte

    def _outdated(self, files: list[Path]) -> list[Path]:
        """The files with a law that is not loaded or is loaded at an older Stand (the Markdown corpus
        of 2021 is); by dates only, so a law the firm loaded itself at a newer Stand stays."""
        loaded = {g.abk: g for g in Gesetz.objects.only("abk", "quelle", "stand", "stand_datum")}
        outdated: list[Path] = []
        for path in files:
            if path.suffix.lower() not in (".zip", ".xml"):
                continue
            try:
                heads = law_heads(path)
            except Exception as exc:  # ImportFormatError, OSError, a broken zip
                raise CommandError(f"{path.name}: Datei kann nicht gelesen werden – {exc}") from None
            for head in heads:
                have = loaded.get(head.abk)
                # older, or of the same date but stated otherwise (a Hinweis added, a correction)
                older = bool(head.stand_datum) and (have is None or have.stand_datum is None
                                                    or have.stand_datum < head.stand_datum
                                                    or (have.stand_datum == head.stand_datum
                                                        and have.stand != head.stand))
                undated = have is not None and have.quelle == Gesetz.Quelle.MARKDOWN and not have.stand_datum
                if have is None or older or undated:
                    outdated.append(path)
                    break
        return outdated

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

    def _parse(self, path: Path, *, xml: bool) -> list[ParsedGesetz]:
        suffix = path.suffix.lower()
        try:
            if xml or suffix in (".zip", ".xml"):
                gesetze = parse_gii_xml_files(path)
            elif suffix == ".md":
                gesetze = [parse_markdown_gesetz(path.read_text(encoding="utf-8"))]
            else:
                raise CommandError(
                    f"{path.name}: unbekanntes Dateiformat (erwartet *.zip, *.xml oder *.md)."
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
        for gesetz in gesetze:
            if not gesetz.normen:
                raise CommandError(
                    f"{path.name}: keine Normen (§ oder Art.) in {gesetz.abk} gefunden – Datei defekt?")
        return gesetze
