"""Who the person of a Beteiligter is across the Akten a user may see, and which records name them.

The same person: only on positive evidence. The row asked about and another row must carry a name the
Kollisionsprüfung would take for the same (akten/namen.py: „Müller, Hans“ is „Hans Mueller“), both a
person or both a company („Müller“ is not the „Müller GmbH“), and share an e-mail address or — with
the very same name key — the same Anschrift (compared word by word); nothing they both have may
differ. The same name alone is no evidence: such rows are namesakes, left out and named for the
firm's check by hand (`namensvetter`, internal, never sent). Where the asked row lacks an e-mail
(Anschrift) and the matching rows carry different ones, those are left out too (`_eindeutig`).
Deliberately strict: an Auskunft that holds a namesake's data discloses it to a stranger (Art. 15
Abs. 4 DSGVO), and a Löschung marked on a namesake deletes a stranger's data.

Records that name the person: Fristen, Notizen, Zeiten and Dokumente of every Akte the user may see
whose text contains one of the person's spellings (as entered, and „Nachname, Vorname“ turned
round), and the Kollisionsprüfungen that checked or found them. A text cannot tell namesakes apart:
in an Akte where another person of the same name is a Beteiligter (and this one is not), its texts
are left out and the Akte is named for a check by hand (`namensvetter_akten`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import reduce
from operator import or_

from django.db.models import Q, QuerySet

from akten.models import Akte, Beteiligter, Dokument, Frist, Kollisionspruefung, Notiz, User, Zeiterfassung
from akten.namen import gleicher_name, ist_firma, name_schluessel, woerter
from akten.selectors import akten_for, get_akte, notizen_for
from config.errors import NotFound

HOECHSTENS = 2000  # rows of one kind: an Auskunft beyond that is a case for the database, not a page
AUSZUEGE = 3  # passages quoted of one Dokument
AUSZUG_ZEICHEN = 160  # characters either side of a mention


@dataclass
class Person:
    """The Beteiligter asked about, the rows that are the same person, the spellings searched."""

    beteiligter: Beteiligter
    zeilen: list[Beteiligter]
    schreibweisen: list[str]
    akten: list[Akte] = field(default_factory=list)
    namensvetter_akten: list[Akte] = field(default_factory=list)
    namensvetter: list[Beteiligter] = field(default_factory=list)


def _anschrift(text: str) -> str:
    return " ".join(woerter(text))


def gleiche_person(a: Beteiligter, b: Beteiligter) -> bool:
    """May row `b` be taken for the person of row `a` (see the module's rule: positive evidence only)?"""
    if a.pk is not None and a.pk == b.pk:
        return True
    if ist_firma(a.name) != ist_firma(b.name) or not gleicher_name(a.name_schluessel, b.name_schluessel):
        return False
    mail_a, mail_b = a.email.strip().casefold(), b.email.strip().casefold()
    anschrift_a, anschrift_b = _anschrift(a.anschrift), _anschrift(b.anschrift)
    if mail_a and mail_b and mail_a != mail_b:
        return False
    if anschrift_a and anschrift_b and anschrift_a != anschrift_b:
        return False
    if mail_a and mail_a == mail_b:
        return True
    return a.name_schluessel == b.name_schluessel and bool(anschrift_a) and anschrift_a == anschrift_b


def schreibweisen(namen: list[str]) -> list[str]:
    """Each name as entered and turned round („Müller, Hans“ ↔ „Hans Müller“), case-insensitively once."""
    out: dict[str, str] = {}
    for name in namen:
        name = " ".join(name.split())
        if len(name) < 3:
            continue
        formen = [name]
        if name.count(",") == 1:
            nach, vor = (teil.strip() for teil in name.split(","))
            formen.append(f"{vor} {nach}".strip())
        elif len(name.split()) == 2:
            vor, nach = name.split()
            formen.append(f"{nach}, {vor}")
        for form in formen:
            out.setdefault(form.casefold(), form)
    return list(out.values())


def _eindeutig(beteiligter: Beteiligter, zeilen: list[Beteiligter]) -> list[Beteiligter]:
    """Where the asked row has no e-mail (or no Anschrift) but the others carry several different ones,
    they are several people and none of them is surely this one: only rows without that detail stay
    (one value among them all is taken for the person's, entered later or earlier)."""
    for merkmal in (lambda b: b.email.strip().casefold(), lambda b: _anschrift(b.anschrift)):
        if merkmal(beteiligter):
            continue
        if len({merkmal(b) for b in zeilen if merkmal(b)}) > 1:
            zeilen = [b for b in zeilen if not merkmal(b)]
    return zeilen


def akte_des_beteiligten(*, user: User, beteiligter_id: int | str) -> int:
    """The Akte of a Beteiligter the user may see (the API names only the Beteiligter); else NotFound."""
    try:
        pk = int(beteiligter_id)
    except (TypeError, ValueError):
        raise NotFound("Beteiligte/r nicht gefunden.") from None
    akte_id = (Beteiligter.objects.filter(pk=pk, akte__in=akten_for(user=user))
               .values_list("akte_id", flat=True).first())
    if akte_id is None:
        raise NotFound("Beteiligte/r nicht gefunden.")
    return akte_id


def person_von(*, user: User, akte_id: int | str, beteiligter_id: int | str) -> Person:
    """The person of one Beteiligter of a visible Akte (NotFound otherwise), across the visible Akten."""
    akte = get_akte(user=user, akte_id=akte_id)
    try:
        beteiligter = Beteiligter.objects.get(pk=int(beteiligter_id), akte=akte)
    except (TypeError, ValueError, Beteiligter.DoesNotExist):
        raise NotFound("Beteiligte/r nicht gefunden.") from None
    bedingung = Q(name_schluessel=beteiligter.name_schluessel)
    if beteiligter.email.strip():
        bedingung |= Q(email__iexact=beteiligter.email.strip())
    kandidaten = (Beteiligter.objects.filter(bedingung, akte__in=akten_for(user=user))
                  .select_related("akte").order_by("akte__aktenzeichen", "pk"))
    zeilen = _eindeutig(beteiligter, [b for b in kandidaten if b.pk == beteiligter.pk
                                      or gleiche_person(beteiligter, b)])
    akten = {b.akte_id: b.akte for b in zeilen}
    vettern = [b for b in kandidaten if b not in zeilen
               and gleicher_name(beteiligter.name_schluessel, b.name_schluessel)]
    andere = {b.akte_id: b.akte for b in vettern if b.akte_id not in akten}
    return Person(beteiligter=beteiligter, zeilen=zeilen, akten=list(akten.values()),
                  namensvetter_akten=list(andere.values()), namensvetter=vettern,
                  schreibweisen=schreibweisen([b.name for b in zeilen]))


def _nennt(person: Person, *felder: str) -> Q:
    """Any of the fields contains any of the person's spellings (not in a namesake's Akte)."""
    if not person.schreibweisen:
        return Q(pk__in=[])
    nennt = reduce(or_, (Q(**{f"{feld}__icontains": s}) for feld in felder for s in person.schreibweisen))
    return nennt & ~Q(akte_id__in=[a.pk for a in person.namensvetter_akten])


def fristen_mit(*, user: User, person: Person) -> QuerySet[Frist]:
    return (Frist.objects.filter(akte__in=akten_for(user=user))
            .filter(_nennt(person, "bezeichnung", "notiz", "erledigt_vermerk"))
            .select_related("akte").order_by("akte__aktenzeichen", "datum")[:HOECHSTENS])


def notizen_mit(*, user: User, person: Person) -> QuerySet[Notiz]:
    return (notizen_for(user=user).filter(_nennt(person, "titel", "inhalt"))
            .select_related("akte").order_by("angelegt_am")[:HOECHSTENS])


def zeiten_mit(*, user: User, person: Person) -> QuerySet[Zeiterfassung]:
    return (Zeiterfassung.objects.filter(akte__in=akten_for(user=user)).filter(_nennt(person, "taetigkeit"))
            .select_related("akte").order_by("akte__aktenzeichen", "datum")[:HOECHSTENS])


def dokumente_mit(*, user: User, person: Person) -> QuerySet[Dokument]:
    return (Dokument.objects.filter(akte__in=akten_for(user=user)).filter(_nennt(person, "titel", "inhalt"))
            .select_related("akte").order_by("akte__aktenzeichen", "angelegt_am")[:HOECHSTENS])


def auszuege(text: str, person: Person) -> list[str]:
    """Up to AUSZUEGE passages of a text around the person's mentions („…“ where cut)."""
    if not person.schreibweisen:
        return []
    muster = re.compile("|".join(re.escape(s) for s in person.schreibweisen), re.IGNORECASE)
    out: list[str] = []
    ende_vorher = -1
    for treffer in muster.finditer(text):
        if treffer.start() < ende_vorher:
            continue
        anfang = max(0, treffer.start() - AUSZUG_ZEICHEN)
        ende = min(len(text), treffer.end() + AUSZUG_ZEICHEN)
        auszug = " ".join(text[anfang:ende].split())
        out.append(("…" if anfang else "") + auszug + ("…" if ende < len(text) else ""))
        ende_vorher = ende
        if len(out) == AUSZUEGE:
            break
    return out


def kollisionspruefungen_mit(*, user: User, person: Person) -> list[Kollisionspruefung]:
    """Checks of visible Akten (and, for who sees every Akte, those without one) that checked the
    person's name or found one of the person's rows."""
    schluessel = {b.name_schluessel for b in person.zeilen}
    akten_ids = {b.akte_id for b in person.zeilen}
    sichtbar = Q(akte__in=akten_for(user=user)) | (Q(akte__isnull=True) if user.sees_all_akten
                                                   else Q(akte__isnull=True, user=user))
    out = []
    pruefungen = Kollisionspruefung.objects.filter(sichtbar).select_related("akte").order_by("angelegt_am")
    for pruefung in pruefungen.iterator():
        geprueft = any(name_schluessel(str(n)) in schluessel for n in pruefung.namen or [])
        gefunden = any(isinstance(t, dict) and t.get("akte_id") in akten_ids
                       and name_schluessel(str(t.get("gefunden_als", ""))) in schluessel
                       for t in pruefung.treffer or [])
        if geprueft or gefunden:
            out.append(pruefung)
        if len(out) >= HOECHSTENS:
            break
    return out
