"""Time to import 1,000 Akten with 3,000 parties from the old Kanzlei software's export (issue 32;
goal: under 60 s on the 2-core machine), the way the Verwaltung does it: the Probelauf, the real
run, and the same file once more (everything „vorhanden“).

The export is made up here as such programs write it: Windows-1252, `;`, CRLF, `12.345,67`,
TT.MM.JJJJ, Rechtsgebiete and Bundesländer by their old names, two parties in one quoted cell, and
names that come back (the same insurer as Gegner in many Akten, repeat clients) so that the
Kollisionsprüfung finds what it finds in a real Kanzlei. It runs against a database of its own
(`<DATABASE_URL's name>_bench_import`, created and migrated here, dropped at the end unless
`--behalten`), so the dev database stays as it was. Printed, not asserted; docs/betrieb.md records the
figures.

    .venv/bin/python -m config.launcher exec -- .venv/bin/python bench/import_akten.py [--akten 1000]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import resource
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402

GOAL_S = 60.0
# Names as a Kanzlei's parties are: surnames from common stems and endings (Berg, Bergmann, Bergner …;
# 600 of them), 120 first names, firms of a name, a trade and a legal form. About one party in twenty
# comes back: a repeat client, an insurer as Gegner in many Akten, now and then a former Mandant as Gegner.
STAEMME = ("Berg", "Lind", "Hoff", "Kramer", "Brand", "Stein", "Wald", "Fisch", "Schmid", "Weid", "Kirch",
           "Hart", "Lang", "Kurz", "Busch", "Feld", "Roth", "Schwarz", "Weiß", "Groß", "Klein", "Neu",
           "Alt", "Sommer", "Winter", "Frank", "Bach", "Brück", "Mühl", "Wolf", "Fuchs", "Haas", "Kühn",
           "Lehm", "Maier", "Hübner", "Vogt", "Zimmer", "Otto", "Jäger", "Köhler", "Schäf", "Becker",
           "Dietz", "Ebert", "Gräf", "Horn", "Ising", "Jung", "Kessl")
ENDUNGEN = ("", "er", "mann", "ner", "ert", "hoff", "hardt", "ke", "s", "ling", "bauer", "meier")
VORNAMEN = ("Hans", "Petra", "Jürgen", "Sabine", "Klaus", "Monika", "Thomas", "Andrea", "Michael", "Birgit",
            "Stefan", "Claudia", "Frank", "Heike", "Uwe", "Katrin", "Ralf", "Susanne", "Dirk", "Anja",
            "Murat", "Ayla", "Jan", "Lea", "Björn", "Jörg", "Gülay", "René", "Zoë", "Maximilian", "Paul",
            "Emma", "Lukas", "Mia", "Felix", "Hannah", "Jonas", "Lina", "Leon", "Marie", "Tim", "Laura",
            "Niklas", "Julia", "Tobias", "Sarah", "Florian", "Lisa", "Sebastian", "Anna", "Daniel",
            "Katharina", "Markus", "Nicole", "Christian", "Stefanie", "Matthias", "Sandra", "Andreas",
            "Melanie", "Martin", "Kerstin", "Peter", "Silke", "Wolfgang", "Ute", "Manfred", "Gabriele",
            "Dieter", "Renate",
            "Günter", "Ingrid", "Helmut", "Ursula", "Werner", "Brigitte", "Horst", "Karin", "Gerhard",
            "Elke", "Bernd", "Doris", "Holger", "Tanja", "Sven", "Nadine", "Kai", "Jana", "Oliver", "Simone",
            "Mehmet", "Fatma", "Ali", "Elif", "Piotr", "Agnieszka", "Ivan", "Olga", "Luca", "Giulia",
            "Tom", "Nina", "Ben", "Clara", "Erik", "Ida", "Moritz", "Greta", "Jannik", "Pia", "Till",
            "Merle", "Bastian", "Svenja", "Carsten", "Jessica", "Torsten", "Miriam", "Volker", "Bettina")
GEWERBE = ("Bäckerei", "Autohaus", "Spedition", "Hausverwaltung", "Elektro", "Sanitär", "Dachdeckerei",
           "Immobilien", "Logistik", "Gastronomie", "Pflegedienst", "Zahnarztpraxis", "Bauunternehmung",
           "Steuerberatung", "Metallbau", "Reisebüro", "Druckerei", "Gartenbau", "Fahrschule", "Optik")
RECHTSFORMEN = ("GmbH", "GmbH & Co. KG", "AG", "e.K.", "OHG", "GbR", "UG (haftungsbeschränkt)")
VERSICHERER = ("Allianz Versicherungs-AG", "HUK-COBURG Haftpflicht-Unterstützungs-Kasse",
               "AXA Versicherung AG", "ERGO Versicherung AG", "R+V Allgemeine Versicherung AG")
RECHTSGEBIETE = ("Arbeitsrecht", "Mietrecht", "Miet- und WEG-Recht", "Verkehrsrecht", "Verkehrsunfall",
                 "Familienrecht", "Erbrecht", "Kaufrecht", "Vertragsrecht", "Baurecht", "Strafrecht",
                 "Sozialrecht", "Allgemeines Zivilrecht")
BUNDESLAENDER = ("Nordrhein-Westfalen", "NW", "NRW", "Bayern", "BY", "Hessen", "Niedersachsen", "Berlin",
                 "Baden-Württemberg", "Rheinland-Pfalz", "Sachsen")
ANWAELTE = ("ra_berger", "rain_yilmaz", "ra_hartmann")
KOPF = ("Aktenzeichen;Kurzrubrum;Rechtsgebiet;Mandant;Gegner;Gegenstandswert;Anwalt;Bundesland;Angelegt;"
        "Bemerkung")


class Namen:
    """The parties of the made-up export; remembers the Mandanten for repeat clients and conflicts."""

    def __init__(self, zufall: random.Random) -> None:
        self.zufall = zufall
        self.nachnamen = [s + e for s in STAEMME for e in ENDUNGEN]
        self.mandanten: list[str] = []

    def _neu(self) -> str:
        z = self.zufall
        nachname = z.choice(self.nachnamen)
        if z.random() < 0.35:
            return f"{z.choice(GEWERBE)} {nachname} {z.choice(RECHTSFORMEN)}"
        return f"{nachname}, {z.choice(VORNAMEN)}"

    def mandant(self) -> str:
        if self.mandanten and self.zufall.random() < 0.05:
            return self.zufall.choice(self.mandanten)  # a client who comes again
        name = self._neu()
        self.mandanten.append(name)
        return name

    def gegner(self) -> str:
        wahl = self.zufall.random()
        if wahl < 0.15:
            return self.zufall.choice(VERSICHERER)
        if wahl < 0.16 and self.mandanten:
            return self.zufall.choice(self.mandanten)  # a former client on the other side: a conflict
        return self._neu()


def _verschieden(ziehen: Callable[[], str], anzahl: int, *, ausser: list[str]) -> list[str]:
    """`anzahl` different names, none of `ausser` (one party twice in a row is no party more)."""
    namen: list[str] = []
    while len(namen) < anzahl:
        name = ziehen()
        if name not in namen and name not in ausser:
            namen.append(name)
    return namen


def _betrag(zufall: random.Random) -> str:
    wert = zufall.choice((500, 1_200, 3_600, 5_000, 12_000, 25_000, 80_000, 250_000)) + zufall.randint(0, 999)
    cent = zufall.randint(0, 99)
    return f"{wert:,}".replace(",", ".") + f",{cent:02d}"


def export(akten: int, seed: int = 32) -> bytes:
    """The old program's export: `akten` rows, three parties each (2+1 or 1+2), Windows-1252."""
    zufall = random.Random(seed)
    namen = Namen(zufall)
    zeilen = [KOPF]
    start = date(2019, 1, 2)
    for nr in range(1, akten + 1):
        mandanten = _verschieden(namen.mandant, 1 + nr % 2, ausser=[])
        gegner = _verschieden(namen.gegner, 3 - len(mandanten), ausser=mandanten)
        rubrum = "" if nr % 7 == 0 else f"{mandanten[0].split(',')[0]} ./. {gegner[0].split(',')[0]}"
        angelegt = start + timedelta(days=(nr * 2) % 2500)
        zelle = ["; ".join(mandanten), "; ".join(gegner)]
        zeilen.append(";".join([
            f"{nr}/{angelegt:%y}", rubrum, zufall.choice(RECHTSGEBIETE),
            *(f'"{z}"' if ";" in z else z for z in zelle), _betrag(zufall), zufall.choice(ANWAELTE),
            zufall.choice(BUNDESLAENDER), f"{angelegt:%d.%m.%Y}",
            '"Rückruf erbeten; Unterlagen fehlen"' if nr % 11 == 0 else ""]))
    return ("\r\n".join(zeilen) + "\r\n").encode("cp1252")


def _kanzlei() -> object:
    from akten.models import Role, User

    admin = User.objects.create_user(username="bench_admin", role=Role.ADMIN, password=None)
    for name in ANWAELTE:
        User.objects.create_user(username=name, role=Role.ANWALT, password=None)
    return admin


class Stufen:
    """Wall time per stage of the real run (the services the import calls, wrapped where it calls them)."""

    def __init__(self) -> None:
        from akten.importe import ausfuehren, parteien

        self.zeiten: dict[str, float] = {}
        self.ziele = [(ausfuehren, "akte_anlegen"), (ausfuehren, "parteien_anlegen"),
                      (parteien, "kollisionen"), (parteien, "protokolliere"), (ausfuehren, "_anlagedatum"),
                      (ausfuehren, "pruefe_zeile")]

    def __enter__(self) -> Stufen:
        self.original = [getattr(modul, name) for modul, name in self.ziele]
        for (modul, name), funktion in zip(self.ziele, self.original, strict=True):
            setattr(modul, name, self._gemessen(name, funktion))
        return self

    def __exit__(self, *_: object) -> None:
        for (modul, name), funktion in zip(self.ziele, self.original, strict=True):
            setattr(modul, name, funktion)

    def _gemessen(self, name: str, funktion: object) -> object:
        def gemessen(*args: object, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return funktion(*args, **kwargs)
            finally:
                self.zeiten[name] = self.zeiten.get(name, 0.0) + time.perf_counter() - start
        return gemessen

    def ausgeben(self) -> None:
        for name, sekunden in sorted(self.zeiten.items(), key=lambda x: -x[1]):
            print(f"import:   · {name:<22} {sekunden:6.1f} s")


def _rechenzeit() -> tuple[float, float]:
    """CPU seconds so far of this process and of its PostgreSQL backend (same machine: /proc). On a
    machine others share, wall time waits for them; these two add up to what the import itself costs."""
    eigene = resource.getrusage(resource.RUSAGE_SELF)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        felder = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        datenbank = (int(felder[11]) + int(felder[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):  # PostgreSQL on another machine
        datenbank = float("nan")
    return eigene.ru_utime + eigene.ru_stime, datenbank


def _lauf(titel: str, user: object, inhalt: bytes, *, probelauf: bool, profil: bool) -> dict:
    from akten.importe.ausfuehren import importiere

    profiler = cProfile.Profile() if profil else None
    cpu_vorher, db_vorher = _rechenzeit()
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    bericht = importiere(user=user, inhalt=inhalt, dateiname="export_alt.csv", probelauf=probelauf)
    if profiler:
        profiler.disable()
    dauer = time.perf_counter() - start
    cpu_nachher, db_nachher = _rechenzeit()
    cpu, db = cpu_nachher - cpu_vorher, db_nachher - db_vorher
    z = bericht.zusammenfassung()
    ziel = "" if probelauf else f"  (Ziel < {GOAL_S:.0f} s: {'erreicht' if dauer < GOAL_S else 'VERFEHLT'})"
    print(f"import: {titel:<22} {dauer:6.1f} s  {z['gesamt'] / dauer:6.1f} Zeilen/s  neu {z['neu']}, "
          f"vorhanden {z['vorhanden']}, Fehler {z['fehler']}, Beteiligte {z['beteiligte']}, "
          f"Treffer {z['kollisionen']} (Konflikte {z['konflikte']}){ziel}")
    print(f"import:   Rechenzeit {cpu:5.1f} s Python + {db:5.1f} s PostgreSQL = {cpu + db:5.1f} s; "
          f"Last {os.getloadavg()[0]:.1f}")
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(35)
    return z


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--akten", type=int, default=1000, help="Zeilen (Akten) der Datei; je 3 Beteiligte")
    parser.add_argument("--profil", action="store_true", help="cProfile des echten Laufs ausgeben")
    parser.add_argument("--stufen", action="store_true", help="Zeit je Stufe des echten Laufs ausgeben")
    parser.add_argument("--behalten", action="store_true", help="die Bench-Datenbank nicht löschen")
    args = parser.parse_args()
    inhalt = export(args.akten)
    alter_name = settings.DATABASES["default"]["NAME"]
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"{alter_name}_bench_import"
    print(f"import: Datei {len(inhalt) / 1024:.0f} KB, {args.akten} Akten, {args.akten * 3} Beteiligte, "
          f"Windows-1252, „;“; HELENA_AKTEN_INDEX={settings.HELENA_AKTEN_INDEX}; {os.cpu_count()} Kerne")
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        print(f"import: Datenbank {name} (frisch migriert)")
        admin = _kanzlei()
        _lauf("Probelauf", admin, inhalt, probelauf=True, profil=False)
        if args.stufen:
            with Stufen() as stufen:
                _lauf("Import", admin, inhalt, probelauf=False, profil=args.profil)
            stufen.ausgeben()
        else:
            _lauf("Import", admin, inhalt, probelauf=False, profil=args.profil)
        _lauf("dieselbe Datei erneut", admin, inhalt, probelauf=False, profil=False)
    finally:
        if not args.behalten:
            connection.creation.destroy_test_db(alter_name, verbosity=0)


if __name__ == "__main__":
    main()
