"""One row of the old software's export, checked and turned into what the services take: German
dates (TT.MM.JJJJ) and amounts (1.234,56), the Rechtsgebiet and the Bundesland as the old program
writes them, the Anwalt by user name, the parties of a cell.

Every problem of a row is collected (not only the first), so one look at the report is enough to
fix a line. What the services check themselves (the Aktenzeichen's form, lengths, the Anwalt's role)
is checked there again; here it is only said earlier and more plainly.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from akten.accounts.users import role_of
from akten.models import Akte, Beteiligter, Bundesland, User
from akten.models.akte import aktenzeichen_validator

# Several Mandanten or Gegner in one cell: separated by „;“ (the cell quoted in a CSV) or a line
# break. Not by „/“ or „,“: „Meyer/Schulz GbR“ and „Müller, Hans“ are one party each.
PARTEI_TRENNER = re.compile(r"\s*[;\n\r]+\s*")
# What the old programs write for a Rechtsgebiet Helena has under another name (keys as _schluessel).
RECHTSGEBIET_AUCH = {
    "arbr": "arbeitsrecht", "arbeitsgericht": "arbeitsrecht",
    "miete": "mietrecht", "mietundwegrecht": "mietrecht", "mietrechtweg": "mietrecht",
    "wegrecht": "mietrecht", "mietundpachtrecht": "mietrecht", "wohnungseigentumsrecht": "mietrecht",
    "wohnraummietrecht": "mietrecht", "gewerbemietrecht": "mietrecht",
    "verkehrsunfall": "verkehrsrecht", "verkehrsunfallrecht": "verkehrsrecht", "verkehrsowi": "verkehrsrecht",
    "verkehrsstrafrecht": "verkehrsrecht", "verkehrsordnungswidrigkeiten": "verkehrsrecht",
    "familie": "familienrecht", "scheidung": "familienrecht", "erbe": "erbrecht", "nachlass": "erbrecht",
    "handelsundgesellschaftsrecht": "gesellschaftsrecht", "handelsrecht": "gesellschaftsrecht",
    "medienrecht": "urheberrecht", "gewerblicherrechtsschutz": "wettbewerbsrecht",
    "sozialversicherungsrecht": "sozialrecht", "insolvenz": "insolvenzrecht", "owi": "strafrecht",
    "ordnungswidrigkeiten": "strafrecht", "kaufvertrag": "kaufrecht", "vertrag": "vertragsrecht",
}
BUNDESLAND_AUCH = {"nrw": "NW", "bawue": "BW", "badenwurttemberg": "BW", "rlp": "RP", "mvp": "MV",
                   "schleswigholst": "SH", "thuringen": "TH"}
_UMLAUTE = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
DATUM = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?:[ ,T]+\d{1,2}:\d{2}(?::\d{2})?)?$")
ISO_DATUM = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
BETRAG_DEUTSCH = re.compile(r"^-?\d{1,3}(?:\.\d{3})*(?:,\d+)?$|^-?\d+(?:,\d+)?$")
BETRAG_PUNKT = re.compile(r"^-?\d+\.\d{1,2}$")  # 1234.56, as some exports write it
HOECHSTBETRAG = Decimal("999999999999.99")  # Akte.gegenstandswert: 14 digits, 2 after the point
# Legal forms that make a party a company (its letters then say „der … GmbH“).
RECHTSFORM = re.compile(r"\b(?:GmbH|gGmbH|mbH|AG|KG|KGaA|OHG|GbR|UG|SE|e\.\s?V\.|eG|e\.\s?K\.|PartG(?:mbB)?|"
                        r"Ltd\.?|Inc\.?|LLC|S\.A\.|B\.V\.|Stiftung|Verein)(?=\W|$)")


@dataclass
class Partei:
    rolle: str
    name: str
    anrede: str = ""


@dataclass
class Zeile:
    """A row that may go in: the Akte's Stammdaten for akte_anlegen, its parties, its old date."""

    nummer: int
    aktenzeichen: str
    stammdaten: dict[str, Any]
    parteien: list[Partei]
    angelegt: date | None = None
    hinweise: list[str] = field(default_factory=list)


class ZeileFehlerhaft(Exception):
    """The row cannot go in; `meldungen` says why, in German, each a sentence."""

    def __init__(self, meldungen: list[str]) -> None:
        super().__init__(" ".join(meldungen))
        self.meldungen = meldungen


def zelltext(wert: Any) -> str:
    """A cell as text: an Excel number 123.0 is „123“, a list (a column twice) its cells joined."""
    if wert is None:
        return ""
    if isinstance(wert, list):
        return "\n".join(t for t in (zelltext(w) for w in wert) if t)
    if isinstance(wert, float) and wert.is_integer():
        wert = int(wert)
    return unicodedata.normalize("NFC", str(wert)).replace("\u00a0", " ").strip()


def _schluessel(text: str) -> str:
    text = text.casefold().translate(_UMLAUTE)
    return re.sub(r"[^0-9a-z]", "", unicodedata.normalize("NFKD", text))


RECHTSGEBIETE = {**{_schluessel(str(label)): wert for wert, label in Akte.Rechtsgebiet.choices},
                 **{wert: wert for wert in Akte.Rechtsgebiet.values}, **RECHTSGEBIET_AUCH}
BUNDESLAENDER = {**{_schluessel(str(label)): wert for wert, label in Bundesland.choices},
                 **{wert.casefold(): wert for wert in Bundesland.values}, **BUNDESLAND_AUCH}


def datum(wert: Any) -> date | None:
    """TT.MM.JJJJ (also TT.MM.JJ, with a time after it, or JJJJ-MM-TT); an XLSX date as it is.
    ValueError with the German sentence for anything else, 31.02. included."""
    if isinstance(wert, datetime):
        return wert.date()
    if isinstance(wert, date):
        return wert
    text = zelltext(wert)
    if not text:
        return None
    if treffer := DATUM.match(text):
        tag, monat, jahr = (int(teil) for teil in treffer.groups())
        if len(treffer.group(3)) == 2:  # 26 → 2026, 98 → 1998
            jahr += 2000 if jahr <= timezone.localdate().year % 100 else 1900
    elif treffer := ISO_DATUM.match(text):
        jahr, monat, tag = (int(teil) for teil in treffer.groups())
    else:
        raise ValueError(f"„{text}“ ist kein Datum (erwartet TT.MM.JJJJ, z. B. 31.01.2026).")
    try:
        return date(jahr, monat, tag)
    except ValueError:
        raise ValueError(f"„{text}“ ist kein gültiges Datum.") from None


def betrag(wert: Any) -> Decimal | None:
    """1.234,56 / 1234,56 / 1.234 / 1234.56 / an XLSX number, „€“ and „EUR“ allowed; ValueError else."""
    if isinstance(wert, bool):
        raise ValueError(f"„{wert}“ ist kein Betrag.")
    if isinstance(wert, int | float | Decimal):
        zahl = Decimal(str(wert))
    else:
        text = zelltext(wert)
        roh = re.sub(r"\s|€|EUR|Euro", "", text, flags=re.IGNORECASE)
        if not roh:
            return None
        if BETRAG_DEUTSCH.match(roh):
            zahl = Decimal(roh.replace(".", "").replace(",", "."))
        elif BETRAG_PUNKT.match(roh):
            zahl = Decimal(roh)
        else:
            raise ValueError(f"„{text}“ ist kein Betrag (erwartet z. B. 1.234,56).")
    try:
        zahl = zahl.quantize(Decimal("0.01"))
    except InvalidOperation:
        raise ValueError(f"„{wert}“ ist kein Betrag.") from None
    if zahl < 0:
        raise ValueError(f"Der Gegenstandswert „{zelltext(wert)}“ ist negativ.")
    if zahl > HOECHSTBETRAG:
        raise ValueError(f"Der Gegenstandswert „{zelltext(wert)}“ ist zu groß.")
    return zahl


def rechtsgebiet(wert: Any) -> tuple[str, str]:
    """(stored value, the old text if Helena has no such Rechtsgebiet — it becomes a Schlagwort)."""
    text = zelltext(wert)
    if not text:
        return Akte.Rechtsgebiet.SONSTIGES, ""
    kandidaten = [text, re.split(r"[(,:]| - ", text)[0], text.split()[0]]
    for kandidat in kandidaten:
        gefunden = RECHTSGEBIETE.get(_schluessel(kandidat))
        if gefunden:
            return gefunden, ""
    return Akte.Rechtsgebiet.SONSTIGES, text[:50]


def bundesland(wert: Any) -> str:
    """The ISO code from a name („Nordrhein-Westfalen“), a code („NW“, „DE-NW“) or „NRW“;
    empty: the Kanzlei's own (KANZLEI_BUNDESLAND)."""
    text = zelltext(wert)
    if not text:
        return settings.KANZLEI_BUNDESLAND
    schluessel = _schluessel(re.sub(r"^DE-", "", text, flags=re.IGNORECASE))
    gefunden = BUNDESLAENDER.get(schluessel) or BUNDESLAENDER.get(schluessel.replace("freistaat", ""))
    if not gefunden:
        raise ValueError(f"„{text}“ ist kein Bundesland (erwartet der Name wie „Nordrhein-Westfalen“ oder "
                         "das Kürzel wie „NW“).")
    return gefunden


def parteien(wert: Any, rolle: str) -> list[Partei]:
    """The parties of one cell, each with Anrede „Firma“ if its name carries a legal form."""
    namen = [n.strip(" ,") for n in PARTEI_TRENNER.split(zelltext(wert))]
    return [Partei(rolle=rolle, name=n, anrede=Beteiligter.Anrede.FIRMA if RECHTSFORM.search(n) else "")
            for n in dict.fromkeys(n for n in namen if n)]


def kurzrubrum(mandanten: list[Partei], gegner: list[Partei]) -> str:
    """„Mandant ./. Gegner“ as Kanzleien write it, „u. a.“ for more than one."""
    def seite(liste: list[Partei]) -> str:
        return liste[0].name + (" u. a." if len(liste) > 1 else "")

    rubrum = seite(mandanten) + (" ./. " + seite(gegner) if gegner else "")
    return rubrum if len(rubrum) <= 200 else rubrum[:199] + "…"


def pruefe_zeile(nummer: int, werte: dict[str, Any], *, anwalt_von: Callable[[str], User | None],
                 ueberzaehlig: int = 0) -> Zeile:
    """The row as the services take it, or ZeileFehlerhaft with every problem it has."""
    fehler: list[str] = []
    hinweise: list[str] = []
    if ueberzaehlig:
        fehler.append("Die Zeile hat mehr Felder als die Kopfzeile – steht ein Trennzeichen ohne "
                      "Anführungszeichen in einem Feld?")
    aktenzeichen = zelltext(werte.get("aktenzeichen"))
    fehler += _aktenzeichen_fehler(werte.get("aktenzeichen"))
    mandanten = parteien(werte.get("mandant"), Beteiligter.Rolle.MANDANT)
    gegner = parteien(werte.get("gegner"), Beteiligter.Rolle.GEGNER)
    for partei in (*mandanten, *gegner):
        if len(partei.name) > 200:
            fehler.append(f"Der Name „{partei.name[:40]}…“ ist länger als 200 Zeichen.")
    rubrum = zelltext(werte.get("kurzrubrum"))
    if not rubrum and mandanten:
        rubrum = kurzrubrum(mandanten, gegner)
    elif not rubrum:
        fehler.append("Kurzrubrum und Mandant fehlen; eines von beiden braucht die Akte.")
    elif len(rubrum) > 200:
        fehler.append("Das Kurzrubrum ist länger als 200 Zeichen.")
    gebiet, altes_gebiet = rechtsgebiet(werte.get("rechtsgebiet"))
    if altes_gebiet:
        hinweise.append(f"Rechtsgebiet „{altes_gebiet}“ gibt es in Helena nicht: „Sonstiges“ mit dem "
                        f"Schlagwort „{altes_gebiet}“.")
    stammdaten: dict[str, Any] = {"aktenzeichen": aktenzeichen, "kurzrubrum": rubrum, "rechtsgebiet": gebiet,
                                  "tags": [altes_gebiet] if altes_gebiet else []}
    angelegt = None
    for spalte, lesen in (("gegenstandswert", betrag), ("bundesland", bundesland), ("angelegt", datum),
                          ("beendet", datum)):
        try:
            stammdaten[spalte] = lesen(werte.get(spalte))
        except ValueError as exc:
            fehler.append(str(exc))
    angelegt = stammdaten.pop("angelegt", None)
    if angelegt and angelegt > timezone.localdate():
        fehler.append(f"Das Anlagedatum {angelegt:%d.%m.%Y} liegt in der Zukunft.")
    stammdaten["auftragsdatum"] = angelegt  # the old programs know no day of the mandate of its own
    fehler += _beendet(stammdaten, angelegt)
    try:
        stammdaten["anwalt"] = _anwalt(zelltext(werte.get("anwalt")), anwalt_von)
    except ValueError as exc:
        fehler.append(str(exc))
    if fehler:
        raise ZeileFehlerhaft(fehler)
    return Zeile(nummer=nummer, aktenzeichen=aktenzeichen, stammdaten=stammdaten,
                 parteien=[*mandanten, *gegner], angelegt=angelegt, hinweise=hinweise)


def _beendet(stammdaten: dict[str, Any], angelegt: date | None) -> list[str]:
    """The column „Beendet“: an Akte closed in the old program — § 50 BRAO counts from that day, not the
    import's; so it comes in closed, with that day as „Mandat beendet am“."""
    beendet = stammdaten.pop("beendet", None)
    if not beendet:
        return []
    stammdaten.update(status=Akte.Status.GESCHLOSSEN, mandat_beendet_am=beendet)
    if beendet > timezone.localdate():
        return [f"Das Ende des Mandats {beendet:%d.%m.%Y} liegt in der Zukunft."]
    if angelegt and beendet < angelegt:
        return [f"Das Ende des Mandats {beendet:%d.%m.%Y} liegt vor der Anlage der Akte."]
    return []


def _aktenzeichen_fehler(wert: Any) -> list[str]:
    text = zelltext(wert)
    if isinstance(wert, date):
        return ["Das Aktenzeichen ist in Excel als Datum gespeichert; formatiere die Spalte als Text."]
    if not text:
        return ["Das Aktenzeichen fehlt."]
    try:
        aktenzeichen_validator(text)
    except ValidationError as exc:
        regel = " ".join(exc.messages).removeprefix("Aktenzeichen: ").rstrip(".")
        return [f"„{text}“ ist kein gültiges Aktenzeichen ({regel})."]
    return []


def _anwalt(name: str, anwalt_von: Callable[[str], User | None]) -> User | None:
    if not name:
        return None
    person = anwalt_von(name)
    if person is None:
        raise ValueError(f"Einen Benutzer „{name}“ gibt es nicht (in der Spalte Anwalt steht der "
                         "Benutzername in Helena).")
    if not person.is_active:
        raise ValueError(f"„{name}“ ist nicht mehr aktiv.")
    if role_of(person) not in {"ANWALT", "ADMIN"}:
        raise ValueError(f"„{name}“ ist keine Anwältin und kein Anwalt; verantwortlich für eine Akte kann "
                         "nur eine Anwältin oder ein Anwalt sein.")
    return person
