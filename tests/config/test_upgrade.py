"""An upgrade as a firm does it (docs/betrieb.md „Aktualisieren“): a database at the previous
release's migrations, with data written by that release's models, then `manage.py migrate`, and the
data is still there and readable through today's scoped selectors. The previous release is named in
one place, tests/data/vorige_version.json, which every release moves on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db.migrations.loader import MigrationLoader
from psycopg import sql

from tests.config.upgrade_schritte import VORIGE, vorige_migrationen
from tests.conftest import database_url

BASE_DIR = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


# What a lawyer of the firm sees of the old data after the upgrade (tests/config/upgrade_schritte.py).
ERWARTET = {
    "akten": ["77/25"],
    "akte": ["Weber ./. Baumarkt Nord GmbH", "Gewährleistung", "kaufrecht", "HH", "8450.00",
             ["alt", "Gewähr"]],
    "mandanten": ["Petra Weber"], "gegner": ["Baumarkt Nord GmbH"],
    "naechste_frist": ["Klageerwiderung", True],
    "fristen_alle": ["Klageerwiderung", "Mängelanzeige"],
    "praktikant_sieht": False,  # the Akte's scoping survived the upgrade
    "gespraeche": ["Nacherfüllung oder Rücktritt?"],
    "nachrichten": ["Welche Frist gilt für die Nacherfüllung?", "Eine angemessene Frist, § 323 BGB."],
    "anmeldung": True,
}


def _admin() -> dict:
    db = settings.DATABASES["default"]
    return {"host": db["HOST"] or "127.0.0.1", "port": db["PORT"] or 5432, "user": db["USER"],
            "password": db["PASSWORD"] or None, "dbname": "postgres", "autocommit": True}


def _run(*args: str, db: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": database_url(db), "DEBUG": "true"}
    done = subprocess.run([sys.executable, *args], cwd=BASE_DIR, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def _leere_db(suffix: str) -> Iterator[str]:
    name = settings.DATABASES["default"]["NAME"] + suffix
    with psycopg.connect(**_admin()) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield name
    with psycopg.connect(**_admin()) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def alte_db() -> Iterator[str]:
    yield from _leere_db("_upgrade")


@pytest.fixture
def neue_db() -> Iterator[str]:
    yield from _leere_db("_upgrade_neu")


def test_previous_release_is_named_completely() -> None:
    """Every app with migrations is named, with a migration that exists in this tree; and where git
    knows the release, it is that commit's newest migration of the app."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    apps_with_migrations = {app for app, _name in loader.disk_migrations}
    assert set(json.loads(VORIGE.read_text())["migrationen"]) == apps_with_migrations  # null: not there yet
    vorige = dict(vorige_migrationen())
    for app, name in vorige.items():
        assert (app, name) in loader.disk_migrations, f"{app}.{name} gibt es nicht"
    commit = json.loads(VORIGE.read_text())["commit"]
    for app, ordner in (("akten", "akten"), ("drafts", "drafts"), ("helena", "helena"),
                        ("knowledge", "helena/knowledge")):
        listing = subprocess.run(["git", "ls-tree", "--name-only", f"{commit}:{ordner}/migrations"],
                                 cwd=BASE_DIR, capture_output=True, text=True)
        if listing.returncode != 0:
            pytest.skip(f"git kennt {commit} hier nicht (flacher Klon)")
        newest = sorted(n for n in listing.stdout.split() if n[:4].isdigit())[-1]
        assert vorige[app] == newest.removesuffix(".py"), app


def test_database_of_the_previous_release_migrates_with_its_data(alte_db: str, neue_db: str,
                                                                 tmp_path: Path) -> None:
    alt = _run("-m", "tests.config.upgrade_schritte", "alt", db=alte_db)
    ids = json.loads(alt.stdout.strip().splitlines()[-1])
    with psycopg.connect(**{**_admin(), "dbname": alte_db}) as conn:
        stand = dict(conn.execute("SELECT app, max(name) FROM django_migrations GROUP BY app").fetchall())
    assert stand == dict(vorige_migrationen())  # exactly the previous release, nothing newer
    # a backup the previous release's database gives, for the restore below
    archiv = tmp_path / "vorige.tar"
    _run("manage.py", "sichern", str(archiv), db=alte_db)

    _run("manage.py", "migrate", "--noinput", db=alte_db)  # the upgrade itself
    _run("manage.py", "migrate", "--check", db=alte_db)  # nothing left to apply
    gesehen = json.loads(_run("-m", "tests.config.upgrade_schritte", "neu", json.dumps(ids),
                              db=alte_db).stdout.strip().splitlines()[-1])
    assert gesehen == ERWARTET

    # the same from the backup: restored into an empty database, migrated by the restore itself
    done = _run("manage.py", "wiederherstellen", str(archiv), db=neue_db)
    heute = set(MigrationLoader(None, ignore_no_migrations=True).graph.leaf_nodes())
    neuer = heute != set(vorige_migrationen())
    assert ("migriert auf diese Version" in done.stdout) == neuer, done.stdout
    _run("manage.py", "migrate", "--check", db=neue_db)
    gesehen = json.loads(_run("-m", "tests.config.upgrade_schritte", "neu", json.dumps(ids),
                              db=neue_db).stdout.strip().splitlines()[-1])
    assert gesehen == ERWARTET

