"""Which days are no Werktag (§ 193 BGB, § 222 Abs. 2 ZPO): weekends, public holidays per
Bundesland, and the partial holidays (one city, one region) that only warrant a hint."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import holidays

from akten.fristen.typen import (
    CITY_SUBDIVISIONS,
    HOLIDAY_FIRST_YEAR,
    HOLIDAY_LAST_YEAR,
    WOCHENTAGE,
    FristError,
    land_text,
)

# --------------------------------------------------------------------------- #
# Holidays
# --------------------------------------------------------------------------- #


def _check_holiday_year(year: int) -> None:
    """The package returns an empty set outside its range – never compute with that."""
    if not HOLIDAY_FIRST_YEAR <= year <= HOLIDAY_LAST_YEAR:
        raise FristError(
            f"Feiertagsdaten sind nur für die Jahre {HOLIDAY_FIRST_YEAR} bis "
            f"{HOLIDAY_LAST_YEAR} verfügbar; das Jahr {year} kann nicht sicher berechnet werden."
        )


@lru_cache(maxsize=1024)
def _public_holidays(land: str | None, year: int) -> Mapping[date, str]:
    """Gesetzliche Feiertage (public category) of one Land/year, German names."""
    _check_holiday_year(year)
    try:
        items = holidays.Germany(subdiv=land, language="de", years=year).items()
        return MappingProxyType(dict(items))
    except Exception as exc:  # the package must never leak a foreign exception type
        raise FristError(f"Feiertage für {land_text(land)} {year} nicht ermittelbar.") from exc


@lru_cache(maxsize=1024)
def partial_holidays(land: str | None, year: int) -> Mapping[date, tuple[str, str]]:
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
        for city, city_land in CITY_SUBDIVISIONS.items():
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
        raise FristError(f"Feiertage für {land_text(land)} {year} nicht ermittelbar.") from exc
    return MappingProxyType(
        {day: (name, "nur " + " bzw. ".join(scopes)) for day, (name, scopes) in found.items()}
    )


def holiday_name(day: date, land: str | None) -> str | None:
    """Name of the gesetzlicher Feiertag on ``day`` (None: no holiday)."""
    return _public_holidays(land, day.year).get(day)


def non_working_reason(
    day: date, land: str | None, *, include_partial: bool = False
) -> str | None:
    """German reason why ``day`` is no Werktag in the sense of § 193 BGB, else None."""
    parts: list[str] = []
    if day.weekday() >= 5:
        parts.append(WOCHENTAGE[day.weekday()])
    name = holiday_name(day, land)
    if name:
        parts.append(f"Feiertag: {name}")
    elif include_partial and (partial := partial_holidays(land, day.year).get(day)):
        parts.append(f"örtlicher Feiertag: {partial[0]} ({partial[1]})")
    return " und ".join(parts) or None


def werktage_voraus(heute: date, tage: int, land: str) -> date:
    """The day `tage` Werktage after heute (weekends and holidays of the Land skipped)."""
    day, count = heute, 0
    while count < tage:
        day += timedelta(days=1)
        if non_working_reason(day, land) is None:
            count += 1
    return day


def step(day: date, days: int) -> date:
    """Date arithmetic that fails with FristError instead of OverflowError."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        raise FristError(
            "Das Datum liegt außerhalb des darstellbaren Bereichs (Jahr 1–9999)."
        ) from None
