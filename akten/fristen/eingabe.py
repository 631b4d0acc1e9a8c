"""Reading what a user or a model typed (dates, durations, Bundesland) and writing dates as a
German lawyer does."""

from __future__ import annotations

import re
from calendar import monthrange
from collections.abc import Mapping
from datetime import date, datetime
from types import MappingProxyType

from akten.fristen.typen import (
    BUNDESLAENDER,
    MONATE,
    Fristbeginn,
    FristError,
    quote,
)

# --------------------------------------------------------------------------- #
# Parsing / validation
# --------------------------------------------------------------------------- #

# ASCII digits only: int() would read Arabic-Indic digits too, and no one writes a date with them.
_ISO_RE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
_DE_RE = re.compile(r"^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{4})$")


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
        raise FristError(f"Ungültiges Datum: {quote(value)} (erwartet JJJJ-MM-TT oder TT.MM.JJJJ).")
    text = value.strip()
    if m := _ISO_RE.match(text):
        year, month, day = (int(g) for g in m.groups())
    elif m := _DE_RE.match(text):
        day, month, year = (int(g) for g in m.groups())
    else:
        raise FristError(f"Ungültiges Datum: {quote(value)} (erwartet JJJJ-MM-TT oder TT.MM.JJJJ).")
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


def parse_fristbeginn(fristbeginn: object) -> Fristbeginn:
    """Runtime check because the API may pass arbitrary strings."""
    if fristbeginn == "ereignis":
        return "ereignis"
    if fristbeginn == "tagesbeginn":
        return "tagesbeginn"
    raise FristError(
        f"Ungültiger Fristbeginn {fristbeginn!r}: erlaubt sind „ereignis“ (§ 187 Abs. 1 BGB) "
        "und „tagesbeginn“ (§ 187 Abs. 2 BGB)."
    )


