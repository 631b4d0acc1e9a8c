"""The Fristenbuch read as a calendar: the overdue entries first, then one group per day or per
calendar week — so the eye finds "what burns" before "what comes"."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta

from akten.fristen import format_datum
from akten.models import Frist


@dataclass
class Gruppe:
    schluessel: str
    titel: str
    eintraege: list[Frist] = field(default_factory=list)
    ueberfaellig: bool = False
    heute: bool = False


def _tag_titel(tag: date, heute: date) -> str:
    name = {heute: "Heute", heute + timedelta(days=1): "Morgen"}.get(tag)
    return f"{name} · {format_datum(tag)}" if name else format_datum(tag)


def _woche_titel(montag: date, heute: date) -> str:
    jahr, kw, _ = montag.isocalendar()
    sonntag = montag + timedelta(days=6)
    diese = heute - timedelta(days=heute.weekday())
    name = {diese: "diese Woche", diese + timedelta(days=7): "nächste Woche"}.get(montag)
    zeitraum = f"KW {kw}/{jahr} · {montag:%d.%m.} – {sonntag:%d.%m.%Y}"
    return f"{zeitraum} ({name})" if name else zeitraum


def gruppieren(fristen: Iterable[Frist], *, nach: str = "tag", heute: date) -> list[Gruppe]:
    """Open entries before today under "Überfällig" (first), the rest by day or by week in date order."""
    ueberfaellig = Gruppe("ueberfaellig", "Überfällig", ueberfaellig=True)
    gruppen: dict[str, Gruppe] = {}
    for frist in fristen:
        if not frist.erledigt and frist.datum < heute:
            ueberfaellig.eintraege.append(frist)
            continue
        if nach == "woche":
            montag = frist.datum - timedelta(days=frist.datum.weekday())
            key = f"kw-{montag.isoformat()}"
            gruppe = gruppen.setdefault(key, Gruppe(key, _woche_titel(montag, heute),
                                                    heute=montag <= heute < montag + timedelta(days=7)))
        else:
            key = f"tag-{frist.datum.isoformat()}"
            gruppe = gruppen.setdefault(key, Gruppe(key, _tag_titel(frist.datum, heute),
                                                    heute=frist.datum == heute))
        gruppe.eintraege.append(frist)
    return ([ueberfaellig] if ueberfaellig.eintraege else []) + list(gruppen.values())
