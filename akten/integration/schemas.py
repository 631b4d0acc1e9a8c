"""What the write API accepts: one schema per record, fields as the records name them; people by
username (or user id), money as a decimal string, dates as JJJJ-MM-TT or TT.MM.JJJJ."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Annotated, Any, Literal

from ninja import Field, Schema
from pydantic import AfterValidator, ConfigDict

from akten.models import Akte, Beteiligter, Bundesland, Frist
from akten.models.integration import EXTERN_ID_MAX
from akten.schemas import Datum, OptDatum, PersonOut, person_out
from config.errors import BETRAG_PATTERN, NOT_BLANK

KeinBundesland = Literal[""]
FRUEHESTENS, SPAETESTENS = date(1900, 1, 1), date(2100, 12, 31)


def _plausibel(tag: date | None) -> date | None:
    """A Notfrist in the year 1 would be overdue at once and raise critical Hinweise: typos refused."""
    if tag is not None and not FRUEHESTENS <= tag <= SPAETESTENS:
        raise ValueError("liegt nicht zwischen 1900 und 2100")
    return tag


Tag = Annotated[Datum, AfterValidator(_plausibel)]
OptTag = Annotated[OptDatum, AfterValidator(_plausibel)]
StrengerTag = Annotated[date, AfterValidator(_plausibel)]  # ISO only: no „“ for „none“ (as the schema says)


def ExternId() -> Any:
    return Field("", max_length=EXTERN_ID_MAX,
                 description="die ID im anderen System (je Eintragsart eindeutig; leer: keine)")


def Person() -> Any:
    return Field(None, max_length=150, description="Benutzername oder Benutzer-ID")

class Streng(Schema):
    """Unknown fields are refused: a typo („kurzrubrik“) must not be dropped silently."""

    model_config = ConfigDict(extra="forbid")


class AkteIn(Streng):
    aktenzeichen: str | None = Field(None, max_length=31,
                                     description="leer: das nächste Aktenzeichen nach dem Schema der Kanzlei")
    kurzrubrum: str = Field(..., min_length=1, max_length=200, pattern=NOT_BLANK)
    wegen: str = Field("", max_length=300)
    rechtsgebiet: Akte.Rechtsgebiet = Akte.Rechtsgebiet.SONSTIGES
    status: Akte.Status | None = None
    gegenstandswert: str | None = Field(None, pattern=BETRAG_PATTERN, description="z. B. „12000.00“")
    auftragsdatum: OptTag = None
    mandat_beendet_am: StrengerTag | None = Field(None, description="JJJJ-MM-TT; nur bei status "
                                                                 "geschlossen/archiviert; fehlt: heute")
    bundesland: Bundesland | None = Field(None, description="leer: NW (die Feiertage für Fristen)")
    anwalt: str | None = Person()
    sachbearbeiter: str | None = Person()
    tags: list[str] = Field(default_factory=list, max_length=30)
    extern_id: str = ExternId()


class AkteAenderungIn(Streng):
    """Only the fields sent are changed; `version` (or the If-Match header) refuses a stale change."""

    aktenzeichen: str | None = Field(None, min_length=1, max_length=31, pattern=NOT_BLANK)
    kurzrubrum: str | None = Field(None, min_length=1, max_length=200, pattern=NOT_BLANK)
    wegen: str | None = Field(None, max_length=300)
    rechtsgebiet: Akte.Rechtsgebiet | None = None
    status: Akte.Status | None = None
    gegenstandswert: str | None = Field(None, pattern=BETRAG_PATTERN)
    auftragsdatum: OptTag = None
    mandat_beendet_am: StrengerTag | None = Field(
        None, description="JJJJ-MM-TT: Ende des Mandats (§ 50 BRAO zählt ab dem Ende dieses Jahres); nur bei "
                          "geschlossener Akte, nicht in der Zukunft, nicht vor dem Auftragsdatum")
    bundesland: Bundesland | KeinBundesland | None = None
    anwalt: str | None = Person()
    sachbearbeiter: str | None = Person()
    tags: list[str] | None = Field(None, max_length=30)
    extern_id: str | None = Field(None, max_length=EXTERN_ID_MAX)
    version: str | None = Field(None, max_length=40, description="die `version` der Akte, wie gelesen")


class BeteiligterIn(Streng):
    rolle: Beteiligter.Rolle
    name: str = Field(..., min_length=1, max_length=200, pattern=NOT_BLANK)
    anrede: Beteiligter.Anrede | Literal[""] = ""
    anschrift: str = Field("", max_length=2000)
    telefon: str = Field("", max_length=50)
    email: str = Field("", max_length=254)
    aktenzeichen_extern: str = Field("", max_length=100)
    notiz: str = Field("", max_length=10000)
    extern_id: str = ExternId()
    kollision_bestaetigt: bool = Field(False, description="nach einer Antwort 409 `kollision`: trotzdem "
                                                          "anlegen (mit `kollision_begruendung`)")
    kollision_begruendung: str = Field("", max_length=2000)


class FristIn(Streng):
    bezeichnung: str = Field(..., min_length=1, max_length=300, pattern=NOT_BLANK)
    typ: Frist.Typ = Frist.Typ.FRIST
    datum: Tag
    uhrzeit: time | None = None
    vorfrist: OptTag = None
    ist_notfrist: bool = False
    verantwortlich: str | None = Person()
    notiz: str = Field("", max_length=10000)
    bundesland: Bundesland | KeinBundesland = ""
    extern_id: str = ExternId()


class NotizIn(Streng):
    titel: str = Field("", max_length=300)
    inhalt: str = Field(..., min_length=1, max_length=100_000, pattern=NOT_BLANK)
    extern_id: str = ExternId()


class ZeitIn(Streng):
    datum: OptTag = Field(None, description="leer: heute")
    dauer_minuten: int = Field(..., ge=1, le=1440)
    taetigkeit: str = Field(..., min_length=1, max_length=500, pattern=NOT_BLANK)
    abrechenbar: bool = True
    extern_id: str = ExternId()


class NotizOut(Schema):
    id: str
    akte_id: str | None
    titel: str
    inhalt: str
    verfasst_von: PersonOut | None
    angelegt_am: datetime
    extern_id: str


class ZeitOut(Schema):
    id: str
    akte_id: str
    datum: date
    dauer_minuten: int
    taetigkeit: str
    abrechenbar: bool
    user: PersonOut | None
    angelegt_am: datetime
    extern_id: str


def notiz_out(notiz: Any) -> dict[str, Any]:
    return {"id": str(notiz.pk), "akte_id": str(notiz.akte_id) if notiz.akte_id else None,
            "titel": notiz.titel, "inhalt": notiz.inhalt, "verfasst_von": person_out(notiz.verfasst_von),
            "angelegt_am": notiz.angelegt_am, "extern_id": notiz.extern_id}


def zeit_out(zeit: Any) -> dict[str, Any]:
    return {"id": str(zeit.pk), "akte_id": str(zeit.akte_id), "datum": zeit.datum,
            "dauer_minuten": zeit.dauer_minuten, "taetigkeit": zeit.taetigkeit,
            "abrechenbar": zeit.abrechenbar, "user": person_out(zeit.user), "angelegt_am": zeit.angelegt_am,
            "extern_id": zeit.extern_id}


class AenderungOut(Schema):
    schluessel: str = Field(..., description="eindeutig je Änderung: zum Aussortieren doppelt gelesener")
    typ: Literal["akte", "beteiligter", "frist", "notiz", "zeiterfassung", "dokument"]
    id: str
    akte_id: str | None
    extern_id: str
    was: Literal["angelegt", "geaendert", "geloescht", "erledigt", "wieder_offen", "zugriff_erhalten",
                 "zugriff_entzogen"]
    felder: list[str] = Field(default_factory=list, description="bei `geaendert`: welche Felder")
    wann: str = Field(..., json_schema_extra={"format": "date-time"},
                      description="ISO 8601 auf die Mikrosekunde: als nächstes `seit`")
    von: str | None = Field(None, description="Benutzername dessen, der geändert hat")
    grund: str = ""


def json_antwort(schema: type[Schema], daten: dict[str, Any]) -> dict[str, Any]:
    """The answer as JSON, as the client will read it: what an Idempotency-Key keeps and gives again."""
    return schema.model_validate(daten).model_dump(mode="json")
