"""GET /api/v1/suche: the search box's JSON (docs/protocol.md "Suche"). Thin: helena.quicksearch.selectors."""

from __future__ import annotations

from dataclasses import asdict

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from akten.lesezugriffe.services import Weg, speichern
from config.errors import TWO_CHARS
from helena.quicksearch import selectors

router = Router(tags=["Suche"])


class SucheFilter(Schema):
    q: str = Field(..., max_length=selectors.MAX_ZEICHEN, pattern=TWO_CHARS,
                   description=f"Suchbegriff, {selectors.MIN_ZEICHEN} bis {selectors.MAX_ZEICHEN} Zeichen: "
                               "Aktenzeichen, Name, Stichwort oder Zitat (z. B. „§ 517 ZPO“)")
    limit: int = Field(selectors.LIMIT_BOX, ge=1, le=selectors.MAX_LIMIT, description="Treffer je Gruppe")


class TrefferOut(Schema):
    label: str
    untertitel: str
    auszug: str = Field(description="die Worte um die Fundstelle (leer, wo es keinen Text zu zitieren gibt)")
    url: str
    stand: str = Field("", description="bei Normen: der Stand des Gesetzes, wie der amtliche Text ihn "
                                       "angibt (z. B. „zuletzt geändert durch Art. 1 G v. 29.3.2026 I "
                                       "Nr. 83“); sonst leer")


class GruppeOut(Schema):
    art: str = Field(description="akten, fristen, dokumente, notizen, gespraeche oder normen")
    titel: str
    treffer: list[TrefferOut]
    weitere: bool = Field(description="es gibt mehr Treffer als gezeigt (alle: /suche/?q=…)")


class SucheOut(Schema):
    q: str
    direkt: str | None = Field(description="die Seite, die sich sofort öffnet: ein Aktenzeichen, das du "
                                           "sehen darfst, oder das Zitat einer Norm")
    gruppen: list[GruppeOut]
    hinweise: list[str] = Field(description="leise Hinweise zur Suche, z. B. „Es sind keine Entscheidungen "
                                            "geladen.“, wenn nach Rechtsbegriffen gesucht wurde")


@router.get("/suche", response=SucheOut, summary="Suche über alles, was du sehen darfst")
def suche(request: HttpRequest, filters: Query[SucheFilter]) -> dict:
    ergebnis = selectors.suche(user=request.auth, q=filters.q, limit=filters.limit)
    speichern(user=request.auth, lesungen=ergebnis.lesungen, weg=Weg.API)  # the quoted passages: one INSERT
    return asdict(ergebnis)
