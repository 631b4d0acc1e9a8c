"""The parties of one imported Akte: the rules of beteiligter_anlegen, without its per-call overhead.

Why not beteiligter_anlegen itself (the Akte does go through akte_anlegen): bench/import_akten.py
measured 3,000 parties through it at ~15 database round trips each — the Akte read again per party,
the foreign key checked twice, a savepoint, and every save's post_save asking for the Akten vectors
anew (a row and a Celery message per party) — which took the import of 1,000 Akten over its minute.
Here, per party, exactly what beteiligter_anlegen does to decide (the role rule, full validation,
the Kollisionsprüfung over the same engine with the same arguments, the check recorded with the same
decision), then one INSERT; the history rows of the row's parties follow in one INSERT, with the
importing user and the file and row as reason. The Akte was just made by akte_anlegen in this same
transaction, so it exists and the user may see it; its own save has already asked for its vectors,
which are made from all its parties once the row is committed (helena/knowledge/aktensuche).

Each party is saved before the next is checked, as by hand: the same person as Mandant and Gegner of
one row is a hit. tests/akten/test_import.py compares a party imported here with one entered by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import pruefe_eingabe
from akten.importe.pruefen import Partei
from akten.kollision import Treffer, protokolliere
from akten.kollision import pruefe as kollisionen
from akten.models import Akte, Beteiligter, User
from akten.namen import name_schluessel


@dataclass
class Angelegt:
    partei: Partei
    beteiligter: Beteiligter
    treffer: list[Treffer]


def parteien_anlegen(*, user: User, akte: Akte, parteien: list[Partei], anlass: str,
                     grund: str) -> list[Angelegt]:
    """Every party of the row (inside the caller's transaction); EingabeFehler/Forbidden as
    beteiligter_anlegen raises them. The Kollisionsprüfung's hits never stop an import: nobody has
    decided on them yet, so they are recorded as „noch nicht entschieden“ (the admin's list of
    Kollisionsprüfungen filters them) with `grund`, and returned for the report."""
    pruefe(user, "beteiligter")
    angelegt: list[Angelegt] = []
    for partei in parteien:
        beteiligter = Beteiligter(akte=akte, rolle=partei.rolle, name=partei.name, anrede=partei.anrede)
        pruefe_eingabe(beteiligter, exclude=["akte"])  # the Akte: made a moment ago in this transaction
        treffer = kollisionen(namen=[beteiligter.name], user=user, neue_rolle=beteiligter.rolle,
                              fuer_akte=akte.pk)
        protokolliere(user=user, namen=[beteiligter.name], treffer=treffer, anlass=anlass, akte=akte,
                      begruendung=grund)
        beteiligter.name_schluessel = name_schluessel(beteiligter.name)  # what Beteiligter.save() sets
        Beteiligter.objects.bulk_create([beteiligter])
        angelegt.append(Angelegt(partei=partei, beteiligter=beteiligter, treffer=treffer))
    if angelegt:
        Beteiligter.history.bulk_history_create([a.beteiligter for a in angelegt], default_user=user,
                                                default_change_reason=grund)
    return angelegt
