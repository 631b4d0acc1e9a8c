"""The letterhead's fields for one Dokument: the Kanzlei (Briefkopf), the Akte and its Beteiligte,
today's date. One set of names for the built-in DOCX template, an admin's own Word template and
the PDF, so whatever an admin writes as `{{ aktenzeichen }}` means the same everywhere.

The frame is the whole letter around the text: letterhead, the addressee (the Beteiligte of the
role the Dokument is addressed to, `Dokument.empfaenger`: the Mandant for a Mandatsbestätigung, the
court for a Schriftsatz, nobody for an Aktenvermerk), place and date, our Zeichen, the signature.
A text (and a Muster) therefore starts with the salutation or the Antrag and ends with the
greeting; it never repeats these parts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

from django.utils import timezone

from akten.dokumente.anrede import formen
from akten.dokumente.typen import bereinigt
from akten.fristen.typen import MONATE
from akten.models import Akte, Beteiligter, Briefkopf, Dokument, User
from akten.models.dokument import NIEMAND

_BERLIN = ZoneInfo("Europe/Berlin")


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
    empfaenger: str  # the address field: „Herrn Thomas Müller\nEichenweg 7\n51147 Köln“; empty: none
    gericht: str  # the court, when the Dokument is addressed to it (an admin's template may print it)
    gericht_aktenzeichen: str
    ihr_zeichen: str  # the Zeichen of an addressee that is no court (a Versicherung's Schadennummer …)
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
    return f"{tag.day}. {MONATE[tag.month - 1]} {tag.year}"


def heute() -> date:
    return timezone.localdate(timezone=_BERLIN)


def briefkontext(dokument: Dokument, briefkopf: Briefkopf, *, tag: date | None = None) -> Briefkontext:
    akte: Akte = dokument.akte
    beteiligte = list(akte.beteiligte.order_by("pk"))
    mandant = _namen(beteiligte, Beteiligter.Rolle.MANDANT)
    gegner = _namen(beteiligte, Beteiligter.Rolle.GEGNER)
    an = empfaenger(dokument, beteiligte)
    gericht = next((b for b in an if b.rolle == Beteiligter.Rolle.GERICHT), None)
    # An Aktenvermerk is written for the file: signed by who wrote it, without a Berufsbezeichnung.
    vermerk = dokument.ist_vermerk
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
        empfaenger=anschriftfeld(an),
        gericht=gericht.name if gericht else "",
        gericht_aktenzeichen=gericht.aktenzeichen_extern.strip() if gericht else "",
        ihr_zeichen=", ".join(dict.fromkeys(zeichen for b in an if b.rolle != Beteiligter.Rolle.GERICHT
                                            and (zeichen := b.aktenzeichen_extern.strip()))),
        titel=f"Textfassung von „{dokument.dateiname or dokument.titel}“" if fremd else dokument.titel,
        unterschrift_name="" if fremd or not unterzeichner else (
            unterzeichner.get_full_name().strip() or unterzeichner.username),
        unterschrift="" if fremd or vermerk else _berufsbezeichnung(unterzeichner, briefkopf),
    ).bereinigt()


def _berufsbezeichnung(unterzeichner: User | None, briefkopf: Briefkopf) -> str:
    """The signer's own („Rechtsanwalt“, „Rechtsanwältin, Fachanwältin für Arbeitsrecht“), else the
    line the Kanzlei set for everyone in the Briefkopf."""
    eigene = unterzeichner.berufsbezeichnung.strip() if unterzeichner else ""
    return eigene or briefkopf.unterschrift.strip()


def empfaenger(dokument: Dokument, beteiligte: list[Beteiligter]) -> list[Beteiligter]:
    """The Beteiligte the Dokument is addressed to, in the order entered. Not stated: the court (what
    a Schriftsatz needs); an Aktenvermerk and an upload (a letter to us, not from us) nobody."""
    rolle = dokument.empfaenger
    if rolle == NIEMAND or (not rolle and (dokument.ist_vermerk or dokument.hochgeladen)):
        return []
    rolle = rolle or Beteiligter.Rolle.GERICHT
    return [b for b in beteiligte if b.rolle == rolle]


def anschriftfeld(an: list[Beteiligter]) -> str:
    """Each addressee as the address line names them („Herrn Thomas Müller“, „Frau …“, a firm or a
    court by its name), then the address; persons sharing one address (two Mandanten, a couple)
    stand above it together."""
    bloecke: list[tuple[list[str], str]] = []
    for b in an:
        name = (formen(b) or {}).get("EMPFAENGER") or " ".join(b.name.split())
        anschrift = _zeilen(b.anschrift)
        if bloecke and bloecke[-1][1] == anschrift:
            bloecke[-1][0].append(name)
        else:
            bloecke.append(([name], anschrift))
    return "\n\n".join("\n".join(filter(None, [*namen, anschrift])) for namen, anschrift in bloecke)


def _namen(beteiligte: list[Beteiligter], rolle: str) -> str:
    """"A", "A und B", "A, B und C" – in the order they were entered (the first named first)."""
    namen = [b.name.strip() for b in beteiligte if b.rolle == rolle and b.name.strip()]
    if len(namen) <= 1:
        return "".join(namen)
    return f"{', '.join(namen[:-1])} und {namen[-1]}"


def _zeilen(text: str) -> str:
    """Lines without surrounding blanks and without empty lines."""
    return "\n".join(zeile.strip() for zeile in text.splitlines() if zeile.strip())
