"""Scoped reads for the record pages beyond akten/selectors.py: the Akte's header, who may see it, whom
one could let see it. Each takes the user and checks the Akte through get_akte (NotFound if foreign).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from akten.models import Akte, AktenZugriff, Beteiligter, Frist, Role, User
from akten.selectors import get_akte


@dataclass(frozen=True)
class Kopf:
    """What the Akte's header shows besides its Stammdaten."""

    mandanten: list[str]
    gegner: list[str]
    naechste_frist: Frist | None
    ueberfaellig: bool


def kopf(*, user: User, akte: Akte, fristen: list[Frist] | None = None) -> Kopf:
    """Mandant and Gegner by name, and the next open Frist (an overdue one first: it is the urgent one)."""
    get_akte(user=user, akte_id=akte.pk)
    parteien = list(Beteiligter.objects.filter(akte=akte, rolle__in=[Beteiligter.Rolle.MANDANT,
                                                                       Beteiligter.Rolle.GEGNER])
                    .order_by("name").values_list("rolle", "name"))
    if fristen is None:
        fristen = list(Frist.objects.filter(akte=akte, erledigt=False).order_by("datum", "uhrzeit"))
    offen = sorted((f for f in fristen if not f.erledigt), key=lambda f: (f.datum, f.uhrzeit is not None))
    naechste = offen[0] if offen else None
    heute: date = timezone.localdate()
    return Kopf(mandanten=[n for r, n in parteien if r == Beteiligter.Rolle.MANDANT],
                gegner=[n for r, n in parteien if r == Beteiligter.Rolle.GEGNER],
                naechste_frist=naechste, ueberfaellig=bool(naechste and naechste.datum < heute))


def zugriffe(*, user: User, akte_id: int | str) -> QuerySet[AktenZugriff]:
    """Who was let see the Akte (the Administration sees every Akte without), by name."""
    akte = get_akte(user=user, akte_id=akte_id)
    return (AktenZugriff.objects.filter(akte=akte).select_related("user", "gewaehrt_von")
            .order_by("user__last_name", "user__first_name", "user__username"))


def zugriff_kandidaten(*, user: User, akte_id: int | str) -> QuerySet[User]:
    """Active people who do not see the Akte yet (the Administration sees all anyway)."""
    akte = get_akte(user=user, akte_id=akte_id)
    return (User.objects.filter(is_active=True, is_superuser=False).exclude(role=Role.ADMIN)
            .exclude(akten_zugriffe__akte=akte).order_by("last_name", "first_name", "username"))


def person_mit_zugriff(*, user: User, akte_id: int | str, person_id: Any) -> User | None:
    """One person who currently sees the Akte through a grant, or None."""
    akte = get_akte(user=user, akte_id=akte_id)
    try:
        pk = int(person_id)
    except (TypeError, ValueError):
        return None
    return User.objects.filter(pk=pk, akten_zugriffe__akte=akte).first()


def beteiligter_der_akte(*, user: User, akte_id: int | str, beteiligter_id: int | str) -> Beteiligter | None:
    """One party of a visible Akte, or None."""
    akte = get_akte(user=user, akte_id=akte_id)
    return Beteiligter.objects.filter(pk=beteiligter_id, akte=akte).first()
