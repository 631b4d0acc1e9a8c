"""JSON API of the user's own API tokens (thin): list, create (the token in clear once), revoke.

Only the user's own tokens are ever listed or touched; another user's token id is a 404 and that
token stays valid. A token may manage tokens too: other systems use the API with nothing else; a
token made with a token lives at most as long as it and is revoked with it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from django.http import HttpRequest
from ninja import Field, Router, Schema, Status

from akten.accounts.konto import selectors, services
from akten.fristen import parse_datum
from akten.models import ApiToken
from config.errors import DATUM_PATTERN, NOT_BLANK, errors

router = Router(tags=["Konto"])


class TokenOut(Schema):
    id: str
    name: str
    prefix: str = Field(..., description="die ersten Zeichen des Tokens, an denen du ihn wiedererkennst")
    angelegt_am: datetime
    zuletzt_benutzt: datetime | None
    gueltig_bis: datetime | None = Field(..., description="Ende des letzten Gültigkeitstages; null: "
                                                          "unbefristet")
    status: Literal["aktiv", "abgelaufen", "widerrufen"]


class NewTokenOut(TokenOut):
    token: str = Field(..., description="der Token im Klartext – nur in dieser Antwort, nie wieder")


class TokenIn(Schema):
    name: str = Field(..., max_length=services.NAME_MAX, pattern=NOT_BLANK,
                      description="wofür der Token ist, z. B. „Kanzleisoftware“")
    gueltig_bis: str | None = Field(None, pattern=DATUM_PATTERN,
                                    description="letzter Gültigkeitstag (JJJJ-MM-TT oder TT.MM.JJJJ), "
                                                "nicht in der Vergangenheit; leer: unbefristet")


def token_out(token: ApiToken) -> dict:
    return {"id": str(token.pk), "name": token.name, "prefix": token.prefix,
            "angelegt_am": token.angelegt_am, "zuletzt_benutzt": token.zuletzt_benutzt,
            "gueltig_bis": token.gueltig_bis, "status": token.status}


@router.get("/me/tokens", response=list[TokenOut], summary="Meine API-Tokens")
def tokens_list(request: HttpRequest) -> list[dict]:
    return [token_out(t) for t in selectors.tokens_for(user=request.auth)[:500]]


@router.post("/me/tokens", response={201: NewTokenOut}, summary="API-Token anlegen (einmal im Klartext)")
def token_create(request: HttpRequest, payload: TokenIn) -> Status:
    gueltig_bis = parse_datum(payload.gueltig_bis) if payload.gueltig_bis else None
    new = services.issue_token(user=request.auth, name=payload.name, gueltig_bis=gueltig_bis,
                               erzeugt_von=getattr(request, "api_token", None))
    return Status(201, {**token_out(new.token), "token": new.raw})


@router.delete("/me/tokens/{token_id}", response={200: TokenOut, **errors(404)},
               summary="API-Token widerrufen")
def token_revoke(request: HttpRequest, token_id: str) -> dict:
    return token_out(services.revoke_token(user=request.auth, token_id=token_id))
