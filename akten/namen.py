"""Names as the Kollisionsprüfung compares them: one key per person or company, whatever the spelling.

„Müller, Hans“, „Hans Mueller“ and „Dr. Hans Müller“ are one person to a lawyer checking a conflict
(§ 43a Abs. 4 BRAO); „Bauer Logistik GmbH“ and „Bauer Logistik GmbH & Co. KG“ are one company to be
asked about. The key is lower case, with umlauts and ß written out, accents, titles and legal forms
dropped and the words sorted. The database finds candidates by trigram similarity of the keys
(pg_trgm, fast on a GIN index); `gleicher_name` then decides word by word whether a candidate is the
same name: every word of the shorter name must be a word of the other, spelled alike or as its
initial („H. Müller“), with one deviation at most — one typo (from four letters on) or one word more
on one side (a second first name, „Hans Müller Bau e. K.“). A single word stands only for itself:
„Müller“ is no person, so it finds „Müller“, „Mueller GmbH“ and „Müler“, not every „Hans Müller“ or
the „Müller Bau GmbH“.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import cache
from itertools import pairwise

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


def _teile(name: str) -> list[str]:
    """Every word of a name spelled plainly (ä → ae, é → e), nothing dropped."""
    text = unicodedata.normalize("NFKC", name or "").casefold().translate(_UMLAUTE)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return _NICHT_WORT.sub(" ", text).split()


def ist_firma(name: str) -> bool:
    """Does the name carry a legal form („Müller GmbH“, „Bauer e. K.“)? The key drops it, so „Müller“ and
    the „Müller GmbH“ share a key; whoever must tell a person from a company asks this."""
    teile = _teile(name)
    return (any(t in RECHTSFORMEN - {"und"} for t in teile)
            or any(paar in _RECHTSFORM_PAARE for paar in pairwise(teile)))


def woerter(name: str) -> list[str]:
    """The words of a name that tell it apart, spelled plainly (ä → ae, é → e), in their order."""
    teile = _teile(name)
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


def wort_abstand(a: str, b: str) -> int | None:
    """0: the same word, or one the other's initial („h“, „hans“); 1: one typo apart (both from
    TIPPFEHLER_AB letters on); None: different words."""
    if a == b:
        return 0
    if len(a) == 1 or len(b) == 1:
        return 0 if a[0] == b[0] else None
    return 1 if min(len(a), len(b)) >= TIPPFEHLER_AB and _ein_tippfehler(a, b) else None


def _geringste_abweichung(kurz: tuple[str, ...], lang: tuple[str, ...]) -> int:
    """The fewest typos with which every word of `kurz` finds a word of its own in `lang`, at least
    one of them spelled alike (a name of initials and typos only says too little); 99: none."""
    @cache
    def ab(i: int, frei: int, gleich: bool) -> int:
        if i == len(kurz):
            return 0 if gleich else 99
        beste = 99
        for j in range(len(lang)):
            abstand = wort_abstand(kurz[i], lang[j]) if frei >> j & 1 else None
            if abstand is not None:
                genau = gleich or (kurz[i] == lang[j] and len(kurz[i]) > 1)
                beste = min(beste, abstand + ab(i + 1, frei & ~(1 << j), genau))
        return beste
    return ab(0, (1 << len(lang)) - 1, False)


def gleicher_name(schluessel_a: str, schluessel_b: str) -> bool:
    """May two keys (name_schluessel) name the same person or company?

    One deviation at most: one typo in one word, or one word more on one side (a second first name,
    the business after the owner's name) — not both. A word may stand for its initial („H. Müller“).
    At least one word must be spelled alike; a name of one word matches only a name of one word
    (one typo allowed: „Schmidt“/„Schmitt“), so „Müller“ finds neither „Hans Müller“ nor the
    „Müller Bau GmbH“.
    """
    if schluessel_a == schluessel_b:
        return True
    a, b = schluessel_a.split(), schluessel_b.split()
    kurz, lang = (a, b) if len(a) <= len(b) else (b, a)
    if not kurz or len(lang) - len(kurz) > 1 or (len(kurz) == 1 and len(lang) > 1):
        return False
    if len(kurz) == 1:
        return len(kurz[0]) > 1 and len(lang[0]) > 1 and wort_abstand(kurz[0], lang[0]) is not None
    erlaubt = 1 - (len(lang) - len(kurz))  # a word more uses up the one deviation
    if len(lang) > 12:  # a long company name: no search over all pairings, the words compared as sets
        nur_kurz, nur_lang = Counter(kurz) - Counter(lang), Counter(lang) - Counter(kurz)
        if erlaubt == 0:
            return not nur_kurz
        return not nur_kurz or (len(nur_kurz) == len(nur_lang) == 1
                                and wort_abstand(next(iter(nur_kurz)), next(iter(nur_lang))) == 1)
    return _geringste_abweichung(tuple(kurz), tuple(lang)) <= erlaubt


def wortzahl_bereich(schluessel: str) -> tuple[int, int]:
    """How many words a key that `gleicher_name` may accept has (lets the database skip the others)."""
    n = len(schluessel.split())
    return (1, 1) if n == 1 else (max(2, n - 1), n + 1)
