"""Finding the firm's parties that a new name may be: the search and what a hit means.

Two steps per name. The database offers candidates: keys similar by trigrams (`%` on the GIN index
beteiligter_schluessel_trgm, from the key's threshold on: `schwelle_fuer`) with a fitting number of
words, the most similar first. Then `akten.namen.gleicher_name` decides word by word; trigrams alone
would take „Hans Meier“ for „Hans Müller“ (0.41) and miss „Meier“ for „Maier“ (0.33).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.postgres.search import TrigramSimilarity
from django.db import connection, transaction
from django.db.models import F, IntegerField, QuerySet, Value
from django.db.models.functions import Length, Replace

from akten.models import Akte, Beteiligter, FruehererBeteiligter, User
from akten.namen import gleicher_name, name_schluessel, wortzahl_bereich
from akten.selectors import akten_for

# The roles a new party can have a conflict with: Mandant and Gegner, the one on the other side of
# the other; an insurer (sued directly, § 115 VVG, or a client's Rechtsschutz) and „Sonstige“
# (a Streitverkündete, a guarantor) may stand on either side, so a hit there is a possible conflict
# for either party role. Courts, authorities, witnesses, experts and the other side's lawyers appear
# in many Akten and are no conflict by themselves.
PARTEIROLLEN = (Beteiligter.Rolle.MANDANT, Beteiligter.Rolle.GEGNER)
BEIDE_SEITEN = (Beteiligter.Rolle.VERSICHERUNG, Beteiligter.Rolle.SONSTIGER)
GEPRUEFTE_ROLLEN = (*PARTEIROLLEN, *BEIDE_SEITEN)
# Trigram similarity of two keys from which the index offers a candidate (pg_trgm's
# similarity_threshold, set for each name): the lowest that a name `gleicher_name` accepts may have.
# A name of one word with a typo keeps 0.33 („meier“/„maier“): SCHWELLE. A name of more words keeps
# more; the higher the threshold, the fewer candidates the index hands on to be rechecked („hans
# mueller“ among bench/kollision.py's 100,000 parties: 7,224 at 0.3, 4,230 at 0.38): `schwelle_fuer`,
# at most SCHWELLE_HOECHSTENS.
SCHWELLE = 0.3
SCHWELLE_HOECHSTENS = 0.4
# The longest word that may come on top of a name and still be found („Jan Kohl Haustechnik e. K.“).
ZUSATZWORT_BUCHSTABEN = 15
# Candidates read per name, the most similar first: enough for every real match of a common name.
KANDIDATEN = 500
# Hits shown per name (conflicts first): more helps no one decide; the rest is counted (`weitere`).
HOECHSTENS_JE_NAME = 20


@dataclass(frozen=True)
class Treffer:
    """One party of the firm that the checked name may be."""

    name: str             # the name as checked
    gefunden_als: str     # the party's name in the firm's records
    rolle: str            # its role there (Beteiligter.Rolle)
    akte_id: int | None   # for the record; shown only if `sichtbar`; None: deleted (`geloescht`)
    aktenzeichen: str
    sichtbar: bool        # may the checking user see that Akte?
    ansprechpartner: str  # whom to ask about it
    aehnlichkeit: float
    konflikt: bool        # a conflict of interest for the new role (Gegner was Mandant …)
    hinweis: str          # German, for the user
    geloescht: bool = False  # a party deleted after § 50 BRAO, kept for this check (frueher.py)

    def fuer(self) -> dict[str, Any]:
        """What the checking user may be told (POST /kollisionspruefung's row; ids as strings). Of an
        Akte they may not see only that a possible conflict exists: not even how the name is
        written there (`gefunden_als` is then the name as checked)."""
        gefunden_als = self.gefunden_als if self.sichtbar or self.geloescht else self.name
        row: dict[str, Any] = {"name": self.name, "gefunden_als": gefunden_als, "rolle": self.rolle,
                               "hinweis": self.hinweis, "konflikt": self.konflikt}
        if self.sichtbar:
            row.update(akte_id=str(self.akte_id), aktenzeichen=self.aktenzeichen)
        elif self.geloescht:  # the Akte is gone: nobody's secret to keep, everybody's conflict to know
            row.update(aktenzeichen=self.aktenzeichen, geloescht=True)
        return row

    def als_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Ergebnis:
    """All hits of one check, and how many more were found than are shown."""

    treffer: list[Treffer]
    weitere: int  # hits beyond HOECHSTENS_JE_NAME (at least; candidates are read up to KANDIDATEN)


def ist_konflikt(rolle: str, neue_rolle: str | None) -> bool:
    """The new Gegner is or was a Mandant, the new Mandant is or was a Gegner."""
    if neue_rolle not in PARTEIROLLEN:
        return False
    return rolle in BEIDE_SEITEN or (rolle in PARTEIROLLEN and rolle != neue_rolle)


def _ansprechpartner(akte: Akte) -> str:
    person = akte.anwalt or akte.sachbearbeiter
    if person is None:
        return "die Administration der Kanzlei"
    return person.get_full_name() or person.username


def _hinweis(*, rolle: str, neue_rolle: str | None, sichtbar: bool, aktenzeichen: str, gefunden_als: str,
             ansprechpartner: str, dieselbe_akte: bool = False) -> tuple[bool, str]:
    rolle_text = Beteiligter.Rolle(rolle).label
    konflikt = ist_konflikt(rolle, neue_rolle)
    neu = Beteiligter.Rolle(neue_rolle).label if konflikt and neue_rolle else ""  # a party role only
    if dieselbe_akte:
        if konflikt:
            return True, (f"Interessenkollision in dieser Akte: „{gefunden_als}“ ist hier schon {rolle_text} "
                          f"und soll nun auch {neu} sein.")
        return False, f"„{gefunden_als}“ ist in dieser Akte schon {rolle_text}."
    ort = f"in der Akte {aktenzeichen}" if sichtbar else "in einer Akte, die du nicht sehen darfst"
    if sichtbar:
        frage = ""
    elif konflikt:
        frage = f" Bitte frag {ansprechpartner}, bevor du weitermachst."
    else:
        frage = f" Mehr weiß {ansprechpartner}."
    if konflikt:
        return True, (f"Mögliche Interessenkollision: „{gefunden_als}“ ist oder war {rolle_text} {ort}, "
                      f"soll hier aber {neu} sein.{frage}")
    return False, f"„{gefunden_als}“ ist oder war {rolle_text} {ort}.{frage}"


def schwelle_fuer(schluessel: str) -> float:
    """The threshold for one key: as high as the word rule allows. pg_trgm gives a word of n letters
    n + 1 trigrams; a word more on the other side (up to ZUSATZWORT_BUCHSTABEN letters) or, for a name
    of three words or more, its longest word missing there lowers the similarity most."""
    worte = schluessel.split()
    if len(worte) < 2:
        return SCHWELLE
    trigramme = sum(len(w) + 1 for w in worte)
    grenzen = [SCHWELLE_HOECHSTENS, trigramme / (trigramme + ZUSATZWORT_BUCHSTABEN + 1)]
    if len(worte) >= 3:
        grenzen.append((trigramme - max(len(w) + 1 for w in worte)) / trigramme)
    return round(max(SCHWELLE, min(grenzen) - 0.02), 2)


@contextmanager
def trigramm_schwelle() -> Iterator[Callable[[float], None]]:
    """pg_trgm's `%` (the one the GIN index answers) at our threshold (call the setter yielded), for
    these queries only: set transaction-locally and put back, so an enclosing transaction keeps its own."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('pg_trgm.similarity_threshold', true)")
        vorher = cursor.fetchone()[0] or "0.3"

        def setzen(wert: float) -> None:
            cursor.execute("SELECT set_config('pg_trgm.similarity_threshold', %s, true)", [str(wert)])

        yield setzen
        setzen(float(vorher))  # an error rolls the savepoint back, and the setting with it


def _aehnliche(qs: QuerySet[Any], schluessel: str) -> QuerySet[Any]:
    """The rows of `qs` (parties, or those kept of deleted ones) whose key the trigram index offers for
    `schluessel`, with a fitting number of words, most similar first."""
    wenigstens, hoechstens = wortzahl_bereich(schluessel)
    worte = (Length("name_schluessel") - Length(Replace("name_schluessel", Value(" "), Value("")))
             + Value(1, output_field=IntegerField()))
    return (qs.filter(rolle__in=GEPRUEFTE_ROLLEN, name_schluessel__trigram_similar=schluessel)
            .annotate(worte=worte, aehnlichkeit=TrigramSimilarity("name_schluessel", schluessel))
            .filter(worte__gte=wenigstens, worte__lte=hoechstens).order_by(F("aehnlichkeit").desc(), "-pk"))


def kandidaten(schluessel: str, *, ausser_akte: int | None = None,
               ausser_beteiligter: int | None = None) -> QuerySet[Beteiligter]:
    """The parties whose key the index offers for `schluessel`, most similar first (call inside
    `trigramm_schwelle`; bench/kollision.py shows its plan)."""
    qs = Beteiligter.objects.all()
    if ausser_akte is not None:
        qs = qs.exclude(akte_id=ausser_akte)
    if ausser_beteiligter is not None:
        qs = qs.exclude(pk=ausser_beteiligter)
    return _aehnliche(qs, schluessel)


def _passend(zeilen: QuerySet[Any], schluessel: str, neue_rolle: str | None,
             hoechstens: int) -> tuple[list[tuple[int, float]], int]:
    """(id, similarity) of the candidates `gleicher_name` accepts, conflicts and the most similar first,
    at most `hoechstens`; and how many more there are."""
    passend = [(pk, rolle, 1.0 if key == schluessel else float(aehnlichkeit))
               for pk, rolle, key, aehnlichkeit in
               zeilen.values_list("pk", "rolle", "name_schluessel", "aehnlichkeit")[:KANDIDATEN]
               if gleicher_name(schluessel, key)]
    passend.sort(key=lambda z: (not ist_konflikt(z[1], neue_rolle), -z[2], -z[0]))
    gezeigt = [(pk, aehnlichkeit) for pk, _, aehnlichkeit in passend[:hoechstens]]
    return gezeigt, max(0, len(passend) - hoechstens)


def _treffer_fuer(name: str, *, neue_rolle: str | None, ausser_akte: int | None,
                  ausser_beteiligter: int | None, hoechstens: int) -> tuple[list[tuple[int, float]], int]:
    """(party id, similarity) of the parties `name` may be, conflicts and the most similar first,
    at most `hoechstens`; and how many more there are."""
    schluessel = name_schluessel(name)
    if not schluessel:
        return [], 0
    zeilen = kandidaten(schluessel, ausser_akte=ausser_akte, ausser_beteiligter=ausser_beteiligter)
    return _passend(zeilen, schluessel, neue_rolle, hoechstens)


def _fruehere(namen: list[str], neue_rolle: str | None, hoechstens: int) -> tuple[list[Treffer], int]:
    """The parties of deleted Akten (frueher.py) the names may be: shown to everybody — the Akte is gone,
    no one may open it and no one's secret is told that the firm's duty does not need (§ 43a Abs. 4 BRAO)."""
    gefunden: list[tuple[str, int, float]] = []
    weitere = 0
    for name in namen:
        schluessel = name_schluessel(name)
        zeilen, mehr = _passend(_aehnliche(FruehererBeteiligter.objects.all(), schluessel), schluessel,
                                neue_rolle, hoechstens)
        gefunden += [(name, pk, aehnlichkeit) for pk, aehnlichkeit in zeilen]
        weitere += mehr
    vermerke = FruehererBeteiligter.objects.in_bulk([pk for _, pk, _ in gefunden])
    treffer = []
    for name, pk, aehnlichkeit in gefunden:
        v = vermerke[pk]
        konflikt = ist_konflikt(v.rolle, neue_rolle)
        was = "gelöscht" if v.umfang == FruehererBeteiligter.Umfang.AKTE else "Eintrag gelöscht"
        wo = (f"in der früheren Akte {v.aktenzeichen} ({was} nach § 50 BRAO, "
              f"Mandat {v.mandat_von}–{v.mandat_bis})")
        rolle_text = v.get_rolle_display()
        if konflikt:
            hinweis = (f"Mögliche Interessenkollision: „{v.name}“ war {rolle_text} {wo}, soll hier aber "
                       f"{Beteiligter.Rolle(neue_rolle).label} sein. Die Akte gibt es nicht mehr; "
                       "bitte kläre es mit der Administration der Kanzlei.")
        else:
            hinweis = f"„{v.name}“ war {rolle_text} {wo}."
        treffer.append(Treffer(name=name, gefunden_als=v.name, rolle=v.rolle, akte_id=None,
                               aktenzeichen=v.aktenzeichen, sichtbar=False,
                               ansprechpartner="die Administration der Kanzlei",
                               aehnlichkeit=round(aehnlichkeit, 3), konflikt=konflikt, hinweis=hinweis,
                               geloescht=True))
    return treffer, weitere


def _je_schluessel_einmal(namen: Iterable[str]) -> list[str]:
    """The names to check: „Hans Müller“ and „Müller, Hans“ are one name, checked once (the first)."""
    erste: dict[str, str] = {}
    for name in namen:
        name = (name or "").strip()
        if name:
            erste.setdefault(name_schluessel(name) or name, name)
    return list(erste.values())


def pruefung(*, namen: Iterable[str], user: User | None, neue_rolle: str | None = None,
             ausser_akte: int | None = None, ausser_beteiligter: int | None = None,
             fuer_akte: int | None = None, hoechstens: int = HOECHSTENS_JE_NAME) -> Ergebnis:
    """Every party of the firm (Mandant or Gegner, any Akte) that one of `namen` may be, with the
    count of those left out. See `pruefe`."""
    gefunden: list[tuple[str, int, float]] = []
    weitere = 0
    treffer: list[Treffer] = []
    with trigramm_schwelle() as schwelle:
        for name in _je_schluessel_einmal(namen):
            schwelle(schwelle_fuer(name_schluessel(name)))
            zeilen, mehr = _treffer_fuer(name, neue_rolle=neue_rolle, ausser_akte=ausser_akte,
                                         ausser_beteiligter=ausser_beteiligter, hoechstens=hoechstens)
            gefunden += [(name, pk, aehnlichkeit) for pk, aehnlichkeit in zeilen]
            frueher, mehr_frueher = _fruehere([name], neue_rolle, hoechstens)
            treffer += frueher
            weitere += mehr + mehr_frueher
    if not gefunden:
        treffer.sort(key=lambda t: (not t.konflikt, -t.aehnlichkeit))
        return Ergebnis(treffer=treffer, weitere=weitere)
    parteien = Beteiligter.objects.select_related("akte__anwalt", "akte__sachbearbeiter").in_bulk(
        [pk for _, pk, _ in gefunden])
    akten_ids = {b.akte_id for b in parteien.values()}
    sichtbar = (set(akten_for(user=user).filter(pk__in=akten_ids).values_list("pk", flat=True))
                if user is not None else set())
    for name, pk, aehnlichkeit in gefunden:
        b = parteien[pk]
        darf_sehen = b.akte_id in sichtbar
        wen = _ansprechpartner(b.akte)
        dieselbe = b.akte_id == fuer_akte
        if (not darf_sehen and neue_rolle is not None and not dieselbe
                and not ist_konflikt(b.rolle, neue_rolle)):
            continue  # no conflict: that the name is a party elsewhere is that Akte's secret (§ 203 StGB)
        konflikt, hinweis = _hinweis(rolle=b.rolle, neue_rolle=neue_rolle, sichtbar=darf_sehen,
                                     aktenzeichen=b.akte.aktenzeichen,
                                     gefunden_als=b.name if darf_sehen else name,
                                     ansprechpartner=wen, dieselbe_akte=dieselbe)
        treffer.append(Treffer(name=name, gefunden_als=b.name, rolle=b.rolle, akte_id=b.akte_id,
                               aktenzeichen=b.akte.aktenzeichen, sichtbar=darf_sehen,
                               ansprechpartner=wen, aehnlichkeit=round(aehnlichkeit, 3),
                               konflikt=konflikt, hinweis=hinweis))
    treffer.sort(key=lambda t: (not t.konflikt, -t.aehnlichkeit))
    return Ergebnis(treffer=treffer, weitere=weitere)


def pruefe(*, namen: Iterable[str], user: User | None, neue_rolle: str | None = None,
           ausser_akte: int | None = None, ausser_beteiligter: int | None = None,
           fuer_akte: int | None = None, hoechstens: int = HOECHSTENS_JE_NAME) -> list[Treffer]:
    """Every party of the firm (Mandant or Gegner, any Akte — also those the user may not see) that
    one of `namen` may be, conflicts first, at most `hoechstens` per name.

    `neue_rolle`: the role the name is to have; a hit in the opposite role is a conflict.
    `ausser_akte`: an Akte whose parties are not compared; `ausser_beteiligter`: the party being edited.
    `fuer_akte`: the Akte the name is for; a hit there says so (the same person on both sides).
    """
    return pruefung(namen=namen, user=user, neue_rolle=neue_rolle, ausser_akte=ausser_akte,
                    ausser_beteiligter=ausser_beteiligter, fuer_akte=fuer_akte, hoechstens=hoechstens).treffer


def treffer_text(treffer: list[Treffer]) -> str:
    """The hits as one German message, conflicts first."""
    return " ".join(t.hinweis for t in treffer)
