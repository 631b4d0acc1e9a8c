"""What a newer version of a law changes: its norms matched to the rows already there, and the report.

A norm that stays keeps its row (matched by nummer and, for the rare duplicates, by order of
occurrence), so its primary key, links and citations stay stable and only rows that differ are
written (services.update_gesetz). The report says, in German, what a lawyer needs to know: which
norms are new, changed (text or heading), repealed (gone from the law, or now "(weggefallen)").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from helena.knowledge.importers.common import WEGGEFALLEN
from helena.knowledge.models import Norm, NormAenderung

# What a norm row holds from its law's text; any difference is written, only titel and text are
# a change a lawyer is told about.
FELDER = ("bezeichnung", "titel", "text", "fussnoten", "order", "gliederung", "stichworte")
GEZEIGT = 10  # designations listed per kind in the report, then "und N weitere"

Art = NormAenderung.Art


def weggefallen(norm: Norm) -> bool:
    return norm.text.strip() == WEGGEFALLEN


@dataclass(frozen=True)
class Aenderung:
    """One norm's change with what it was before (the record: NormAenderung)."""

    art: str
    bezeichnung: str
    nummer: str
    titel_vorher: str = ""
    text_vorher: str = ""
    gliederung_vorher: str = ""


@dataclass
class Abgleich:
    """The rows to create, to update (stored row, parsed row) and to delete, and the changes."""

    anlegen: list[Norm] = field(default_factory=list)
    aktualisieren: list[tuple[Norm, Norm]] = field(default_factory=list)
    entfernen: list[Norm] = field(default_factory=list)
    aenderungen: list[Aenderung] = field(default_factory=list)


def _vorher(art: str, norm: Norm) -> Aenderung:
    return Aenderung(art=art, bezeichnung=norm.bezeichnung, nummer=norm.nummer, titel_vorher=norm.titel,
                     text_vorher=norm.text, gliederung_vorher=norm.gliederung_im_gesetz)


def _art(alt: Norm, neu: Norm) -> str | None:
    """What a lawyer is told about a norm that is still there (None: nothing)."""
    if weggefallen(alt) and weggefallen(neu):
        return None
    if weggefallen(alt):
        return Art.NEU  # back in the law
    if weggefallen(neu):
        return Art.AUFGEHOBEN
    if (alt.titel, alt.text) != (neu.titel, neu.text):
        return Art.GEAENDERT
    return None


def abgleichen(*, alt: Sequence[Norm], neu: Sequence[Norm]) -> Abgleich:
    """Match the law's stored rows (`alt`, in statute order) with the parsed ones (`neu`, unsaved)."""
    stored: dict[str, list[Norm]] = defaultdict(list)
    for norm in alt:
        stored[norm.nummer].append(norm)
    seen: dict[str, int] = defaultdict(int)
    ergebnis = Abgleich()
    for norm in neu:
        index = seen[norm.nummer]
        seen[norm.nummer] += 1
        rows = stored.get(norm.nummer, [])
        if index >= len(rows):
            ergebnis.anlegen.append(norm)
            if not weggefallen(norm):
                ergebnis.aenderungen.append(Aenderung(art=Art.NEU, bezeichnung=norm.bezeichnung,
                                                      nummer=norm.nummer))
            continue
        row = rows[index]
        if any(getattr(row, name) != getattr(norm, name) for name in FELDER):
            ergebnis.aktualisieren.append((row, norm))
        if (art := _art(row, norm)) is not None:
            ergebnis.aenderungen.append(_vorher(art, row))
    for nummer, rows in stored.items():
        for row in rows[seen.get(nummer, 0):]:
            ergebnis.entfernen.append(row)
            if not weggefallen(row):  # already repealed before: nothing new to tell
                ergebnis.aenderungen.append(_vorher(Art.AUFGEHOBEN, row))
    return ergebnis


# --- the report -----------------------------------------------------------------------------


def zahl(value: int) -> str:
    """German thousands separator: 10123 → "10.123"."""
    return f"{value:,}".replace(",", ".")


def aufzaehlung(namen: Sequence[str], *, gezeigt: int = GEZEIGT) -> str:
    """„§ 1, § 4 und 3 weitere“: the first designations, then how many more."""
    if len(namen) <= gezeigt:
        return ", ".join(namen)
    return f"{', '.join(namen[:gezeigt])} und {zahl(len(namen) - gezeigt)} weitere"


@dataclass
class Bericht:
    """What one law's update changed, as the command reports it."""

    abk: str
    titel: str
    normen: int  # norms of the law after the update
    erstmals: bool = False
    stand_vorher: str = ""
    stand_nachher: str = ""
    neu: list[str] = field(default_factory=list)
    geaendert: list[str] = field(default_factory=list)
    aufgehoben: list[str] = field(default_factory=list)

    @classmethod
    def aus(cls, *, abk: str, titel: str, normen: int, erstmals: bool, stand_vorher: str, stand_nachher: str,
            aenderungen: Sequence[Aenderung]) -> Bericht:
        bericht = cls(abk=abk, titel=titel, normen=normen, erstmals=erstmals, stand_vorher=stand_vorher,
                      stand_nachher=stand_nachher)
        if not erstmals:
            for aenderung in aenderungen:
                bericht.liste(aenderung.art).append(aenderung.bezeichnung)
        return bericht

    def liste(self, art: str) -> list[str]:
        return {Art.NEU: self.neu, Art.GEAENDERT: self.geaendert, Art.AUFGEHOBEN: self.aufgehoben}[art]

    @property
    def stand_geaendert(self) -> bool:
        return not self.erstmals and self.stand_vorher != self.stand_nachher

    @property
    def unveraendert(self) -> bool:
        return not (self.erstmals or self.neu or self.geaendert or self.aufgehoben or self.stand_geaendert)

    def zeilen(self) -> list[str]:
        """The report in German: a headline for the law, then what changed, one line each."""
        kopf = f"{self.abk} ({self.titel})"
        if self.erstmals:
            normen = f"{zahl(self.normen)} {'Norm' if self.normen == 1 else 'Normen'}"
            stand = f", Stand: {self.stand_nachher}" if self.stand_nachher else ""
            return [f"{kopf}: neu, {normen}{stand}."]
        if self.unveraendert:
            return [f"{kopf}: unverändert."]
        teile = [f"{len(liste)} {name}" for liste, name in (
            (self.neu, "neu"), (self.geaendert, "geändert"), (self.aufgehoben, "aufgehoben")) if liste]
        zeilen = [f"{kopf}: {', '.join(teile) if teile else 'keine Norm geändert'}."]
        if self.stand_geaendert:
            vorher, nachher = self.stand_vorher or "unbekannt", self.stand_nachher or "unbekannt"
            zeilen.append(f"    Stand: {vorher} → {nachher}")
        for liste, name in ((self.neu, "neu"), (self.geaendert, "geändert"), (self.aufgehoben, "aufgehoben")):
            if liste:
                zeilen.append(f"    {name}: {aufzaehlung(liste)}")
        return zeilen
