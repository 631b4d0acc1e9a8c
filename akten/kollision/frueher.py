"""What the Kollisionsprüfung keeps of a party the beat deletes after § 50 Abs. 1 BRAO's retention.

The duty not to represent conflicting interests (§ 43a Abs. 4 BRAO, § 3 BORA) has no time limit: a
former Gegner who comes as a Mandant in the same matter fifteen years on must still be found. So the
deletion (akten/datenschutz/loeschung.py) keeps, per deleted Mandant, Gegner, Versicherung or
Sonstige/r, only the name (as entered and as key), the role, the Aktenzeichen, the years of the
Mandat and the day of deletion (akten.models.FruehererBeteiligter) — Art. 17 Abs. 3 lit. b and e
DSGVO. Courts, witnesses, lawyers are never compared (pruefung.GEPRUEFTE_ROLLEN) and are not kept.
`pruefung` searches these records with the live parties.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from django.utils import timezone

from akten.kollision.pruefung import GEPRUEFTE_ROLLEN
from akten.models import Akte, Beteiligter, FruehererBeteiligter
from akten.namen import name_schluessel

RECHTSGRUNDLAGE = ("Für die Kollisionsprüfung (§ 43a Abs. 4 BRAO, § 3 BORA; ohne zeitliche Grenze) bleiben "
                   "Name, Rolle, Aktenzeichen und die Jahre des Mandats gespeichert, nichts sonst "
                   "(Art. 17 Abs. 3 lit. b und e DSGVO).")


def mandat_jahre(akte: Akte) -> tuple[int, int]:
    """(from, to) years of the Mandat: its Auftragsdatum (or when the Akte was made, if earlier or
    none) to the year it ended (the Akte open: this year)."""
    angelegt = min(filter(None, (akte.auftragsdatum, timezone.localdate(akte.angelegt_am))))
    ende = timezone.localtime(akte.abgeschlossen_am) if akte.abgeschlossen_am else timezone.localtime()
    bis = ende.year
    return angelegt.year, max(bis, angelegt.year)


def vermerken(*, akte: Akte, beteiligte: Iterable[Beteiligter], umfang: str, heute: date) -> int:
    """Keep the conflict record of each party about to be deleted (call before deleting); the same
    name in the same role of one Akte once. The number of records added
    (one already kept from an earlier deletion of a row of the same Akte is not kept twice)."""
    von, bis = mandat_jahre(akte)
    neu: dict[tuple[str, str], FruehererBeteiligter] = {}
    for b in beteiligte:
        schluessel = name_schluessel(b.name)
        if b.rolle not in GEPRUEFTE_ROLLEN or not schluessel:
            continue
        neu.setdefault((schluessel, b.rolle), FruehererBeteiligter(
            name=b.name[:200], name_schluessel=schluessel, rolle=b.rolle, aktenzeichen=akte.aktenzeichen,
            mandat_von=von, mandat_bis=bis, umfang=umfang, geloescht_am=heute))
    schon = set(FruehererBeteiligter.objects.filter(aktenzeichen=akte.aktenzeichen, mandat_von=von)
                .values_list("name_schluessel", "rolle"))
    return len(FruehererBeteiligter.objects.bulk_create([v for k, v in neu.items() if k not in schon]))
