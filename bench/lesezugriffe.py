"""What the read log costs the Akte page: the median time of GET /akten/<id>/ with the read recorded
and with the recording switched off, alternating, over Django's test client; and the INSERT alone.

Runs in autocommit as the server does (each read is its own commit, the WAL flush included), on the
database of DATABASE_URL, with `--vorher` rows already in the log; everything it made is deleted at
the end:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/helena .venv/bin/python bench/lesezugriffe.py
    .venv/bin/python bench/lesezugriffe.py --runden 200 --vorher 1000000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")
os.environ["HELENA_AKTEN_INDEX"] = "off"

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from akten import views  # noqa: E402
from akten.lesezugriffe.services import Weg, lesen  # noqa: E402
from akten.models import Akte, AktenZugriff, Beteiligter, Frist, Lesezugriff, Notiz, User  # noqa: E402
from akten.services import grant_access  # noqa: E402


def _median_ms(werte: list[float]) -> float:
    return statistics.median(werte) * 1000


def messen(runden: int, vorher: int) -> None:
    admin = User.objects.create_user(username="bench-lz-admin", role="ADMIN")
    leser = User.objects.create_user(username="bench-lz-leser", role="SACHBEARBEITER")
    akte = Akte.objects.create(aktenzeichen="B-LZ/26", kurzrubrum="Bench ./. Protokoll", anwalt=admin)
    grant_access(akte=akte, user=leser, granted_by=admin)
    heute = timezone.localdate()
    Beteiligter.objects.bulk_create(Beteiligter(akte=akte, rolle="mandant", name=f"Mandant {i}")
                                    for i in range(5))
    Frist.objects.bulk_create(Frist(akte=akte, bezeichnung=f"Frist {i}", datum=heute + timedelta(days=i))
                              for i in range(20))
    Notiz.objects.bulk_create(Notiz(akte=akte, inhalt=f"Notiz {i}", verfasst_von=leser) for i in range(20))
    if vorher:  # a log that has been filling for a while (other Akten's reads)
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO akten_lesezugriff (zeitpunkt, person, aktenzeichen, weg, bereich, "
                "dokument_titel, format, akte_id) SELECT now() - (g || ' seconds')::interval, 'Bench', "
                "'B-ALT', 'seite', 'akte', '', '', NULL FROM generate_series(1, %s) g", [vorher])
    client = Client(HTTP_HOST="localhost")
    client.force_login(leser)
    url = f"/akten/{akte.pk}/"
    for _ in range(5):
        client.get(url)  # warm
    echt = views.lesen
    mit, ohne = [], []
    for _ in range(runden):
        for liste, funktion in ((mit, echt), (ohne, lambda **kwargs: None)):
            views.lesen = funktion
            start = time.perf_counter()
            assert client.get(url).status_code == 200
            liste.append(time.perf_counter() - start)
    views.lesen = echt
    insert = []
    for _ in range(runden):
        start = time.perf_counter()
        lesen(user=leser, akte=akte, weg=Weg.SEITE)
        insert.append(time.perf_counter() - start)
    print(f"Akte-Seite ({runden} Runden, {vorher:,} Zeilen im Protokoll): mit Protokoll Median "
          f"{_median_ms(mit):.1f} ms, ohne {_median_ms(ohne):.1f} ms (Unterschied "
          f"{_median_ms(mit) - _median_ms(ohne):+.1f} ms); das INSERT allein (mit Commit) Median "
          f"{_median_ms(insert):.2f} ms, p95 {statistics.quantiles(insert, n=20)[18] * 1000:.2f} ms")


def aufraeumen() -> None:
    """Everything the bench made, its history rows included."""
    Lesezugriff.objects.filter(aktenzeichen__in=["B-LZ/26", "B-ALT"]).delete()
    ids = list(Akte.history.filter(aktenzeichen="B-LZ/26").values_list("id", flat=True).distinct())
    Akte.objects.filter(pk__in=ids).delete()
    for modell in (Beteiligter, Frist, Notiz, AktenZugriff):
        modell.history.filter(akte_id__in=ids).delete()
    Akte.history.filter(id__in=ids).delete()
    User.objects.filter(username__startswith="bench-lz-").delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runden", type=int, default=100)
    parser.add_argument("--vorher", type=int, default=200_000)
    args = parser.parse_args()
    aufraeumen()
    try:
        messen(args.runden, args.vorher)
    finally:
        aufraeumen()


if __name__ == "__main__":
    main()
