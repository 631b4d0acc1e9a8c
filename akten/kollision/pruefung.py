"""Finding the firm's parties that a new name may be: the search and what a hit means."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.postgres.search import TrigramSimilarity
from django.db.models import Q

from akten.models import Beteiligter, User
from akten.namen import name_schluessel
from akten.selectors import akten_for

# The roles between which a conflict of interest arises; courts, authorities, witnesses and the
# other side's lawyers appear in many Akten and are no conflict by themselves.
PARTEIROLLEN = (Beteiligter.Rolle.MANDANT, Beteiligter.Rolle.GEGNER)
# Trigram similarity of two keys from which they count as one name (a typo in a name of two words
# keeps about 0.6; two different surnames with the same first name stay below 0.45).
SCHWELLE = 0.55
HOECHSTENS_JE_NAME = 50


@dataclass(frozen=True)
class Treffer:
    """One party of the firm that the checked name may be."""

    name: str             # the name as checked
    gefunden_als: str     # the party's name in the firm's records
    rolle: str            # its role there (Beteiligter.Rolle)
    akte_id: int          # for the record; shown only if `sichtbar`
    aktenzeichen: str
    sichtbar: bool        # may the checking user see that Akte?
    ansprechpartner: str  # whom to ask about it
    aehnlichkeit: float
    konflikt: bool        # a conflict of interest for the new role (Gegner was Mandant …)
    hinweis: str          # German, for the user

    def fuer(self) -> dict[str, Any]:
        """What the checking user may be told (POST /kollisionspruefung's row)."""
        row: dict[str, Any] = {"name": self.name, "gefunden_als": self.gefunden_als, "rolle": self.rolle,
                               "hinweis": self.hinweis, "konflikt": self.konflikt}
        if self.sichtbar:
            row.update(akte_id=self.akte_id, aktenzeichen=self.aktenzeichen)
        return row

    def als_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ansprechpartner(akte: Any) -> str:
    person = akte.anwalt or akte.sachbearbeiter
    if person is None:
        return "die Administration der Kanzlei"
    return person.get_full_name() or person.username


def _hinweis(*, rolle: str, neue_rolle: str | None, sichtbar: bool, aktenzeichen: str, gefunden_als: str,
             ansprechpartner: str) -> tuple[bool, str]:
    rolle_text = Beteiligter.Rolle(rolle).label
    konflikt = neue_rolle is not None and neue_rolle != rolle and {rolle, neue_rolle} <= set(PARTEIROLLEN)
    if sichtbar:
        ort = f"in der Akte {aktenzeichen}"
        frage = ""
    else:
        ort = "in einer Akte, die du nicht sehen darfst"
        frage = f" Bitte frag {ansprechpartner}, bevor du weitermachst."
    if konflikt:
        neu = Beteiligter.Rolle(neue_rolle).label
        return True, (f"Mögliche Interessenkollision: „{gefunden_als}“ ist oder war {rolle_text} {ort}, "
                      f"soll hier aber {neu} sein.{frage}")
    return False, f"„{gefunden_als}“ ist oder war {rolle_text} {ort}.{frage}"


def pruefe(*, namen: Iterable[str], user: User, neue_rolle: str | None = None,
           ausser_akte: int | None = None, ausser_beteiligter: int | None = None) -> list[Treffer]:
    """Every party of the firm (Mandant or Gegner, any Akte) that one of `namen` may be.

    `neue_rolle`: the role the name is to have; a hit in the opposite role is a conflict.
    `ausser_akte`: an Akte whose parties are not compared; `ausser_beteiligter`: the party being edited.
    """
    sichtbar = set(akten_for(user=user).values_list("pk", flat=True))
    treffer: list[Treffer] = []
    for name in dict.fromkeys(n.strip() for n in namen if n and n.strip()):
        key = name_schluessel(name)
        if not key:
            continue
        qs = (Beteiligter.objects.filter(rolle__in=PARTEIROLLEN)
              .filter(Q(name_schluessel=key) | Q(name_schluessel__trigram_similar=key))
              .annotate(aehnlichkeit=TrigramSimilarity("name_schluessel", key))
              .filter(Q(name_schluessel=key) | Q(aehnlichkeit__gte=SCHWELLE))
              .select_related("akte__anwalt", "akte__sachbearbeiter")
              .order_by("-aehnlichkeit", "akte__aktenzeichen"))
        if ausser_akte is not None:
            qs = qs.exclude(akte_id=ausser_akte)
        if ausser_beteiligter is not None:
            qs = qs.exclude(pk=ausser_beteiligter)
        for b in qs[:HOECHSTENS_JE_NAME]:
            darf_sehen = b.akte_id in sichtbar
            wen = _ansprechpartner(b.akte)
            konflikt, hinweis = _hinweis(rolle=b.rolle, neue_rolle=neue_rolle, sichtbar=darf_sehen,
                                         aktenzeichen=b.akte.aktenzeichen, gefunden_als=b.name,
                                         ansprechpartner=wen)
            treffer.append(Treffer(name=name, gefunden_als=b.name, rolle=b.rolle, akte_id=b.akte_id,
                                   aktenzeichen=b.akte.aktenzeichen, sichtbar=darf_sehen,
                                   ansprechpartner=wen, aehnlichkeit=round(float(b.aehnlichkeit), 3),
                                   konflikt=konflikt, hinweis=hinweis))
    treffer.sort(key=lambda t: (not t.konflikt, -t.aehnlichkeit))
    return treffer


def treffer_text(treffer: list[Treffer]) -> str:
    """The hits as one German message, conflicts first."""
    return " ".join(t.hinweis for t in treffer)
