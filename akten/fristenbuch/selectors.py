"""The Fristenbuch's reads: every Frist, Termin and Wiedervorlage of the Akten the user may see
(akten.selectors.akten_for), filtered by period, person, type and state — one query for the page
/fristen/, the daily Fristenkontrolle and GET /api/v1/fristen, so all three show the same rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db.models import Q, QuerySet
from django.utils import timezone

from akten.fristen import FristError, format_datum, parse_datum
from akten.models import Frist, User
from akten.selectors import fristen_for
from config.errors import DomainError

ICH = frozenset({"me", "ich"})
TYPEN = tuple(Frist.Typ.values)


class FilterFehler(DomainError):
    """A filter value the Fristenbuch cannot read (HTTP 422, German)."""

    status, code = 422, "invalid_input"


def tag_aus(wert: str | None, feld: str) -> date | None:
    """A day given as JJJJ-MM-TT or TT.MM.JJJJ (the API's `von`/`bis`); else a German 422."""
    if wert is None:
        return None
    try:
        return parse_datum(wert)
    except FristError as exc:
        raise FilterFehler(f"„{feld}“: {exc}", field=feld) from None


def person(*, user: User, wert: str | int | None, feld: str = "verantwortlich") -> User | None:
    """The colleague a `verantwortlich` filter (or the write API's `anwalt`, …: `feld`) names:
    "me"/"ich", a user id or a username."""
    if wert is None or str(wert).strip() == "":
        return None
    text = str(wert).strip()
    if text.casefold() in ICH:
        return user
    # a username first (one may be all digits), then an id — ASCII digits of a size an id can have
    # ("²".isdigit() is true, int("²") fails)
    gefunden = User.objects.filter(username__iexact=text).first()
    if gefunden is None and text.isascii() and text.isdigit() and len(text) <= 18:
        gefunden = User.objects.filter(pk=int(text)).first()
    if gefunden is None:
        raise FilterFehler(f"Unbekannte Person bei „{feld}“: „{text[:40]}“. Erlaubt sind ein "
                           "Benutzername, eine Benutzer-ID oder „ich“.", field=feld)
    return gefunden


def fristen_im_buch(
    *, user: User, akte_id: int | str | None = None, status: str | None = None, von: date | None = None,
    bis: date | None = None, verantwortlich: str | int | None = None, typ: str | None = None,
    erledigt: bool | None = None,
) -> QuerySet[Frist]:
    """Fristen of visible Akten, ordered by date. Without `status` and `erledigt` only open ones;
    `erledigt` alone (true/false) decides by itself; both together must both hold."""
    if von and bis and von > bis:
        raise FilterFehler(f"„von“ ({format_datum(von)}) liegt nach „bis“ ({format_datum(bis)}).",
                           field="von")
    if typ is not None and typ not in TYPEN:
        raise FilterFehler(f"Unbekannter Typ „{str(typ)[:40]}“. Erlaubt: {', '.join(TYPEN)}.", field="typ")
    wer = person(user=user, wert=verantwortlich)
    qs = fristen_for(user=user, akte_id=akte_id,
                     status=status or ("active" if erledigt is None else "all"))
    if erledigt is not None:
        qs = qs.filter(erledigt=erledigt)
    if von is not None:
        qs = qs.filter(datum__gte=von)
    if bis is not None:
        qs = qs.filter(datum__lte=bis)
    if wer is not None:
        qs = qs.filter(verantwortlich=wer)
    if typ is not None:
        qs = qs.filter(typ=typ)
    return qs.select_related("akte", "verantwortlich", "erledigt_von", "erledigung_beantragt_von",
                             "bestaetigt_von").order_by("datum", "uhrzeit", "pk")


@dataclass
class Kontrolle:
    """The daily Fristenkontrolle: what is overdue, what ends today, what comes in the next days, and
    the Fristen whose Vorfrist is reached while their end lies beyond those days."""

    heute: date
    bis: date
    ueberfaellig: list[Frist] = field(default_factory=list)
    heute_faellig: list[Frist] = field(default_factory=list)
    naechste: list[Frist] = field(default_factory=list)
    vorfristen: list[Frist] = field(default_factory=list)

    @property
    def abschnitte(self) -> list[tuple[str, list[Frist], str]]:
        """(Überschrift, Einträge, Art) in the order the Kontrolle is read."""
        return [("Überfällig", self.ueberfaellig, "ueberfaellig"),
                (f"Heute, {format_datum(self.heute)}", self.heute_faellig, "heute"),
                (f"Nächste Tage bis {format_datum(self.bis)}", self.naechste, "naechste"),
                ("Vorfrist erreicht (Fristende später)", self.vorfristen, "vorfrist")]

    @property
    def anzahl(self) -> int:
        return len(self.ueberfaellig) + len(self.heute_faellig) + len(self.naechste) + len(self.vorfristen)


def fristenkontrolle(*, user: User, tage: int = 7, verantwortlich: str | int | None = None,
                     heute: date | None = None) -> Kontrolle:
    """Open entries up to `tage` days ahead, overdue first; plus reached Vorfristen of later ones."""
    heute = heute or timezone.localdate()
    kontrolle = Kontrolle(heute=heute, bis=heute + timedelta(days=tage))
    offen = fristen_im_buch(user=user, verantwortlich=verantwortlich, erledigt=False)
    for frist in offen.filter(Q(datum__lte=kontrolle.bis) | Q(vorfrist__lte=heute)):
        if frist.datum < heute:
            kontrolle.ueberfaellig.append(frist)
        elif frist.datum == heute:
            kontrolle.heute_faellig.append(frist)
        elif frist.datum <= kontrolle.bis:
            kontrolle.naechste.append(frist)
        else:
            kontrolle.vorfristen.append(frist)
    return kontrolle
