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

What is looked for: helena/llm/pii/patterns.py. A run's redaction and the model wrapper that
applies it: helena/llm/wrappers/redacting.py.
"""

from __future__ import annotations

import bisect
import copy
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from helena.llm.pii.patterns import (
    BIRTH_RE,
    COMMON_WORD_SURNAMES,
    COURT_AZ_RE,
    EMAIL_RE,
    GESCHAEFTSFUEHRER,
    IBAN_RE,
    INTERNAL_AZ_RE,
    LEFT,
    LEGAL_FORM,
    NAME_CONTEXT,
    PHONE_RE,
    PLACEHOLDER_RE,
    PUBLIC_ROLES,
    STREET_RE,
    AkteFacts,
    clean,
    literal,
    phone_digits,
    plausible,
    spellings,
    split_name,
)


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
            return (kind, phone_digits(value))
        if base == "IBAN":
            return (kind, re.sub(r"\s", "", value).upper())
        if base in ("EMAIL", "AZ"):
            return (kind, clean(value).casefold())
        return (kind, clean(value))

    def add_value(self, value: str, *, kind: str) -> str:
        """Register a literal value (any kind); returns its placeholder."""
        value = clean(value)
        key = self._key(kind, value)
        placeholder = self._placeholder(kind, value, key)
        if key in self._patterned or len(value) < 3 or (kind == "TELEFON" and len(key[1]) < 6):
            return placeholder  # already searched for, or too short to search for safely
        self._patterned.add(key)
        flags = re.IGNORECASE if kind in ("EMAIL", "AZ", "IBAN") else 0
        if kind == "TELEFON":
            # The same number in other spellings: any separators between its digits.
            digits = phone_digits(value)
            national = digits.startswith("0")
            body = r"[\s\-/()]*".join(digits[1:] if national else digits)
            prefix = r"(?:\+\s?49[\s\-/]*(?:\(0\)[\s\-/]*)?|0049[\s\-/]*|\(?0)" if national else ""
            pattern = re.compile(r"(?<![\w+])" + prefix + body + r"(?![\d])")
        else:
            alternatives = spellings(value) if kind in ("MANDANT", "GEGNER", "PERSON") else [value]
            pattern = re.compile(LEFT + "(?:" + "|".join(literal(v) for v in alternatives) + r")(?!\w)",
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
        value = clean(value)
        if common_word is None:
            common_word = value in COMMON_WORD_SURNAMES
        key = self._key(kind, value) if owner_key is None else (kind, owner_key[1])
        if key in self._placeholders and owner_key is None:
            return
        self._placeholder(kind, value, key)
        body = "|".join(literal(v) for v in spellings(value))
        if common_word:
            # The group 'v' is what gets replaced; the title stays.
            pattern = re.compile(r"(?<!\w)(?:" + NAME_CONTEXT + r")\s+(?:(?:Dr\.|Prof\.)\s+)?(?P<v>" + body
                                 + r")(?=s?(?!\w))")
        else:
            pattern = re.compile(LEFT + "(?P<v>" + body + r")(?=s?(?!\w))")
        self._known.append(_Known(pattern, kind, value, key))

    def _add_people(self, people: list[tuple[str, str]]) -> None:
        """Full names, and surnames of natural persons; a surname shared by several people is neutral."""
        parsed: list[tuple[str, str, str | None]] = []  # (core, kind, surname)
        for name, kind in people:
            core, surname = split_name(name)
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
                part = clean(part)
                plz_ort = re.fullmatch(r"\d{5}\s+\S.*", part) or re.match(r"Postfach\s+\d", part)
                street = re.fullmatch(r"\D+\s\d{1,4}\s?[a-zA-Z]?(?:\s?[-–/]\s?\d{1,4}[a-zA-Z]?)?", part)
                if plz_ort or (street and not part.lower().startswith(("c/o", "z. hd", "z.hd"))):
                    self.add_value(part, kind="ADRESSE")

    def _add_kurzrubrum(self, kurzrubrum: str) -> None:
        """Each side of "Müller ./. Bauer Logistik GmbH" that is not already known."""
        sides = re.split(r"\s*\./\.\s*|\s+gegen\s+|\s+vs?\.\s+", kurzrubrum, maxsplit=1)
        if len(sides) != 2:
            return
        known = {key[1] for key in self._placeholders} | {clean(v) for v in self._values.values()}
        for side, kind in zip(sides, ("MANDANT", "GEGNER"), strict=True):
            side = clean(side)
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
                    if value and plausible(kind, value):
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

        return PLACEHOLDER_RE.sub(back, text)

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
