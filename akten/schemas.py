"""API schemas for the firm's records (ids are strings, money is a decimal string)."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Annotated, Any

from django.utils import timezone
from ninja import Field, Schema
from pydantic import BeforeValidator

from akten.fristen import FristError, parse_datum
from akten.models import Akte, Alert, Frist


def _datum(value: Any) -> Any:
    if value is None or value == "":
        return None
    try:
        return parse_datum(value)
    except FristError as exc:
        raise ValueError(str(exc)) from None


# A day as people in a Kanzlei write it, JJJJ-MM-TT or TT.MM.JJJJ (the write API, Helena's drafts)
Datum = Annotated[date, BeforeValidator(_datum)]
OptDatum = Annotated[date | None, BeforeValidator(_datum)]


class MeOut(Schema):
    username: str
    role: str
    name: str


class PersonOut(Schema):
    username: str
    name: str


def person_out(user: Any) -> PersonOut | None:
    """A colleague as the API shows them: username and display name."""
    if user is None:
        return None
    return PersonOut(username=user.username, name=user.get_full_name() or user.username)


class BeteiligterOut(Schema):
    id: str
    rolle: str
    anrede: str  # herr, frau, divers, firma; "" when not known
    name: str
    anschrift: str
    telefon: str
    email: str
    aktenzeichen_extern: str
    extern_id: str = ""


def beteiligter_out(beteiligter: Any) -> dict[str, Any]:
    return {"id": str(beteiligter.pk), "rolle": beteiligter.rolle, "anrede": beteiligter.anrede,
            "name": beteiligter.name, "anschrift": beteiligter.anschrift, "telefon": beteiligter.telefon,
            "email": beteiligter.email, "aktenzeichen_extern": beteiligter.aktenzeichen_extern,
            "extern_id": beteiligter.extern_id}


class FristOut(Schema):
    id: str
    akte_id: str
    aktenzeichen: str
    typ: str
    bezeichnung: str
    datum: date
    uhrzeit: time | None
    vorfrist: date | None
    ist_notfrist: bool
    erledigt: bool
    erledigt_am: datetime | None
    verantwortlich: PersonOut | None
    bundesland: str
    notiz: str
    ueberfaellig: bool
    erledigt_vermerk: str = ""
    erledigt_von: PersonOut | None = None
    wartet_auf_bestaetigung: bool = False
    erledigung_beantragt_von: PersonOut | None = None
    erledigung_beantragt_am: datetime | None = None
    bestaetigt_von: PersonOut | None = None
    berechnung: dict[str, Any] | None = None
    extern_id: str = ""


def frist_out(frist: Frist) -> dict[str, Any]:
    """A Frist as the API shows it: with its Vermerk, who did and confirmed it, and its Berechnung."""
    return {
        "id": str(frist.pk), "akte_id": str(frist.akte_id), "aktenzeichen": frist.akte.aktenzeichen,
        "typ": frist.typ, "bezeichnung": frist.bezeichnung, "datum": frist.datum, "uhrzeit": frist.uhrzeit,
        "vorfrist": frist.vorfrist, "ist_notfrist": frist.ist_notfrist, "erledigt": frist.erledigt,
        "erledigt_am": frist.erledigt_am, "verantwortlich": person_out(frist.verantwortlich),
        "bundesland": frist.effektives_bundesland, "notiz": frist.notiz,
        "ueberfaellig": not frist.erledigt and frist.datum < timezone.localdate(),
        "erledigt_vermerk": frist.erledigt_vermerk, "erledigt_von": person_out(frist.erledigt_von),
        "wartet_auf_bestaetigung": frist.wartet_auf_bestaetigung,
        "erledigung_beantragt_von": person_out(frist.erledigung_beantragt_von),
        "erledigung_beantragt_am": frist.erledigung_beantragt_am,
        "bestaetigt_von": person_out(frist.bestaetigt_von), "berechnung": frist.berechnung,
        "extern_id": frist.extern_id,
    }


class DokumentKurzOut(Schema):
    id: str
    titel: str
    status: str
    erstellt_durch: str
    angelegt_am: datetime


class AkteOut(Schema):
    id: str
    aktenzeichen: str
    kurzrubrum: str
    wegen: str
    rechtsgebiet: str
    status: str
    gegenstandswert: str | None
    auftragsdatum: date | None = None
    mandat_beendet_am: date | None = Field(None, description="Ende des Mandats; null, solange die Akte "
                                                             "offen ist")
    bundesland: str
    anwalt: PersonOut | None
    sachbearbeiter: PersonOut | None
    tags: list[str]
    angelegt_am: datetime
    aktualisiert_am: datetime
    extern_id: str = ""
    version: str = Field("", description="ändert sich mit jeder Änderung der Akte; als ETag/If-Match "
                                         "bei PATCH /akten/{id}")


def akte_out(akte: Akte) -> dict[str, Any]:
    """An Akte as the API shows it (money a decimal string, people by username)."""
    return {
        "id": str(akte.pk), "aktenzeichen": akte.aktenzeichen, "kurzrubrum": akte.kurzrubrum,
        "wegen": akte.wegen, "rechtsgebiet": akte.rechtsgebiet, "status": akte.status,
        "gegenstandswert": None if akte.gegenstandswert is None else f"{akte.gegenstandswert:.2f}",
        "auftragsdatum": akte.auftragsdatum, "mandat_beendet_am": akte.mandat_beendet_am,
        "bundesland": akte.bundesland,
        "anwalt": person_out(akte.anwalt), "sachbearbeiter": person_out(akte.sachbearbeiter),
        "tags": akte.tags, "angelegt_am": akte.angelegt_am, "aktualisiert_am": akte.aktualisiert_am,
        "extern_id": akte.extern_id, "version": akte.version,
    }


class AkteDetailOut(AkteOut):
    summary: str
    beteiligte: list[BeteiligterOut]
    fristen: list[FristOut]
    dokumente: list[DokumentKurzOut]
    zeit_minuten_gesamt: int


class AlertOut(Schema):
    id: str
    akte_id: str | None
    frist_id: str | None
    art: str
    severity: str
    message: str
    created_at: datetime
    gelesen: bool


def alert_out(alert: Alert) -> dict[str, Any]:
    """A Hinweis as the API and the notification socket send it (docs/protocol.md)."""
    return {"id": str(alert.pk), "akte_id": str(alert.akte_id) if alert.akte_id else None,
            "frist_id": str(alert.frist_id) if alert.frist_id else None, "art": alert.art or "hinweis",
            "severity": alert.severity, "message": alert.message, "created_at": alert.angelegt_am,
            "gelesen": alert.gelesen}
