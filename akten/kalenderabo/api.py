"""JSON API of the caller's own calendar feed (thin): POST makes a new secret address (an earlier one
stops working) and answers it once, GET says whether one exists, DELETE revokes it. Every role may
have a feed: it shows only what the person may read anyway. An address made with a Bearer token works
only as long as that token (revoked or expired: the feed answers 404), like a token made with a token."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Literal

from django.http import HttpRequest
from ninja import Field, Router, Schema, Status

from akten.kalenderabo import selectors, services
from akten.kalenderabo.views import feed_url, webcal_url
from akten.models import KalenderAbo

router = Router(tags=["Konto"])
UMFANG = Literal["meine", "alle"]


class KalenderIn(Schema):
    umfang: UMFANG | None = Field(None, description="meine (Standard): Einträge, für die du verantwortlich "
                                                    "bist oder deren Akte du als Anwalt/Anwältin oder "
                                                    "Sachbearbeitung führst; alle: alle Einträge der Akten, "
                                                    "die du sehen darfst. Leer: wie bisher")


class KalenderOut(Schema):
    url: str = Field(..., description="die geheime Adresse des Kalenders (text/calendar) – nur in dieser "
                                      "Antwort; wer sie kennt, sieht deine Fristen")
    webcal: str = Field(..., description="dieselbe Adresse als webcal://, öffnet das Abonnieren im Kalender")
    umfang: UMFANG


class KalenderStatus(Schema):
    aktiv: bool
    umfang: UMFANG
    prefix: str = Field(..., description="der Anfang des Schlüssels in der Adresse, zum Wiedererkennen")
    angelegt_am: datetime | None
    zuletzt_abgerufen: datetime | None


@router.get("/me/kalender", response=KalenderStatus, summary="Mein Kalender-Abo: ob es eine Adresse gibt")
def kalender_status(request: HttpRequest) -> dict:
    abo = selectors.abo_for(user=request.auth) or KalenderAbo(user=request.auth)
    return {"aktiv": abo.aktiv, "umfang": abo.umfang, "prefix": abo.prefix, "angelegt_am": abo.angelegt_am,
            "zuletzt_abgerufen": abo.zuletzt_abgerufen}


# The body is optional: `POST /me/kalender` alone makes an address. ninja has no optional body that is
# not also `null` in the schema (which config.middleware refuses: a body is a JSON object), so the
# handler reads it itself and the document declares it here.
OPTIONAL_BODY = {"requestBody": {"required": False, "content": {"application/json": {
    "schema": KalenderIn.model_json_schema()}}}}


@router.post("/me/kalender", response={201: KalenderOut}, openapi_extra=OPTIONAL_BODY,
             summary="Kalender-Abo: neue geheime Adresse (die bisherige hört auf zu gelten)")
def kalender_erneuern(request: HttpRequest) -> Status:
    """Without a body (or with `{}`) the earlier choice of what the feed shows stays. Made with a Bearer
    token, the address ends with that token (revoked or expired); made with a session, it stays until
    it is renewed or revoked."""
    daten = json.loads(request.body) if request.body.strip() else {}  # JSON checked by config.middleware
    umfang = daten.get("umfang") if isinstance(daten, dict) else None
    neu = services.adresse_erneuern(user=request.auth, umfang=umfang,
                                    erzeugt_mit=getattr(request, "api_token", None))
    url = feed_url(request, neu.raw)
    return Status(201, {"url": url, "webcal": webcal_url(url), "umfang": neu.abo.umfang})


@router.delete("/me/kalender", response={204: None},
               summary="Kalender-Abo beenden (die Adresse gilt nicht mehr)")
def kalender_widerrufen(request: HttpRequest) -> Status:
    services.abo_widerrufen(user=request.auth)
    return Status(204, None)
