"""A norm's history for its page: what the updates of its law changed (NormAenderung), and whether it
changed after a citation. The statute is no client data: every logged-in role may read this."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

from django.db.models import QuerySet
from django.utils import timezone

from helena.knowledge.models import Gesetz, NormAenderung
from helena.knowledge.query import normalise_bezeichnung

Art = NormAenderung.Art
MAX_ZITIERT_CHARS = 32


def parse_zitiert(value: str | None) -> datetime | None:
    """When a norm was cited (`?zitiert=2026-05-01` or `…T14:05`), in the firm's time zone.

    A bare date means the start of that day, so that an update on the day of the citation is
    shown rather than hidden. Anything else is no date: None, never an error."""
    if not value or len(value) > MAX_ZITIERT_CHARS:
        return None
    try:
        if "T" not in value and " " not in value:
            moment = timezone.make_aware(datetime.combine(date.fromisoformat(value), time.min))
        else:
            moment = datetime.fromisoformat(value)
        moment = moment if timezone.is_aware(moment) else timezone.make_aware(moment)
    except (ValueError, OverflowError):
        return None
    return moment if 1900 <= moment.year <= 2999 else None


def zitiert_param(moment: datetime | date) -> str:
    """The value of `?zitiert=` for a citation made at this moment (minutes, local time)."""
    if isinstance(moment, datetime):
        local = timezone.localtime(moment) if timezone.is_aware(moment) else moment
        return local.strftime("%Y-%m-%dT%H:%M")
    return moment.isoformat()


@dataclass(frozen=True)
class Verlauf:
    """What the page says about the norm's updates."""

    letzte: NormAenderung | None = None  # the latest change
    seit_zitat: NormAenderung | None = None  # the first change after the citation
    zitiert: datetime | None = None
    geladen_seit: datetime | None = None  # since when Helena has the law (Gesetz.geladen_seit)

    @property
    def vor_dem_laden(self) -> bool:
        """The citation is older than Helena's copy of the law: whether it changed since is unknown."""
        return (self.zitiert is not None and self.seit_zitat is None and self.geladen_seit is not None
                and self.zitiert < self.geladen_seit)

    @property
    def seit_zitat_unveraendert(self) -> bool:
        return self.zitiert is not None and self.seit_zitat is None and not self.vor_dem_laden


def _aenderungen(*, gesetz: str, nummer: str) -> QuerySet[NormAenderung]:
    return NormAenderung.objects.filter(gesetz_abk__iexact=gesetz.strip(),
                                        nummer=normalise_bezeichnung(nummer))


def verlauf(*, gesetz: str, nummer: str, zitiert: datetime | None = None) -> Verlauf:
    """The norm's latest change, and the first change after `zitiert` (a number that comes back
    after "(weggefallen)" is a change of what was cited, too)."""
    aenderungen = _aenderungen(gesetz=gesetz, nummer=nummer)
    letzte = aenderungen.order_by("-geaendert_am", "-pk").first()
    seit_zitat = None
    if zitiert is not None and letzte is not None:
        seit_zitat = aenderungen.filter(geaendert_am__gt=zitiert).order_by("geaendert_am", "pk").first()
    geladen_seit = (Gesetz.objects.filter(abk__iexact=gesetz.strip()).values_list("geladen_seit", flat=True)
                    .first() if zitiert is not None else None)
    return Verlauf(letzte=letzte, seit_zitat=seit_zitat, zitiert=zitiert, geladen_seit=geladen_seit)


def aufgehoben(*, gesetz: str, nummer: str) -> NormAenderung | None:
    """The record of a norm repealed and gone from its law: its page shows the last text. Only
    ask for a norm the law no longer has (selectors.get_norm found none)."""
    return (_aenderungen(gesetz=gesetz, nummer=nummer).filter(art=Art.AUFGEHOBEN)
            .order_by("-geaendert_am", "-pk").first())


def gesetz(*, abk: str) -> Gesetz | None:
    """The law a repealed norm belonged to (it may be gone as a whole)."""
    return Gesetz.objects.filter(abk=abk).first()
