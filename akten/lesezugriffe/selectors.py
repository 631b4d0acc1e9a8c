"""Reading the read log: only the Akte's Anwalt/Anwältin (Akte.anwalt) and the Administration.

Everyone else who sees the Akte (its Sachbearbeitung, another lawyer with access, a Praktikant) is
refused with 403; who does not see the Akte gets the 404 of every foreign Akte (akten.selectors).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from akten.fristenbuch.selectors import FilterFehler, person, tag_aus
from akten.models import Akte, Lesezugriff, User
from akten.selectors import get_akte
from config.errors import Forbidden

NICHT_ERLAUBT = ("Wer die Akte gelesen hat, sehen nur die Anwältin oder der Anwalt der Akte und die "
                 "Administration.")


def darf_protokoll_sehen(*, user: User, akte: Akte) -> bool:
    """The Akte's own lawyer and the Administration: those who answer for the file's secrecy."""
    return bool(user.is_authenticated and user.is_active
                and (user.sees_all_akten or (akte.anwalt_id is not None and akte.anwalt_id == user.pk)))


def protokoll_akte(*, user: User, akte_id: int | str) -> Akte:
    """The Akte whose log the user may read: NotFound (404) if they cannot see it, Forbidden (403)
    if they see it but are neither its Anwalt nor ADMIN."""
    akte = get_akte(user=user, akte_id=akte_id)
    if not darf_protokoll_sehen(user=user, akte=akte):
        raise Forbidden(NICHT_ERLAUBT)
    return akte


JAHRE = (1900, 2999)  # a day outside cannot be in the log; 9999-12-31 + one day would not even exist


def _tag(wert: str | None, feld: str) -> date | None:
    tag = tag_aus(wert or None, feld)
    if tag is not None and not JAHRE[0] <= tag.year <= JAHRE[1]:
        raise FilterFehler(f"„{feld}“: Bitte gib einen Tag zwischen {JAHRE[0]} und {JAHRE[1]} an.",
                           field=feld)
    return tag


@dataclass(frozen=True)
class Filter:
    """What the section, the CSV and the API narrow the log to (all optional)."""

    person: User | None = None
    von: date | None = None
    bis: date | None = None
    weg: str | None = None

    @classmethod
    def aus(cls, *, user: User, person_wert: str | None = None, von: str | None = None,
            bis: str | None = None, weg: str | None = None) -> Filter:
        """From the request's text (JJJJ-MM-TT or TT.MM.JJJJ; a person by username, id or „ich“);
        FilterFehler (422, German) for what cannot be read."""
        tag_von, tag_bis = _tag(von, "von"), _tag(bis, "bis")
        if tag_von and tag_bis and tag_von > tag_bis:
            raise FilterFehler("„von“ liegt nach „bis“.", field="von")
        if weg and weg not in Lesezugriff.Weg.values:
            raise FilterFehler(f"Unbekannter Weg „{weg[:20]}“: möglich sind "
                               f"{', '.join(Lesezugriff.Weg.values)}.", field="weg")
        return cls(person=person(user=user, wert=person_wert, feld="person"), von=tag_von, bis=tag_bis,
                   weg=weg or None)


def _tagesbeginn(tag: date) -> datetime:
    return timezone.make_aware(datetime.combine(tag, time.min))


def _erlaubt(*, user: User, akte_id: int | str | None, akte: Akte | None) -> Akte:
    """`akte`: one the request has already read through akten.selectors (no second SELECT for it)."""
    if akte is None:
        return protokoll_akte(user=user, akte_id=akte_id)
    if not darf_protokoll_sehen(user=user, akte=akte):
        raise Forbidden(NICHT_ERLAUBT)
    return akte


def lesezugriffe(*, user: User, akte_id: int | str | None = None, akte: Akte | None = None,
                 filter: Filter | None = None) -> QuerySet[Lesezugriff]:
    """The Akte's reads, newest first (the index lesezugriff_akte_zeit)."""
    akte = _erlaubt(user=user, akte_id=akte_id, akte=akte)
    qs = Lesezugriff.objects.filter(akte=akte)
    f = filter or Filter()
    if f.person is not None:
        qs = qs.filter(user=f.person)
    if f.von is not None:
        qs = qs.filter(zeitpunkt__gte=_tagesbeginn(f.von))
    if f.bis is not None:  # the whole day of `bis`, German time
        qs = qs.filter(zeitpunkt__lt=_tagesbeginn(f.bis + timedelta(days=1)))
    if f.weg is not None:
        qs = qs.filter(weg=f.weg)
    return qs.order_by("-zeitpunkt", "-pk")


def leser(*, user: User, akte: Akte) -> list[tuple[int, str]]:
    """Who appears in the Akte's log (for the person filter): (user id, name), by name."""
    _erlaubt(user=user, akte_id=akte.pk, akte=akte)
    rows = (Lesezugriff.objects.filter(akte=akte, user__isnull=False)
            .values_list("user_id", "user__username", "user__first_name", "user__last_name").distinct())
    namen = {pk: (f"{vor} {nach}".strip() or name) for pk, name, vor, nach in rows}
    return sorted(namen.items(), key=lambda p: p[1].casefold())
