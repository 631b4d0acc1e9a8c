"""How a letter names a Beteiligter, by its Anrede: in the four cases („Herr Thomas Müller“, „des
Herrn Thomas Müller“, „Frau Renate Hoffmann“ …), as the address line („Herrn Thomas Müller“) and in
the salutation („Sehr geehrte Frau Hoffmann“); and the grammatical gender a Muster's gendered words
follow („der Kläger“ / „die Klägerin“).

A firm whose name ends in its legal form needs no „Firma“: „der Bauer Logistik GmbH“ (a GmbH, AG, KG
… is feminine, an e. V. masculine); without one it is „der Firma Kfz-Sachverständigenbüro Huber“.
Divers: no gendered Anrede and no gendered article („von Alex Schmidt“, „Guten Tag Alex Schmidt“).
Without an Anrede nothing is guessed: the caller leaves the placeholder open.
"""

from __future__ import annotations

import re
from typing import Literal

from akten.models import Beteiligter

Genus = Literal["m", "w", "d"]

FAELLE = ("NOMINATIV", "GENITIV", "DATIV", "AKKUSATIV")
A = Beteiligter.Anrede

_PERSON = {
    A.HERR: ("Herr", "des Herrn", "Herrn", "Herrn"),
    A.FRAU: ("Frau", "der Frau", "Frau", "Frau"),
}
_ARTIKEL = {"m": ("der", "des", "dem", "den"), "w": ("die", "der", "der", "die")}
_RECHTSFORM = re.compile(
    r"(?:\b(?:GmbH|gGmbH|AG|KG|KGaA|OHG|UG|SE|GbR|eG|PartG|mbB|mbH|Ltd\.?|Inc\.?)"
    r"|\(haftungsbeschränkt\)|\be\.\s?V\.)\s*$"
)
_VEREIN = re.compile(r"\be\.\s?V\.\s*$")
_TITEL = re.compile(r"^(?:Prof|Dr)\b.*\.$")  # „Dr.“, „Prof.“, „Dr.-Ing.“: kept in the salutation
_NAMENSZUSATZ = {"von", "van", "vom", "zu", "zum", "de", "di", "da", "ter", "ten"}


def genus_von(beteiligter: Beteiligter) -> Genus | None:
    """The grammatical gender the text follows; None when the Anrede is not known."""
    anrede = beteiligter.anrede
    if anrede == A.HERR:
        return "m"
    if anrede == A.FRAU:
        return "w"
    if anrede == A.DIVERS:
        return "d"
    if anrede == A.FIRMA:
        return "m" if _VEREIN.search(beteiligter.name) else "w"  # der Verein; die GmbH, die Firma
    return None


def formen(beteiligter: Beteiligter) -> dict[str, str] | None:
    """NOMINATIV … AKKUSATIV, EMPFAENGER and BRIEFANREDE; None when the Anrede is not known."""
    name = " ".join(beteiligter.name.split())
    anrede = beteiligter.anrede
    if not name or not anrede:
        return None
    if anrede in _PERSON:
        faelle = [f"{wort} {name}" for wort in _PERSON[anrede]]
        herr = anrede == A.HERR
        empfaenger = faelle[2]  # „Herrn Thomas Müller“
        gruss = f"Sehr geehrte{'r' if herr else ''} {'Herr' if herr else 'Frau'} {_nachname(name)}"
    elif anrede == A.DIVERS:
        faelle, empfaenger, gruss = [name, f"von {name}", name, name], name, f"Guten Tag {name}"
    else:
        bezeichnung = name if _RECHTSFORM.search(name) else f"Firma {name}"
        faelle = [f"{artikel} {bezeichnung}" for artikel in _ARTIKEL[genus_von(beteiligter) or "w"]]
        empfaenger, gruss = name, "Sehr geehrte Damen und Herren"
    return {**dict(zip(FAELLE, faelle, strict=True)), "EMPFAENGER": empfaenger, "BRIEFANREDE": gruss}


def _nachname(name: str) -> str:
    """„Rechtsanwältin Dr. Julia Sommer“ → „Dr. Sommer“, „Hans von Bülow“ → „von Bülow“."""
    teile = name.split()
    titel = [teil for teil in teile[:-1] if _TITEL.match(teil)]
    start = len(teile) - 1
    while start > 0 and teile[start - 1].lower() in _NAMENSZUSATZ:
        start -= 1
    return " ".join([*titel, *teile[start:]])
