"""{{PLATZHALTER}} of a Muster filled from an Akte: what the Akte knows (Aktenzeichen, Rubrum,
Beteiligte by role, Gericht and its Aktenzeichen, the Kanzlei's letterhead, today's date); what it
does not know stays in the text as it was and is listed, so nobody sends a letter with a gap.

A Beteiligter with an Anrede is also named by case, „{{MANDANT_GENITIV}}“ → „des Herrn Thomas
Müller“ / „der Frau Renate Hoffmann“ (akten/dokumente/anrede.py), and a Muster's gendered words
follow the party: „{{MANDANT: der Kläger | die Klägerin | die klagende Partei}}“ (male, female,
divers; without the third, divers reads „der Kläger/die Klägerin“). Without an Anrede both stay open.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.utils import timezone

from akten.dokumente.anrede import FAELLE, Genus, formen, genus_von
from akten.models import Akte, Beteiligter, Briefkopf

PLATZHALTER = re.compile(r"\{\{\s*([A-ZÄÖÜ][A-ZÄÖÜ0-9_]*)\s*\}\}")
# {{ROLLE: männlich | weiblich | divers}}: words that follow the Beteiligter's gender
WAHL = re.compile(r"\{\{\s*([A-ZÄÖÜ][A-ZÄÖÜ0-9_]*)\s*:([^{}]*)\}\}")
_OFFEN = re.compile(r"\{\{\s*([A-ZÄÖÜ][A-ZÄÖÜ0-9_]*(?:\s*:[^{}]*)?)\}\}")
_GENUS_INDEX = {"m": 0, "w": 1, "d": 2}


@dataclass(frozen=True)
class Gefuellt:
    text: str
    gefuellt: list[str]  # the placeholders the Akte filled
    offen: list[str]  # those it could not fill, in order of appearance, each once


def offene_platzhalter(text: str) -> list[str]:
    """The placeholders and gendered choices still in the text, each once, as written (spaces tidied)."""
    return list(dict.fromkeys(" ".join(name.split()) for name in _OFFEN.findall(text or "")))


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
        "KANZLEI_TELEFON": briefkopf.telefon.strip(),
        "KANZLEI_EMAIL": briefkopf.email.strip(),
        "ANWALT_NAME": anwalt,
    }
    for rolle, personen in _nach_rolle(akte).items():
        werte[f"{rolle}_NAME"] = " und ".join(p.name for p in personen)
        werte[f"{rolle}_ANSCHRIFT"] = "; ".join(_zeilen(p.anschrift) for p in personen if p.anschrift)
        werte[f"{rolle}_AKTENZEICHEN"] = ", ".join(p.aktenzeichen_extern for p in personen
                                                   if p.aktenzeichen_extern)
        werte[f"{rolle}_EMAIL"] = ", ".join(p.email for p in personen if p.email)
        werte[f"{rolle}_TELEFON"] = ", ".join(p.telefon for p in personen if p.telefon)
        werte.update(_benannt(rolle, personen))
    werte["GERICHT"] = werte.get("GERICHT_NAME", "")
    return {name: value for name, value in werte.items() if value}


def genus_fuer(akte: Akte) -> dict[str, Genus]:
    """The grammatical gender of each role held by one Beteiligter with an Anrede (two or more
    persons, or one without an Anrede: none, their gendered words stay open)."""
    out: dict[str, Genus] = {}
    for rolle, personen in _nach_rolle(akte).items():
        if len(personen) == 1 and (g := genus_von(personen[0])) is not None:
            out[rolle] = g
    return out


def _nach_rolle(akte: Akte) -> dict[str, list[Beteiligter]]:
    by_role: dict[str, list[Beteiligter]] = {}
    for b in akte.beteiligte.order_by("pk"):
        by_role.setdefault(b.rolle.upper(), []).append(b)
    return by_role


def _benannt(rolle: str, personen: list[Beteiligter]) -> dict[str, str]:
    """ROLLE_GENITIV … ROLLE_BRIEFANREDE when every person of the role has an Anrede."""
    alle = [formen(p) for p in personen]
    if not alle or any(f is None for f in alle):
        return {}
    out = {f"{rolle}_{fall}": " und ".join(f[fall] for f in alle if f) for fall in (*FAELLE, "EMPFAENGER")}
    gruesse = list(dict.fromkeys(f["BRIEFANREDE"] for f in alle if f))
    out[f"{rolle}_BRIEFANREDE"] = ", ".join([gruesse[0], *(g[0].lower() + g[1:] for g in gruesse[1:])])
    return out


def fuelle(text: str, werte: dict[str, str], *, genus: Mapping[str, Genus] | None = None) -> Gefuellt:
    """Replace the placeholders `werte` knows and the gendered choices of the roles in `genus`; the
    others stay and are listed."""
    gefuellt: list[str] = []
    genus = genus or {}

    def choose(match: re.Match[str]) -> str:
        rolle, formen_ = match.group(1), [f.strip() for f in match.group(2).split("|")]
        if rolle not in genus or not 2 <= len(formen_) <= 3:
            return match.group(0)
        index = _GENUS_INDEX[genus[rolle]]
        return formen_[index] if index < len(formen_) else "/".join(formen_)

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in werte:
            gefuellt.append(name)
            return werte[name]
        return match.group(0)

    out = PLATZHALTER.sub(replace, WAHL.sub(choose, text))
    return Gefuellt(text=out, gefuellt=list(dict.fromkeys(gefuellt)), offen=offene_platzhalter(out))
