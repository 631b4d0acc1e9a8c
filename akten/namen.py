"""Names as the Kollisionsprüfung compares them: one key per person or company, whatever the spelling.

„Müller, Hans“, „Hans Mueller“ and „Dr. Hans Müller“ are one person to a lawyer checking a conflict
(§ 43a Abs. 4 BRAO); „Bauer Logistik GmbH“ and „Bauer Logistik GmbH & Co. KG“ are one company to be
asked about. The key is lower case, with umlauts and ß written out, accents, titles and legal forms
dropped and the words sorted. The database finds candidates by trigram similarity of the keys
(pg_trgm, fast on a GIN index); `gleicher_name` then decides word by word whether a candidate is the
same name: every word of the shorter name must be a word of the other, spelled alike, with one typo
(from four letters on) or as its initial („H. Müller“), and the longer name may have one word more (a
second first name, „Hans Müller Bau e. K.“). A single word stands only for itself: „Müller“ is no
person, so it finds „Müller“, „Mueller GmbH“ and „Müler“, not every „Hans Müller“ or the „Müller Bau
GmbH“.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

# Legal forms and their parts, as they are written out after punctuation is removed
# („GmbH & Co. KG“ → gmbh co kg, „UG (haftungsbeschränkt)“ → ug haftungsbeschraenkt).
RECHTSFORMEN = frozenset({
    "gmbh", "mbh", "ggmbh", "ag", "kg", "kgaa", "ohg", "gbr", "ug", "haftungsbeschraenkt", "ev", "eg",
    "ek", "ekfr", "ekfrau", "ekkfm", "co", "se", "partg", "partgmbb", "mbb", "inh", "inhaber", "ltd",
    "limited", "inc", "llc", "plc", "sa", "sarl", "bv", "nv", "gesellschaft", "beschraenkter",
    "haftung", "und", "kfm", "kfr",
})
# „e. V.“, „e. K.“, „e. G.“: the loose „e“ is dropped only together with its partner, so the initial
# in „E. Müller“ stays.
_RECHTSFORM_PAARE = frozenset({("e", "v"), ("e", "k"), ("e", "g"), ("e", "kfm"), ("e", "kfr"),
                               ("e", "kfrau")})
# Titles and forms of address that do not tell people apart.
TITEL = frozenset({
    "dr", "prof", "professor", "dipl", "ing", "med", "jur", "rer", "nat", "phil", "oec", "pol", "habil",
    "herr", "herrn", "frau", "firma", "fa", "ra", "rain", "rechtsanwalt", "rechtsanwaeltin", "mag",
})
# Letters that Unicode does not decompose into a base letter and an accent.
_UMLAUTE = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "æ": "ae", "ø": "oe", "œ": "oe",
                          "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"})
_NICHT_WORT = re.compile(r"[\W_]+")  # letters and digits of every script are kept („Łukasz“, „Иван“)
# From this length on a word may differ by one typo (a letter more, less, another or two swapped);
# shorter ones must be equal: „Ute“ and „Uta“, „Jan“ and „Jana“ are different people.
TIPPFEHLER_AB = 4


def woerter(name: str) -> list[str]:
    """The words of a name that tell it apart, spelled plainly (ä → ae, é → e), in their order."""
    text = unicodedata.normalize("NFKC", name or "").casefold().translate(_UMLAUTE)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    teile = _NICHT_WORT.sub(" ", text).split()
    behalten: list[str] = []
    i = 0
    while i < len(teile):
        if i + 1 < len(teile) and (teile[i], teile[i + 1]) in _RECHTSFORM_PAARE:
            i += 2
            continue
        if teile[i] not in RECHTSFORMEN and teile[i] not in TITEL:
            behalten.append(teile[i])
        i += 1
    return behalten or teile  # a name made only of such words („Co KG“) keeps them


def name_schluessel(name: str) -> str:
    """The comparison key: the telling words, sorted, so first and last name may be swapped."""
    return " ".join(sorted(woerter(name)))[:200]


def _ein_tippfehler(a: str, b: str) -> bool:
    """At most one letter inserted, left out or replaced, or two neighbours swapped."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        unterschiede = [i for i in range(len(a)) if a[i] != b[i]]
        if len(unterschiede) == 1:
            return True
        i = unterschiede[0]
        return len(unterschiede) == 2 and unterschiede[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    kurz, lang = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(kurz) and kurz[i] == lang[i]:
        i += 1
    return kurz[i:] == lang[i + 1:]


def gleiches_wort(a: str, b: str) -> bool:
    """Two words of a name that may be the same: equal, one typo apart, or one the other's initial."""
    if a == b:
        return True
    if len(a) == 1 or len(b) == 1:
        return a[0] == b[0]
    return min(len(a), len(b)) >= TIPPFEHLER_AB and _ein_tippfehler(a, b)


def _alle_zugeordnet(kurz: tuple[str, ...], lang: tuple[str, ...]) -> bool:
    """Can every word of `kurz` be matched to a different word of `lang`? (Few words: try them all.)"""
    @cache
    def ab(i: int, frei: int) -> bool:
        if i == len(kurz):
            return True
        return any(frei >> j & 1 and gleiches_wort(kurz[i], lang[j]) and ab(i + 1, frei & ~(1 << j))
                   for j in range(len(lang)))
    return ab(0, (1 << len(lang)) - 1)


def gleicher_name(schluessel_a: str, schluessel_b: str) -> bool:
    """May two keys (name_schluessel) name the same person or company?

    Same number of words: each word matched. One word more on one side (a second first name, a
    business name after the owner's): only if the shorter name has at least two words. One word alone
    matches one word alone.
    """
    if schluessel_a == schluessel_b:
        return True
    a, b = schluessel_a.split(), schluessel_b.split()
    kurz, lang = (a, b) if len(a) <= len(b) else (b, a)
    if not kurz or len(lang) - len(kurz) > 1 or (len(kurz) == 1 and len(lang) > 1):
        return False
    if len(lang) > 12:  # a long company name: word by word in order, no search over all pairings
        rest = list(lang)
        for wort in kurz:
            passend = next((w for w in rest if gleiches_wort(wort, w)), None)
            if passend is None:
                return False
            rest.remove(passend)
        return True
    return _alle_zugeordnet(tuple(kurz), tuple(lang))


def wortzahl_bereich(schluessel: str) -> tuple[int, int]:
    """How many words a key that `gleicher_name` may accept has (lets the database skip the others)."""
    n = len(schluessel.split())
    return (1, 1) if n == 1 else (max(2, n - 1), n + 1)
