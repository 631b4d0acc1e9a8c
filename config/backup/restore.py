"""`manage.py wiederherstellen ARCHIV`: an archive of `sichern` into an empty database.

Order matters, so that a refusal changes nothing: the target must be empty; the whole archive is
extracted and every checksum checked; the archive must not come from a newer release or a newer
PostgreSQL; no uploaded file may collide. Only then pg_restore runs, in one transaction (it fails
whole), then the files are moved into MEDIA_ROOT, the SECRET_KEY is written if asked, the row counts
are compared with the manifest, and an archive from an older release is migrated.
"""

from __future__ import annotations

import filecmp
import io
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
from config.backup.archive import DUMP, MEDIA, SECRET, atomic_file, extract
from config.backup.errors import SicherungFehler


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
    clash = [name for name in names if (root / name).exists()
             and not filecmp.cmp(root / name, folder / (MEDIA + name), shallow=False)]
    if clash:
        raise SicherungFehler(
            f"In MEDIA_ROOT ({root}) liegen schon andere Dateien unter denselben Namen "
            f"({', '.join(clash[:3])}). Wiederherstellen in einen leeren MEDIA_ROOT.",
            code="dateien_vorhanden")


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


def _move_media(folder: Path, names: list[str]) -> None:
    root = Path(settings.MEDIA_ROOT)
    for name in names:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(folder / (MEDIA + name), target)


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
    work_parent = Path(settings.MEDIA_ROOT).parent
    work_parent = work_parent if work_parent.is_dir() else None
    with tempfile.TemporaryDirectory(dir=work_parent, prefix=".helena-wiederherstellen-") as work:
        folder = Path(work)
        say("Prüfe das Archiv …")
        manifest = extract(archiv, folder, secret=passphrase)
        _check_release(manifest, major)
        names = manifest["dateien"]
        _check_media(folder, names)
        minimum = max(major, int(manifest["postgresql"]["pg_dump_major"]))
        pg_restore = postgres.find_tool("pg_restore", minimum=minimum)
        _check_empty(target)  # once more: the checks took a while
        say(f"Stelle die Datenbank „{target.dbname}“ wieder her ({pg_restore.path}) …")
        _restore_database(target, pg_restore, folder / DUMP, folder)
        _move_media(folder, names)
        schluessel = None
        if schluessel_datei is not None:
            with atomic_file(schluessel_datei) as out:
                out.write((folder / SECRET).read_bytes())
            schluessel = schluessel_datei
    counts, diffs = _compare(target, manifest["zeilen"])
    migriert = _migrate(say)
    return Wiederherstellung(manifest=manifest, tabellen=len(counts), zeilen=sum(counts.values()),
                             dateien=len(names), abweichungen=diffs, migriert=migriert, schluessel=schluessel,
                             sekunden=time.monotonic() - started)
