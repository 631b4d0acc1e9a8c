"""`manage.py wiederherstellen ARCHIV`: an archive of `sichern` into an empty database.

Order matters, so that a refusal changes nothing: the target must be empty; the whole archive is
extracted and every checksum checked; the archive must not come from a newer release or a newer
PostgreSQL; no uploaded file may collide; MEDIA_ROOT, the key file's folder and the space for the
unpacked archive must be there. Only then pg_restore runs, in one transaction (it fails whole), then
the files are moved into MEDIA_ROOT, the SECRET_KEY is written if asked, the row counts are compared
with the manifest, and an archive from an older release is migrated. The archive is unpacked beside
MEDIA_ROOT (on its filesystem), so the files arrive by renaming; whatever fails after pg_restore is
caught, named (HalbWiederhergestellt) and the unpacked files are kept under a name that says so.
"""

from __future__ import annotations

import filecmp
import io
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

from config.backup import postgres
from config.backup.archive import DUMP, MEDIA, RESTORE_KEPT, RESTORE_WORK, SECRET, atomic_file, extract, sweep
from config.backup.errors import HalbWiederhergestellt, SicherungFehler

WORK_PREFIX, KEPT_PREFIX = RESTORE_WORK, RESTORE_KEPT
_RESERVE = 64 << 20  # beside the unpacked archive: the table of contents, pg_restore's own files


@dataclass
class Wiederherstellung:
    """What a restore did, for the command's report."""

    manifest: dict[str, Any]
    tabellen: int
    zeilen: int
    dateien: int
    abweichungen: list[str] = field(default_factory=list)
    migriert: list[str] = field(default_factory=list)
    schluessel: Path | None = None
    sekunden: float = 0.0


def _not_empty(target: postgres.Target, count: int) -> SicherungFehler:
    name = target.dbname
    return SicherungFehler(
        f"Die Datenbank „{name}“ ist nicht leer ({count} Tabellen). Wiederhergestellt wird nur in eine leere "
        f"Datenbank, damit nichts überschrieben wird. Eine leere anlegen, z. B. `createdb -U postgres "
        f"{name}_neu` (oder in psql: CREATE DATABASE \"{name}_neu\";), und DATABASE_URL darauf zeigen "
        f"lassen. "
        f"Beim eingebetteten Server von `make run`: `make clean-data` löscht seine Daten (alle!), danach "
        f"`.venv/bin/python -m config.launcher wiederherstellen ARCHIV`.", code="datenbank_nicht_leer")


def _check_empty(target: postgres.Target) -> None:
    with target.connect() as conn:
        count = len(postgres.tables(conn))
    if count:
        raise _not_empty(target, count)


def _check_release(manifest: dict[str, Any], server: int) -> list[tuple[str, str]]:
    """Refuse an archive of a newer Helena or a newer PostgreSQL; the archive's migrations."""
    source = int(manifest["postgresql"]["server_major"])
    if source > server:
        raise SicherungFehler(
            f"Die Sicherung stammt von PostgreSQL {source}, die Zieldatenbank läuft mit PostgreSQL {server}: "
            f"in eine ältere PostgreSQL-Version lässt sich nicht wiederherstellen. Einen Server ab Version "
            f"{source} nehmen (der eingebettete von `make run` ist aktuell).", code="postgresql_zu_alt")
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    applied = [(app, name) for app, names in manifest["migrationen"].items() for name in names]
    unknown = [f"{app}.{name}" for app, name in applied if (app, name) not in known]
    if unknown:
        raise SicherungFehler(
            f"Die Sicherung stammt von einer neueren Helena-Version (Helena {manifest['helena'][:12]}; hier "
            f"unbekannt: {', '.join(unknown[:5])}). Erst Helena aktualisieren (docs/betrieb.md), dann "
            f"wiederherstellen.", code="version_zu_neu")
    return applied


def _check_media(folder: Path, names: list[str]) -> None:
    root = Path(settings.MEDIA_ROOT)
    inside = root.resolve()
    outside = [name for name in names if not (root / name).resolve().is_relative_to(inside)]
    if outside:  # a name checked by the archive, but MEDIA_ROOT may hold a symbolic link
        raise SicherungFehler(f"Das Archiv ist beschädigt oder nicht von Helena („{outside[0]}“ läge "
                              "außerhalb von MEDIA_ROOT). Es wurde nichts verändert.",
                              code="archiv_beschaedigt")
    clash = [name for name in names if (root / name).exists()
             and not filecmp.cmp(root / name, folder / (MEDIA + name), shallow=False)]
    if clash:
        raise SicherungFehler(
            f"In MEDIA_ROOT ({root}) liegen schon andere Dateien unter denselben Namen "
            f"({', '.join(clash[:3])}). Wiederherstellen in einen leeren MEDIA_ROOT.",
            code="dateien_vorhanden")


def _work_place(root: Path) -> Path:
    """Where the archive is unpacked: beside MEDIA_ROOT, or inside it when it is a filesystem of its
    own (a mount) or its parent is not ours: on MEDIA_ROOT's filesystem either way, so that moving
    the files in is a rename that needs no space and cannot fail half-way for want of it."""
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SicherungFehler(f"MEDIA_ROOT ({root}) lässt sich nicht anlegen: {exc.strerror or exc}. "
                              "Es wurde nichts verändert.", code="medien_ordner") from exc
    if root.exists() and not root.is_dir():
        raise SicherungFehler(f"MEDIA_ROOT ({root}) ist kein Ordner. Es wurde nichts verändert.",
                              code="medien_ordner")
    place = root.parent
    writable = os.access(place, os.W_OK | os.X_OK)
    if root.is_dir() and (root.stat().st_dev != place.stat().st_dev or not writable):
        place = root
    if not os.access(place, os.W_OK | os.X_OK):
        raise SicherungFehler(f"In {place} darf Helena nicht schreiben; dort entstehen MEDIA_ROOT und der "
                              "Arbeitsordner. Es wurde nichts verändert.", code="medien_ordner")
    return place


def _check_key_file(path: Path | None) -> None:
    if path is None:
        return
    if path.is_dir():
        raise SicherungFehler(f"--schluessel-datei {path} ist ein Ordner. Es wurde nichts verändert.")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise SicherungFehler(f"Den Ordner {path.parent} für den SECRET_KEY gibt es nicht und er lässt sich "
                              f"nicht anlegen ({exc.strerror or exc}). Es wurde nichts verändert.") from exc
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise SicherungFehler(f"In {path.parent} darf Helena den SECRET_KEY nicht schreiben. Es wurde nichts "
                              "verändert.")


def _check_space(place: Path, archiv: Path) -> None:
    """Unpacked, the archive takes about its own size (the files are not compressed)."""
    if not archiv.is_file():
        raise SicherungFehler(f"Das Archiv {archiv} gibt es nicht.")
    need, free = archiv.stat().st_size + _RESERVE, shutil.disk_usage(place).free
    if free < need:
        raise SicherungFehler(f"Zu wenig Platz in {place}: das Archiv braucht ausgepackt etwa "
                              f"{need >> 20} MB, frei sind {free >> 20} MB. Es wurde nichts verändert.",
                              code="kein_platz")


def _toc_without_extension_comments(tool: postgres.Tool, dump: Path, folder: Path) -> Path:
    """pg_restore's table of contents without COMMENT ON EXTENSION: only the extension's owner (a
    superuser) may set it, and a firm's database role is often none; the comment is PostgreSQL's own."""
    done = subprocess.run([str(tool.path), "--list", str(dump)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SicherungFehler("pg_restore kann die Datenbank im Archiv nicht lesen: "
                              f"{done.stderr.strip()[-800:]}", code="pg_restore")
    lines = [line for line in done.stdout.splitlines() if " COMMENT - EXTENSION " not in line]
    toc = folder / "inhalt.list"
    toc.write_text("\n".join(lines) + "\n")
    return toc


def _restore_database(target: postgres.Target, tool: postgres.Tool, dump: Path, folder: Path) -> None:
    toc = _toc_without_extension_comments(tool, dump, folder)
    argv = [str(tool.path), "--no-owner", "--no-acl", "--single-transaction", "--exit-on-error",
            "--no-password", f"--use-list={toc}", f"--dbname={target.conninfo()}", str(dump)]
    done = subprocess.run(argv, env=target.env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise SicherungFehler(f"pg_restore ({tool.path}) ist fehlgeschlagen, die Datenbank bleibt leer: "
                              f"{done.stderr.strip()[-800:]}", code="pg_restore")


def _move_file(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(source, target)  # a rename: the working folder lies on MEDIA_ROOT's filesystem


def _move_media(folder: Path, names: list[str]) -> list[str]:
    """Every file into MEDIA_ROOT; what could not be moved, with the reason."""
    root, failed = Path(settings.MEDIA_ROOT), []
    for name in names:
        try:
            _move_file(folder / (MEDIA + name), root / name)
        except OSError as exc:
            failed.append(f"{name} ({exc.strerror or exc})")
    return failed


def _compare(target: postgres.Target, expected: dict[str, int]) -> tuple[dict[str, int], list[str]]:
    with target.connect() as conn:
        counts = postgres.row_counts(conn)
    diffs = [f"{table}: {expected[table]} gesichert, {counts.get(table, 'keine Tabelle')} wiederhergestellt"
             for table in sorted(expected) if counts.get(table) != expected[table]]
    return counts, diffs


def _migrate(say: Callable[[str], None]) -> list[str]:
    """Migrate an archive of an older release to this one's schema; the migrations applied."""
    connection = connections[DEFAULT_DB_ALIAS]
    connection.close()
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if not plan:
        return []
    say(f"Die Sicherung stammt von einer älteren Version: {len(plan)} Migrationen werden angewandt …")
    call_command("migrate", interactive=False, verbosity=0, stdout=io.StringIO())
    return [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]


def wiederherstellen(*, archiv: Path, passphrase: str | None, schluessel_datei: Path | None = None,
                     say: Callable[[str], None] = print) -> Wiederherstellung:
    started = time.monotonic()
    target = postgres.default_target()
    major = postgres.server_major(target)
    _check_empty(target)
    place = _work_place(Path(settings.MEDIA_ROOT))
    sweep(place, prefixes=(WORK_PREFIX,))
    _check_key_file(schluessel_datei)
    _check_space(place, archiv)
    folder = Path(tempfile.mkdtemp(dir=place, prefix=WORK_PREFIX))
    restored = False
    try:
        say("Prüfe das Archiv …")
        manifest = extract(archiv, folder, secret=passphrase)
        _check_release(manifest, major)
        names = manifest["dateien"]
        _check_media(folder, names)
        minimum = max(major, manifest["postgresql"]["pg_dump_major"])
        pg_restore = postgres.find_tool("pg_restore", minimum=minimum)
        _check_empty(target)  # once more: the checks took a while
        say(f"Stelle die Datenbank „{target.dbname}“ wieder her ({pg_restore.path}) …")
        _restore_database(target, pg_restore, folder / DUMP, folder)
        restored = True
        result = _after_pg_restore(target, folder, manifest, schluessel_datei, say)
    finally:
        if not restored:
            shutil.rmtree(folder, ignore_errors=True)
    result.sekunden = time.monotonic() - started
    return result


def _after_pg_restore(target: postgres.Target, folder: Path, manifest: dict[str, Any],
                      schluessel_datei: Path | None, say: Callable[[str], None]) -> Wiederherstellung:
    """Files, key, counts, migrations: each tried, whatever fails gathered, none stopping the others
    (the database is restored now; the operator needs to know exactly what is not)."""
    names, missing = manifest["dateien"], []
    failed = _move_media(folder, names)
    if failed:
        more = " …" if len(failed) > 5 else ""
        missing.append(f"{len(failed)} von {len(names)} Dateien fehlen in MEDIA_ROOT "
                       f"({settings.MEDIA_ROOT}): {', '.join(failed[:5])}{more}; sie liegen in "
                       "{ordner}/medien/ und gehören unter demselben Pfad nach MEDIA_ROOT")
    schluessel = None
    if schluessel_datei is not None:
        try:
            with atomic_file(schluessel_datei) as out:
                out.write((folder / SECRET).read_bytes())
            schluessel = schluessel_datei
        except OSError as exc:
            missing.append(f"der SECRET_KEY ist nicht in {schluessel_datei} geschrieben "
                           f"({exc.strerror or exc}); er steht in {{ordner}}/secret_key")
    counts, diffs = {}, []
    try:
        counts, diffs = _compare(target, manifest["zeilen"])
    except Exception as exc:  # any failure after pg_restore is reported, none raised past the rest
        missing.append(f"die Zeilenzahlen sind nicht verglichen ({exc})")
    migriert: list[str] = []
    try:
        migriert = _migrate(say)
    except Exception as exc:  # as above
        missing.append(f"die Migrationen auf diese Version sind nicht (alle) angewandt ({exc}); nachholen "
                       "mit `manage.py migrate`")
    if missing:
        kept = _keep(folder)
        raise HalbWiederhergestellt(
            f"Die Datenbank „{target.dbname}“ ist wiederhergestellt, aber nicht alles: "
            + "; ".join(text.replace("{ordner}", str(kept)) for text in missing)
            + f". Der ausgepackte Inhalt der Sicherung bleibt in {kept} (unverschlüsselt: danach löschen).")
    shutil.rmtree(folder, ignore_errors=True)
    return Wiederherstellung(manifest=manifest, tabellen=len(counts), zeilen=sum(counts.values()),
                             dateien=len(names), abweichungen=diffs, migriert=migriert, schluessel=schluessel)


def _keep(folder: Path) -> Path:
    """The working folder under a name the next restore does not sweep away."""
    kept = folder.with_name(KEPT_PREFIX + time.strftime("%Y-%m-%d-%H%M%S"))
    try:
        folder.rename(kept)
    except OSError:  # kept under its working name then (swept after a day)
        return folder
    return kept
