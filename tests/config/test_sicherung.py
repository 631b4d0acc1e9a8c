"""`manage.py sichern` and `manage.py wiederherstellen`, as an operator runs them: real pg_dump and
pg_restore against the test database's server (the machine's PostgreSQL, or the embedded one in the
second round of `make test`), the demo Kanzlei with uploaded files backed up and restored into a new
empty database, every table and file compared."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tarfile
import time
from io import BytesIO
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command
from psycopg import sql

from akten.dokumente.services import upload_dokument
from akten.models import Akte, Role, User
from config.backup import postgres
from config.backup.archive import DUMP, MANIFEST, MANIFEST_SUM, SECRET, Writer, extract
from config.backup.errors import SicherungFehler
from tests.conftest import database_url
from tests.dateien import text_pdf

BASE_DIR = Path(__file__).resolve().parents[2]
PASSPHRASE = "Kanzlei-Sicherung 2026!"
pytestmark = pytest.mark.slow


def _admin(dbname: str) -> dict:
    db = settings.DATABASES["default"]
    return {"host": db["HOST"] or "127.0.0.1", "port": db["PORT"] or 5432, "user": db["USER"],
            "password": db["PASSWORD"] or None, "dbname": dbname, "autocommit": True}


def manage(*args: str, db: str | None = None, media: Path | None = None, vorher: str = "",
           **env: str) -> subprocess.CompletedProcess:
    """`python manage.py …` in its own process, as from a shell or cron, on database `db` (default: the
    test database) with uploads in `media` (default: this test's). `vorher`: Python run in that
    process before the command, after Django's setup (a fault at a chosen moment)."""
    environ = {k: v for k, v in os.environ.items() if k != "HELENA_SICHERUNG_PASSPHRASE"}
    environ.update(DATABASE_URL=database_url(db), MEDIA_ROOT=str(media or settings.MEDIA_ROOT), DEBUG="true",
                   **env)
    argv = [sys.executable, "manage.py", *args]
    if vorher:
        argv = [sys.executable, "-c", "import os, sys, django\n"
                "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\ndjango.setup()\n"
                f"{vorher}\nfrom django.core.management import execute_from_command_line\n"
                "execute_from_command_line(['manage.py', *sys.argv[1:]])", *args]
    return subprocess.run(argv, cwd=BASE_DIR, env=environ, capture_output=True, text=True, timeout=300)


def counts(dbname: str) -> dict[str, int]:
    with psycopg.connect(**_admin(dbname)) as conn:
        return postgres.row_counts(conn)


def rows(dbname: str, query: str) -> list[tuple]:
    with psycopg.connect(**_admin(dbname)) as conn:
        return conn.execute(query).fetchall()


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(autouse=True)
def _eigene_medien(settings, tmp_path: Path) -> None:
    """Uploads of this test only, so that the files compared are exactly those it made."""
    settings.MEDIA_ROOT = tmp_path / "quelle-medien"


@pytest.fixture
def ziel_db() -> str:
    """A new, empty database beside the test database, dropped afterwards."""
    name = settings.DATABASES["default"]["NAME"] + "_ziel"
    with psycopg.connect(**_admin("postgres")) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield name
    with psycopg.connect(**_admin("postgres")) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def kanzlei_mit_dateien(transactional_db) -> dict[str, bytes]:
    """The demo Kanzlei, committed, with three uploaded files (their bytes by path under MEDIA_ROOT)."""
    call_command("seed_demo", password="pw-sicherung", verbosity=0)
    anwalt = User.objects.get(username="anwalt")
    akte = Akte.objects.filter(anwalt=anwalt).order_by("id").first()
    uploads = [("Klageschrift.pdf", text_pdf(["Klageschrift Seite eins", "Seite zwei"])),
               ("Notiz.txt", "Vermerk über das Telefonat mit der Mandantin – Umlaute: äöüß".encode()),
               ("Anlage K1.txt", os.urandom(64).hex().encode())]
    for name, data in uploads:
        upload_dokument(user=anwalt, akte_id=akte.id, datei=BytesIO(data), name=name, groesse=len(data))
    stored = files(Path(settings.MEDIA_ROOT))
    assert sorted(stored.values()) == sorted(data for _, data in uploads)
    return stored


AKTEN = ("SELECT aktenzeichen, kurzrubrum, wegen, rechtsgebiet, gegenstandswert::text, bundesland, "
         "angelegt_am::text FROM akten_akte ORDER BY aktenzeichen")
FRISTEN = ("SELECT a.aktenzeichen, f.bezeichnung, f.datum::text, f.erledigt, f.typ FROM akten_frist f "
           "JOIN akten_akte a ON a.id = f.akte_id ORDER BY 1, 2, 3")
BETEILIGTE = "SELECT name, rolle, akte_id FROM akten_beteiligter ORDER BY akte_id, name"


def test_backup_and_restore_into_a_new_database(kanzlei_mit_dateien, ziel_db: str, tmp_path: Path) -> None:
    quelle = settings.DATABASES["default"]["NAME"]
    ordner = tmp_path / "sicherungen"
    done = manage("sichern", f"{ordner}/")  # a folder, made for it: the trailing slash says so
    assert done.returncode == 0, done.stderr
    [archiv] = list(ordner.iterdir())
    assert archiv.name.startswith("helena-sicherung-") and archiv.suffix == ".tar"
    assert stat.S_IMODE(archiv.stat().st_mode) == 0o600  # the firm's whole data: its owner only
    assert stat.S_IMODE(ordner.stat().st_mode) == 0o700  # the folder made for it, too
    assert "Sicherung geschrieben" in done.stdout and "3 Dateien" in done.stdout

    medien, schluessel = tmp_path / "medien", tmp_path / "var" / "secret_key"
    schluessel.parent.mkdir()
    done = manage("wiederherstellen", str(archiv), "--schluessel-datei", str(schluessel), db=ziel_db,
                  media=medien)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Zeilenzahl jeder Tabelle wie gesichert" in done.stdout

    gesichert = counts(quelle)
    assert counts(ziel_db) == gesichert  # every table, every row
    assert gesichert["public.akten_akte"] >= 6 and gesichert["public.akten_frist"] > 0
    for query in (AKTEN, FRISTEN, BETEILIGTE):
        assert rows(ziel_db, query) == rows(quelle, query)
    assert files(medien) == kanzlei_mit_dateien  # byte for byte, under the same names
    assert schluessel.read_text() == settings.SECRET_KEY
    assert stat.S_IMODE(schluessel.stat().st_mode) == 0o600
    # the restored database is this release's schema: nothing left to migrate, and it can be read
    assert manage("migrate", "--check", db=ziel_db, media=medien).returncode == 0
    zaehlen = "from akten.models import Akte; print(Akte.objects.count())"
    lesen = manage("shell", "--no-imports", "-c", zaehlen, db=ziel_db)
    assert lesen.stdout.strip() == str(gesichert["public.akten_akte"])

    # a second restore into the now filled database is refused and changes nothing
    again = manage("wiederherstellen", str(archiv), db=ziel_db, media=medien)
    assert again.returncode == 2
    assert "ist nicht leer" in again.stderr and "createdb" in again.stderr
    assert counts(ziel_db) == gesichert


def test_encrypted_backup_wrong_and_missing_passphrase(kanzlei_mit_dateien, ziel_db: str,
                                                       tmp_path: Path) -> None:
    gross = os.urandom(3 << 20)  # a scan over several of the cipher's 1 MiB chunks
    (Path(settings.MEDIA_ROOT) / "scans").mkdir()
    (Path(settings.MEDIA_ROOT) / "scans" / "gross.pdf").write_bytes(gross)
    archiv = tmp_path / "nacht.tar.enc"
    done = manage("sichern", str(archiv), HELENA_SICHERUNG_PASSPHRASE=PASSPHRASE)
    assert done.returncode == 0, done.stderr
    assert "verschlüsselt" in done.stdout
    inhalt = archiv.read_bytes()
    assert b"PGDMP" not in inhalt and b"akten_akte" not in inhalt and b"Telefonat" not in inhalt
    assert stat.S_IMODE(archiv.stat().st_mode) == 0o600

    medien = tmp_path / "medien"
    falsch = tmp_path / "falsch.txt"
    falsch.write_text("Kanzlei-Sicherung 2025!\n")
    for args, meldung in (([], "die Passphrase fehlt"),
                          (["--passphrase-datei", str(falsch)], "Die Passphrase ist falsch")):
        refused = manage("wiederherstellen", str(archiv), *args, db=ziel_db, media=medien)
        assert refused.returncode == 2 and meldung in refused.stderr, refused.stderr
        assert counts(ziel_db) == {} and not medien.exists()  # nothing changed

    richtig = tmp_path / "passphrase.txt"
    richtig.write_text(PASSPHRASE + "\n")
    done = manage("wiederherstellen", str(archiv), "--passphrase-datei", str(richtig), db=ziel_db,
                  media=medien)
    assert done.returncode == 0, done.stdout + done.stderr
    assert counts(ziel_db) == counts(settings.DATABASES["default"]["NAME"])
    assert files(medien) == {**kanzlei_mit_dateien, "scans/gross.pdf": gross}


def test_short_passphrase_and_retention_of_a_file_refused(db, tmp_path: Path) -> None:
    done = manage("sichern", str(tmp_path / "x.tar.enc"), HELENA_SICHERUNG_PASSPHRASE="kurz")
    assert done.returncode == 1 and "mindestens 12 Zeichen" in done.stderr
    done = manage("sichern", str(tmp_path / "x.tar"), "--behalten", "3")
    assert done.returncode == 1 and "nur, wenn ZIEL ein Ordner ist" in done.stderr
    assert not [p for p in tmp_path.iterdir() if "x.tar" in p.name]  # nothing written, not even a part
    (tmp_path / "datei").write_text("kein Ordner")
    for ziel in (f"{tmp_path}/datei/unter/", "/proc/helena-sicherung/"):  # a file in the way, no right
        done = manage("sichern", ziel)
        assert done.returncode == 1 and "kann Helena nicht anlegen" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_damaged_archive_changes_nothing(kanzlei_mit_dateien, ziel_db: str, tmp_path: Path) -> None:
    archiv = tmp_path / "sicherung.tar"
    assert manage("sichern", str(archiv)).returncode == 0
    inhalt = bytearray(archiv.read_bytes())
    beschaedigt, abgeschnitten = tmp_path / "beschaedigt.tar", tmp_path / "abgeschnitten.tar"
    inhalt[len(inhalt) // 3] ^= 0x01  # one bit inside the database dump
    beschaedigt.write_bytes(inhalt)
    abgeschnitten.write_bytes(archiv.read_bytes()[: len(inhalt) // 2])
    medien = tmp_path / "medien"
    for kaputt in (beschaedigt, abgeschnitten):
        refused = manage("wiederherstellen", str(kaputt), db=ziel_db, media=medien)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "beschädigt" in refused.stderr and "nichts verändert" in refused.stderr
        assert counts(ziel_db) == {} and not medien.exists()


def test_retention_keeps_the_newest(db, tmp_path: Path) -> None:
    ordner = tmp_path / "sicherungen"
    ordner.mkdir()
    alte = ["helena-sicherung-2026-01-01-023000.tar", "helena-sicherung-2026-01-02-023000.tar.enc",
            "helena-sicherung-2026-01-03-023000.tar"]
    for name in [*alte, "notizen.txt"]:
        (ordner / name).write_text("alt")
    done = manage("sichern", str(ordner), "--behalten", "2")
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in ordner.iterdir())
    assert len(names) == 3 and "notizen.txt" in names  # the new one, the newest old one, the stranger
    assert alte[2] in names and alte[0] not in names and alte[1] not in names
    assert "entfernt" in done.stdout


def test_pg_dump_fits_the_server(db) -> None:
    target = postgres.default_target()
    major = postgres.server_major(target)
    tool = postgres.find_tool("pg_dump", minimum=major)
    assert tool.major >= major
    with pytest.raises(SicherungFehler, match="Kein pg_restore für PostgreSQL 99 gefunden"):
        postgres.find_tool("pg_restore", minimum=99)


def _umgeschrieben(archiv: Path, ziel: Path, aendern) -> Path:
    """The archive with its manifest changed by `aendern`, checksums made to fit: what a backup of
    another release or server would look like."""
    ordner = ziel.parent / "ausgepackt"
    ordner.mkdir()
    manifest = extract(archiv, ordner, secret=None)
    aendern(manifest)
    with open(ziel, "wb") as out:
        writer = Writer(out, secret=None)
        for path in sorted(p for p in ordner.rglob("*") if p.is_file()):
            name = path.relative_to(ordner).as_posix()
            if name not in (MANIFEST, MANIFEST_SUM):
                writer.add_file(name, path)
        writer.finish(manifest)
    return ziel


def test_backup_of_a_newer_release_or_server_is_refused(db, ziel_db: str, tmp_path: Path) -> None:
    archiv = tmp_path / "heute.tar"
    assert manage("sichern", str(archiv)).returncode == 0
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    zukunft = _umgeschrieben(archiv, tmp_path / "a" / "zukunft.tar",
                             lambda m: m["migrationen"]["akten"].append("9999_aus_der_zukunft"))
    server = _umgeschrieben(archiv, tmp_path / "b" / "server.tar",
                            lambda m: m["postgresql"].update(server_major=99))
    for kaputt, meldung in ((zukunft, "neueren Helena-Version"), (server, "PostgreSQL 99")):
        refused = manage("wiederherstellen", str(kaputt), db=ziel_db, media=tmp_path / "medien")
        assert refused.returncode == 2 and meldung in refused.stderr, refused.stderr
        assert counts(ziel_db) == {}


def test_restore_into_a_fresh_make_run_checkout(kanzlei_mit_dateien, tmp_path: Path) -> None:
    """docs/betrieb.md: before the first `make run`, the launcher restores into its embedded
    PostgreSQL and leaves the backup's key where `make run` reads it; `make run` then starts on the
    firm's data without demo records and without touching a password."""
    admin = User.objects.get(username="admin")
    admin.set_password("eigenes-admin-pw")  # the firm began with the demo, then made it its own
    admin.save()
    User.objects.create_user(username="kmeier", password="meier-pw", role=Role.ANWALT)
    User.objects.filter(username="praktikant").update(is_active=False)
    archiv = tmp_path / "sicherung.tar"
    assert manage("sichern", str(archiv)).returncode == 0
    var, medien = tmp_path / "var", tmp_path / "medien"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SECRET_KEY", "DEBUG")}
    env.update(HELENA_VAR_DIR=str(var), MEDIA_ROOT=str(medien))
    launcher = [sys.executable, "-m", "config.launcher"]
    done = subprocess.run([*launcher, "wiederherstellen", str(archiv)], cwd=BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "eingebetteten Server" in done.stdout and "Zeilenzahl jeder Tabelle wie gesichert" in done.stdout
    assert (var / "secret_key").read_text() == settings.SECRET_KEY
    assert files(medien) == kanzlei_mit_dateien
    zaehlen = "from akten.models import Akte; print('Akten:', Akte.objects.count())"
    gelesen = subprocess.run([*launcher, "exec", "--", sys.executable, "manage.py", "shell", "--no-imports",
                              "-c", zaehlen], cwd=BASE_DIR, env=env, capture_output=True, text=True,
                             timeout=300)
    akten = counts(settings.DATABASES["default"]["NAME"])["public.akten_akte"]
    assert f"Akten: {akten}" in gelesen.stdout, gelesen.stdout + gelesen.stderr

    # `make run`'s start path on the restored database, stopped once the demo step has spoken
    run = subprocess.Popen([*launcher, "run", "--port", "0"], cwd=BASE_DIR, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        output = []
        for line in run.stdout:
            output.append(line)
            if "Demo-" in line:  # „Demo-Kanzlei bereit“ or „Keine Demo-Daten angelegt“
                break
    finally:
        run.send_signal(signal.SIGINT)
        run.wait(timeout=120)
    assert "Keine Demo-Daten angelegt" in "".join(output), "".join(output)
    pruefen = ("import json; from akten.models import Akte, User; print('Akten:', Akte.objects.count()); "
               "print(json.dumps(sorted(User.objects.values_list('username', 'password', 'is_active', "
               "'role'))))")
    gelesen = subprocess.run([*launcher, "exec", "--", sys.executable, "manage.py", "shell", "--no-imports",
                              "-c", pruefen], cwd=BASE_DIR, env=env, capture_output=True, text=True,
                             timeout=300)
    assert f"Akten: {akten}" in gelesen.stdout, gelesen.stdout + gelesen.stderr
    benutzer = sorted(User.objects.values_list("username", "password", "is_active", "role"))
    assert json.loads(gelesen.stdout.strip().splitlines()[-1]) == [list(b) for b in benutzer]


# -- when something goes wrong, and archives made to do harm --------------------------------------

ZWEITES_VERSCHIEBEN_SCHEITERT = """
import shutil
echt, aufrufe = shutil.move, []
def move(quelle, ziel, *args, **kwargs):
    aufrufe.append(ziel)
    if len(aufrufe) == 2:
        raise OSError(5, "Eingabe-/Ausgabefehler")
    return echt(quelle, ziel, *args, **kwargs)
shutil.move = move
"""


def test_a_failure_after_pg_restore_names_what_is_missing_and_keeps_the_files(
        kanzlei_mit_dateien, ziel_db: str, tmp_path: Path) -> None:
    archiv = tmp_path / "sicherung.tar"
    assert manage("sichern", str(archiv)).returncode == 0
    medien, schluessel = tmp_path / "medien", tmp_path / "var" / "secret_key"
    done = manage("wiederherstellen", str(archiv), "--schluessel-datei", str(schluessel), db=ziel_db,
                  media=medien, vorher=ZWEITES_VERSCHIEBEN_SCHEITERT)
    assert done.returncode == 3, done.stdout + done.stderr  # not 1 („Zeilenzahlen weichen ab“)
    meldung = " ".join(done.stderr.split())
    assert "ist wiederhergestellt, aber nicht alles" in meldung and "1 von 3 Dateien fehlen" in meldung
    assert counts(ziel_db) == counts(settings.DATABASES["default"]["NAME"])  # the database is there
    assert schluessel.read_text() == settings.SECRET_KEY  # the rest was still done
    [fehlt] = set(kanzlei_mit_dateien) - set(files(medien))
    assert fehlt in meldung
    ordner = Path(re.search(r"sie liegen in (\S+)/medien/", meldung).group(1))
    assert ordner.name.startswith("helena-wiederherstellung-unvollstaendig-") and str(ordner) in meldung
    assert (ordner / "medien" / fehlt).read_bytes() == kanzlei_mit_dateien[fehlt]


def test_key_folder_or_media_root_that_cannot_be_made_is_refused_first(
        kanzlei_mit_dateien, ziel_db: str, tmp_path: Path) -> None:
    archiv = tmp_path / "sicherung.tar"
    assert manage("sichern", str(archiv)).returncode == 0
    datei = tmp_path / "eine-datei"
    datei.write_text("kein Ordner")
    for args, medien, meldung in (
            (["--schluessel-datei", str(datei / "secret_key")], tmp_path / "medien", "für den SECRET_KEY"),
            ([], datei / "medien", "MEDIA_ROOT")):
        refused = manage("wiederherstellen", str(archiv), *args, db=ziel_db, media=medien)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert meldung in refused.stderr and "nichts verändert" in refused.stderr
        assert counts(ziel_db) == {}
    assert not (tmp_path / "medien").exists()


def test_a_manifest_naming_files_outside_media_root_moves_nothing(kanzlei_mit_dateien, ziel_db: str,
                                                                   tmp_path: Path) -> None:
    archiv = tmp_path / "sicherung.tar"
    assert manage("sichern", str(archiv)).returncode == 0
    (tmp_path / "a").mkdir()
    boese = _umgeschrieben(archiv, tmp_path / "a" / "boese.tar",
                           lambda m: m["dateien"].append("../secret_key"))
    medien = tmp_path / "medien"
    refused = manage("wiederherstellen", str(boese), db=ziel_db, media=medien)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "beschädigt" in refused.stderr
    assert not (tmp_path / "secret_key").exists() and not medien.exists() and counts(ziel_db) == {}


def _archiv(path: Path, *, medien: dict[str, bytes], manifest: dict | None = None,
            dateien: list[str] | None = None) -> Path:
    """A tar written by Helena's own writer, with a manifest whose checksums fit (`dateien`: the list
    of files it claims, else the true one)."""
    with open(path, "wb") as out:
        writer = Writer(out, secret=None)
        writer.add_bytes(DUMP, b"PGDMP")
        writer.add_bytes(SECRET, b"schluessel")
        for name, data in medien.items():
            writer.add_bytes("medien/" + name, data)
        writer.finish(manifest if manifest is not None else {
            "format": 1, "helena": "abc", "erstellt": "2026-01-01T02:30:00+01:00",
            "postgresql": {"server": "15", "server_major": 15, "pg_dump_major": 15}, "migrationen": {},
            "zeilen": {}, "dateien": sorted(medien) if dateien is None else dateien,
            "pruefsummen": writer.sums, "verschluesselt": False})
    return path


def _roh(path: Path, members: list[tarfile.TarInfo]) -> Path:
    """A tar with exactly these members (each with its data), as no Helena writes it."""
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
        for info in members:
            tar.addfile(info, io.BytesIO(b"x" * info.size) if info.isfile() else None)
    return path


def _eintrag(name: str, *, typ: bytes = tarfile.REGTYPE, ziel: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = typ, ziel, 1 if typ == tarfile.REGTYPE else 0
    return info


def test_crafted_archives_are_refused_and_nothing_lands_outside(tmp_path: Path) -> None:
    ordner, draussen = tmp_path / "arbeit", tmp_path / "draussen"
    ordner.mkdir()
    gut = _archiv(tmp_path / "gut.tar", medien={"akten/1/brief.pdf": b"%PDF"})
    assert extract(gut, ordner, secret=None)["dateien"] == ["akten/1/brief.pdf"]
    kaputt = [  # the manifest's list of files is not what the archive holds
        _archiv(tmp_path / f"m{i}.tar", medien={"a.txt": b"a"}, dateien=dateien)
        for i, dateien in enumerate((["a.txt", "../draussen/x"], [], ["a.txt", "b.txt"]))]
    kaputt.append(_archiv(tmp_path / "leer.tar", medien={}, manifest={}))  # {} with a fitting checksum
    for i, name in enumerate(("medien/../draussen/x", "/tmp/helena-x", "medien/a/../../draussen/x",
                              "medien/a/./b", "medien//b", "medien/", "anderes.txt")):
        kaputt.append(_roh(tmp_path / f"r{i}.tar", [_eintrag(name)]))
    kaputt.append(_roh(tmp_path / "link.tar", [_eintrag("medien/l", typ=tarfile.SYMTYPE, ziel="/etc")]))
    kaputt.append(_roh(tmp_path / "hart.tar", [_eintrag("medien/h", typ=tarfile.LNKTYPE, ziel=MANIFEST)]))
    kaputt.append(_roh(tmp_path / "doppelt.tar", [_eintrag(MANIFEST_SUM), _eintrag(MANIFEST_SUM)]))
    for archiv in kaputt:
        with pytest.raises(SicherungFehler, match="beschädigt"):
            extract(archiv, ordner, secret=None)
    assert not draussen.exists() and not Path("/tmp/helena-x").exists()


ERSTE_DATEI_GELOESCHT = """
import config.backup.create as c
echt = c.media_files
def media_files(*args, **kwargs):
    found = echt(*args, **kwargs)
    found[0][1].unlink()  # the Dokument deleted between the listing and its reading
    return found
c.media_files = media_files
"""


def test_a_file_deleted_during_the_backup_is_named_not_fatal(kanzlei_mit_dateien, ziel_db: str,
                                                             tmp_path: Path) -> None:
    archiv = tmp_path / "sicherung.tar"
    done = manage("sichern", str(archiv), vorher=ERSTE_DATEI_GELOESCHT)
    assert done.returncode == 0, done.stdout + done.stderr
    [geloescht] = set(kanzlei_mit_dateien) - set(files(Path(settings.MEDIA_ROOT)))
    assert "Warnung: 1 Datei während der Sicherung gelöscht" in done.stdout and geloescht in done.stdout
    assert "2 Dateien" in done.stdout
    (tmp_path / "aus").mkdir()
    manifest = extract(archiv, tmp_path / "aus", secret=None)
    assert manifest["fehlend"] == [geloescht] and geloescht not in manifest["dateien"]
    done = manage("wiederherstellen", str(archiv), db=ziel_db, media=tmp_path / "medien")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "beim Sichern fehlten 1 Datei" in done.stdout and geloescht in done.stdout


DUMP_BEOBACHTET = """
import config.backup.create as c
echt = c._dump
def dump(*args, out, **kwargs):
    echt(*args, out=out, **kwargs)
    open(os.environ["BEOBACHTET"], "w").write(str(out))
c._dump = dump
"""


def test_the_clear_text_dump_stays_local_and_leftovers_are_swept(db, tmp_path: Path) -> None:
    ziel, arbeit, beobachtet = tmp_path / "nas", tmp_path / "arbeit", tmp_path / "beobachtet"
    alt = (ziel / ".helena-sicherung-abc123", ziel / ".helena-sicherung-2026-01-01-023000.tar.enc.99.teil",
           arbeit / ".helena-sicherung-def456")
    for path in alt:
        path.parent.mkdir(exist_ok=True)
        path.mkdir() if "teil" not in path.name else path.write_bytes(b"PGDMP")
    jung = ziel / ".helena-sicherung-2026-01-02-023000.tar.enc.98.teil"  # a run in progress, maybe
    jung.write_bytes(b"teil")
    for path in alt:
        os.utime(path, (time.time() - 2 * 86400,) * 2)
    done = manage("sichern", f"{ziel}/", vorher=DUMP_BEOBACHTET, HELENA_SICHERUNG_PASSPHRASE=PASSPHRASE,
                  HELENA_SICHERUNG_ARBEITSORDNER=str(arbeit), BEOBACHTET=str(beobachtet))
    assert done.returncode == 0, done.stdout + done.stderr
    assert Path(beobachtet.read_text()).is_relative_to(arbeit)  # not written beside the archive
    assert not any(path.exists() for path in alt) and jung.exists()
    assert sorted(p.name for p in ziel.iterdir() if p != jung)[0].endswith(".tar.enc")
    assert list(arbeit.iterdir()) == []


def test_a_target_inside_media_root_is_refused(db, tmp_path: Path) -> None:
    medien = Path(settings.MEDIA_ROOT)
    (medien / "akten").mkdir(parents=True)
    (medien / "akten" / "brief.pdf").write_bytes(b"%PDF")
    for ziel in (f"{medien}/sicherungen/", str(medien / "akten" / "s.tar"), f"{medien}/"):
        done = manage("sichern", ziel)
        assert done.returncode == 1 and "liegt in MEDIA_ROOT" in done.stderr, done.stdout + done.stderr
    assert files(medien) == {"akten/brief.pdf": b"%PDF"}  # nothing written, no folder made


def test_children_get_the_password_or_the_pgpass_file_never_the_passphrase(monkeypatch) -> None:
    monkeypatch.setenv("PGPASSFILE", "/home/helena/.pgpass")
    monkeypatch.setenv("PGPASSWORD", "alt")
    monkeypatch.setenv("HELENA_SICHERUNG_PASSPHRASE", PASSPHRASE)
    ohne = postgres.Target(params={"dbname": "helena"}, password="").env()
    assert ohne.get("PGPASSFILE") == "/home/helena/.pgpass" and "PGPASSWORD" not in ohne
    mit = postgres.Target(params={"dbname": "helena"}, password="geheim").env()
    assert mit["PGPASSWORD"] == "geheim" and "PGPASSFILE" not in mit
    assert "HELENA_SICHERUNG_PASSPHRASE" not in ohne and "HELENA_SICHERUNG_PASSPHRASE" not in mit


def test_encryption_over_many_chunks_and_a_header_asking_too_much(tmp_path: Path) -> None:
    from config.backup import crypto

    klar = os.urandom((5 << 20) // 2 + 12345)  # two and a half chunks and a bit
    out = io.BytesIO()
    writer = crypto.EncryptingWriter(out, PASSPHRASE)
    for i in range(0, len(klar), 777_777):
        writer.write(klar[i:i + 777_777])
    writer.close()
    for schritt in (10240, 1 << 20, 3 << 20):
        reader = crypto.DecryptingReader(io.BytesIO(out.getvalue()), PASSPHRASE)
        gelesen = b"".join(iter(lambda: reader.read(schritt), b""))  # noqa: B023  (read at once)
        assert gelesen == klar
    assert crypto.DecryptingReader(io.BytesIO(out.getvalue()), PASSPHRASE).read() == klar
    gierig = crypto._HEADER.pack(crypto.MAGIC, 22, 32, 1, bytes(16), bytes(7)) + bytes(16)  # 16 GiB
    started = time.monotonic()
    with pytest.raises(SicherungFehler, match="beschädigt"):
        crypto.DecryptingReader(io.BytesIO(gierig + bytes(64)), PASSPHRASE)
    assert time.monotonic() - started < 1
