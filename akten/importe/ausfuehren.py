"""Running an import: every row through the same services as an Akte entered by hand
(akte_anlegen, beteiligter_anlegen: roles, validation, history, Kollisionsprüfung), each row on its
own so a bad one creates nothing of itself while the good ones go in.

- Real run: each row is its own transaction, committed when it is done — progress is real, and a run
  that breaks off keeps what it did (the same file again adds the rest).
- Probelauf: the same code in one transaction that is rolled back at the end, each row in a
  savepoint. So the report is exactly what the real run would do, also within the file (the second
  row with an Aktenzeichen is „vorhanden“, a Gegner who is a Mandant three rows above is a hit). The
  price: the Aktenzeichen lock that akte_anlegen takes stays held until the Probelauf ends, so
  nobody else opens an Akte in those seconds (they wait, nothing fails).
- A row whose Aktenzeichen exists (any case) is „vorhanden“ and changes nothing.
- The Akte goes in through akte_anlegen, its parties through parteien.py: beteiligter_anlegen's rules
  without its per-call overhead (why: there). A hit of the Kollisionsprüfung does not stop an import:
  each check is recorded (anlass „import“, with the file and row as reason; with hits „noch nicht
  entschieden“, since nobody decided while importing) and its hits are in the report.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, time
from typing import Any

from django.db import DatabaseError, transaction
from django.utils import timezone

from akten.erfassung.akten import akte_anlegen
from akten.erfassung.rechte import pruefe
from akten.importe.lesen import Rohzeile, Tabelle, lies
from akten.importe.parteien import Angelegt, parteien_anlegen
from akten.importe.pruefen import Zeile, ZeileFehlerhaft, pruefe_zeile, zelltext
from akten.models import Akte, Beteiligter, Kollisionspruefung, User
from config.errors import DomainError

log = logging.getLogger(__name__)

NEU, VORHANDEN, FEHLER = "neu", "vorhanden", "fehler"
Fortschritt = Callable[[int, int], None]


@dataclass
class Ergebnis:
    """One row of the report."""

    zeile: int
    status: str                 # neu | vorhanden | fehler (in a Probelauf „neu“ means: would be new)
    meldung: str                # German
    aktenzeichen: str = ""
    kollisionen: list[str] = field(default_factory=list)  # the hits' German hints
    konflikte: int = 0          # of them: a party on the other side elsewhere
    beteiligte: int = 0
    hinweise: list[str] = field(default_factory=list)  # what went in otherwise than written


@dataclass
class Bericht:
    probelauf: bool
    datei: str
    format: str = ""
    kodierung: str = ""
    trennzeichen: str = ""
    spalten: list[str] = field(default_factory=list)
    unbekannte_spalten: list[str] = field(default_factory=list)
    zeilen: list[Ergebnis] = field(default_factory=list)

    def zusammenfassung(self) -> dict[str, int]:
        zaehle = [e.status for e in self.zeilen]
        return {"gesamt": len(self.zeilen), NEU: zaehle.count(NEU), VORHANDEN: zaehle.count(VORHANDEN),
                FEHLER: zaehle.count(FEHLER), "beteiligte": sum(e.beteiligte for e in self.zeilen),
                "kollisionen": sum(len(e.kollisionen) for e in self.zeilen),
                "konflikte": sum(e.konflikte for e in self.zeilen)}

    def als_dict(self) -> dict[str, Any]:
        return {**asdict(self), "zusammenfassung": self.zusammenfassung()}


class _Anwaelte:
    """User names looked up once per run (a file names the same few lawyers a thousand times)."""

    def __init__(self) -> None:
        self._bekannt: dict[str, User | None] = {}

    def __call__(self, name: str) -> User | None:
        schluessel = name.casefold()
        if schluessel not in self._bekannt:
            self._bekannt[schluessel] = User.objects.filter(username__iexact=name).order_by("pk").first()
        return self._bekannt[schluessel]


def importiere(*, user: User, inhalt: bytes, dateiname: str, probelauf: bool,
               fortschritt: Fortschritt | None = None) -> Bericht:
    """Import the file's rows as `user` (ADMIN only); the report, row by row. Forbidden for another
    role, DateiUnlesbar if nothing of the file can be read — in both cases nothing is written."""
    pruefe(user, "import")
    tabelle = lies(inhalt, dateiname)
    bericht = Bericht(probelauf=probelauf, datei=dateiname, format=tabelle.format,
                      kodierung=tabelle.kodierung, trennzeichen=tabelle.trennzeichen, spalten=tabelle.spalten,
                      unbekannte_spalten=tabelle.unbekannte_spalten)
    if probelauf:
        with transaction.atomic():
            _alle(tabelle, bericht, user=user, fortschritt=fortschritt)
            transaction.set_rollback(True)
    else:
        _alle(tabelle, bericht, user=user, fortschritt=fortschritt)
    return bericht


def _alle(tabelle: Tabelle, bericht: Bericht, *, user: User, fortschritt: Fortschritt | None) -> None:
    anwaelte = _Anwaelte()
    erste_zeile: dict[str, int] = {}  # Aktenzeichen (casefolded) → the row of this file that made it
    gesamt = len(tabelle.zeilen)
    if fortschritt is not None:
        fortschritt(0, gesamt)
    for fertig, roh in enumerate(tabelle.zeilen, start=1):
        ergebnis = _zeile(roh, user=user, dateiname=bericht.datei, anwaelte=anwaelte, erste_zeile=erste_zeile,
                          probelauf=bericht.probelauf)
        bericht.zeilen.append(ergebnis)
        if fortschritt is not None:
            fortschritt(fertig, gesamt)


def _zeile(roh: Rohzeile, *, user: User, dateiname: str, anwaelte: _Anwaelte, erste_zeile: dict[str, int],
           probelauf: bool) -> Ergebnis:
    try:
        zeile = pruefe_zeile(roh.nummer, roh.werte, anwalt_von=anwaelte, ueberzaehlig=roh.ueberzaehlig)
    except ZeileFehlerhaft as exc:
        return Ergebnis(zeile=roh.nummer, status=FEHLER, meldung=str(exc),
                        aktenzeichen=zelltext(roh.werte.get("aktenzeichen")))
    schluessel = zeile.aktenzeichen.casefold()
    if schluessel in erste_zeile:
        return Ergebnis(zeile=roh.nummer, status=VORHANDEN, aktenzeichen=zeile.aktenzeichen,
                        meldung=f"Schon in Zeile {erste_zeile[schluessel]} dieser Datei; nichts Neues.")
    if Akte.objects.filter(aktenzeichen__iexact=zeile.aktenzeichen).exists():
        return Ergebnis(zeile=roh.nummer, status=VORHANDEN, aktenzeichen=zeile.aktenzeichen,
                        meldung="Die Akte gibt es schon; sie bleibt, wie sie ist.")
    try:
        with transaction.atomic():
            ergebnis = _anlegen(zeile, user=user, grund=f"Import aus „{dateiname}“, Zeile {zeile.nummer}",
                                probelauf=probelauf)
    except DomainError as exc:
        return Ergebnis(zeile=roh.nummer, status=FEHLER, meldung=exc.message, aktenzeichen=zeile.aktenzeichen)
    except DatabaseError:
        log.exception("import row %s of %s", roh.nummer, dateiname)
        return Ergebnis(zeile=roh.nummer, status=FEHLER, aktenzeichen=zeile.aktenzeichen,
                        meldung="Die Datenbank hat die Zeile nicht angenommen; sie ist nicht übernommen.")
    erste_zeile[schluessel] = roh.nummer
    return ergebnis


def _anlegen(zeile: Zeile, *, user: User, grund: str, probelauf: bool) -> Ergebnis:
    """The Akte (akte_anlegen) and its parties (parteien.py: the rules of beteiligter_anlegen); any
    error rolls the row back (the caller's savepoint)."""
    akte = akte_anlegen(user=user, daten=zeile.stammdaten, grund=grund)
    angelegt = parteien_anlegen(user=user, akte=akte, parteien=zeile.parteien,
                                anlass=Kollisionspruefung.Anlass.IMPORT, grund=grund)
    if zeile.angelegt:
        _anlagedatum(akte, zeile.angelegt)
    kollisionen, konflikte = _hinweise(angelegt)
    anzahl = len(zeile.parteien)
    beteiligte = f"mit {anzahl} Beteiligten" if anzahl else "ohne Beteiligte"
    meldung = " ".join([f"{'Würde' if probelauf else 'Wurde'} {beteiligte} angelegt.", *zeile.hinweise])
    return Ergebnis(zeile=zeile.nummer, status=NEU, meldung=meldung, aktenzeichen=akte.aktenzeichen,
                    kollisionen=kollisionen, konflikte=konflikte, beteiligte=anzahl, hinweise=zeile.hinweise)


def _anlagedatum(akte: Akte, tag: date) -> None:
    """The old program's date becomes the Akte's angelegt_am (auto_now_add would say „today“), in
    the record and in its first history entry, so both tell the same. Noon, so that the day is the
    same in every time zone the value may be read in."""
    moment = timezone.make_aware(datetime.combine(tag, time(12)))
    Akte.objects.filter(pk=akte.pk).update(angelegt_am=moment)
    Akte.history.filter(id=akte.pk).update(angelegt_am=moment)
    akte.angelegt_am = moment


def _hinweise(angelegt: list[Angelegt]) -> tuple[list[str], int]:
    """The row's hits as the report lists them: „Name“ (its role here): the hint; and how many are
    conflicts. The importing user is the Administration and sees every Akte a hint names."""
    hinweise: list[str] = []
    konflikte = 0
    for eintrag in angelegt:
        rolle = Beteiligter.Rolle(eintrag.partei.rolle).label
        for treffer in eintrag.treffer:
            hinweise.append(f"„{eintrag.partei.name}“ ({rolle}): {treffer.hinweis}")
            konflikte += treffer.konflikt
    return hinweise, konflikte
