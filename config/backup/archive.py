"""The backup archive: one tar file (optionally encrypted, config/backup/crypto.py), written at once
and in one pass, so that a multi-gigabyte backup needs no second copy on disk.

Members: `datenbank.dump` (pg_dump, custom format), `medien/<path>` (every file under MEDIA_ROOT),
`secret_key`, then `manifest.json` (what is in it, with a SHA-256 of every member) and
`manifest.sha256` (the manifest's own). The manifest comes last because it holds the checksums of
what was written before it. Reading extracts everything into a working folder and checks every
checksum before anything is restored: a damaged archive changes nothing.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from config.backup.crypto import DecryptingReader, EncryptingWriter, is_encrypted
from config.backup.errors import SicherungFehler

DUMP = "datenbank.dump"
SECRET = "secret_key"
MANIFEST = "manifest.json"
MANIFEST_SUM = "manifest.sha256"
MEDIA = "medien/"
NAME = re.compile(r"^helena-sicherung-\d{4}-\d{2}-\d{2}-\d{6}\.tar(\.enc)?$")
WORK = ".helena-sicherung-"  # a backup's working folder, and the start of its archive while written
RESTORE_WORK, RESTORE_KEPT = ".helena-wiederherstellen-", "helena-wiederherstellung-unvollstaendig-"
_BLOCK = 1 << 20


def archive_path(ziel: str, *, encrypted: bool, now: datetime, media_root: Path) -> tuple[Path, bool]:
    """ZIEL as a directory (an existing one, or one written with a trailing slash, then created, 0700):
    a dated name in it; else ZIEL is the file itself. The path, and whether ZIEL is a directory. A ZIEL
    inside MEDIA_ROOT is refused: the backup would hold its own predecessors, or (excluded) nothing."""
    folder = Path(ziel)
    is_folder = folder.is_dir() or ziel.endswith(("/", os.sep))
    if (folder if is_folder else folder.parent).resolve().is_relative_to(media_root.resolve()):
        raise SicherungFehler(f"ZIEL ({ziel}) liegt in MEDIA_ROOT ({media_root}), dem Ordner der gesicherten "
                              "Dateien: einen Ordner außerhalb nehmen.")
    if is_folder:
        missing = [p for p in (folder, *folder.parents) if not p.exists()]
        for part in reversed(missing):
            try:
                part.mkdir(mode=0o700)
            except OSError as exc:  # no right to create it (/srv owned by root), a file in the way …
                grund = exc.strerror or exc
                raise SicherungFehler(f"Den Ordner {part} kann Helena nicht anlegen ({grund}). Lege ihn an "
                                      "und gib ihn dem Benutzer, unter dem Helena läuft.") from None
        return folder / f"helena-sicherung-{now:%Y-%m-%d-%H%M%S}.tar{'.enc' if encrypted else ''}", True
    if not folder.parent.is_dir():
        raise SicherungFehler(f"Den Ordner {folder.parent} gibt es nicht.")
    return folder, False


def prune(folder: Path, *, keep: int) -> list[Path]:
    """Delete all but the newest `keep` dated archives in `folder` (their names sort by time)."""
    archives = sorted((p for p in folder.iterdir() if NAME.match(p.name) and p.is_file()), reverse=True)
    removed = archives[keep:]
    for path in removed:
        path.unlink()
    return removed


def sweep(folder: Path, *, prefixes: tuple[str, ...], older_than: float = 86400) -> list[Path]:
    """Delete what a crashed backup or restore left in `folder`: entries whose names start with one of
    `prefixes`, older than a day (a younger one may belong to a run in progress). A clear-text dump
    must not linger. What was deleted."""
    if not folder.is_dir():
        return []
    cutoff, removed = time.time() - older_than, []
    for path in folder.iterdir():
        if not path.name.startswith(prefixes) or path.lstat().st_mtime >= cutoff:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


class _Hashing:
    """Reads from `raw` and keeps the SHA-256 of what was read."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw, self.sha = raw, hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.sha.update(data)
        return data


@contextmanager
def atomic_file(path: Path) -> Iterator[BinaryIO]:
    """A new file readable by its owner only (0600), under its name only once it is complete."""
    temp = path.with_name(f"{WORK}{path.name}.{os.getpid()}.teil")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


class Writer:
    """Adds members to an archive being written; the manifest gathers their checksums."""

    def __init__(self, out: BinaryIO, *, secret: str | None) -> None:
        self._crypt = EncryptingWriter(out, secret) if secret else None
        self._tar = tarfile.open(  # noqa: SIM115  (closed by finish(): members are added in between)
            fileobj=self._crypt or out, mode="w|", format=tarfile.PAX_FORMAT)
        self.sums: dict[str, dict[str, Any]] = {}

    def add_file(self, name: str, path: Path) -> None:
        with open(path, "rb") as f:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = os.fstat(f.fileno()).st_size, 0o600, int(path.stat().st_mtime)
            hashing = _Hashing(f)
            self._tar.addfile(info, hashing)
        self.sums[name] = {"bytes": info.size, "sha256": hashing.sha.hexdigest()}

    def add_bytes(self, name: str, data: bytes) -> None:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), 0o600
        self._tar.addfile(info, io.BytesIO(data))
        self.sums[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}

    def finish(self, manifest: dict[str, Any]) -> None:
        data = json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True).encode()
        self.add_bytes(MANIFEST, data)
        self.add_bytes(MANIFEST_SUM, hashlib.sha256(data).hexdigest().encode())
        self._tar.close()
        if self._crypt:
            self._crypt.close()


def _safe_name(name: str) -> str:
    """A member's name as written by Writer, else refused: a fixed one, or `medien/` and a relative
    path in its plain spelling (no `..`, no `.`, no doubled or trailing slash)."""
    path = PurePosixPath(name)
    fixed = name in (DUMP, SECRET, MANIFEST, MANIFEST_SUM)
    if not fixed and (not name.startswith(MEDIA) or path.is_absolute() or ".." in path.parts
                      or len(path.parts) < 2 or path.as_posix() != name or "\\" in name):
        raise SicherungFehler(f"Das Archiv ist beschädigt oder nicht von Helena (unerwarteter Eintrag "
                              f"„{name}“).", code="archiv_beschaedigt")
    return name


def _open(path: Path, secret: str | None) -> BinaryIO:
    raw = open(path, "rb")  # noqa: SIM115  (closed by extract(), or wrapped by the reader it closes)
    if not is_encrypted(path):
        return raw
    if not secret:
        raw.close()
        raise SicherungFehler("Das Archiv ist verschlüsselt: die Passphrase fehlt "
                              "(HELENA_SICHERUNG_PASSPHRASE oder --passphrase-datei).",
                              code="passphrase_fehlt")
    try:
        return _Closing(DecryptingReader(raw, secret), raw)
    except BaseException:
        raw.close()
        raise


class _Closing:
    def __init__(self, reader: DecryptingReader, raw: BinaryIO) -> None:
        self.reader, self.raw = reader, raw

    def read(self, size: int = -1) -> bytes:
        return self.reader.read(size)

    def close(self) -> None:
        self.raw.close()


def extract(path: Path, folder: Path, *, secret: str | None) -> dict[str, Any]:
    """Every member into `folder`, every checksum checked; the manifest. SicherungFehler when the
    archive cannot be read, is damaged, incomplete or holds anything it should not."""
    if not path.is_file():
        raise SicherungFehler(f"Das Archiv {path} gibt es nicht.")
    seen: dict[str, str] = {}
    source = _open(path, secret)
    try:
        with tarfile.open(fileobj=source, mode="r|") as tar:
            for member in tar:
                name = _safe_name(member.name)
                if not member.isfile() or name in seen:
                    raise SicherungFehler(f"Das Archiv ist beschädigt (Eintrag „{name}“).")
                target = folder / name
                target.parent.mkdir(parents=True, exist_ok=True)
                sha = hashlib.sha256()
                with tar.extractfile(member) as data, open(target, "wb") as out:
                    while block := data.read(_BLOCK):
                        sha.update(block)
                        out.write(block)
                seen[name] = sha.hexdigest()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SicherungFehler(f"Das Archiv ist beschädigt oder unvollständig ({exc}). Es wurde nichts "
                              "verändert.", code="archiv_beschaedigt") from exc
    finally:
        source.close()
    return _verified_manifest(folder, seen)


def _verified_manifest(folder: Path, seen: dict[str, str]) -> dict[str, Any]:
    """The manifest, checked against what was extracted; its "dateien" are the medien/ members
    themselves (each name checked by _safe_name), which it must list exactly."""
    damaged = "Das Archiv ist beschädigt ({}). Es wurde nichts verändert."
    if MANIFEST not in seen or MANIFEST_SUM not in seen:
        raise SicherungFehler(damaged.format("das Verzeichnis des Inhalts fehlt"), code="archiv_beschaedigt")
    if (folder / MANIFEST_SUM).read_text(errors="replace").strip() != seen[MANIFEST]:
        raise SicherungFehler(damaged.format("das Verzeichnis des Inhalts stimmt nicht"),
                              code="archiv_beschaedigt")
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except ValueError:  # UnicodeDecodeError and JSONDecodeError alike
        manifest = None
    if not _well_formed(manifest):
        raise SicherungFehler(damaged.format("das Verzeichnis des Inhalts ist unvollständig"),
                              code="archiv_beschaedigt")
    expected = {name: entry["sha256"] for name, entry in manifest["pruefsummen"].items()}
    for name, sha in expected.items():
        if seen.get(name) != sha:
            what = "fehlt" if name not in seen else "stimmt nicht mit der Prüfsumme überein"
            raise SicherungFehler(damaged.format(f"„{name}“ {what}"), code="archiv_beschaedigt")
    extra = set(seen) - set(expected) - {MANIFEST, MANIFEST_SUM}
    if extra:
        raise SicherungFehler(damaged.format(f"unerwartet: {', '.join(sorted(extra))}"),
                              code="archiv_beschaedigt")
    dateien = sorted(name.removeprefix(MEDIA) for name in seen if name.startswith(MEDIA))
    if sorted(manifest["dateien"]) != dateien:
        raise SicherungFehler(damaged.format("die Liste der Dateien passt nicht zum Inhalt"),
                              code="archiv_beschaedigt")
    manifest["dateien"] = dateien
    return manifest


def _well_formed(manifest: Any) -> bool:
    """Every key restore reads, of the type it expects (an archive of another program, or one edited
    with a matching checksum, must be refused as damaged, not crash half-way)."""
    def strings(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)

    try:
        postgresql, migrationen, zeilen, sums = (manifest["postgresql"], manifest["migrationen"],
                                                 manifest["zeilen"], manifest["pruefsummen"])
        return (isinstance(manifest["helena"], str) and isinstance(manifest["erstellt"], str)
                and type(postgresql["server_major"]) is int and type(postgresql["pg_dump_major"]) is int
                and all(isinstance(app, str) and strings(names) for app, names in migrationen.items())
                and all(isinstance(table, str) and type(rows) is int for table, rows in zeilen.items())
                and strings(manifest["dateien"]) and strings(manifest.get("fehlend", []))
                and all(isinstance(entry["sha256"], str) for entry in sums.values())
                and {DUMP, SECRET} <= set(sums))
    except (KeyError, TypeError, AttributeError):
        return False
