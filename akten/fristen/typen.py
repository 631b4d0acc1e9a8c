"""The vocabulary of a Frist computation: its error, the limits, and the small value types (Dauer,
Verschiebung, Vorfrist, FristPreset, FristErgebnis)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from types import MappingProxyType
from typing import Any, Literal

import holidays

from config.errors import DomainError

Fristbeginn = Literal["ereignis", "tagesbeginn"]


class FristError(DomainError, ValueError):
    """Every invalid input or impossible computation; message is German and user-facing (422)."""


# --------------------------------------------------------------------------- #
# Constants
# --------------------------------------------------------------------------- #

BUNDESLAENDER: Mapping[str, str] = MappingProxyType(
    {
        "BB": "Brandenburg",
        "BE": "Berlin",
        "BW": "Baden-Württemberg",
        "BY": "Bayern",
        "HB": "Bremen",
        "HE": "Hessen",
        "HH": "Hamburg",
        "MV": "Mecklenburg-Vorpommern",
        "NI": "Niedersachsen",
        "NW": "Nordrhein-Westfalen",
        "RP": "Rheinland-Pfalz",
        "SH": "Schleswig-Holstein",
        "SL": "Saarland",
        "SN": "Sachsen",
        "ST": "Sachsen-Anhalt",
        "TH": "Thüringen",
    }
)

# City subdivisions of the holidays package and the Land they belong to; their extra
# holidays are treated as partial holidays of that Land (never as a Bundesland).
CITY_SUBDIVISIONS: Mapping[str, str] = MappingProxyType({"Augsburg": "BY"})

WOCHENTAGE: tuple[str, ...] = (
    "Montag",
    "Dienstag",
    "Mittwoch",
    "Donnerstag",
    "Freitag",
    "Samstag",
    "Sonntag",
)
MONATE: tuple[str, ...] = (
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
)

MAX_JAHRE = 100
DAUER_KEYS: tuple[str, ...] = ("tage", "wochen", "monate", "jahre")

HOLIDAY_FIRST_YEAR: int = holidays.Germany.start_year
HOLIDAY_LAST_YEAR: int = getattr(holidays.Germany, "end_year", 2100)

_ONE_DAY = timedelta(days=1)


# --------------------------------------------------------------------------- #
# Small value types
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Dauer:
    """Validated length of a Frist; construct via ``parse_dauer`` or ``Dauer.of``."""

    tage: int = 0
    wochen: int = 0
    monate: int = 0
    jahre: int = 0

    @classmethod
    def of(cls, *, tage: int = 0, wochen: int = 0, monate: int = 0, jahre: int = 0) -> Dauer:
        """Validate keyword values so that no invalid Dauer can reach the arithmetic."""
        return parse_dauer({"tage": tage, "wochen": wochen, "monate": monate, "jahre": jahre})

    @property
    def monate_gesamt(self) -> int:
        """Years and months form one calendar step (see module docstring)."""
        return self.jahre * 12 + self.monate

    @property
    def tage_gesamt(self) -> int:
        """Weeks and days are appended day by day after the month step."""
        return self.wochen * 7 + self.tage

    @property
    def text(self) -> str:
        """German wording, e.g. '1 Monat und 2 Wochen'."""
        parts: list[str] = []
        for value, singular, plural in (
            (self.jahre, "Jahr", "Jahre"),
            (self.monate, "Monat", "Monate"),
            (self.wochen, "Woche", "Wochen"),
            (self.tage, "Tag", "Tage"),
        ):
            if value:
                parts.append(f"{value} {singular if value == 1 else plural}")
        if len(parts) <= 1:
            return "".join(parts)
        return ", ".join(parts[:-1]) + " und " + parts[-1]

    def as_dict(self) -> dict[str, int]:
        """JSON form with all four keys."""
        return {
            "tage": self.tage,
            "wochen": self.wochen,
            "monate": self.monate,
            "jahre": self.jahre,
        }


@dataclass(frozen=True)
class Verschiebung:
    """One day skipped (forwards for the Frist, backwards for the Vorfrist) and why."""

    datum: date
    grund: str

    def as_dict(self) -> dict[str, str]:
        """JSON form with ISO date."""
        return {"datum": self.datum.isoformat(), "grund": self.grund}


@dataclass(frozen=True)
class Vorfrist:
    """Internal reminder date before the Fristende, always on a working day."""

    datum: date
    unverschobenes_datum: date
    verschoben: tuple[Verschiebung, ...]
    begruendung: str

    def as_dict(self) -> dict[str, Any]:
        """JSON form with ISO dates."""
        return {
            "datum": self.datum.isoformat(),
            "unverschobenes_datum": self.unverschobenes_datum.isoformat(),
            "verschoben": [v.as_dict() for v in self.verschoben],
            "begruendung": self.begruendung,
        }


@dataclass(frozen=True)
class FristPreset:
    """A named standard Frist so that staff do not have to remember Dauer and Norm."""

    key: str
    bezeichnung: str
    dauer: Dauer
    norm: str
    notfrist: bool
    hinweis: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON form (e.g. for a preset dropdown)."""
        return {
            "key": self.key,
            "bezeichnung": self.bezeichnung,
            "dauer": self.dauer.as_dict(),
            "dauer_text": self.dauer.text,
            "norm": self.norm,
            "notfrist": self.notfrist,
            "hinweis": self.hinweis,
        }


@dataclass(frozen=True)
class FristErgebnis:
    """Outcome of a Fristberechnung; ``ende`` is the binding date (ends 24:00 Uhr)."""

    start: date
    dauer: Dauer
    fristbeginn: Fristbeginn
    bundesland: str | None
    ende: date
    unverschobenes_ende: date
    begruendung: str
    verschoben: tuple[Verschiebung, ...] = ()
    hinweise: tuple[str, ...] = ()
    vorfrist: Vorfrist | None = None
    preset: FristPreset | None = None
    notfrist: bool = False
    werktagsregel: bool = True

    def as_dict(self) -> dict[str, Any]:
        """JSON form with ISO dates, for the API."""
        return {
            "start": self.start.isoformat(),
            "dauer": self.dauer.as_dict(),
            "dauer_text": self.dauer.text,
            "fristbeginn": self.fristbeginn,
            "bundesland": self.bundesland,
            "ende": self.ende.isoformat(),
            "ende_text": format_datum(self.ende),
            "unverschobenes_ende": self.unverschobenes_ende.isoformat(),
            "begruendung": self.begruendung,
            "verschoben": [v.as_dict() for v in self.verschoben],
            "hinweise": list(self.hinweise),
            "vorfrist": self.vorfrist.as_dict() if self.vorfrist else None,
            "preset": self.preset.as_dict() if self.preset else None,
            "notfrist": self.notfrist,
            "werktagsregel": self.werktagsregel,
        }


# --------------------------------------------------------------------------- #
# Reading a duration, writing a date (used by the types above)
# --------------------------------------------------------------------------- #


def quote(value: object, *, limit: int = 40) -> str:
    """A value a user sent, fit to quote back in an error: short, on one line."""
    text = " ".join(str(value).split())
    return f"„{text[:limit]}…“" if len(text) > limit else f"„{text}“"


def _parse_count(key: str, value: object) -> int:
    """One Dauer component: a plain non-negative int (bools and floats are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FristError(f"Dauer „{key}“ muss eine ganze Zahl sein, nicht {quote(value)}.")
    if value < 0:
        raise FristError(f"Dauer „{key}“ darf nicht negativ sein ({value}).")
    return value


def parse_dauer(dauer: Mapping[str, object] | Dauer) -> Dauer:
    """Validate an untrusted Dauer dict (from the JSON API) into a ``Dauer``.

    Allowed keys: tage, wochen, monate, jahre (ints >= 0, total > 0, at most 100 Jahre).
    """
    if isinstance(dauer, Dauer):
        dauer = dauer.as_dict()
    if not isinstance(dauer, Mapping):
        raise FristError("Dauer muss ein Objekt mit tage/wochen/monate/jahre sein.")
    unknown = [str(k) for k in dauer if k not in DAUER_KEYS]
    if unknown:
        raise FristError(
            f"Unbekannte Angabe in der Dauer: {', '.join(sorted(unknown))}. "
            f"Erlaubt sind: {', '.join(DAUER_KEYS)}."
        )
    values = {key: _parse_count(key, dauer.get(key, 0)) for key in DAUER_KEYS}
    if not any(values.values()):
        raise FristError("Die Dauer muss größer als null sein.")
    months = values["jahre"] * 12 + values["monate"]
    days = values["wochen"] * 7 + values["tage"]
    # months/12 + days/365 <= MAX_JAHRE, in integers.
    if months * 365 + days * 12 > MAX_JAHRE * 12 * 365:
        raise FristError(f"Die Dauer ist unplausibel lang (mehr als {MAX_JAHRE} Jahre).")
    return Dauer(**values)


def format_datum(d: date) -> str:
    """German style 'Freitag, 03.04.2026' used in all texts."""
    return f"{WOCHENTAGE[d.weekday()]}, {d:%d.%m.}{d.year:04d}"


def land_text(code: str | None) -> str:
    """'Bayern (BY)' or 'bundesweit' – keeps the texts unambiguous about the holiday basis."""
    return f"{BUNDESLAENDER[code]} ({code})" if code else "bundesweit"
