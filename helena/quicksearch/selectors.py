"""The search box's read: what the user typed, checked, searched in every group they may see, and the
page to open at once when it names exactly one thing (an Aktenzeichen they may see, a citation of a
loaded norm)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from akten.lesezugriffe.services import Lesung
from akten.models import User
from akten.selectors import akten_for
from helena.knowledge.query import SucheError, known_abks, parse_citations
from helena.knowledge.selectors import NormNotFound, get_norm, urteile_geladen
from helena.quicksearch import groups
from helena.quicksearch.groups import Gruppe

MIN_ZEICHEN = 2
MAX_ZEICHEN = 200
MAX_WORTE = 8
LIMIT_BOX = 5
MAX_LIMIT = 25
# Words worth a statute search: a citation or a word of three letters or more ("ab" finds anything).
NORMEN_AB = 3
# None are bundled: a legal question must not find „nothing“ where nothing could be searched.
KEINE_ENTSCHEIDUNGEN = "Es sind keine Entscheidungen geladen."

_RAND = "\"'„“‚‘»«()[]{},;:!?"
_AKTENZEICHEN = re.compile(r"^(?:az\.?\s*)?([0-9A-Za-zÄÖÜäöüß][0-9A-Za-zÄÖÜäöüß/.\- ]{0,30})$", re.IGNORECASE)


@dataclass(frozen=True)
class Ergebnis:
    q: str
    direkt: str | None  # the page to open at once, if the query names exactly one thing
    gruppen: tuple[Gruppe, ...]  # only groups with hits, in a fixed order
    hinweise: tuple[str, ...] = ()  # quiet notes on what could not be searched (no decisions loaded)

    @property
    def anzahl(self) -> int:
        return sum(len(g.treffer) for g in self.gruppen)

    @property
    def lesungen(self) -> list[Lesung]:
        """The reads the hits shown stand for (a quoted Dokument or Notiz of an Akte), for the read log:
        the page and the API store them with one INSERT (akten.lesezugriffe.services.speichern)."""
        return [t.lesung for g in self.gruppen for t in g.treffer if t.lesung is not None]


def anfrage(q: str | None) -> str:
    """The query as searched (white space collapsed), or a SucheError in German (422)."""
    if q is not None and len(q) > MAX_ZEICHEN:
        raise SucheError(f"Die Suchanfrage ist zu lang: höchstens {MAX_ZEICHEN} Zeichen.",
                         code="query_too_long")
    text = " ".join((q or "").split())
    if len(text) < MIN_ZEICHEN:
        raise SucheError(f"Gib mindestens {MIN_ZEICHEN} Zeichen ein.", code="query_too_short")
    return text


def worte_von(text: str) -> list[str]:
    """The words the records are searched for: "Müller ./. Bauer" → Müller, Bauer; "101/26" stays one;
    "Az. 101/26" → 101/26."""
    worte = [w.strip(_RAND) for w in text.split()]
    if len(worte) > 1 and worte[0].casefold() in ("az", "az."):  # "Az. 101/26"
        worte = worte[1:]
    return [w for w in worte if any(c.isalnum() for c in w)][:MAX_WORTE]


def direktziel(*, user: User, q: str) -> str | None:
    """The page an exact Aktenzeichen (one the user may see) or a single citation ("§ 517 ZPO") opens."""
    if match := _AKTENZEICHEN.match(q):
        akte_id = (akten_for(user=user).filter(aktenzeichen__iexact=match.group(1).strip())
                .values_list("pk", flat=True).first())
        if akte_id is not None:
            return groups.akte_url(akte_id)
    zitate, rest = parse_citations(q, known=known_abks())
    if len(zitate) != 1 or rest.strip(" .,;:"):
        return None
    try:
        norm = get_norm(gesetz=zitate[0].abk, bezeichnung=zitate[0].nummer)
    except NormNotFound:
        return None
    return groups.norm_url(norm)


def _fachlich(*, user: User, text: str, worte: list[str]) -> str:
    """What of the query the statute search gets: a citation whole; otherwise the words of three
    letters or more that are not names of Beteiligte (a name finds nothing but noise in statutes)."""
    if parse_citations(text, known=known_abks())[0]:
        return text
    kandidaten = [w for w in worte if len(w) >= NORMEN_AB]
    if not kandidaten:
        return ""
    namen = groups.namen(user=user, worte=kandidaten)
    return " ".join(w for w in kandidaten if w not in namen)


def suche(*, user: User, q: str | None, limit: int = LIMIT_BOX) -> Ergebnis:
    """Every group's best hits for the query, only what the user may see."""
    text = anfrage(q)
    if not 1 <= limit <= MAX_LIMIT:
        raise SucheError(f"limit muss zwischen 1 und {MAX_LIMIT} liegen.")
    worte = worte_von(text)
    found: list[Gruppe] = []
    if worte:
        found += [groups.akten(user=user, worte=worte, limit=limit),
                  groups.fristen(user=user, worte=worte, limit=limit),
                  groups.dokumente(user=user, worte=worte, limit=limit),
                  groups.notizen(user=user, worte=worte, limit=limit),
                  groups.gespraeche(user=user, q=text, limit=limit)]
    fach = _fachlich(user=user, text=text, worte=worte)
    hinweise: tuple[str, ...] = ()
    if fach:
        found.append(groups.normen(q=fach, limit=limit))
        if any(c.isalpha() for c in fach) and not urteile_geladen():  # "3/26" asks for no decision
            hinweise = (KEINE_ENTSCHEIDUNGEN,)
    return Ergebnis(q=text, direkt=direktziel(user=user, q=text),
                    gruppen=tuple(g for g in found if g.treffer), hinweise=hinweise)
