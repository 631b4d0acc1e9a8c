"""Kollisionsprüfung (§ 43a Abs. 4 BRAO, § 3 BORA): a new name against every party of the firm.

`pruefe` finds the firm's Beteiligte whose name is the same person or company, whatever the spelling
(akten/namen.py: ä/ae, ß/ss, legal forms, titles, swapped first and last name; pg_trgm similarity
for a typo), in every Akte — also those the user may not see. What the user is shown of an Akte
they may not see is only that a possible conflict exists and whom to ask (`Treffer.fuer`).
`protokolliere` keeps each check and the person's decision (akten.models.Kollisionspruefung).
"""

from akten.kollision.protokoll import KollisionGefunden, protokolliere
from akten.kollision.pruefung import Treffer, pruefe, treffer_text

__all__ = ["KollisionGefunden", "Treffer", "protokolliere", "pruefe", "treffer_text"]
