"""Writing the read log (Lesezugriff) and keeping it no longer than the firm set.

Cheap by design: a page or API request calls `lesen` once after its scoped read succeeded — one
INSERT, no SELECT (the name and the Aktenzeichen come from objects the request has already loaded).
Helena's tools collect their reads as plain rows (`Lesung`) and a run stores them with `speichern`,
one INSERT per step (helena/runs/ports.py).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dateutil.relativedelta import relativedelta
from django.utils import timezone

from akten.accounts.users import anzeigename
from akten.models import Akte, Dokument, Kanzleieinstellung, Lesezugriff, User

Weg = Lesezugriff.Weg
Bereich = Lesezugriff.Bereich


@dataclass(frozen=True)
class Lesung:
    """One read as a tool reports it: plain data, so the agent core carries it without the ORM."""

    akte_id: int
    aktenzeichen: str
    bereich: str = Bereich.AKTE
    dokument_id: int | None = None
    dokument_titel: str = ""
    objekt_id: int | None = None

    @classmethod
    def von(cls, akte: Akte, *, bereich: str = Bereich.AKTE, dokument: Dokument | None = None,
            objekt_id: int | None = None) -> Lesung:
        return cls(akte_id=akte.pk, aktenzeichen=akte.aktenzeichen, bereich=bereich,
                   dokument_id=dokument.pk if dokument else None,
                   dokument_titel=dokument.titel[:300] if dokument else "", objekt_id=objekt_id)


def _zeile(*, user: User, weg: str, lesung: Lesung, zeitpunkt: datetime, run_id: Any = None,
           format: str = "") -> Lesezugriff:
    return Lesezugriff(
        zeitpunkt=zeitpunkt, user=user, person=anzeigename(user)[:200], akte_id=lesung.akte_id,
        aktenzeichen=lesung.aktenzeichen, weg=weg, bereich=lesung.bereich, objekt_id=lesung.objekt_id,
        dokument_id=lesung.dokument_id, dokument_titel=lesung.dokument_titel, format=format,
        run_id=_uuid(run_id))


def _uuid(run_id: Any) -> uuid.UUID | None:
    if run_id in (None, ""):
        return None
    try:
        return uuid.UUID(str(run_id))
    except ValueError:
        return None


def lesen(*, user: User, akte: Akte, weg: str, bereich: str = Bereich.AKTE, dokument: Dokument | None = None,
          objekt_id: int | None = None, format: str = "") -> None:
    """Record one read of a page or API request: one INSERT, after the scoped read succeeded. No
    savepoint around it: a read that cannot be recorded fails like any database error (no unlogged
    reads), and the page's path stays one statement longer, not three."""
    lesung = Lesung.von(akte, bereich=bereich, dokument=dokument, objekt_id=objekt_id)
    _zeile(user=user, weg=weg, lesung=lesung, zeitpunkt=timezone.now(), format=format).save(force_insert=True)


def speichern(*, user: User, lesungen: list[Lesung], weg: str = Weg.HELENA, run_id: Any = None) -> int:
    """Several reads at once (a step of Helena's run): one INSERT; the same read twice in one batch
    is kept once."""
    if user is None or getattr(user, "pk", None) is None or not lesungen:
        return 0
    jetzt = timezone.now()
    zeilen = [_zeile(user=user, weg=weg, lesung=lesung, zeitpunkt=jetzt, run_id=run_id)
              for lesung in dict.fromkeys(lesungen)]
    Lesezugriff.objects.bulk_create(zeilen)
    return len(zeilen)


def aufraeumen(*, jetzt: datetime | None = None) -> int:
    """Delete what is older than the firm's period (Kanzleieinstellung); the hourly beat task."""
    monate = Kanzleieinstellung.aktuell().zugriffe_aufbewahren_monate
    grenze = (jetzt or timezone.now()) - relativedelta(months=monate)
    geloescht, _ = Lesezugriff.objects.filter(zeitpunkt__lt=grenze).delete()
    return geloescht


__all__ = ["Bereich", "Lesung", "Weg", "aufraeumen", "lesen", "speichern"]
