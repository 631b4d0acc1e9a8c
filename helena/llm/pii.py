"""Pseudonymisation for cloud calls: names, addresses, file numbers and contact data leave the firm
only as placeholders ([MANDANT_1], [ADRESSE_2], [AZ_1] …), and come back as the real values.

Known values come from the Akte (Beteiligte with their addresses, phone numbers, e-mails and
external file numbers, the Aktenzeichen, the Kurzrubrum); regex detectors catch what the Akte does
not know (e-mails, phone numbers, IBANs, file numbers, street addresses). One Redactor per run: the
same value always gets the same placeholder, so the model can reason about "[MANDANT_1]" across
turns and tool results, and `restore` maps its answer back.

Surnames of people get their own placeholder ([MANDANT_1_NACHNAME]) so "Herr Müller" survives the
round trip as "Herr Müller", not "Herr Thomas Müller". Surnames that are also common words
(Richter, Sommer, Bauer …) are replaced only after a title ("Herr Richter"), never in "der Richter".
"""

from __future__ import annotations

import asyncio
import bisect
import copy
import json
import re
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from helena.llm.base import ChatModel, Chunk, ToolCall
from helena.llm.wrapper import WrapperModel

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
_MONTHS = "Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"
# A date of birth, after what announces one ("geb. 12.03.1980", "geboren am 3. Mai 1975", "* 1980-03-12");
# other dates (Fristen, Termine) stay, the model needs them.
BIRTH_RE = re.compile(
    r"(?:(?<!\w)geb\.|(?<!\w)geboren(?:\s+am)?|(?<!\w)Geburtsdatum:?|(?<!\w)Geb\.-Datum:?|(?<![\w*])\*)\s*"
    r"(?P<v>\d{1,2}\.\s?(?:\d{1,2}\.\s?|(?:" + _MONTHS + r")\s+)\d{2,4}|\d{4}-\d{2}-\d{2})(?!\d)",
    re.IGNORECASE,
)
INTERNAL_AZ_RE = re.compile(r"(?<![\w/.,])\d{1,5}/\d{2}(?:\d{2})?(?![\w/])")
_STREET_WORD = (
    r"(?:[A-ZÄÖÜ][a-zäöüß-]*(?:straße|strasse|str\.|weg|allee|platz|gasse|damm|ring|ufer|chaussee|steig|"
    r"pfad|markt|graben)|Straße|Strasse|Str\.|Weg|Allee|Platz|Gasse|Damm|Ring|Ufer|Chaussee|Markt|Graben)"
)
STREET_RE = re.compile(
    r"(?<![\w-])(?:[A-ZÄÖÜ][a-zäöüß]+er\s)?" + _STREET_WORD
    + r"\s\d{1,4}(?:\s?[a-zA-Z](?![\w.]))?(?:\s?[-–/]\s?\d{1,4}[a-zA-Z]?)?(?![\d/])"
    # "…, 51147 Köln" right after a street: the PLZ line is part of the address (own placeholder).
    + r"(?:(?:,\s*|\s+)(?P<plz>\d{5}\s[A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]+)*))?"
)
# In raw JSON text a value may follow an escaped newline ("…7\\n51147 Köln").
_LEFT = r"(?:(?<=\\n)|(?<!\w))"
_PLACEHOLDER_RE = re.compile(r"\[([A-Za-z]+(?:_[A-Za-z0-9]+)+)\]")
_PARTIAL_RE = re.compile(r"\[[A-Za-z0-9_]*\Z")
_PARTIAL_MAX = 40


def _clean(value: str) -> str:
    return " ".join(value.split())


def _digits(value: str) -> str:
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


def _literal(value: str) -> str:
    """A regex for a literal value that tolerates any whitespace between its words."""
    return r"\s+".join(re.escape(part) for part in value.split())


PUBLIC_ROLES = frozenset({"gericht", "behoerde"})  # Beteiligter.Rolle values whose names stay


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


@dataclass
class _Known:
    pattern: re.Pattern[str]
    kind: str  # placeholder kind, with the _NACHNAME suffix where it applies
    value: str
    key: tuple[str, str]


@dataclass
class _Span:
    start: int
    end: int
    priority: int
    kind: str
    value: str
    key: tuple[str, str]


class Redactor:
    """Replaces personal data with stable placeholders and restores them; one instance per run."""

    def __init__(self) -> None:
        self._known: list[_Known] = []
        self._placeholders: dict[tuple[str, str], str] = {}  # (kind, normalised value) -> placeholder
        self._values: dict[str, str] = {}  # placeholder -> original value
        self._counters: dict[str, int] = {}
        self._patterned: set[tuple[str, str]] = set()  # keys that have a pattern in _known
        self._akten: set[Any] = set()  # AkteFacts.key of every Akte learned

    # --- building --------------------------------------------------------------------------

    @classmethod
    def for_akte(cls, akte: AkteFacts | None, *, extra_names: Iterable[str] = ()) -> Redactor:
        """A Redactor that knows one Akte's people, addresses and file numbers (and extra names)."""
        redactor = cls()
        if akte is not None:
            redactor.add_akte(akte)
        redactor.add_names(extra_names)
        return redactor

    def add_names(self, names: Iterable[str]) -> None:
        """People known only by name (e.g. the firm's own staff)."""
        self._add_people([(name, "PERSON") for name in names if name and name.strip()])

    def add_akte(self, akte: AkteFacts) -> None:
        """Learn an Akte's people, addresses and file numbers; an Akte already learned is skipped.

        Courts and authorities are public, so their names and addresses stay; their file numbers
        are replaced. A run learns every Akte it touches, so a value gets the same placeholder in
        every message, whichever Akte it came from.
        """
        if akte.key in self._akten:
            return
        self._akten.add(akte.key)
        order = {"mandant": 0, "gegner": 1}
        parties = sorted(akte.parties, key=lambda p: order.get(p.rolle, 2))
        people: list[tuple[str, str]] = []  # (name, kind)
        for party in parties:
            if party.rolle not in PUBLIC_ROLES:
                kind = {"mandant": "MANDANT", "gegner": "GEGNER"}.get(party.rolle, "PERSON")
                people.append((party.name, kind))
                for line in party.anschrift.splitlines():
                    people += [(m.group(1), "PERSON") for m in GESCHAEFTSFUEHRER.finditer(line)]
        self._add_people(people)
        for party in parties:
            if party.rolle not in PUBLIC_ROLES:
                self._add_address(party.anschrift)
                if party.telefon.strip():
                    self.add_value(party.telefon, kind="TELEFON")
                if party.email.strip():
                    self.add_value(party.email, kind="EMAIL")
                for match in IBAN_RE.finditer(party.notiz):
                    self.add_value(match.group(0), kind="IBAN")
            if party.aktenzeichen_extern.strip():
                self.add_value(party.aktenzeichen_extern, kind="AZ")
        if akte.aktenzeichen:
            self.add_value(akte.aktenzeichen, kind="AZ")
        self._add_kurzrubrum(akte.kurzrubrum or "")

    @property
    def akten(self) -> frozenset[Any]:
        """Keys of the Akten learned so far."""
        return frozenset(self._akten)

    def _placeholder(self, kind: str, value: str, key: tuple[str, str]) -> str:
        existing = self._placeholders.get(key)
        if existing:
            return existing
        if kind.endswith("_NACHNAME"):
            base = self._placeholders[(kind.removesuffix("_NACHNAME"), key[1])]
            placeholder = base[:-1] + "_NACHNAME]"
        else:
            self._counters[kind] = self._counters.get(kind, 0) + 1
            placeholder = f"[{kind}_{self._counters[kind]}]"
        self._placeholders[key] = placeholder
        self._values.setdefault(placeholder, value)
        return placeholder

    @staticmethod
    def _key(kind: str, value: str) -> tuple[str, str]:
        base = kind.removesuffix("_NACHNAME")
        if base == "TELEFON":
            return (kind, _digits(value))
        if base == "IBAN":
            return (kind, re.sub(r"\s", "", value).upper())
        if base in ("EMAIL", "AZ"):
            return (kind, _clean(value).casefold())
        return (kind, _clean(value))

    def add_value(self, value: str, *, kind: str) -> str:
        """Register a literal value (any kind); returns its placeholder."""
        value = _clean(value)
        key = self._key(kind, value)
        placeholder = self._placeholder(kind, value, key)
        if key in self._patterned or len(value) < 3 or (kind == "TELEFON" and len(key[1]) < 6):
            return placeholder  # already searched for, or too short to search for safely
        self._patterned.add(key)
        flags = re.IGNORECASE if kind in ("EMAIL", "AZ", "IBAN") else 0
        if kind == "TELEFON":
            # The same number in other spellings: any separators between its digits.
            digits = _digits(value)
            national = digits.startswith("0")
            body = r"[\s\-/()]*".join(digits[1:] if national else digits)
            prefix = r"(?:\+\s?49[\s\-/]*(?:\(0\)[\s\-/]*)?|0049[\s\-/]*|\(?0)" if national else ""
            pattern = re.compile(r"(?<![\w+])" + prefix + body + r"(?![\d])")
        else:
            alternatives = spellings(value) if kind in ("MANDANT", "GEGNER", "PERSON") else [value]
            pattern = re.compile(_LEFT + "(?:" + "|".join(_literal(v) for v in alternatives) + r")(?!\w)",
                                 flags)
        self._known.append(_Known(pattern, kind, value, key))
        return placeholder

    def _add_name(
        self,
        value: str,
        *,
        kind: str,
        common_word: bool | None = None,
        owner_key: tuple[str, str] | None = None,
    ) -> None:
        """A name (full name or surname); common-word names only in a name context."""
        value = _clean(value)
        if common_word is None:
            common_word = value in COMMON_WORD_SURNAMES
        key = self._key(kind, value) if owner_key is None else (kind, owner_key[1])
        if key in self._placeholders and owner_key is None:
            return
        self._placeholder(kind, value, key)
        body = "|".join(_literal(v) for v in spellings(value))
        if common_word:
            # The group 'v' is what gets replaced; the title stays.
            pattern = re.compile(r"(?<!\w)(?:" + NAME_CONTEXT + r")\s+(?:(?:Dr\.|Prof\.)\s+)?(?P<v>" + body
                                 + r")(?=s?(?!\w))")
        else:
            pattern = re.compile(_LEFT + "(?P<v>" + body + r")(?=s?(?!\w))")
        self._known.append(_Known(pattern, kind, value, key))

    def _add_people(self, people: list[tuple[str, str]]) -> None:
        """Full names, and surnames of natural persons; a surname shared by several people is neutral."""
        parsed: list[tuple[str, str, str | None]] = []  # (core, kind, surname)
        for name, kind in people:
            core, surname = _split_name(name)
            if core:
                parsed.append((core, kind, surname))
        surname_owners: dict[str, set[str]] = {}
        for core, _, surname in parsed:
            if surname:
                surname_owners.setdefault(surname, set()).add(core)
        for core, kind, _ in parsed:
            self._add_name(core, kind=kind)
        for core, kind, surname in parsed:
            if not surname:
                continue
            common = surname in COMMON_WORD_SURNAMES
            if len(surname_owners[surname]) > 1:
                self._add_name(surname, kind="NACHNAME", common_word=common)
            else:
                owner = self._key(kind, core)
                if (kind + "_NACHNAME", owner[1]) not in self._placeholders:
                    self._add_name(surname, kind=kind + "_NACHNAME", common_word=common, owner_key=owner)

    def _add_address(self, anschrift: str) -> None:
        for line in anschrift.splitlines():
            for part in line.split(","):
                part = _clean(part)
                plz_ort = re.fullmatch(r"\d{5}\s+\S.*", part) or re.match(r"Postfach\s+\d", part)
                street = re.fullmatch(r"\D+\s\d{1,4}\s?[a-zA-Z]?(?:\s?[-–/]\s?\d{1,4}[a-zA-Z]?)?", part)
                if plz_ort or (street and not part.lower().startswith(("c/o", "z. hd", "z.hd"))):
                    self.add_value(part, kind="ADRESSE")

    def _add_kurzrubrum(self, kurzrubrum: str) -> None:
        """Each side of "Müller ./. Bauer Logistik GmbH" that is not already known."""
        sides = re.split(r"\s*\./\.\s*|\s+gegen\s+|\s+vs?\.\s+", kurzrubrum, maxsplit=1)
        if len(sides) != 2:
            return
        known = {key[1] for key in self._placeholders} | {_clean(v) for v in self._values.values()}
        for side, kind in zip(sides, ("MANDANT", "GEGNER"), strict=True):
            side = _clean(side)
            core = LEGAL_FORM.sub("", side).strip() or side
            if len(core) < 3 or side in known or core in known:
                continue
            self._add_name(core, kind=kind)

    # --- using -----------------------------------------------------------------------------

    def _spans(self, text: str) -> list[_Span]:
        spans: list[_Span] = []
        for known in self._known:
            for match in known.pattern.finditer(text):
                start, end = match.span("v") if "v" in known.pattern.groupindex else match.span()
                if end > start:
                    spans.append(_Span(start, end, 0, known.kind, known.value, known.key))
        detectors: list[tuple[int, str, re.Pattern[str]]] = [
            (1, "EMAIL", EMAIL_RE), (2, "IBAN", IBAN_RE), (3, "AZ", COURT_AZ_RE), (4, "TELEFON", PHONE_RE),
            (5, "AZ", INTERNAL_AZ_RE), (6, "ADRESSE", STREET_RE), (7, "GEBURTSDATUM", BIRTH_RE),
        ]
        for priority, kind, pattern in detectors:
            for match in pattern.finditer(text):
                parts = [(match.start("v"), match.group("v")) if "v" in pattern.groupindex
                         else (match.start(), match.group(0))]
                if "plz" in pattern.groupindex and match.group("plz"):
                    parts = [(match.start(), text[match.start():match.start("plz")].rstrip(" \t\n,")),
                             (match.start("plz"), match.group("plz"))]
                for start, raw in parts:
                    value = raw.rstrip()
                    if value and _plausible(kind, value):
                        spans.append(_Span(start, start + len(value), priority, kind, value,
                                           self._key(kind, value)))
        return spans

    def redact_text(self, text: str) -> str:
        """Replace every known or detected value.

        Known values (from the Akte) are placed first, leftmost-longest; the detectors then fill
        the gaps, so "Eichenweg 7, 51147 Köln" keeps the placeholders the Akte gave its parts.
        """
        if not text:
            return text
        spans = sorted(self._spans(text),
                       key=lambda s: (s.priority > 0, s.start, -(s.end - s.start), s.priority))
        starts: list[int] = []  # of the chosen spans, sorted
        chosen: list[_Span] = []
        for span in spans:
            i = bisect.bisect_right(starts, span.start)
            if i and chosen[i - 1].end > span.start:
                continue
            if i < len(chosen) and chosen[i].start < span.end:
                continue
            starts.insert(i, span.start)
            chosen.insert(i, span)
        out: list[str] = []
        position = 0
        for span in chosen:
            out.append(text[position:span.start])
            out.append(self._placeholder(span.kind, span.value, span.key))
            position = span.end
        out.append(text[position:])
        return "".join(out)

    def redact_value(self, value: Any) -> Any:
        """Strings inside dicts and lists (keys stay as they are)."""
        if isinstance(value, str):
            return self.redact_text(value)
        if isinstance(value, dict):
            return {k: self.redact_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.redact_value(v) for v in value]
        return value

    def _redact_json_text(self, text: str) -> str:
        """JSON (tool results, arguments) is redacted value by value, so escapes cannot hide a name."""
        stripped = text.strip()
        if stripped[:1] in ("{", "["):
            try:
                parsed = json.loads(stripped)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, (dict, list)):
                return json.dumps(self.redact_value(parsed), ensure_ascii=False)
        return self.redact_text(text)

    def redact_messages(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A redacted copy of an OpenAI-style history: contents, tool-call arguments, tool results."""
        result: list[dict[str, Any]] = []
        for message in messages:
            message = copy.deepcopy(message)
            content = message.get("content")
            if isinstance(content, str):
                message["content"] = (self._redact_json_text(content) if message.get("role") == "tool"
                                      else self.redact_text(content))
            elif isinstance(content, list):
                message["content"] = [
                    {**part, "text": self.redact_text(part["text"])}
                    if isinstance(part, dict) and isinstance(part.get("text"), str) else part
                    for part in content
                ]
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict):
                    continue
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    function["arguments"] = self._redact_json_text(arguments)
                elif isinstance(arguments, (dict, list)):
                    function["arguments"] = self.redact_value(arguments)
            result.append(message)
        return result

    def restore(self, text: str) -> str:
        """Put the real values back for every placeholder this Redactor handed out."""
        if not text or "[" not in text:
            return text

        def back(match: re.Match[str]) -> str:
            return self._values.get("[" + match.group(1).upper() + "]", match.group(0))

        return _PLACEHOLDER_RE.sub(back, text)

    def restore_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.restore(value)
        if isinstance(value, dict):
            return {k: self.restore_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.restore_value(v) for v in value]
        return value

    @property
    def mapping(self) -> dict[str, str]:
        """Placeholder → real value (for the audit log; never send it anywhere)."""
        return dict(self._values)


def mentions(text: str, name: str) -> bool:
    """Whether a text names this person or organisation (full name, or a distinctive surname), in
    any spelling the redactor would catch; a cheap substring test first, a word-bounded one after."""
    core, surname = _split_name(name)
    folded = text.casefold()
    candidates = [core] + ([surname] if surname and surname not in COMMON_WORD_SURNAMES else [])
    for candidate in candidates:
        if not candidate or len(candidate) < 4:
            continue
        for variant in spellings(candidate):
            needle = variant.casefold()
            if needle in folded and re.search(r"(?<!\w)" + _literal(needle) + r"(?!\w)", folded):
                return True
    return False


def _split_name(name: str) -> tuple[str, str | None]:
    """(core name without titles or legal form, surname of a natural person or None)."""
    name = _clean(name)
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


def _plausible(kind: str, value: str) -> bool:
    if kind == "TELEFON":
        return 7 <= len(_digits(value)) <= 15
    if kind == "IBAN":
        compact = value.replace(" ", "")
        if not (15 <= len(compact) <= 34) or not compact[2:4].isdigit():
            return False
        return len(compact) == 22 if compact.startswith("DE") else any(c.isdigit() for c in compact[4:])
    return True


def _normalise_text(text: str) -> str:
    return unicodedata.normalize("NFC", text)


class Learner(Protocol):
    """Teaches a Redactor the Akten a run has touched (implemented where the ORM is: helena.privacy)."""

    def pending(self) -> bool:
        """Whether there is anything new to learn (cheap, no I/O)."""

    def __call__(self, redactor: Redactor) -> None:
        """Learn what is new (may read the database; runs off the event loop)."""


async def _in_thread(function: Callable[[], None]) -> None:
    await asyncio.to_thread(function)


class Privacy:
    """The redaction of one run (or one side call): a single Redactor for every model call it makes,
    so a value keeps its placeholder across the main loop, the summary, the plan reviewer and the
    acceptance checks, and a Learner that adds each Akte the run touches before the next call."""

    def __init__(
        self,
        *,
        learner: Learner | None = None,
        offload: Callable[[Callable[[], None]], Awaitable[None]] = _in_thread,
    ) -> None:
        self.redactor = Redactor()
        self.learner = learner
        self._offload = offload
        self._learning = asyncio.Lock()  # two calls at once (two web searches) wait for one learning

    def refresh_sync(self) -> None:
        """Learn what is new, from synchronous code (the history summary)."""
        if self.learner is not None and self.learner.pending():
            self.learner(self.redactor)

    async def refresh(self) -> None:
        """Learn what is new before a model call; free when nothing is."""
        learner = self.learner
        if learner is None or not learner.pending():
            return
        async with self._learning:
            if learner.pending():
                await self._offload(lambda: learner(self.redactor))

    def redact(self, text: str) -> str:
        """Redact a text that leaves the house outside a model call (a web search query)."""
        return self.redactor.redact_text(text)


class RedactingModel(WrapperModel):
    """A ChatModel wrapper for the cloud: the inner model sees placeholders, the loop real values."""

    def __init__(self, inner: ChatModel, redactor: Redactor, *, hint: bool = True,
                 learn: Callable[[], Awaitable[None]] | None = None) -> None:
        super().__init__(inner)
        self.redactor = redactor
        self.hint = hint
        self.learn = learn  # called before every call: the run's Privacy.refresh

    def _outgoing(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        redacted = self.redactor.redact_messages(
            [{**m, "content": _normalise_text(m["content"])} if isinstance(m.get("content"), str) else m
             for m in messages]
        )
        if not self.hint:
            return redacted
        if redacted and redacted[0].get("role") == "system" and isinstance(redacted[0].get("content"), str):
            redacted[0] = {**redacted[0], "content": f"{redacted[0]['content']}\n\n{PLACEHOLDER_HINT}"}
        else:
            redacted.insert(0, {"role": "system", "content": PLACEHOLDER_HINT})
        return redacted

    def _restore_call(self, call: ToolCall) -> ToolCall:
        return ToolCall(id=call.id, name=call.name, arguments=self.redactor.restore_value(call.arguments))

    async def stream(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        tool_names: Collection[str] | None = None,
    ) -> AsyncIterator[Chunk]:
        """Redact what goes out; restore text and reasoning (holding back a split "[MAND…") and calls."""
        pending = {"text": "", "reasoning": ""}

        def flush(kind: str) -> Chunk | None:
            held, pending[kind] = pending[kind], ""
            return Chunk(kind=kind, text=self.redactor.restore(held)) if held else None  # type: ignore[arg-type]

        if self.learn is not None:
            await self.learn()
        try:
            async for chunk in self.inner.stream(messages=self._outgoing(messages), tools=tools,
                                                 temperature=temperature, tool_names=tool_names):
                if chunk.kind in pending:
                    other = flush("reasoning" if chunk.kind == "text" else "text")
                    if other is not None:
                        yield other
                    pending[chunk.kind] += chunk.text
                    ready, pending[chunk.kind] = _split_partial(pending[chunk.kind])
                    if ready:
                        yield Chunk(kind=chunk.kind, text=self.redactor.restore(ready))
                    continue
                for kind in pending:
                    held = flush(kind)
                    if held is not None:
                        yield held
                if chunk.kind == "tool_call" and chunk.tool_call is not None:
                    yield Chunk(kind="tool_call", tool_call=self._restore_call(chunk.tool_call))
                else:
                    yield chunk
        except Exception:
            for kind in pending:
                held = flush(kind)
                if held is not None:
                    yield held
            raise


def _split_partial(text: str) -> tuple[str, str]:
    """(text safe to show now, a trailing "[…" that may still become a placeholder)."""
    start = text.rfind("[")
    if start == -1 or len(text) - start > _PARTIAL_MAX or not _PARTIAL_RE.match(text, start):
        return text, ""
    return text[:start], text[start:]
