"""Kollisionsprüfung on a firm of 100,000 Beteiligte (issue 32): `pruefe()` for one name, median and
p95 over 200 names as people type them (the exact name, swapped to „Nachname, Vorname“, with ae for
ä, a title, another legal form, a typo, and names the firm does not know), beside the goal (well under
100 ms per name); one API-sized check of 50 names; and the plan PostgreSQL runs, which must read the
trigram index beteiligter_schluessel_trgm.

The parties go into a database of their own on the server of DATABASE_URL (its name + „_kollision“),
created, migrated and filled on the first run (about two minutes) and reused after that:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/helena .venv/bin/python bench/kollision.py
    .venv/bin/python -m config.launcher exec -- .venv/bin/python bench/kollision.py   # embedded servers

`--neu` fills it again, `--anzahl` changes the number of parties, `--abfragen` the number of names.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")
os.environ["HELENA_AKTEN_INDEX"] = "off"

import psycopg  # noqa: E402

from config.database import connection_params, database_url  # noqa: E402

GOAL_MS = 100.0


def _liste(text: str) -> list[str]:
    """Words of a text; „_“ joins the words of one name („von_Bülow“)."""
    return [wort.replace("_", " ") for wort in text.split()]


VORNAMEN = _liste(
    "Hans Peter Klaus Michael Thomas Andreas Stefan Wolfgang Jürgen Uwe Frank Martin Markus Christian Jörg "
    "Sebastian Tobias Florian Jan Lukas Maximilian Felix Paul Jonas Leon Günther Horst Dieter Manfred Ralf "
    "Sabine Petra Monika Ursula Andrea Claudia Susanne Birgit Karin Gabriele Stefanie Julia Anna Laura Lena "
    "Sophie Marie Katharina Christina Nicole Sandra Jessica Jennifer Melanie Heike Renate Brigitte Ingrid "
    "Bärbel Björn Sören Jörn Gülay Ayşe Mehmet Mustafa Zeynep José María Łukasz Małgorzata Dragan "
    "Milena Ivana Goran Hüseyin Özlem René André Zoë Noëlle"
)
NACHNAMEN = _liste(
    "Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann Schäfer Koch Bauer Richter "
    "Klein Wolf Schröder Neumann Schwarz Zimmermann Braun Krüger Hofmann Hartmann Lange Schmitt Werner "
    "Schmitz Krause Meier Lehmann Schmid Schulze Maier Köhler Herrmann König Walter Mayer Huber Kaiser Fuchs "
    "Peters Lang Scholz Möller Weiß Jung Hahn Schubert Vogel Friedrich Keller Günther Frank Berger Winkler "
    "Roth Beck Lorenz Baumann Franke Albrecht Schuster Simon Ludwig Böhm Winter Kraus Martin Schumacher "
    "Krämer Vogt Stein Jäger Otto Sommer Groß Seidel Heinrich Brandt Haas Schreiber Graf Schulte Dietrich "
    "Ziegler Kuhn Kühn Pohl Engel Horn Busch Bergmann Thomas Voigt Sauer Arnold Wolff Pfeiffer Yılmaz Kaya "
    "Demir Şahin Çelik Öztürk Kowalski Nowak Wiśniewski Popović Jovanović García Fernández Rossi Russo "
    "Dubois Müller-Lüdenscheidt Schulze-Delitzsch von_Bülow Freiherr_von_Stein Großmann Weißmann Strauß "
    "Nußbaum Süß Blümel Größer Bäcker Köster Lührs Thießen Jürgensen Claßen Breuß"
)
BRANCHEN = _liste(
    "Bau Logistik Immobilien Spedition Elektro Sanitär Dachdeckerei Autohaus Software Consulting Handel "
    "Metallbau Gebäudetechnik Reinigung Pflegedienst Gastronomie Druckerei Verlag Brauerei Bäckerei "
    "Möbelhaus Energie Solartechnik Transporte Holzbau Fliesen Malerbetrieb Steuerberatung Finanz"
)
ORTE = _liste(
    "Köln Düsseldorf Bonn Essen Dortmund Münster Aachen Duisburg Bochum Wuppertal Bielefeld Mönchengladbach "
    "Leverkusen Neuss Krefeld Oberhausen Gelsenkirchen Hagen Hamm Siegen Paderborn Gütersloh Lünen Marl "
    "München Nürnberg Würzburg Regensburg Frankfurt Stuttgart Hamburg Bremen Hannover Leipzig Dresden Berlin"
)
RECHTSFORMEN = ("GmbH", "GmbH", "GmbH", "AG", "KG", "GmbH & Co. KG", "UG (haftungsbeschränkt)", "e. K.",
                "OHG", "GbR", "e. V.", "SE", "mbH")
TITEL = ("Dr.", "Dr.", "Prof. Dr.", "Dipl.-Ing.", "Dr. med.")
ANDERE = (("gericht", "Amtsgericht {o}"), ("gericht", "Landgericht {o}"), ("gericht", "Arbeitsgericht {o}"),
          ("gegnervertreter", "Rechtsanwälte {n} & {n2}"), ("gegnervertreter", "Kanzlei {n} Rechtsanwälte"),
          ("versicherung", "{o}er Versicherung AG"), ("versicherung", "HUK-Coburg"),
          ("behoerde", "Stadt {o}"), ("zeuge", "{v} {n}"), ("sachverstaendiger", "Dipl.-Ing. {v} {n}"))


# Surnames beyond the common ones: „Linden“ + „berger“ … (1,200 of them), as a real firm has thousands.
VORSILBEN = _liste(
    "Wein Linden Stein Berg Holz Rosen Eichen Buch Tann Wald Feld Brunn Kirch Mühl Hoch Grün Schön Fried "
    "Alt Neu Ober Unter Lieb Ehr Hell Dorn Busch Baum Fels Sand Moos Sonnen Reh Hirsch Wolfs Falk Adler Kron")
NACHSILBEN = _liste(
    "mann berger er hoff bach hausen feld meier hammer schmidt huber reuther ling stätter ner wald kötter "
    "brink horst kamp rath mühler hagen lechner egger gruber moser ler loh beck")
_KUMULIERT: dict[int, list[float]] = {}


def _haeufig(rnd: random.Random, werte: list[str]) -> str:
    """Common names are common: the first of a list more often than the last (Zipf-like, the first
    about 7 times the last), so the bench has its thousand „Müller“ and its many „Hans“."""
    if id(werte) not in _KUMULIERT:
        summe, kumuliert = 0.0, []
        for rang in range(len(werte)):
            summe += 1 / (rang + 20)
            kumuliert.append(summe)
        _KUMULIERT[id(werte)] = kumuliert
    return rnd.choices(werte, cum_weights=_KUMULIERT[id(werte)])[0]


def _nachname(rnd: random.Random) -> str:
    if rnd.random() < 0.55:
        return _haeufig(rnd, NACHNAMEN)
    return rnd.choice(VORSILBEN) + rnd.choice(NACHSILBEN)


def _person(rnd: random.Random) -> str:
    vor, nach = _haeufig(rnd, VORNAMEN), _nachname(rnd)
    if rnd.random() < 0.15:
        vor += " " + rnd.choice(VORNAMEN)
    name = f"{nach}, {vor}" if rnd.random() < 0.2 else f"{vor} {nach}"
    return f"{rnd.choice(TITEL)} {name}" if rnd.random() < 0.08 else name


def _firma(rnd: random.Random) -> str:
    form = rnd.choice(RECHTSFORMEN)
    muster = rnd.random()
    if muster < 0.4:
        kern = f"{_nachname(rnd)} {rnd.choice(BRANCHEN)}"
    elif muster < 0.6:
        kern = f"{rnd.choice(ORTE)}er {rnd.choice(BRANCHEN)}"
    elif muster < 0.75:
        kern = f"{_nachname(rnd)} & {_nachname(rnd)}"
    elif muster < 0.9:
        kern = f"{rnd.choice(BRANCHEN)} {rnd.choice(ORTE)} {_nachname(rnd)}"
    else:
        kern = f"{_haeufig(rnd, VORNAMEN)} {_nachname(rnd)} {rnd.choice(BRANCHEN)}"
    return f"{kern} {form}"


def _partei(rnd: random.Random) -> str:
    return _firma(rnd) if rnd.random() < 0.35 else _person(rnd)


def _bench_datenbank(name: str | None) -> None:
    """DATABASE_URL → the bench's own database on the same server (created when missing)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        sys.exit("DATABASE_URL fehlt (oder: .venv/bin/python -m config.launcher exec -- "
                 ".venv/bin/python bench/kollision.py).")
    params = connection_params(url)
    ziel = name or f"{params.get('dbname', 'helena')}_kollision"
    admin = {k: v for k, v in params.items() if k != "dbname"}
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [ziel]).fetchone():
            conn.execute(f'CREATE DATABASE "{ziel}"')
    os.environ["DATABASE_URL"] = database_url(
        host=params.get("host", "127.0.0.1"), dbname=ziel, user=params.get("user", "postgres"),
        password=params.get("password", ""), port=params.get("port", ""))
    print(f"kollision: Datenbank {ziel} auf {params.get('host', '')}:{params.get('port', '')}")


def _argumente() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anzahl", type=int, default=100_000, help="Beteiligte in der Kanzlei")
    parser.add_argument("--abfragen", type=int, default=200, help="geprüfte Namen")
    parser.add_argument("--neu", action="store_true", help="die Beteiligten neu anlegen")
    parser.add_argument("--datenbank", help="Name der Bench-Datenbank (Standard: <Name>_kollision)")
    return parser.parse_args()


ARGS = _argumente()
_bench_datenbank(ARGS.datenbank)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from akten.kollision import pruefe  # noqa: E402
from akten.kollision.pruefung import kandidaten, schwelle_fuer, trigramm_schwelle  # noqa: E402
from akten.models import Akte, AktenZugriff, Beteiligter, User  # noqa: E402
from akten.namen import name_schluessel  # noqa: E402

MARKE = "Kollision-Bench"  # the bench's Akten carry this Schlagwort


def fuellen(anzahl: int, neu: bool) -> None:
    """Akten with a Mandant and a Gegner each, and a court, a lawyer, an insurer … for every fifth
    party; 30 % of the Akten visible to the bench's Sachbearbeiterin."""
    vorhanden = Beteiligter.objects.filter(akte__tags__contains=[MARKE]).count()
    if vorhanden >= anzahl and not neu:
        print(f"kollision: {vorhanden} Beteiligte vorhanden (--neu legt sie neu an)")
        return
    start = time.perf_counter()
    Akte.objects.filter(tags__contains=[MARKE]).delete()
    rnd = random.Random(32)
    anwaelte = [User.objects.update_or_create(username=f"bench-anwalt-{i}", defaults={
        "role": "ANWALT", "first_name": rnd.choice(VORNAMEN), "last_name": rnd.choice(NACHNAMEN)})[0]
        for i in range(8)]
    sachbearbeiterin = User.objects.update_or_create(username="bench-sachbearbeiterin",
                                                     defaults={"role": "SACHBEARBEITER"})[0]
    akten_zahl = int(anzahl * 0.8) // 2
    akten = Akte.objects.bulk_create(
        [Akte(aktenzeichen=f"K{i}/24", kurzrubrum="Bench", tags=[MARKE], anwalt=rnd.choice(anwaelte))
         for i in range(akten_zahl)], batch_size=5000)
    AktenZugriff.objects.bulk_create(
        [AktenZugriff(akte=a, user=sachbearbeiterin) for a in akten if rnd.random() < 0.3], batch_size=5000)
    parteien: list[Beteiligter] = []
    for akte in akten:
        for rolle in (Beteiligter.Rolle.MANDANT, Beteiligter.Rolle.GEGNER):
            parteien.append(Beteiligter(akte=akte, rolle=rolle, name=_partei(rnd)))
    while len(parteien) < anzahl:
        rolle, muster = rnd.choice(ANDERE)
        name = muster.format(o=rnd.choice(ORTE), n=_nachname(rnd), n2=_nachname(rnd),
                             v=_haeufig(rnd, VORNAMEN))
        parteien.append(Beteiligter(akte=rnd.choice(akten), rolle=rolle, name=name))
    for b in parteien:
        b.name_schluessel = name_schluessel(b.name)
    Beteiligter.objects.bulk_create(parteien, batch_size=5000)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE akten_beteiligter")
        cursor.execute("ANALYZE akten_akte")
    print(f"kollision: {len(parteien)} Beteiligte in {len(akten)} Akten angelegt "
          f"({time.perf_counter() - start:.0f} s)")


def _tippfehler(rnd: random.Random, wort: str) -> str:
    if len(wort) < 5:
        return wort
    i = rnd.randrange(1, len(wort) - 1)
    art = rnd.choice(("weg", "anders", "tausch"))
    if art == "weg":
        return wort[:i] + wort[i + 1:]
    if art == "anders":
        return wort[:i] + rnd.choice("aeiklnrst") + wort[i + 1:]
    return wort[:i] + wort[i + 1] + wort[i] + wort[i + 2:]


def abfragen(anzahl: int) -> list[tuple[str, str]]:
    """(kind, name): names of the firm as a person would type them again, and unknown ones."""
    rnd = random.Random(7)
    namen = list(Beteiligter.objects.filter(akte__tags__contains=[MARKE], rolle__in=("mandant", "gegner"))
                 .order_by("?").values_list("name", flat=True)[:anzahl])
    ersetzen = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
    arten = ("genau", "vertauscht", "ae für ä", "Titel", "Rechtsform", "Tippfehler", "Wort mehr", "unbekannt")
    fragen: list[tuple[str, str]] = []
    for i, name in enumerate(namen):
        art = arten[i % len(arten)]
        worte = name.split()
        if art == "vertauscht" and len(worte) == 2 and "," not in name:
            name = f"{worte[1]}, {worte[0]}"
        elif art == "ae für ä":
            name = name.translate(ersetzen)
        elif art == "Titel":
            name = "Dr. " + name
        elif art == "Rechtsform":
            name = name + " GmbH & Co. KG"
        elif art == "Tippfehler":
            j = max(range(len(worte)), key=lambda k: len(worte[k]))
            worte[j] = _tippfehler(rnd, worte[j])
            name = " ".join(worte)
        elif art == "Wort mehr":
            zusatz = rnd.choice(("Haustechnik", "Verwaltung", "Holding", "Immobilien", "Bau"))
            name = f"{name} {zusatz}" if rnd.random() < 0.5 else f"{rnd.choice(VORNAMEN)} {name}"
        elif art == "unbekannt":
            name = f"{rnd.choice(VORNAMEN)}a {rnd.choice(NACHNAMEN)}bach-{rnd.choice(ORTE)}"
        fragen.append((art, name))
    return fragen


def _p95(werte: list[float]) -> float:
    geordnet = sorted(werte)
    return geordnet[max(0, round(len(geordnet) * 0.95) - 1)]


def _zeile(label: str, werte: list[float], ziel: float | None = GOAL_MS) -> str:
    p50, p95 = statistics.median(werte), _p95(werte)
    erreicht = "erreicht" if p95 < (ziel or 0) else "VERFEHLT"
    bewertung = "" if ziel is None else f"  (Ziel < {ziel:.0f} ms: {erreicht})"
    return (f"kollision: {label:<22} n = {len(werte):>4}  Median = {p50:6.1f} ms  p95 = {p95:6.1f} ms  "
            f"max = {max(werte):6.1f} ms{bewertung}")


def messen(fragen: list[tuple[str, str]]) -> None:
    admin = User.objects.update_or_create(username="bench-admin", defaults={"role": "ADMIN"})[0]
    sachbearbeiterin = User.objects.get(username="bench-sachbearbeiterin")
    for _, name in fragen[:20]:  # warm: connection, caches, the index's pages
        pruefe(namen=[name], user=admin, neue_rolle="gegner")
    zeiten: dict[str, list[float]] = {}
    treffer: list[int] = []
    for user in (admin, sachbearbeiterin):
        for art, name in fragen:
            start = time.perf_counter()
            gefunden = pruefe(namen=[name], user=user, neue_rolle="gegner")
            ms = (time.perf_counter() - start) * 1000
            zeiten.setdefault(f"{user.role}: alle", []).append(ms)
            if user is admin:
                zeiten.setdefault(f"· {art}", []).append(ms)
                treffer.append(len(gefunden))
    print(f"kollision: pruefe() für einen Namen gegen {Beteiligter.objects.count()} Beteiligte "
          "(neue Rolle Gegner; Schwelle je Name 0,3–0,38)")
    for label in (k for k in zeiten if not k.startswith("·")):
        print(_zeile(label, zeiten[label]))
    print("kollision: je Art der Eingabe (ADMIN):")
    for label in (k for k in zeiten if k.startswith("·")):
        print(_zeile(label, zeiten[label], ziel=None))
    gefunden_bei = sum(1 for (art, _), n in zip(fragen, treffer, strict=True) if art != "unbekannt" and n)
    bekannt = sum(1 for art, _ in fragen if art != "unbekannt")
    print(f"kollision: Treffer je Name: Median {statistics.median(treffer):.0f}, höchstens {max(treffer)}; "
          f"bekannter Name gefunden: {gefunden_bei} von {bekannt}")
    namen = [name for _, name in fragen[:50]]
    stapel = []
    for _ in range(5):
        start = time.perf_counter()
        pruefe(namen=namen, user=sachbearbeiterin, neue_rolle="mandant")
        stapel.append((time.perf_counter() - start) * 1000)
    print(_zeile("50 Namen auf einmal", stapel, ziel=None))


def plan(name: str) -> None:
    """The plan PostgreSQL runs for one name: the trigram index must be in it."""
    schluessel = name_schluessel(name)
    with trigramm_schwelle() as schwelle, connection.cursor() as cursor:
        schwelle(schwelle_fuer(schluessel))
        sql, params = kandidaten(schluessel).values_list("pk", "rolle", "name_schluessel", "aehnlichkeit")[
            :500].query.sql_with_params()
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql, params)
        zeilen = [row[0] for row in cursor.fetchall()]
    print(f"kollision: EXPLAIN ANALYZE für „{name}“ (Schlüssel „{schluessel}“, "
          f"Schwelle {schwelle_fuer(schluessel)}):")
    for zeile in zeilen:
        print("    " + zeile)
    genutzt = any("beteiligter_schluessel_trgm" in z for z in zeilen)
    ergebnis = "genutzt" if genutzt else "NICHT genutzt"
    print(f"kollision: Trigramm-Index beteiligter_schluessel_trgm {ergebnis}")


def main() -> None:
    call_command("migrate", verbosity=0)
    fuellen(ARGS.anzahl, ARGS.neu)
    last = ", ".join(f"{wert:.1f}" for wert in os.getloadavg())
    print(f"kollision: {os.cpu_count()} Kerne, Last (1/5/15 min) {last}")
    fragen = abfragen(ARGS.abfragen)
    messen(fragen)
    plan("Müller, Hans")
    plan("Bauer Logistik GmbH & Co. KG")


if __name__ == "__main__":
    main()
