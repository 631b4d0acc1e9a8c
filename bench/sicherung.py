"""How long `manage.py sichern` and `manage.py wiederherstellen` take per 1,000 Akten (docs/betrieb.md
„Sicherung“): a database of its own (`<DATABASE_URL's name>_bench_sicherung`, created and migrated
here, dropped at the end with its restore target) gets N Akten, each with 3 Beteiligte, 4 Fristen,
3 Zeiten, 2 Notizen and 2 uploaded files (random bytes, so nothing compresses them away: a scan or
PDF barely shrinks either) with their extracted text; then the commands run as cron would run them,
in processes of their own, unencrypted and encrypted. With --gesetze the bundled statutes (20,738
norms with vectors, what every installation of `make run` holds) are loaded first and measured too.

Written with bulk_create, so without the history rows a firm's records also have (they add rows,
not much time). Printed, not asserted.

    .venv/bin/python -m config.launcher exec -- .venv/bin/python bench/sicherung.py [--akten 1000]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")
MEDIA = Path(tempfile.mkdtemp(prefix="helena-bench-sicherung-"))
os.environ["MEDIA_ROOT"] = str(MEDIA / "quelle")
os.environ["HELENA_AKTEN_INDEX"] = "off"

import django  # noqa: E402

django.setup()

import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.files.base import ContentFile  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from psycopg import sql  # noqa: E402

from config.database import database_url  # noqa: E402

PASSPHRASE = "bench-passphrase-lang-genug"
TEXT = ("Sehr geehrte Damen und Herren, in der Sache {az} nehmen wir Bezug auf Ihr Schreiben und "
        "widersprechen der Forderung. Die Frist zur Stellungnahme endet am {datum}. ") * 12


def fuellen(akten: int, datei_kb: int) -> None:
    from akten.models import Akte, Beteiligter, Dokument, Frist, Notiz, Role, User, Zeiterfassung

    zufall = random.Random(7)
    anwalt = User.objects.create_user(username="bench-anwalt", password="x", role=Role.ANWALT)
    heute = date.today()
    start = time.monotonic()
    for block in range(0, akten, 200):
        neu = Akte.objects.bulk_create(
            Akte(aktenzeichen=f"{n + 1}/26", kurzrubrum=f"Mandant {n} ./. Gegner {n}", wegen="Forderung",
                 rechtsgebiet="vertragsrecht", anwalt=anwalt, gegenstandswert=zufall.randint(500, 90000))
            for n in range(block, min(akten, block + 200)))
        Beteiligter.objects.bulk_create(
            Beteiligter(akte=a, rolle=rolle, name=f"{rolle.title()} {a.pk} {zufall.randint(1, 10**6)}",
                        anschrift="Musterstraße 1\n12345 Musterstadt")
            for a in neu for rolle in ("mandant", "gegner", "gericht"))
        Frist.objects.bulk_create(
            Frist(akte=a, bezeichnung=f"Frist {i}", datum=heute + timedelta(days=zufall.randint(-30, 90)),
                  erledigt=i == 0) for a in neu for i in range(4))
        Zeiterfassung.objects.bulk_create(
            Zeiterfassung(akte=a, user=anwalt, dauer_minuten=zufall.randint(6, 240), taetigkeit="Schriftsatz")
            for a in neu for _ in range(3))
        Notiz.objects.bulk_create(Notiz(akte=a, verfasst_von=anwalt, titel="Telefonat", inhalt=TEXT[:400])
                                  for a in neu for _ in range(2))
        for a in neu:
            for i in range(2):
                text = TEXT.format(az=a.aktenzeichen, datum=heute)
                d = Dokument(akte=a, titel=f"Schreiben {i}", inhalt=text,
                             dateiname=f"schreiben-{i}.pdf", dateityp="pdf", mime="application/pdf",
                             groesse=datei_kb * 1024, status="freigegeben", erstellt_durch="upload")
                d.datei.save(f"schreiben-{i}.pdf", ContentFile(os.urandom(datei_kb * 1024)), save=False)
                d.save()
    print(f"sicherung: {akten} Akten angelegt in {time.monotonic() - start:.0f} s "
          f"(Dateien {2 * akten * datei_kb / 1024:.0f} MB)")


def manage(*args: str, db: str, media: Path, **env: str) -> tuple[float, str]:
    environ = {**os.environ, "DATABASE_URL": database_url_of(db), "MEDIA_ROOT": str(media), **env}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=environ,
                          capture_output=True, text=True)
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)}: {done.stdout}{done.stderr}")
    return wall, done.stdout


def database_url_of(name: str) -> str:
    db = settings.DATABASES["default"]
    return database_url(host=db["HOST"] or "127.0.0.1", port=db["PORT"], user=db["USER"],
                        password=db["PASSWORD"], dbname=name)


def eigene_zeit(ausgabe: str) -> str:
    found = re.search(r"in (\d+,\d) s", ausgabe)
    return found.group(1) if found else "?"


def messen(titel: str, quelle: str) -> None:
    ziel = f"{quelle}_ziel"
    ordner = MEDIA / "archive"
    for verschluesselt in (False, True):
        shutil.rmtree(ordner, ignore_errors=True)
        ordner.mkdir()
        env = {"HELENA_SICHERUNG_PASSPHRASE": PASSPHRASE} if verschluesselt else {}
        wall, out = manage("sichern", str(ordner), db=quelle, media=MEDIA / "quelle", **env)
        [archiv] = list(ordner.iterdir())
        groesse = archiv.stat().st_size / 1e6
        with psycopg.connect(database_url_of("postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(ziel)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(ziel)))
        shutil.rmtree(MEDIA / "ziel", ignore_errors=True)
        wall_w, out_w = manage("wiederherstellen", str(archiv), db=ziel, media=MEDIA / "ziel", **env)
        art = "verschlüsselt" if verschluesselt else "unverschlüsselt"
        print(f"sicherung: {titel}, {art}: Archiv {groesse:.1f} MB; sichern {eigene_zeit(out)} s "
              f"(Prozess {wall:.1f} s), wiederherstellen {eigene_zeit(out_w)} s (Prozess {wall_w:.1f} s)")
    with psycopg.connect(database_url_of("postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(ziel)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--akten", type=int, default=1000)
    parser.add_argument("--datei-kb", type=int, default=100, help="Größe jeder der zwei Dateien je Akte")
    parser.add_argument("--gesetze", action="store_true", help="danach auch mit den mitgelieferten Gesetzen")
    args = parser.parse_args()
    alter_name = settings.DATABASES["default"]["NAME"]
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"{alter_name}_bench_sicherung"
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    print(f"sicherung: Datenbank {name}, {os.cpu_count()} Kerne, Last {os.getloadavg()[0]:.1f}")
    try:
        fuellen(args.akten, args.datei_kb)
        connection.close()
        messen(f"{args.akten} Akten", name)
        if args.gesetze:
            call_command("load_gesetze", verbosity=0)
            connection.close()
            messen(f"{args.akten} Akten und die Gesetze", name)
    finally:
        connection.creation.destroy_test_db(alter_name, verbosity=0)
        shutil.rmtree(MEDIA, ignore_errors=True)


if __name__ == "__main__":
    main()
