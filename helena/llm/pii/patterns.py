"""What the pseudonymisation looks for (helena/llm/pii/redactor.py): the placeholder kinds, the detectors
for values no Akte names (e-mail, phone, IBAN, court file numbers, street addresses, dates of birth),
and the name rules (titles, legal forms, surnames that are also common words, spelling variants);
and the plain data an Akte gives the redactor (Party, AkteFacts)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

KINDS = ("MANDANT", "GEGNER", "PERSON", "NACHNAME", "ADRESSE", "AZ", "EMAIL", "TELEFON", "IBAN",
         "GEBURTSDATUM")

PLACEHOLDER_HINT = (
    "Datenschutz: Namen, Anschriften, Aktenzeichen, E-Mail-Adressen, Telefonnummern, IBANs und "
    "Geburtsdaten sind durch Platzhalter in eckigen Klammern ersetzt, z. B. [MANDANT_1], [GEGNER_1], "
    "[PERSON_1] (weitere Beteiligte), [MANDANT_1_NACHNAME] (nur der Nachname), [ADRESSE_1], [AZ_1]. "
    "Verwende diese Platzhalter unverändert und vollständig (mit Klammern) in Antworten und "
    "Werkzeugaufrufen; sie werden vor der Anzeige durch die echten Angaben ersetzt. Frage nicht nach "
    "den echten Werten."
)

# Words before a name that make a common-word surname a name ("Herr Richter", not "der Richter").
NAME_CONTEXT = (
    r"Herrn?|Frau|Fr\.|Hr\.|Dr\.|Prof\.|RAin|RA|Rechtsanwalt|Rechtsanwältin|Rechtsanwalts|Notar|Notarin|"
    r"Zeugen?|Zeugin|Kläger|Klägerin|Klägers|Beklagter?|Beklagten|Mandant|Mandantin|Mandanten|Gegner|"
    r"Gegnerin|Geschäftsführer|Geschäftsführerin|Familie|Eheleute|Sachverständige[nr]?|Fa\.|Firma"
)
# Surnames that are ordinary German words: matched only after NAME_CONTEXT or as part of the full name.
_COMMON_WORDS = """
    Alt Adler Arm August Bach Bär Bauer Baum Berg Bischof Blume Bote Brand Braun Burg Busch
    Ehrlich Eisen Engel Ernst Falk Feld Fink Fischer Frank Frei Freund Fröhlich Fuchs Gärtner Glaser
    Gold Graf Groß Gross Gut Hahn Hammer Hase Hirsch Holz Horn Jäger Jung Kaiser Kalt Kaufmann Keller
    Klein Klug Knecht Koch König Kraft Kurz Lang Lange Licht Löwe Mai Mann Maurer Meister
    Metzger Mond Nagel Neu Ochs Pabst Recht Reich Richter Ritter Rose Roth Sauer Schmied Schneider
    Schreiber Schuster Schwarz Sommer Sonne Specht Stahl Stark Stein Stern Still Storch Strauß Süß
    Vogel Wahl Wald Warm Weber Weise Weiß Weiss Wild Will Winter Wirt Wolf Zimmermann
"""
COMMON_WORD_SURNAMES = frozenset(_COMMON_WORDS.split())
TITLES = re.compile(
    r"^(?:(?:Herrn?|Frau|Rechtsanwalt|Rechtsanwältin|RAin|RA|Notar|Notarin|Dr\.(?:\s?(?:med|jur|rer\.\s?nat|"
    r"phil|h\.\s?c)\.)?|Prof\.|Dipl\.-\w+\.?|Mag\.)\s+)+"
)
LEGAL_FORM = re.compile(
    r"(?:[\s,]+(?:GmbH\s*&\s*Co\.\s*KG|gGmbH|GmbH|AG|KGaA|KG|OHG|oHG|GbR|UG(?:\s*\(haftungsbeschränkt\))?|"
    r"e\.\s?V\.|eG|SE|PartG\s*mbB|PartG|mbB|Ltd\.?|Inc\.?|mbH|Aktiengesellschaft)"
    r"|[\s-]+Versicherungs-?(?:AG|Aktiengesellschaft|gesellschaft))+\s*$"
)
ORGANISATION_WORDS = re.compile(
    r"\b(?:GmbH|AG|KG|OHG|GbR|UG|e\.\s?V\.|eG|SE|PartG|mbB|Versicherung\w*|Kanzlei|Rechtsanwälte|"
    r"Büro|\w*büro|Bank|Sparkasse|Verein|Stiftung|Gericht|Amt|Stadt|Gemeinde|Verwaltung|Hausverwaltung|"
    r"Jobcenter|Agentur|Genossenschaft|Holding|Gruppe|Group)\b"
)
PARTICLES = {"von", "van", "de", "der", "den", "zu", "vom", "zum", "ten", "ter", "da", "di", "del"}
GESCHAEFTSFUEHRER = re.compile(
    r"(?:Geschäftsführer(?:in)?|Inhaber(?:in)?|Vorstand|Vorsitzende[rn]?)\s+"
    r"(?:(?:Herrn?|Frau|Dr\.|Prof\.)\s+)*([A-ZÄÖÜ][\w\-]+(?:\s+(?:von\s+|van\s+)?[A-ZÄÖÜ][\w\-]+)+)"
)

# --- regex detectors -----------------------------------------------------------------------------

EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
IBAN_RE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
PHONE_RE = re.compile(
    r"(?<![\w+/])(?:(?:\+\s?49|0049)[\s\-/]?(?:\(0\)\s?)?\d{2,5}|\(0\d{2,5}\)|0\d{2,5})"
    r"(?:[\s\-/]?\d{2,}){1,3}(?![\w/])"
)
COURT_AZ_RE = re.compile(
    r"(?<![\w/])(?:\d{1,3}\s?[A-Z][A-Za-z]{0,3}|[IVX]{1,5}(?:\s?[A-Z][A-Za-z]{0,3})?)\s?\d{1,6}/\d{2}(?:\d{2})?"
    r"(?![\w/])"
)
MONTHS = "Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"
# A date of birth, after what announces one ("geb. 12.03.1980", "geboren am 3. Mai 1975", "* 1980-03-12");
# other dates (Fristen, Termine) stay, the model needs them.
BIRTH_RE = re.compile(
    r"(?:(?<!\w)geb\.|(?<!\w)geboren(?:\s+am)?|(?<!\w)Geburtsdatum:?|(?<!\w)Geb\.-Datum:?|(?<![\w*])\*)\s*"
    r"(?P<v>\d{1,2}\.\s?(?:\d{1,2}\.\s?|(?:" + MONTHS + r")\s+)\d{2,4}|\d{4}-\d{2}-\d{2})(?!\d)",
    re.IGNORECASE,
)
INTERNAL_AZ_RE = re.compile(r"(?<![\w/.,])\d{1,5}/\d{2}(?:\d{2})?(?![\w/])")
STREET_WORD = (
    r"(?:[A-ZÄÖÜ][a-zäöüß-]*(?:straße|strasse|str\.|weg|allee|platz|gasse|damm|ring|ufer|chaussee|steig|"
    r"pfad|markt|graben)|Straße|Strasse|Str\.|Weg|Allee|Platz|Gasse|Damm|Ring|Ufer|Chaussee|Markt|Graben)"
)
STREET_RE = re.compile(
    r"(?<![\w-])(?:[A-ZÄÖÜ][a-zäöüß]+er\s)?" + STREET_WORD
    + r"\s\d{1,4}(?:\s?[a-zA-Z](?![\w.]))?(?:\s?[-–/]\s?\d{1,4}[a-zA-Z]?)?(?![\d/])"
    # "…, 51147 Köln" right after a street: the PLZ line is part of the address (own placeholder).
    + r"(?:(?:,\s*|\s+)(?P<plz>\d{5}\s[A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]+)*))?"
)
# In raw JSON text a value may follow an escaped newline ("…7\\n51147 Köln").
LEFT = r"(?:(?<=\\n)|(?<!\w))"
PLACEHOLDER_RE = re.compile(r"\[([A-Za-z]+(?:_[A-Za-z0-9]+)+)\]")
PARTIAL_RE = re.compile(r"\[[A-Za-z0-9_]*\Z")
PARTIAL_MAX = 40


def clean(value: str) -> str:
    return " ".join(value.split())


def phone_digits(value: str) -> str:
    digits = re.sub(r"\D", "", value)
    if value.strip().startswith("+49"):
        digits = "0" + digits[2:]
    elif digits.startswith("0049"):
        digits = "0" + digits[4:]
    return digits


def spellings(value: str) -> list[str]:
    """Spelling variants a text may use for the same name: ASCII umlauts and capitals."""
    ascii_form = (value.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("Ä", "Ae")
                  .replace("Ö", "Oe").replace("Ü", "Ue").replace("ß", "ss"))
    variants = [value, ascii_form, value.upper(), ascii_form.upper()]
    return list(dict.fromkeys(v for v in variants if v))


def literal(value: str) -> str:
    """A regex for a literal value that tolerates any whitespace between its words."""
    return r"\s+".join(re.escape(part) for part in value.split())


PUBLIC_ROLES = frozenset({"gericht", "behoerde"})  # Beteiligter.Rolle values whose names stay


def mentions(text: str, name: str) -> bool:
    """Whether a text names this person or organisation (full name, or a distinctive surname), in
    any spelling the redactor would catch; a cheap substring test first, a word-bounded one after."""
    core, surname = split_name(name)
    folded = text.casefold()
    candidates = [core] + ([surname] if surname and surname not in COMMON_WORD_SURNAMES else [])
    for candidate in candidates:
        if not candidate or len(candidate) < 4:
            continue
        for variant in spellings(candidate):
            needle = variant.casefold()
            if needle in folded and re.search(r"(?<!\w)" + literal(needle) + r"(?!\w)", folded):
                return True
    return False


def split_name(name: str) -> tuple[str, str | None]:
    """(core name without titles or legal form, surname of a natural person or None)."""
    name = clean(name)
    core = TITLES.sub("", name).strip()
    organisation = bool(ORGANISATION_WORDS.search(core)) or bool(LEGAL_FORM.search(core))
    stripped = LEGAL_FORM.sub("", core).strip()
    if len(stripped) >= 3:
        core = stripped
    if organisation or len(core) < 3:
        return (core if len(core) >= 3 else "", None)
    tokens = core.split()
    if len(tokens) < 2:
        return core, None
    start = len(tokens) - 1
    while start > 1 and tokens[start - 1].lower() in PARTICLES:
        start -= 1
    surname = " ".join(tokens[start:])
    letters = sum(ch.isalpha() for ch in surname)
    if letters < 3 or surname == core:
        return core, None
    return core, surname


def plausible(kind: str, value: str) -> bool:
    if kind == "TELEFON":
        return 7 <= len(phone_digits(value)) <= 15
    if kind == "IBAN":
        compact = value.replace(" ", "")
        if not (15 <= len(compact) <= 34) or not compact[2:4].isdigit():
            return False
        return len(compact) == 22 if compact.startswith("DE") else any(c.isdigit() for c in compact[4:])
    return True


def normalise_text(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@dataclass(frozen=True)
class Party:
    """One Beteiligter as the redactor needs it (plain data: this module knows no ORM)."""

    name: str
    rolle: str  # akten.models.Beteiligter.Rolle value
    anschrift: str = ""
    telefon: str = ""
    email: str = ""
    aktenzeichen_extern: str = ""
    notiz: str = ""


@dataclass(frozen=True)
class AkteFacts:
    """What identifies an Akte's people: its parties, its Aktenzeichen and Kurzrubrum."""

    key: Any  # the Akte's id
    aktenzeichen: str = ""
    kurzrubrum: str = ""
    parties: tuple[Party, ...] = ()
