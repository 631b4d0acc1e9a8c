"""The history of an Akte's records as people read it: when, who, which record, angelegt/geändert/
gelöscht, and per changed field „Feldname: alt → neu“ with the German names and values (choices by
their label, dates as 01.02.2026, people by name), and why.

A selector: it reads django-simple-history's rows (akten/models/verlauf.py) only of Akten the user
may see (a foreign Akte is NotFound, like the Akte itself). Used by the Akte page's Aktivität and by
the small „Verlauf“ of a single Frist or Beteiligte/r:

    verlauf_der_akte(user=…, akte_id=…, limit=200) -> list[VerlaufsZeile]
    verlauf_des_eintrags(user=…, eintrag=frist) -> list[VerlaufsZeile]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from itertools import pairwise
from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone
from django.utils.text import capfirst

from akten.accounts.users import anzeigename
from akten.models import (
    Akte,
    AktenZugriff,
    Beteiligter,
    Frist,
    Kollisionspruefung,
    Notiz,
    User,
    Zeiterfassung,
)
from akten.selectors import get_akte
from config.errors import NotFound

AKTIONEN = {"+": "angelegt", "~": "geändert", "-": "gelöscht"}
# The record kinds with a history, the key a page uses for its anchor (frist-12) and their German name.
ARTEN: dict[type[models.Model], tuple[str, str]] = {
    Akte: ("akte", "Akte"),
    Beteiligter: ("beteiligter", "Beteiligte/r"),
    Frist: ("frist", "Frist"),
    Notiz: ("notiz", "Notiz"),
    Zeiterfassung: ("zeiterfassung", "Zeit"),
    AktenZugriff: ("zugriff", "Zugriff"),
}
# Fields that never say anything to a reader (the Akte of a record does not change).
OHNE = frozenset({"id", "akte"})
LANG = 200  # a long text (a summary, a Notiz) is shown this far


@dataclass(frozen=True)
class Aenderung:
    feld: str  # German name of the field („Datum (Fristende/Termin)“)
    alt: str
    neu: str


@dataclass(frozen=True)
class VerlaufsZeile:
    zeit: datetime
    wer: str  # full name, or „automatisch“ (a job, the import without a person)
    art: str  # akte, beteiligter, frist, notiz, zeiterfassung, zugriff, kollision
    art_name: str  # German: „Frist“, „Beteiligte/r“ …
    bezeichnung: str  # which record: „Berufungsbegründung“, „Müller, Hans“
    aktion: str  # angelegt, geändert, gelöscht (geprüft for a Kollisionsprüfung)
    eintrag_id: int
    aenderungen: list[Aenderung] = field(default_factory=list)
    grund: str = ""

    @property
    def anker(self) -> str:
        """The record's anchor on the Akte page (frist-12), empty for the Akte itself."""
        return "" if self.art in ("akte", "kollision", "zugriff") else f"{self.art}-{self.eintrag_id}"


def verlauf_der_akte(*, user: User, akte_id: int | str, limit: int = 200) -> list[VerlaufsZeile]:
    """Every change to the Akte and its records, newest first (at most `limit`)."""
    akte = get_akte(user=user, akte_id=akte_id)  # NotFound for a foreign Akte
    zeilen: list[VerlaufsZeile] = []
    for modell in ARTEN:
        filter_ = {"id": akte.pk} if modell is Akte else {"akte_id": akte.pk}
        zeilen += _zeilen(modell, filter_, limit)
    zeilen += _kollisionspruefungen(akte, limit)
    zeilen.sort(key=lambda z: z.zeit, reverse=True)
    return zeilen[:limit]


def verlauf_des_eintrags(*, user: User, eintrag: models.Model, limit: int = 100) -> list[VerlaufsZeile]:
    """The changes of one record (an Akte, a Frist, a Beteiligte/r …), newest first."""
    if type(eintrag) not in ARTEN:
        raise NotFound("Zu diesem Eintrag gibt es keinen Verlauf.")
    if isinstance(eintrag, Akte):
        get_akte(user=user, akte_id=eintrag.pk)
    elif getattr(eintrag, "akte_id", None) is not None:
        get_akte(user=user, akte_id=eintrag.akte_id)
    elif getattr(eintrag, "verfasst_von_id", None) != user.pk:  # a Notiz without Akte is its author's
        raise NotFound
    zeilen = _zeilen(type(eintrag), {"id": eintrag.pk}, limit)
    zeilen.sort(key=lambda z: z.zeit, reverse=True)
    return zeilen


# --------------------------------------------------------------------------- reading the rows


def _zeilen(modell: type[models.Model], filter_: dict[str, Any], limit: int) -> list[VerlaufsZeile]:
    historie = modell.history.model  # type: ignore[attr-defined]
    rows = list(historie.objects.filter(**filter_).select_related("history_user")
                .order_by("-history_date", "-history_id")[:limit])
    vorher = _vorgaenger(historie, rows)
    felder = [f for f in historie.tracked_fields if f.name not in OHNE and f.editable]
    namen = _personen(felder, [*rows, *vorher.values()])
    art, art_name = ARTEN[modell]
    zeilen = []
    for row in rows:
        aenderungen: list[Aenderung] = []
        alt = vorher.get(row.history_id)
        if row.history_type == "~" and alt is not None:
            aenderungen = _unterschiede(felder, alt, row, namen)
        grund = (row.history_change_reason or "").strip()
        if row.history_type == "~" and not aenderungen and not grund:
            continue  # saved without a change
        zeilen.append(VerlaufsZeile(
            zeit=row.history_date, wer=anzeigename(row.history_user, niemand="automatisch"), art=art,
            art_name=dict(Frist.Typ.choices).get(row.typ, art_name) if modell is Frist else art_name,
            bezeichnung=_bezeichnung(modell, row, namen), aktion=AKTIONEN.get(row.history_type, "geändert"),
            eintrag_id=row.id, aenderungen=aenderungen, grund=grund))
    return zeilen


def _vorgaenger(historie: type[models.Model], rows: list[Any]) -> dict[int, Any]:
    """history_id → the row before it of the same record (one query for those not fetched)."""
    je_eintrag: dict[int, list[Any]] = defaultdict(list)
    for row in rows:
        je_eintrag[row.id].append(row)
    vorher: dict[int, Any] = {}
    fehlt: list[int] = []
    for eintrag_id, eigene in je_eintrag.items():
        eigene.reverse()  # oldest first
        for frueher, spaeter in pairwise(eigene):
            vorher[spaeter.history_id] = frueher
        if eigene[0].history_type != "+":
            fehlt.append(eintrag_id)
    if fehlt:
        # every row not fetched is older than all fetched ones: the newest of them is the one before
        aeltere = (historie.objects.filter(id__in=fehlt).exclude(history_id__in=[r.history_id for r in rows])
                   .order_by("id", "-history_date", "-history_id").distinct("id"))
        for row in aeltere:
            vorher[je_eintrag[row.id][0].history_id] = row
    return vorher


def _personen(felder: list[models.Field], rows: Iterable[Any]) -> dict[int, str]:
    """Names of the people the rows point to (Anwalt, verantwortlich, Zugriff …), one query."""
    ids = {getattr(row, f.attname) for row in rows for f in felder if _ist_person(f)}
    ids.discard(None)
    return {u.pk: anzeigename(u, niemand="automatisch") for u in User.objects.filter(pk__in=ids)}


def _ist_person(f: models.Field) -> bool:
    return isinstance(f, models.ForeignKey) and f.related_model is User


def _unterschiede(felder: list[models.Field], alt: Any, neu: Any, namen: dict[int, str]) -> list[Aenderung]:
    out = []
    for f in felder:
        vorher, nachher = getattr(alt, f.attname), getattr(neu, f.attname)
        if vorher == nachher:
            continue
        out.append(Aenderung(feld=capfirst(str(f.verbose_name)), alt=anzeige(f, vorher, namen),
                             neu=anzeige(f, nachher, namen)))
    return out


def anzeige(f: models.Field, wert: Any, namen: dict[int, str] | None = None) -> str:
    """A stored value as a person reads it; „—“ for nothing."""
    if wert is None or wert == "" or wert == []:
        return "—"
    if f.choices:
        return str(dict(f.flatchoices).get(wert, wert))
    if _ist_person(f):
        return (namen or {}).get(wert, "unbekannte Person")
    if isinstance(f, models.BooleanField):
        return "ja" if wert else "nein"
    if isinstance(wert, datetime):
        lokal = timezone.localtime(wert) if timezone.is_aware(wert) else wert
        return f"{lokal:%d.%m.%Y %H:%M}"
    if isinstance(wert, date):
        return f"{wert:%d.%m.%Y}"
    if isinstance(wert, time):
        return f"{wert:%H:%M}"
    if isinstance(wert, Decimal):
        return f"{wert:,.2f}".replace(",", "\0").replace(".", ",").replace("\0", ".")
    if isinstance(f, ArrayField):
        return ", ".join(str(w) for w in wert)
    if isinstance(f, models.JSONField):
        return "gespeichert"
    text = " ".join(str(wert).split())
    return text if len(text) <= LANG else text[:LANG].rstrip() + " …"


def _bezeichnung(modell: type[models.Model], row: Any, namen: dict[int, str]) -> str:
    """Which record, as it was then."""
    if modell is Akte:
        return f"{row.aktenzeichen} {row.kurzrubrum}"
    if modell is Beteiligter:
        rolle = dict(Beteiligter.Rolle.choices).get(row.rolle, "")
        return f"{row.name} ({rolle})" if rolle else row.name
    if modell is Frist:  # its Typ („Termin“) is the row's art_name
        return f"„{row.bezeichnung}“ zum {row.datum:%d.%m.%Y}"
    if modell is Notiz:
        return row.titel or anzeige(Notiz._meta.get_field("inhalt"), row.inhalt[:60])
    if modell is Zeiterfassung:
        return f"{row.datum:%d.%m.%Y}, {row.dauer_minuten} Min.: {row.taetigkeit[:60]}"
    if modell is AktenZugriff:
        return namen.get(row.user_id, "unbekannte Person")
    return str(row.id)


def _kollisionspruefungen(akte: Akte, limit: int) -> list[VerlaufsZeile]:
    """The Kollisionsprüfungen for this Akte and what was decided (not the hits: they may name
    Akten the reader may not see)."""
    rows = (Kollisionspruefung.objects.filter(akte=akte).select_related("user")
            .exclude(entscheidung=Kollisionspruefung.Entscheidung.OFFEN).order_by("-angelegt_am")[:limit])
    return [VerlaufsZeile(zeit=k.angelegt_am, wer=anzeigename(k.user, niemand="automatisch"), art="kollision",
                          art_name="Kollisionsprüfung", bezeichnung=", ".join(k.namen)[:200],
                          aktion=k.get_entscheidung_display(),
                          eintrag_id=k.pk, grund=k.begruendung)
            for k in rows]
