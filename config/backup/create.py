"""`manage.py sichern ZIEL`: the database, the uploaded files and the SECRET_KEY in one archive.

The row counts in the manifest and the dump come from one snapshot (pg_export_snapshot, handed to
pg_dump), so the counts describe exactly what the dump holds even while the firm keeps working. A file
deleted after the snapshot (a Dokument removed meanwhile) is missing from the archive: named in the
output and in the manifest ("fehlend"), the backup goes on. The clear-text dump is written to a local
working folder (SICHERUNG_ARBEITSORDNER), never beside ZIEL, which may be a NAS or a synced folder;
what a crashed run left there or in ZIEL's folder is swept after a day.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from config.backup import postgres
from config.backup.archive import (
    DUMP,
    MEDIA,
    RESTORE_KEPT,
    RESTORE_WORK,
    SECRET,
    WORK,
    Writer,
    archive_path,
    atomic_file,
    prune,
    sweep,
)
from config.backup.errors import SicherungFehler

FORMAT = 1


@dataclass
class Sicherung:
    """What one backup wrote, for the command's report."""

    pfad: Path
    groesse: int
    tabellen: int
    zeilen: int
    dateien: int
    sekunden: float
    verschluesselt: bool
    entfernt: list[Path] = field(default_factory=list)
    fehlend: list[str] = field(default_factory=list)


def helena_version() -> str:
    """The git commit of this checkout, or "unbekannt" (an installation without .git)."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unbekannt"
    return out.stdout.strip() if out.returncode == 0 else "unbekannt"


def media_files() -> list[tuple[str, Path]]:
    """(path under MEDIA_ROOT, file) of every uploaded file, sorted; no symbolic links (they point
    outside what is kept), nothing a restore unpacked there (its working folder when MEDIA_ROOT is a
    mount of its own, or what it kept after a failure: a clear-text dump)."""
    root = Path(settings.MEDIA_ROOT)
    if not root.is_dir():
        return []
    found = []
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root:
            dirs[:] = [d for d in dirs if not d.startswith((RESTORE_WORK, RESTORE_KEPT))]
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            found.append((path.relative_to(root).as_posix(), path))
    return found


def _dump(target: postgres.Target, tool: postgres.Tool, *, snapshot: str, out: Path) -> None:
    argv = [str(tool.path), "--format=custom", "--no-password", f"--snapshot={snapshot}",
            f"--file={out}", f"--dbname={target.conninfo()}"]
    done = subprocess.run(argv, env=target.env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise SicherungFehler(f"pg_dump ({tool.path}) ist fehlgeschlagen: {done.stderr.strip()[-800:]}")


def sichern(*, ziel: str, passphrase: str | None, behalten: int | None = None) -> Sicherung:
    """Write the archive (0600, under its name only when complete); with `behalten`, delete all but
    that many dated archives in the folder afterwards."""
    started = time.monotonic()
    now = timezone.localtime()
    path, is_folder = archive_path(ziel, encrypted=bool(passphrase), now=now,
                                   media_root=Path(settings.MEDIA_ROOT))
    if behalten is not None and not is_folder:
        raise SicherungFehler("--behalten geht nur, wenn ZIEL ein Ordner ist.")
    work_root = _work_root()
    sweep(work_root, prefixes=(WORK,))
    sweep(path.parent, prefixes=(WORK,))  # a crashed run's archive part (and older releases' dumps)
    target = postgres.default_target()
    major = postgres.server_major(target)
    pg_dump = postgres.find_tool("pg_dump", minimum=major)
    fehlend: list[str] = []
    with tempfile.TemporaryDirectory(dir=work_root, prefix=WORK) as work:
        dump = Path(work) / DUMP
        with target.connect() as conn:  # one transaction: its snapshot is what pg_dump reads
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            snapshot = conn.execute("SELECT pg_export_snapshot()").fetchone()[0]
            version = conn.execute("SHOW server_version").fetchone()[0]
            counts = postgres.row_counts(conn)
            migrations = postgres.applied_migrations(conn)
            _dump(target, pg_dump, snapshot=snapshot, out=dump)
        files = media_files()
        with atomic_file(path) as out:
            writer = Writer(out, secret=passphrase)
            writer.add_file(DUMP, dump)
            for name, file in files:
                try:
                    writer.add_file(MEDIA + name, file)
                except FileNotFoundError:  # deleted since it was listed: the dump may still name it
                    fehlend.append(name)
            writer.add_bytes(SECRET, settings.SECRET_KEY.encode())
            writer.finish(_manifest(now=now, version=version, major=major, pg_dump=pg_dump, counts=counts,
                                    migrations=migrations, sums=writer.sums, encrypted=bool(passphrase),
                                    fehlend=fehlend))
    entfernt = prune(path.parent, keep=behalten) if behalten is not None else []
    return Sicherung(pfad=path, groesse=path.stat().st_size, tabellen=len(counts),
                     zeilen=sum(counts.values()), dateien=len(files) - len(fehlend),
                     sekunden=time.monotonic() - started, verschluesselt=bool(passphrase), entfernt=entfernt,
                     fehlend=fehlend)


def _work_root() -> Path:
    """The local folder for the clear-text dump (SICHERUNG_ARBEITSORDNER), made 0700 if missing."""
    root = Path(settings.SICHERUNG_ARBEITSORDNER)
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise SicherungFehler(f"Den Arbeitsordner {root} (HELENA_SICHERUNG_ARBEITSORDNER) gibt es nicht und "
                              f"er lässt sich nicht anlegen ({exc.strerror or exc}).") from exc
    return root


def _manifest(*, now: datetime, version: str, major: int, pg_dump: postgres.Tool, counts: dict[str, int],
              migrations: dict[str, list[str]], sums: dict[str, dict[str, Any]],
              encrypted: bool, fehlend: list[str]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "helena": helena_version(),
        "erstellt": now.isoformat(),
        "postgresql": {"server": version, "server_major": major, "pg_dump_major": pg_dump.major},
        "migrationen": migrations,
        "zeilen": counts,
        "dateien": sorted(name.removeprefix(MEDIA) for name in sums if name.startswith(MEDIA)),
        "pruefsummen": sums,
        "verschluesselt": encrypted,
        "fehlend": fehlend,  # listed, then deleted before it was read: the dump may still name it
    }
