"""Names as the Kollisionsprüfung compares them: one key per person or company, whatever the spelling.

„Müller, Hans“, „Hans Mueller“ and „Dr. Hans Müller“ are one person to a lawyer checking a conflict
(§ 43a Abs. 4 BRAO); „Bauer Logistik GmbH“ and „Bauer Logistik GmbH & Co. KG“ are one company to be
asked about. The key is lower case, with umlauts and ß written out, accents, titles and legal forms
dropped and the words sorted; the database compares keys by trigram similarity (pg_trgm), which
catches a typo on top.
"""

from __future__ import annotations

import re
import unicodedata

# Legal forms and their parts, as they are written out after punctuation is removed
# („GmbH & Co. KG“ → gmbh co kg, „e. V.“ → e v, „UG (haftungsbeschränkt)“ → ug haftungsbeschraenkt).
RECHTSFORMEN = frozenset({
    "gmbh", "mbh", "ggmbh", "ag", "kg", "kgaa", "ohg", "gbr", "ug", "haftungsbeschraenkt", "ev", "eg",
    "ek", "ekfr", "ekfrau", "ekkfm", "co", "se", "partg", "partgmbb", "mbb", "inh", "inhaber", "ltd",
    "limited", "inc", "llc", "plc", "sa", "sarl", "bv", "nv", "gesellschaft", "beschraenkter",
    "haftung", "und", "e", "v", "kfm", "kfr",
})
# Titles and forms of address that do not tell people apart.
TITEL = frozenset({
    "dr", "prof", "professor", "dipl", "ing", "med", "jur", "rer", "nat", "phil", "oec", "pol", "habil",
    "herr", "herrn", "frau", "firma", "fa", "ra", "rain", "rechtsanwalt", "rechtsanwaeltin", "mag",
})
_UMLAUTE = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "oe", "œ": "oe"})
_NICHT_WORT = re.compile(r"[^0-9a-z]+")


def woerter(name: str) -> list[str]:
    """The words of a name that tell it apart, spelled plainly (ä → ae, é → e), in their order."""
    text = (name or "").casefold().translate(_UMLAUTE)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    teile = _NICHT_WORT.sub(" ", text).split()
    behalten = [w for w in teile if w not in RECHTSFORMEN and w not in TITEL]
    return behalten or teile  # a name made only of such words („Co KG“) keeps them


def name_schluessel(name: str) -> str:
    """The comparison key: the telling words, sorted, so first and last name may be swapped."""
    return " ".join(sorted(woerter(name)))[:200]
