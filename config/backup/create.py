"""`manage.py sichern ZIEL`: the database, the uploaded files and the SECRET_KEY in one archive.

The row counts in the manifest and the dump come from one snapshot (pg_export_snapshot, handed to
pg_dump), so the counts describe exactly what the dump holds even while the firm keeps working.
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
from config.backup.archive import DUMP, MEDIA, SECRET, Writer, archive_path, atomic_file, prune
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


def helena_version() -> str:
    """The git commit of this checkout, or "unbekannt" (an installation without .git)."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unbekannt"
    return out.stdout.strip() if out.returncode == 0 else "unbekannt"


def media_files(*, exclude: Path) -> list[tuple[str, Path]]:
    """(path under MEDIA_ROOT, file) of every uploaded file, sorted; not the backup folder itself
    should it lie under MEDIA_ROOT, and no symbolic links (they point outside what is kept)."""
    root = Path(settings.MEDIA_ROOT)
    if not root.is_dir():
        return []
    exclude = exclude.resolve()
    inside = exclude.is_relative_to(root.resolve())
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file() or (inside and path.resolve().is_relative_to(exclude)):
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
    path, is_folder = archive_path(ziel, encrypted=bool(passphrase), now=now)
    if behalten is not None and not is_folder:
        raise SicherungFehler("--behalten geht nur, wenn ZIEL ein Ordner ist.")
    target = postgres.default_target()
    major = postgres.server_major(target)
    pg_dump = postgres.find_tool("pg_dump", minimum=major)
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".helena-sicherung-") as work:
        dump = Path(work) / DUMP
        with target.connect() as conn:  # one transaction: its snapshot is what pg_dump reads
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            snapshot = conn.execute("SELECT pg_export_snapshot()").fetchone()[0]
            version = conn.execute("SHOW server_version").fetchone()[0]
            counts = postgres.row_counts(conn)
            migrations = postgres.applied_migrations(conn)
            _dump(target, pg_dump, snapshot=snapshot, out=dump)
        files = media_files(exclude=path.parent)
        with atomic_file(path) as out:
            writer = Writer(out, secret=passphrase)
            writer.add_file(DUMP, dump)
            for name, file in files:
                writer.add_file(MEDIA + name, file)
            writer.add_bytes(SECRET, settings.SECRET_KEY.encode())
            writer.finish(_manifest(now=now, version=version, major=major, pg_dump=pg_dump, counts=counts,
                                    migrations=migrations, sums=writer.sums, encrypted=bool(passphrase)))
    entfernt = prune(path.parent, keep=behalten) if behalten is not None else []
    return Sicherung(pfad=path, groesse=path.stat().st_size, tabellen=len(counts),
                     zeilen=sum(counts.values()), dateien=len(files), sekunden=time.monotonic() - started,
                     verschluesselt=bool(passphrase), entfernt=entfernt)


def _manifest(*, now: datetime, version: str, major: int, pg_dump: postgres.Tool, counts: dict[str, int],
              migrations: dict[str, list[str]], sums: dict[str, dict[str, Any]],
              encrypted: bool) -> dict[str, Any]:
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
    }
