"""{{PLATZHALTER}} of a Muster filled from an Akte: what the Akte knows (Aktenzeichen, Rubrum,
Beteiligte by role, Gericht and its Aktenzeichen, the Kanzlei's letterhead, today's date); what it
does not know stays in the text as it was and is listed, so nobody sends a letter with a gap."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.utils import timezone

from akten.models import Akte, Beteiligter, Briefkopf

PLATZHALTER = re.compile(r"\{\{\s*([A-ZÄÖÜ][A-ZÄÖÜ0-9_]*)\s*\}\}")


@dataclass(frozen=True)
class Gefuellt:
    text: str
    gefuellt: list[str]  # the placeholders the Akte filled
    offen: list[str]  # those it could not fill, in order of appearance, each once


def offene_platzhalter(text: str) -> list[str]:
    return list(dict.fromkeys(PLATZHALTER.findall(text or "")))


def _euro(betrag: Decimal | None) -> str:
    if betrag is None:
        return ""
    return f"{betrag:,.2f} €".replace(",", "X").replace(".", ",").replace("X", ".")


def _zeilen(text: str) -> str:
    return ", ".join(line.strip() for line in (text or "").splitlines() if line.strip())


def werte_fuer(akte: Akte, *, heute: date | None = None) -> dict[str, str]:
    """Every placeholder an Akte can fill; empty values count as unknown."""
    briefkopf = Briefkopf.current()
    anwalt = (akte.anwalt.get_full_name() or akte.anwalt.username) if akte.anwalt else ""
    werte = {
        "AKTENZEICHEN": akte.aktenzeichen,
        "RUBRUM": akte.kurzrubrum,
        "KURZRUBRUM": akte.kurzrubrum,
        "GEGENSTAND": akte.wegen,
        "WEGEN": akte.wegen,
        "GEGENSTANDSWERT": _euro(akte.gegenstandswert),
        "STREITWERT": _euro(akte.gegenstandswert),
        "RECHTSGEBIET": akte.get_rechtsgebiet_display(),
        "DATUM": f"{heute or timezone.localdate():%d.%m.%Y}",
        "ORT": briefkopf.ort,
        "KANZLEI_NAME": briefkopf.kanzlei if briefkopf.pk else "",
        "KANZLEI_ANSCHRIFT": _zeilen(briefkopf.anschrift),
        "ANWALT_NAME": anwalt,
    }
    by_role: dict[str, list[Beteiligter]] = {}
    for b in akte.beteiligte.order_by("pk"):
        by_role.setdefault(b.rolle.upper(), []).append(b)
    for rolle, personen in by_role.items():
        werte[f"{rolle}_NAME"] = " und ".join(p.name for p in personen)
        werte[f"{rolle}_ANSCHRIFT"] = "; ".join(_zeilen(p.anschrift) for p in personen if p.anschrift)
        werte[f"{rolle}_AKTENZEICHEN"] = ", ".join(p.aktenzeichen_extern for p in personen
                                                   if p.aktenzeichen_extern)
        werte[f"{rolle}_EMAIL"] = ", ".join(p.email for p in personen if p.email)
        werte[f"{rolle}_TELEFON"] = ", ".join(p.telefon for p in personen if p.telefon)
    werte["GERICHT"] = werte.get("GERICHT_NAME", "")
    return {name: value for name, value in werte.items() if value}


def fuelle(text: str, werte: dict[str, str]) -> Gefuellt:
    """Replace the placeholders `werte` knows; the others stay and are listed."""
    gefuellt: list[str] = []

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in werte:
            gefuellt.append(name)
            return werte[name]
        return match.group(0)

    out = PLATZHALTER.sub(replace, text)
    return Gefuellt(text=out, gefuellt=list(dict.fromkeys(gefuellt)), offen=offene_platzhalter(out))
