"""Fristberechnung nach §§ 187 ff. BGB, § 222 ZPO – pure Python, no Django.

Why this module exists: a wrongly computed Frist is malpractice, so every rule is
implemented explicitly, every step is explained in German (``begruendung``) and
every doubtful case produces a ``hinweis`` instead of a silent guess.

Rules implemented
-----------------
* § 187 Abs. 1 BGB (Ereignisfrist, default ``fristbeginn="ereignis"``): the event
  day (e.g. Zustellung) is not counted.
  - Tage (§ 188 Abs. 1): end = event day + n days.
  - Wochen/Monate/Jahre (§ 188 Abs. 2 Alt. 1): the day of the last week/month
    that corresponds by name/number to the event day.
* § 187 Abs. 2 BGB (``fristbeginn="tagesbeginn"``): the first day is counted.
  - Tage: end = start + n - 1 days.
  - Wochen/Monate/Jahre (§ 188 Abs. 2 Alt. 2): the day *before* the
    corresponding day.
* § 188 Abs. 3 BGB: if the decisive day does not exist in the last month, the
  Frist ends on that month's last day (31.01. + 1 Monat = 28./29.02.).
  For § 187 Abs. 2 the decisive day is the day before the corresponding day,
  i.e. day number (start day - 1) of the last month, capped at the month's last
  day (start 29.02.2000, 18 Jahre -> 28.02.2018; start 31.03., 1 Monat -> 30.04.).
* Combined durations (e.g. "1 Monat und 2 Wochen"): Jahre and Monate are added
  first as *one* calendar step (12 * Jahre + Monate, with § 188 Abs. 3
  clamping), then Wochen and Tage are appended day by day to the end of that
  month part (analogous to § 190 BGB). Weekends/holidays inside the Frist are
  irrelevant; only the final end is shifted.
* § 193 BGB / § 222 Abs. 2 ZPO: an end on a Samstag, Sonntag or gesetzlichen
  Feiertag moves to the next Werktag, repeatedly (Karfreitag -> Samstag ->
  Sonntag -> Ostermontag -> Dienstag). Each skipped day is recorded.
  Note: § 193 BGB does not apply to Kündigungsfristen; callers can pass
  ``werktagsregel=False`` for such cases.

Holidays
--------
Holidays come from the ``holidays`` package (``holidays.Germany``, public
category, German names). The Bundesland is the one whose holidays govern the
Frist (usually the seat of the court). Without a Bundesland only nationwide
holidays are used; the result says so and warns if the end date is a holiday
in some Land.

The package only covers the years 1991–2100; outside that range it silently
returns no holidays, so we raise ``FristError`` instead of computing a date
that might be wrong.

Partial holidays (decision)
---------------------------
Some holidays apply only in parts of a Land. The package exposes them in the
``catholic`` category (Mariä Himmelfahrt 15.08. in BY – only in municipalities
with a predominantly catholic population; Fronleichnam in parts of SN and TH)
and via the city subdivision "Augsburg" (Augsburger Hohes Friedensfest 08.08.,
which is *not* accepted as a Bundesland). We do **not** shift a Frist for such
days: treating a non-holiday as a holiday could let a deadline be missed, while
the earlier date is always safe. Instead a German ``hinweis`` is added when the
computed end (or a day skipped over while shifting) is such a day. For the
Vorfrist (an internal reminder) the conservative reading is the opposite: it is
moved backwards off partial holidays as well, because earlier is always safe.
"""

from __future__ import annotations

import re
from calendar import monthrange
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal

import holidays

from config.errors import DomainError

__all__ = [
    "BUNDESLAENDER",
    "PRESETS",
    "Dauer",
    "FristErgebnis",
    "FristError",
    "FristPreset",
    "Verschiebung",
    "Vorfrist",
    "berechne_frist",
    "berechne_preset",
    "berechne_vorfrist",
    "format_datum",
    "kein_werktag",
    "normalisiere_bundesland",
    "parse_datum",
    "parse_dauer",
]

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
_CITY_SUBDIVISIONS: Mapping[str, str] = MappingProxyType({"Augsburg": "BY"})

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

_HOLIDAY_FIRST_YEAR: int = holidays.Germany.start_year
_HOLIDAY_LAST_YEAR: int = getattr(holidays.Germany, "end_year", 2100)

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
# Presets
# --------------------------------------------------------------------------- #

_NOTFRIST_HINWEIS = (
    "Notfrist (§ 224 Abs. 1 S. 2 ZPO): nicht verlängerbar; bei Versäumung nur "
    "Wiedereinsetzung in den vorigen Stand (§§ 233 ff. ZPO)."
)

PRESETS: Mapping[str, FristPreset] = MappingProxyType(
    {
        p.key: p
        for p in (
            FristPreset(
                key="berufung",
                bezeichnung="Berufungsfrist",
                dauer=Dauer(monate=1),
                norm="§ 517 ZPO",
                notfrist=True,
                hinweis=(
                    "Beginn mit Zustellung des in vollständiger Form abgefassten Urteils, "
                    "spätestens mit Ablauf von fünf Monaten nach der Verkündung."
                ),
            ),
            FristPreset(
                key="berufungsbegruendung",
                bezeichnung="Berufungsbegründungsfrist",
                dauer=Dauer(monate=2),
                norm="§ 520 Abs. 2 ZPO",
                notfrist=False,
                hinweis=(
                    "Beginn mit Zustellung des Urteils (nicht mit Einlegung der Berufung), "
                    "spätestens fünf Monate nach Verkündung; verlängerbar "
                    "(§ 520 Abs. 2 S. 2, 3 ZPO)."
                ),
            ),
            FristPreset(
                key="einspruch_versaeumnisurteil",
                bezeichnung="Einspruch gegen Versäumnisurteil",
                dauer=Dauer(wochen=2),
                norm="§ 339 Abs. 1 ZPO",
                notfrist=True,
                hinweis="Beginn mit Zustellung des Versäumnisurteils.",
            ),
            FristPreset(
                key="widerspruch_mahnbescheid",
                bezeichnung="Widerspruch gegen Mahnbescheid",
                dauer=Dauer(wochen=2),
                norm="§ 692 Abs. 1 Nr. 3, § 694 ZPO",
                notfrist=False,
                hinweis=(
                    "Keine Notfrist: Widerspruch ist auch nach Fristablauf möglich, solange "
                    "der Vollstreckungsbescheid nicht verfügt ist (§ 694 Abs. 1 ZPO); "
                    "danach nur Einspruch gegen den Vollstreckungsbescheid."
                ),
            ),
            FristPreset(
                key="revision",
                bezeichnung="Revisionsfrist",
                dauer=Dauer(monate=1),
                norm="§ 548 ZPO",
                notfrist=True,
                hinweis=(
                    "Beginn mit Zustellung des in vollständiger Form abgefassten Urteils, "
                    "spätestens mit Ablauf von fünf Monaten nach der Verkündung."
                ),
            ),
            FristPreset(
                key="revisionsbegruendung",
                bezeichnung="Revisionsbegründungsfrist",
                dauer=Dauer(monate=2),
                norm="§ 551 Abs. 2 ZPO",
                notfrist=False,
                hinweis=(
                    "Beginn mit Zustellung des Urteils, spätestens fünf Monate nach "
                    "Verkündung; verlängerbar (§ 551 Abs. 2 S. 5, 6 ZPO)."
                ),
            ),
            FristPreset(
                key="kuendigungsschutzklage",
                bezeichnung="Kündigungsschutzklage",
                dauer=Dauer(wochen=3),
                norm="§ 4 S. 1 KSchG",
                notfrist=False,
                hinweis=(
                    "Beginn mit Zugang der schriftlichen Kündigung; bei Versäumung gilt die "
                    "Kündigung als wirksam (§ 7 KSchG), nachträgliche Zulassung nur nach "
                    "§ 5 KSchG."
                ),
            ),
        )
    }
)


# --------------------------------------------------------------------------- #
# Parsing / validation
# --------------------------------------------------------------------------- #

# ASCII digits only: int() would read Arabic-Indic digits too, and no one writes a date with them.
_ISO_RE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
_DE_RE = re.compile(r"^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{4})$")


def _quote(value: object, *, limit: int = 40) -> str:
    """A value a user sent, fit to quote back in an error: short, on one line."""
    text = " ".join(str(value).split())
    return f"„{text[:limit]}…“" if len(text) > limit else f"„{text}“"


def parse_datum(value: str | date) -> date:
    """Accept a date or 'YYYY-MM-DD' / 'TT.MM.JJJJ'; reject everything else in German.

    Datetimes are rejected on purpose: a timezone-aware timestamp can silently
    fall on a different calendar day than the one the user meant.
    """
    if isinstance(value, datetime):
        raise FristError("Bitte ein Datum ohne Uhrzeit angeben.")
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise FristError(f"Ungültiges Datum: {_quote(value)} (erwartet JJJJ-MM-TT oder TT.MM.JJJJ).")
    text = value.strip()
    if m := _ISO_RE.match(text):
        year, month, day = (int(g) for g in m.groups())
    elif m := _DE_RE.match(text):
        day, month, year = (int(g) for g in m.groups())
    else:
        raise FristError(f"Ungültiges Datum: {_quote(value)} (erwartet JJJJ-MM-TT oder TT.MM.JJJJ).")
    if year < 1:
        raise FristError(f"Ungültiges Datum: „{value}“ (Jahr außerhalb des gültigen Bereichs).")
    if not 1 <= month <= 12:
        raise FristError(f"Ungültiges Datum: „{value}“ (Monat {month} existiert nicht).")
    last = monthrange(year, month)[1]
    if not 1 <= day <= last:
        raise FristError(
            f"Ungültiges Datum: „{value}“ (den {day}. {MONATE[month - 1]} {year} gibt es nicht)."
        )
    return date(year, month, day)


def _parse_count(key: str, value: object) -> int:
    """One Dauer component: a plain non-negative int (bools and floats are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FristError(f"Dauer „{key}“ muss eine ganze Zahl sein, nicht {_quote(value)}.")
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


def _normalize_name(text: str) -> str:
    """Case/umlaut-insensitive key so 'thueringen' and 'Thüringen' both match."""
    text = text.strip().casefold()
    for src, dst in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss"), (" ", "-"), ("_", "-")):
        text = text.replace(src, dst)
    return text


_BUNDESLAND_LOOKUP: Mapping[str, str] = MappingProxyType(
    {
        **{_normalize_name(code): code for code in BUNDESLAENDER},
        **{_normalize_name(name): code for code, name in BUNDESLAENDER.items()},
    }
)


def normalisiere_bundesland(bundesland: str | None) -> str | None:
    """Map 'nw', 'NRW'-style codes or full names to the two-letter code; None/'' -> None."""
    if bundesland is None:
        return None
    if not isinstance(bundesland, str):
        raise FristError(f"Ungültiges Bundesland: {bundesland!r}.")
    if not bundesland.strip():
        return None
    key = _normalize_name(bundesland)
    if key == "nrw":
        key = "nw"
    code = _BUNDESLAND_LOOKUP.get(key)
    if code is None:
        valid = ", ".join(f"{c} ({n})" for c, n in BUNDESLAENDER.items())
        raise FristError(f"Unbekanntes Bundesland „{bundesland}“. Gültig sind: {valid}.")
    return code


def _parse_fristbeginn(fristbeginn: object) -> Fristbeginn:
    """Runtime check because the API may pass arbitrary strings."""
    if fristbeginn == "ereignis":
        return "ereignis"
    if fristbeginn == "tagesbeginn":
        return "tagesbeginn"
    raise FristError(
        f"Ungültiger Fristbeginn {fristbeginn!r}: erlaubt sind „ereignis“ (§ 187 Abs. 1 BGB) "
        "und „tagesbeginn“ (§ 187 Abs. 2 BGB)."
    )


# --------------------------------------------------------------------------- #
# Formatting
# --------------------------------------------------------------------------- #


def format_datum(d: date) -> str:
    """German style 'Freitag, 03.04.2026' used in all texts."""
    return f"{WOCHENTAGE[d.weekday()]}, {d:%d.%m.}{d.year:04d}"


def _land_text(code: str | None) -> str:
    """'Bayern (BY)' or 'bundesweit' – keeps the texts unambiguous about the holiday basis."""
    return f"{BUNDESLAENDER[code]} ({code})" if code else "bundesweit"


# --------------------------------------------------------------------------- #
# Holidays
# --------------------------------------------------------------------------- #


def _check_holiday_year(year: int) -> None:
    """The package returns an empty set outside its range – never compute with that."""
    if not _HOLIDAY_FIRST_YEAR <= year <= _HOLIDAY_LAST_YEAR:
        raise FristError(
            f"Feiertagsdaten sind nur für die Jahre {_HOLIDAY_FIRST_YEAR} bis "
            f"{_HOLIDAY_LAST_YEAR} verfügbar; das Jahr {year} kann nicht sicher berechnet werden."
        )


@lru_cache(maxsize=1024)
def _public_holidays(land: str | None, year: int) -> Mapping[date, str]:
    """Gesetzliche Feiertage (public category) of one Land/year, German names."""
    _check_holiday_year(year)
    try:
        items = holidays.Germany(subdiv=land, language="de", years=year).items()
        return MappingProxyType(dict(items))
    except Exception as exc:  # the package must never leak a foreign exception type
        raise FristError(f"Feiertage für {_land_text(land)} {year} nicht ermittelbar.") from exc


@lru_cache(maxsize=1024)
def _partial_holidays(land: str | None, year: int) -> Mapping[date, tuple[str, str]]:
    """Holidays valid only in parts of the Land: date -> (name, where it applies)."""
    if land is None:
        return MappingProxyType({})
    public = _public_holidays(land, year)
    found: dict[date, tuple[str, list[str]]] = {}
    try:
        sources: list[tuple[str, Any]] = []
        if "catholic" in holidays.Germany.supported_categories:
            sources.append(
                (
                    "in Gemeinden mit überwiegend katholischer Bevölkerung",
                    holidays.Germany(
                        subdiv=land, language="de", years=year, categories=("catholic",)
                    ),
                )
            )
        for city, city_land in _CITY_SUBDIVISIONS.items():
            if city_land == land and city in holidays.Germany.subdivisions:
                sources.append(
                    (
                        f"im Stadtgebiet {city}",
                        holidays.Germany(subdiv=city, language="de", years=year),
                    )
                )
        for scope, calendar in sources:
            for day, name in calendar.items():
                if day in public:
                    continue
                _, scopes = found.setdefault(day, (name, []))
                if scope not in scopes:
                    scopes.append(scope)
    except Exception as exc:
        raise FristError(f"Feiertage für {_land_text(land)} {year} nicht ermittelbar.") from exc
    return MappingProxyType(
        {day: (name, "nur " + " bzw. ".join(scopes)) for day, (name, scopes) in found.items()}
    )


def _holiday_name(day: date, land: str | None) -> str | None:
    """Name of the gesetzlicher Feiertag on ``day`` (None: no holiday)."""
    return _public_holidays(land, day.year).get(day)


def _non_working_reason(
    day: date, land: str | None, *, include_partial: bool = False
) -> str | None:
    """German reason why ``day`` is no Werktag in the sense of § 193 BGB, else None."""
    parts: list[str] = []
    if day.weekday() >= 5:
        parts.append(WOCHENTAGE[day.weekday()])
    name = _holiday_name(day, land)
    if name:
        parts.append(f"Feiertag: {name}")
    elif include_partial and (partial := _partial_holidays(land, day.year).get(day)):
        parts.append(f"örtlicher Feiertag: {partial[0]} ({partial[1]})")
    return " und ".join(parts) or None


def _step(day: date, days: int) -> date:
    """Date arithmetic that fails with FristError instead of OverflowError."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        raise FristError(
            "Das Datum liegt außerhalb des darstellbaren Bereichs (Jahr 1–9999)."
        ) from None


# --------------------------------------------------------------------------- #
# Core arithmetic
# --------------------------------------------------------------------------- #


def _add_months(year: int, month: int, months: int) -> tuple[int, int]:
    """Calendar month step without choosing a day yet (clamping happens in _month_part)."""
    total = year * 12 + (month - 1) + months
    new_year, new_month = divmod(total, 12)
    if new_year > 9999:
        raise FristError("Das Fristende läge nach dem Jahr 9999.")
    return new_year, new_month + 1


def _month_part(start: date, months: int, fristbeginn: Fristbeginn) -> tuple[date, str]:
    """§ 188 Abs. 2, 3 BGB for the Monate/Jahre part; returns end of that part and text."""
    year, month = _add_months(start.year, start.month, months)
    last = monthrange(year, month)[1]
    month_name = f"{MONATE[month - 1]} {year}"
    if fristbeginn == "ereignis":
        text = (
            "Nach § 188 Abs. 2 Alt. 1 BGB endet der nach Monaten/Jahren bemessene Zeitraum "
            "mit Ablauf des Tages des letzten Monats, der durch seine Zahl dem Ereignistag "
            f"entspricht (der {start.day}.)"
        )
        if start.day > last:
            end = date(year, month, last)
            return end, (
                f"{text}. Diesen Tag gibt es im {month_name} nicht; nach § 188 Abs. 3 BGB endet "
                f"die Frist mit dem letzten Tag dieses Monats: {format_datum(end)}."
            )
        end = date(year, month, start.day)
        return end, f"{text}: {format_datum(end)}."
    text = (
        "Nach § 188 Abs. 2 Alt. 2 BGB endet der nach Monaten/Jahren bemessene Zeitraum "
        "mit Ablauf des Tages, der dem Tag vorhergeht, der durch seine Zahl dem Anfangstag "
        f"entspricht (der {start.day}.)"
    )
    if start.day == 1:
        end = _step(date(year, month, 1), -1)
        return end, f"{text}: {format_datum(end)}."
    if start.day > last:
        end = date(year, month, min(start.day - 1, last))
        return end, (
            f"{text}. Den {start.day}. gibt es im {month_name} nicht; maßgebend ist dessen "
            "Vortag, höchstens jedoch der letzte Tag des Monats (§ 188 Abs. 3 BGB): "
            f"{format_datum(end)}."
        )
    end = date(year, month, start.day - 1)
    return end, f"{text}: {format_datum(end)}."


def _compute_end(start: date, dauer: Dauer, fristbeginn: Fristbeginn) -> tuple[date, list[str]]:
    """Unshifted end of the Frist plus the German explanation of each step."""
    lines: list[str] = []
    months, days = dauer.monate_gesamt, dauer.tage_gesamt
    if months:
        end, text = _month_part(start, months, fristbeginn)
        lines.append(text)
        if days:
            end = _step(end, days)
            lines.append(
                f"Die weiteren {Dauer(tage=dauer.tage, wochen=dauer.wochen).text} werden an das "
                "Ende des Monats-/Jahreszeitraums angeschlossen (entsprechend § 190 BGB) und "
                f"tageweise gezählt: {format_datum(end)}."
            )
        return end, lines
    if fristbeginn == "ereignis":
        end = _step(start, days)
        if dauer.tage == 0:
            lines.append(
                "Nach § 188 Abs. 2 Alt. 1 BGB endet die Wochenfrist mit Ablauf des Tages der "
                "letzten Woche, der durch seine Benennung dem Ereignistag entspricht: "
                f"{format_datum(end)}."
            )
        else:
            lines.append(
                f"Nach § 188 Abs. 1 BGB endet die Frist mit Ablauf des letzten Tages; "
                f"Ereignistag + {days} Tage = {format_datum(end)}."
            )
        return end, lines
    end = _step(start, days - 1)
    if dauer.tage == 0:
        lines.append(
            "Nach § 188 Abs. 2 Alt. 2 BGB endet die Wochenfrist mit Ablauf des Tages, der dem "
            "Tag vorhergeht, der durch seine Benennung dem Anfangstag entspricht: "
            f"{format_datum(end)}."
        )
    else:
        lines.append(
            f"Nach § 188 Abs. 1 BGB endet die Frist mit Ablauf des letzten Tages; der Anfangstag "
            f"zählt mit, also Anfangstag + {days} Tage − 1 = {format_datum(end)}."
        )
    return end, lines


def _shift_forward(day: date, land: str | None) -> tuple[date, tuple[Verschiebung, ...]]:
    """§ 193 BGB / § 222 Abs. 2 ZPO: move to the next Werktag, repeatedly."""
    skipped: list[Verschiebung] = []
    while (reason := _non_working_reason(day, land)) is not None:
        skipped.append(Verschiebung(datum=day, grund=reason))
        day = _step(day, 1)
    return day, tuple(skipped)


def _shift_backward(day: date, land: str | None) -> tuple[date, tuple[Verschiebung, ...]]:
    """Vorfrist: move to the previous working day (partial holidays count as non-working)."""
    skipped: list[Verschiebung] = []
    while (reason := _non_working_reason(day, land, include_partial=True)) is not None:
        skipped.append(Verschiebung(datum=day, grund=reason))
        day = _step(day, -1)
    return day, tuple(skipped)


def _partial_holiday_hints(
    land: str | None, ende: date, skipped: tuple[Verschiebung, ...]
) -> list[str]:
    """Hinweise for partial holidays that were conservatively *not* treated as holidays."""
    hints: list[str] = []
    if land is None:
        return hints
    partial = _partial_holidays(land, ende.year)
    if hit := partial.get(ende):
        name, scope = hit
        hints.append(
            f"Der {ende:%d.%m.}{ende.year} ({name}) ist in {BUNDESLAENDER[land]} kein "
            f"landesweiter gesetzlicher Feiertag ({scope}). Die Frist wurde vorsorglich nicht "
            "verschoben; sie endet bereits an diesem Tag."
        )
    for v in skipped:
        hit = _partial_holidays(land, v.datum.year).get(v.datum)
        if hit:
            name, scope = hit
            hints.append(
                f"Der {v.datum:%d.%m.}{v.datum.year} ({name}) ist in {BUNDESLAENDER[land]} kein "
                f"landesweiter gesetzlicher Feiertag ({scope}); er wurde nicht als Feiertag "
                f"gewertet, sondern nur als {v.grund} übersprungen."
            )
    return hints


def _regional_holiday_hint(ende: date) -> str | None:
    """Without Bundesland: warn if the end date is a holiday in some Land."""
    by_name: dict[str, list[str]] = {}
    for code in BUNDESLAENDER:
        name = _holiday_name(ende, code)
        if name and not _holiday_name(ende, None):
            by_name.setdefault(name, []).append(code)
    if not by_name:
        return None
    parts = "; ".join(f"{name} in {', '.join(codes)}" for name, codes in by_name.items())
    return (
        f"Achtung: {format_datum(ende)} ist landesrechtlicher Feiertag ({parts}). Gilt eines "
        "dieser Länder für die Frist, verschiebt sich das Ende – Bundesland angeben."
    )


def _vorfrist(
    ende: date, dauer: Dauer, land: str | None, frist_start: date | None = None
) -> tuple[Vorfrist, list[str]]:
    """Shared Vorfrist logic; returns the Vorfrist and extra Hinweise."""
    raw = _step(ende, -dauer.tage_gesamt)
    datum, skipped = _shift_backward(raw, land)
    lines = [
        f"Vorfrist: {dauer.text} vor dem Fristende {format_datum(ende)} = {format_datum(raw)}."
    ]
    if skipped:
        lines.append(
            "Kein Arbeitstag ("
            + "; ".join(f"{format_datum(v.datum)}: {v.grund}" for v in skipped)
            + f"), daher vorverlegt auf {format_datum(datum)}."
        )
    hints: list[str] = []
    if frist_start is not None and datum <= frist_start:
        hints.append(
            f"Die Vorfrist ({format_datum(datum)}) liegt nicht nach dem Fristbeginn "
            f"({format_datum(frist_start)}); Frist sofort bearbeiten."
        )
    vorfrist = Vorfrist(
        datum=datum, unverschobenes_datum=raw, verschoben=skipped, begruendung=" ".join(lines)
    )
    return vorfrist, hints


def _parse_vorfrist_dauer(tage: int | None, wochen: int | None) -> Dauer:
    """Default 7 Tage; a Vorfrist longer than a year is certainly a typo."""
    if tage is None and wochen is None:
        tage = 7
    for unit, value in (("Tage", tage), ("Wochen", wochen)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise FristError(f"Die Vorfrist ({unit}) muss eine ganze Zahl sein, nicht {_quote(value)}.")
        if value < 0:
            raise FristError(f"Die Vorfrist darf nicht negativ sein ({value} {unit}).")
    dauer = parse_dauer(
        {"tage": 0 if tage is None else tage, "wochen": 0 if wochen is None else wochen}
    )
    if dauer.tage_gesamt > 366:
        raise FristError("Die Vorfrist darf höchstens 366 Tage betragen.")
    return dauer


# --------------------------------------------------------------------------- #
# Public API
# --------------------------------------------------------------------------- #


def kein_werktag(day: date | str, bundesland: str | None = None) -> str | None:
    """Why ``day`` is no Werktag in ``bundesland`` (Sa/So, gesetzlicher Feiertag), else None.

    For checking a date someone typed in: a Frist never ends on such a day (§ 193 BGB,
    § 222 Abs. 2 ZPO), so a proposed Fristende there is almost certainly miscounted.
    """
    return _non_working_reason(parse_datum(day), normalisiere_bundesland(bundesland))


def berechne_frist(
    *,
    start: date | str,
    tage: int = 0,
    wochen: int = 0,
    monate: int = 0,
    jahre: int = 0,
    dauer: Dauer | Mapping[str, object] | None = None,
    bundesland: str | None = None,
    fristbeginn: Fristbeginn = "ereignis",
    vorfrist_tage: int | None = None,
    werktagsregel: bool = True,
    preset: FristPreset | None = None,
) -> FristErgebnis:
    """Compute a Frist per §§ 187, 188, 193 BGB, § 222 ZPO with a German Begründung.

    Give the length either as tage/wochen/monate/jahre or as ``dauer`` (dict or Dauer),
    not both. ``vorfrist_tage`` adds a Vorfrist that many days before the end.
    ``werktagsregel=False`` disables § 193 BGB (e.g. for Kündigungsfristen).
    """
    start_date = parse_datum(start)
    beginn = _parse_fristbeginn(fristbeginn)
    land = normalisiere_bundesland(bundesland)
    loose = {"tage": tage, "wochen": wochen, "monate": monate, "jahre": jahre}
    if dauer is not None:
        if any(v != 0 or isinstance(v, bool) for v in loose.values()):
            raise FristError("Dauer bitte entweder als „dauer“ oder als Einzelwerte angeben.")
        frist_dauer = parse_dauer(dauer)
    else:
        frist_dauer = parse_dauer(loose)
    if not isinstance(werktagsregel, bool):
        raise FristError("„werktagsregel“ muss wahr oder falsch sein.")

    lines: list[str] = []
    if preset is not None:
        art = "Notfrist" if preset.notfrist else "keine Notfrist"
        lines.append(f"{preset.bezeichnung} ({preset.norm}, {art}).")
    if beginn == "ereignis":
        lines.append(
            f"Fristbeginn nach § 187 Abs. 1 BGB: Ereignistag {format_datum(start_date)}; "
            "dieser Tag wird nicht mitgerechnet."
        )
    else:
        lines.append(
            f"Fristbeginn nach § 187 Abs. 2 BGB: Beginn des Tages {format_datum(start_date)}; "
            "dieser Tag wird mitgerechnet."
        )
    lines.append(f"Dauer: {frist_dauer.text}.")
    raw_end, steps = _compute_end(start_date, frist_dauer, beginn)
    lines.extend(steps)
    lines.append(f"Rechnerisches Fristende: {format_datum(raw_end)}.")

    hints: list[str] = []
    if preset is not None:
        if preset.notfrist:
            hints.append(_NOTFRIST_HINWEIS)
        if preset.hinweis:
            hints.append(preset.hinweis)

    skipped: tuple[Verschiebung, ...] = ()
    ende = raw_end
    if werktagsregel:
        ende, skipped = _shift_forward(raw_end, land)
        if skipped:
            lines.append(
                "Das rechnerische Fristende fällt auf einen Sonnabend, Sonntag oder "
                "gesetzlichen Feiertag; nach § 193 BGB, § 222 Abs. 2 ZPO endet die Frist mit "
                "Ablauf des nächsten Werktags. Übersprungen: "
                + "; ".join(f"{format_datum(v.datum)} ({v.grund})" for v in skipped)
                + "."
            )
        else:
            lines.append(
                "Das Fristende fällt auf einen Werktag; keine Verschiebung nach § 193 BGB, "
                "§ 222 Abs. 2 ZPO."
            )
        if land:
            lines.append(f"Berücksichtigte Feiertage: gesetzliche Feiertage in {_land_text(land)}.")
        else:
            lines.append(
                "Kein Bundesland angegeben: Es wurden nur bundesweite gesetzliche Feiertage "
                "berücksichtigt."
            )
            hints.append(
                "Kein Bundesland angegeben: landesrechtliche Feiertage wurden nicht "
                "berücksichtigt. Bitte das Bundesland des Gerichts bzw. Erklärungsorts angeben."
            )
            if regional := _regional_holiday_hint(ende):
                hints.append(regional)
        hints.extend(_partial_holiday_hints(land, ende, skipped))
    else:
        lines.append(
            "Keine Verschiebung nach § 193 BGB (Werktagsregel ausdrücklich nicht angewendet, "
            "z. B. bei Kündigungsfristen)."
        )
    lines.append(f"Fristende: {format_datum(ende)}, 24:00 Uhr.")

    vorfrist: Vorfrist | None = None
    if vorfrist_tage is not None:
        vorfrist, vorfrist_hints = _vorfrist(
            ende, _parse_vorfrist_dauer(vorfrist_tage, None), land, start_date
        )
        hints.extend(vorfrist_hints)

    return FristErgebnis(
        start=start_date,
        dauer=frist_dauer,
        fristbeginn=beginn,
        bundesland=land,
        ende=ende,
        unverschobenes_ende=raw_end,
        begruendung=" ".join(lines),
        verschoben=skipped,
        hinweise=tuple(hints),
        vorfrist=vorfrist,
        preset=preset,
        notfrist=preset.notfrist if preset else False,
        werktagsregel=werktagsregel,
    )


def berechne_vorfrist(
    *,
    ende: date | str,
    tage: int | None = None,
    wochen: int | None = None,
    bundesland: str | None = None,
) -> Vorfrist:
    """Reminder date before ``ende`` (default 7 Tage), moved *backwards* to a working day.

    Backwards because staff must see it on a working day before the deadline;
    partial holidays (e.g. 15.08. in BY) also count as non-working here since an
    earlier reminder is always safe.
    """
    ende_date = parse_datum(ende)
    land = normalisiere_bundesland(bundesland)
    vorfrist, _ = _vorfrist(ende_date, _parse_vorfrist_dauer(tage, wochen), land)
    return vorfrist


def berechne_preset(
    *,
    preset: str,
    start: date | str,
    bundesland: str | None = None,
    vorfrist_tage: int | None = None,
) -> FristErgebnis:
    """Compute a named standard Frist (see ``PRESETS``) with the same core as berechne_frist."""
    if not isinstance(preset, str) or preset.strip().casefold() not in PRESETS:
        valid = ", ".join(PRESETS)
        raise FristError(f"Unbekannte Fristart „{preset}“. Gültig sind: {valid}.")
    chosen = PRESETS[preset.strip().casefold()]
    return berechne_frist(
        start=start,
        dauer=chosen.dauer,
        bundesland=bundesland,
        vorfrist_tage=vorfrist_tage,
        preset=chosen,
    )


def berechne(
    *,
    start: date | str,
    dauer: Mapping[str, object] | None = None,
    preset: str | None = None,
    bundesland: str | None = None,
    fristbeginn: Fristbeginn = "ereignis",
    vorfrist_tage: int | None = None,
) -> FristErgebnis:
    """One entry for callers that accept either a named preset or an explicit Dauer (API, tools)."""
    if preset is not None:
        if dauer is not None:
            raise FristError("Bitte entweder „dauer“ oder „preset“ angeben, nicht beides.")
        if fristbeginn != "ereignis":
            raise FristError("Vordefinierte Fristen beginnen immer mit einem Ereignis.")
        return berechne_preset(preset=preset, start=start, bundesland=bundesland, vorfrist_tage=vorfrist_tage)
    if dauer is None:
        raise FristError("Bitte „dauer“ (z. B. {\"monate\": 1}) oder „preset“ angeben.")
    return berechne_frist(start=start, dauer=dauer, bundesland=bundesland, fristbeginn=fristbeginn,
                          vorfrist_tage=vorfrist_tage)
