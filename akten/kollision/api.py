"""POST /api/v1/kollisionspruefung (thin): names against every party of the firm (akten/kollision/abfrage)."""

from __future__ import annotations

import re
from typing import Annotated

from django.http import HttpRequest
from ninja import Field, Router, Schema
from pydantic import AfterValidator

from akten.kollision.abfrage import HOECHSTENS_NAMEN, NAME_MAX, abfragen
from akten.models import Beteiligter
from config.errors import errors

router = Router(tags=["Kollisionsprüfung"])

NAME_PATTERN = r"[^\W_]"  # a letter or a digit, of any script: else there is nothing to compare


def _vergleichbar(name: str) -> str:
    """The pattern, checked here for a German message („enthält keine Buchstaben …“)."""
    if not re.search(NAME_PATTERN, name):
        raise ValueError("enthält keine Buchstaben oder Ziffern")
    return name


Name = Annotated[str, Field(min_length=1, max_length=NAME_MAX, json_schema_extra={"pattern": NAME_PATTERN}),
                 AfterValidator(_vergleichbar)]


class KollisionspruefungIn(Schema):
    namen: list[Name] = Field(..., min_length=1, max_length=HOECHSTENS_NAMEN,
                              description=f"die zu prüfenden Namen (Personen oder Firmen), 1 bis "
                                          f"{HOECHSTENS_NAMEN}, je höchstens {NAME_MAX} Zeichen mit "
                                          "mindestens einem Buchstaben oder einer Ziffer; Schreibweise "
                                          "egal („Müller, Hans“, „Hans Mueller“)")
    rolle: Beteiligter.Rolle | None = Field(
        None, description="die Rolle, die die Namen bekommen sollen: Ein Treffer in der Gegenrolle "
                          "(neuer Gegner war Mandant, neuer Mandant war Gegner) ist eine Kollision")


class KollisionTrefferOut(Schema):
    name: str = Field(..., description="der geprüfte Name, wie angefragt")
    gefunden_als: str = Field(..., description="der Name des Beteiligten in den Akten der Kanzlei")
    rolle: Beteiligter.Rolle = Field(..., description="seine Rolle dort")
    akte_id: str | None = Field(None, description="die Akte – nur, wenn du sie sehen darfst; sonst fehlt "
                                                  "das Feld")
    aktenzeichen: str | None = Field(None, description="ihr Aktenzeichen – nur, wenn du die Akte sehen "
                                                       "darfst; sonst fehlt das Feld")
    hinweis: str = Field(..., description="was der Treffer bedeutet; bei einer Akte, die du nicht sehen "
                                          "darfst, wen du fragen kannst")
    konflikt: bool = Field(..., description="mögliche Interessenkollision mit der angegebenen `rolle`")
    geloescht: bool | None = Field(None, description="true: eine Partei einer nach § 50 BRAO gelöschten Akte "
                                                     "(nur Name, Rolle, Aktenzeichen und Jahre des Mandats "
                                                     "sind noch da; kein `akte_id`); sonst fehlt das Feld")


class KollisionspruefungOut(Schema):
    treffer: list[KollisionTrefferOut] = Field(..., description="Kollisionen zuerst, je Name höchstens 20")
    konflikt: bool = Field(..., description="mindestens ein Treffer ist eine mögliche Interessenkollision")
    weitere: int = Field(..., description="gefundene, aber nicht gezeigte Treffer (über 20 je Name)")


@router.post("/kollisionspruefung", response={200: KollisionspruefungOut, **errors(403, 422)},
             exclude_none=True, summary="Kollisionsprüfung: Namen gegen alle Beteiligten der Kanzlei")
def kollisionspruefung(request: HttpRequest, payload: KollisionspruefungIn) -> dict:
    """Jede Abfrage wird protokolliert (Anlass „Abfrage“). Praktikantinnen und Praktikanten: 403."""
    rolle = payload.rolle.value if payload.rolle is not None else None
    ergebnis = abfragen(user=request.auth, namen=payload.namen, rolle=rolle)
    zeilen = [t.fuer() for t in ergebnis.treffer]
    return {"treffer": zeilen, "konflikt": any(t.konflikt for t in ergebnis.treffer),
            "weitere": ergebnis.weitere}
