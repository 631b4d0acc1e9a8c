"""The calendar feed (Kalender-Abo) of one person with many entries: the median time of a full fetch
(the whole calendar built) and of a fetch a calendar program makes with the ETag it has (304, built
from one aggregate query, nothing else), over the feed's own address with Django's test client.

Everything is made inside one transaction on the database of DATABASE_URL and rolled back at the end:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/helena .venv/bin/python bench/kalender.py
    .venv/bin/python bench/kalender.py --eintraege 1000 --runden 7
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

from django.db import transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from akten.kalenderabo import services  # noqa: E402
from akten.models import Akte, Frist, User  # noqa: E402


class Zurueck(Exception):
    """Ends the transaction: nothing of the bench stays."""


def messen(eintraege: int, runden: int) -> None:
    user = User.objects.create_user(username="bench-kalender", role="ADMIN")  # sees every Akte
    akte = Akte.objects.create(aktenzeichen="B-1/26", kurzrubrum="Bench ./. Kalender", anwalt=user)
    heute = timezone.localdate()
    Frist.objects.bulk_create(
        Frist(akte=akte, bezeichnung=f"Frist {i}, Schriftsatz; Anlage", verantwortlich=user,
              datum=heute + timedelta(days=14 + i % 300), vorfrist=heute + timedelta(days=7 + i % 300))
        for i in range(eintraege))
    url = "/kalender/" + services.adresse_erneuern(user=user, umfang="alle").raw + ".ics"
    client = Client(HTTP_HOST="localhost")
    voll, kurz = [], []
    for _ in range(runden):
        start = time.perf_counter()
        antwort = client.get(url)
        voll.append(time.perf_counter() - start)
        assert antwort.status_code == 200
        if antwort.has_header("ETag"):  # (a version without ETag measures the full fetch only)
            start = time.perf_counter()
            assert client.get(url, headers={"If-None-Match": antwort["ETag"]}).status_code == 304
            kurz.append(time.perf_counter() - start)
    print(f"{eintraege} Fristen mit Vorfrist ({antwort.content.count(b'BEGIN:VEVENT')} Ereignisse, "
          f"{len(antwort.content) / 1e6:.1f} MB): voller Abruf Median {statistics.median(voll) * 1000:.0f} ms"
          + (f", unverändert (304) Median {statistics.median(kurz) * 1000:.1f} ms" if kurz else "")
          + f", je {runden} Runden")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eintraege", type=int, default=1000)
    parser.add_argument("--runden", type=int, default=7)
    args = parser.parse_args()
    try:
        with transaction.atomic():
            messen(args.eintraege, args.runden)
            raise Zurueck
    except Zurueck:
        pass


if __name__ == "__main__":
    main()
