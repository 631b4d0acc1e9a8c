"""The letterhead's fields for one Dokument: the Kanzlei (Briefkopf), the Akte and its Beteiligte,
today's date. One set of names for the built-in DOCX template, an admin's own Word template and
the PDF, so whatever an admin writes as `{{ aktenzeichen }}` means the same everywhere."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

from django.utils import timezone

from akten.dokumente.typen import bereinigt
from akten.models import Akte, Beteiligter, Briefkopf, Dokument

_BERLIN = ZoneInfo("Europe/Berlin")
_MONATE = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
           "Oktober", "November", "Dezember")


@dataclass(frozen=True)
class Briefkontext:
    """Multi-line fields (anschrift, kontakt, fusszeile) keep their lines: docxtpl turns "\\n" into a
    line break, the PDF template uses `linebreaksbr`."""

    kanzlei: str
    anschrift: str
    kontakt: str
    fusszeile: str
    ort: str
    datum: str  # "26. November 2026"
    aktenzeichen: str  # ours ("Unser Zeichen")
    rubrum: str  # the Akte's Kurzrubrum
    wegen: str
    mandant: str
    gegner: str
    parteien: str  # "Mandant ./. Gegner", else the Kurzrubrum
    gericht: str
    gericht_aktenzeichen: str
    titel: str
    unterschrift_name: str
    unterschrift: str

    def als_dict(self) -> dict[str, str]:
        return dataclasses.asdict(self)

    def bereinigt(self) -> Briefkontext:
        """Every field without the control characters a DOCX or PDF cannot hold (a title taken
        from an e-mail attachment's name may carry one)."""
        return Briefkontext(**{name: bereinigt(value) for name, value in self.als_dict().items()})


# The placeholders a Word template may use; `inhalt` is the text itself ({{p inhalt }}).
PLATZHALTER: tuple[str, ...] = (*(feld.name for feld in dataclasses.fields(Briefkontext)), "inhalt")


def datum_lang(tag: date) -> str:
    """German long form without a leading zero: "1. März 2026"."""
    return f"{tag.day}. {_MONATE[tag.month - 1]} {tag.year}"


def heute() -> date:
    return timezone.localdate(timezone=_BERLIN)


def briefkontext(dokument: Dokument, briefkopf: Briefkopf, *, tag: date | None = None) -> Briefkontext:
    akte: Akte = dokument.akte
    beteiligte = list(akte.beteiligte.order_by("pk"))
    mandant = _namen(beteiligte, Beteiligter.Rolle.MANDANT)
    gegner = _namen(beteiligte, Beteiligter.Rolle.GEGNER)
    # An Aktenvermerk is written for the file: no court it is addressed to, signed by who wrote it.
    vermerk = dokument.ist_vermerk
    gericht = None if vermerk else next((b for b in beteiligte if b.rolle == Beteiligter.Rolle.GERICHT), None)
    unterzeichner = (dokument.erstellt_von or akte.anwalt) if vermerk else akte.anwalt
    # An upload (the other side's letter, a Bescheid) is not ours: its text version carries our
    # Aktenzeichen for the file, says what it is, and no signature of ours.
    fremd = dokument.hochgeladen
    return Briefkontext(
        kanzlei=briefkopf.kanzlei.strip(),
        anschrift=_zeilen(briefkopf.anschrift),
        kontakt="\n".join(briefkopf.kontaktzeilen()),
        fusszeile=_zeilen(briefkopf.fusszeile),
        ort=briefkopf.ort.strip(),
        datum=datum_lang(tag or heute()),
        aktenzeichen=akte.aktenzeichen,
        rubrum=akte.kurzrubrum,
        wegen=akte.wegen,
        mandant=mandant,
        gegner=gegner,
        parteien=f"{mandant} ./. {gegner}" if mandant and gegner else akte.kurzrubrum,
        gericht=gericht.name if gericht else "",
        gericht_aktenzeichen=gericht.aktenzeichen_extern.strip() if gericht else "",
        titel=f"Textfassung von „{dokument.dateiname or dokument.titel}“" if fremd else dokument.titel,
        unterschrift_name="" if fremd or not unterzeichner else (
            unterzeichner.get_full_name().strip() or unterzeichner.username),
        unterschrift="" if fremd or vermerk else briefkopf.unterschrift.strip(),
    ).bereinigt()


def _namen(beteiligte: list[Beteiligter], rolle: str) -> str:
    """"A", "A und B", "A, B und C" – in the order they were entered (the first named first)."""
    namen = [b.name.strip() for b in beteiligte if b.rolle == rolle and b.name.strip()]
    if len(namen) <= 1:
        return "".join(namen)
    return f"{', '.join(namen[:-1])} und {namen[-1]}"


def _zeilen(text: str) -> str:
    """Lines without surrounding blanks and without empty lines."""
    return "\n".join(zeile.strip() for zeile in text.splitlines() if zeile.strip())
