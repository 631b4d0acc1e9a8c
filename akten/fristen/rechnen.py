"""The arithmetic of §§ 187–193 BGB: the end of a period in days, weeks, months and years, the
shift past a non-working day, the Vorfrist before it."""

from __future__ import annotations

from calendar import monthrange
from datetime import date

from akten.fristen.kalender import holiday_name, non_working_reason, partial_holidays, step
from akten.fristen.typen import (
    BUNDESLAENDER,
    MONATE,
    Dauer,
    Fristbeginn,
    FristError,
    Verschiebung,
    Vorfrist,
    format_datum,
    parse_dauer,
    quote,
)

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
        end = step(date(year, month, 1), -1)
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


def compute_end(start: date, dauer: Dauer, fristbeginn: Fristbeginn) -> tuple[date, list[str]]:
    """Unshifted end of the Frist plus the German explanation of each step."""
    lines: list[str] = []
    months, days = dauer.monate_gesamt, dauer.tage_gesamt
    if months:
        end, text = _month_part(start, months, fristbeginn)
        lines.append(text)
        if days:
            end = step(end, days)
            lines.append(
                f"Die weiteren {Dauer(tage=dauer.tage, wochen=dauer.wochen).text} werden an das "
                "Ende des Monats-/Jahreszeitraums angeschlossen (entsprechend § 190 BGB) und "
                f"tageweise gezählt: {format_datum(end)}."
            )
        return end, lines
    if fristbeginn == "ereignis":
        end = step(start, days)
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
    end = step(start, days - 1)
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


def shift_forward(day: date, land: str | None) -> tuple[date, tuple[Verschiebung, ...]]:
    """§ 193 BGB / § 222 Abs. 2 ZPO: move to the next Werktag, repeatedly."""
    skipped: list[Verschiebung] = []
    while (reason := non_working_reason(day, land)) is not None:
        skipped.append(Verschiebung(datum=day, grund=reason))
        day = step(day, 1)
    return day, tuple(skipped)


def _shift_backward(day: date, land: str | None) -> tuple[date, tuple[Verschiebung, ...]]:
    """Vorfrist: move to the previous working day (partial holidays count as non-working)."""
    skipped: list[Verschiebung] = []
    while (reason := non_working_reason(day, land, include_partial=True)) is not None:
        skipped.append(Verschiebung(datum=day, grund=reason))
        day = step(day, -1)
    return day, tuple(skipped)


def partial_holiday_hints(
    land: str | None, ende: date, skipped: tuple[Verschiebung, ...]
) -> list[str]:
    """Hinweise for partial holidays that were conservatively *not* treated as holidays."""
    hints: list[str] = []
    if land is None:
        return hints
    partial = partial_holidays(land, ende.year)
    if hit := partial.get(ende):
        name, scope = hit
        hints.append(
            f"Der {ende:%d.%m.}{ende.year} ({name}) ist in {BUNDESLAENDER[land]} kein "
            f"landesweiter gesetzlicher Feiertag ({scope}). Die Frist wurde vorsorglich nicht "
            "verschoben; sie endet bereits an diesem Tag."
        )
    for v in skipped:
        hit = partial_holidays(land, v.datum.year).get(v.datum)
        if hit:
            name, scope = hit
            hints.append(
                f"Der {v.datum:%d.%m.}{v.datum.year} ({name}) ist in {BUNDESLAENDER[land]} kein "
                f"landesweiter gesetzlicher Feiertag ({scope}); er wurde nicht als Feiertag "
                f"gewertet, sondern nur als {v.grund} übersprungen."
            )
    return hints


def regional_holiday_hint(ende: date) -> str | None:
    """Without Bundesland: warn if the end date is a holiday in some Land."""
    by_name: dict[str, list[str]] = {}
    for code in BUNDESLAENDER:
        name = holiday_name(ende, code)
        if name and not holiday_name(ende, None):
            by_name.setdefault(name, []).append(code)
    if not by_name:
        return None
    parts = "; ".join(f"{name} in {', '.join(codes)}" for name, codes in by_name.items())
    return (
        f"Achtung: {format_datum(ende)} ist landesrechtlicher Feiertag ({parts}). Gilt eines "
        "dieser Länder für die Frist, verschiebt sich das Ende – Bundesland angeben."
    )


def vorfrist_vor(
    ende: date, dauer: Dauer, land: str | None, frist_start: date | None = None
) -> tuple[Vorfrist, list[str]]:
    """Shared Vorfrist logic; returns the Vorfrist and extra Hinweise."""
    raw = step(ende, -dauer.tage_gesamt)
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


def parse_vorfrist_dauer(tage: int | None, wochen: int | None) -> Dauer:
    """Default 7 Tage; a Vorfrist longer than a year is certainly a typo."""
    if tage is None and wochen is None:
        tage = 7
    for unit, value in (("Tage", tage), ("Wochen", wochen)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise FristError(f"Die Vorfrist ({unit}) muss eine ganze Zahl sein, nicht {quote(value)}.")
        if value < 0:
            raise FristError(f"Die Vorfrist darf nicht negativ sein ({value} {unit}).")
    dauer = parse_dauer(
        {"tage": 0 if tage is None else tage, "wochen": 0 if wochen is None else wochen}
    )
    if dauer.tage_gesamt > 366:
        raise FristError("Die Vorfrist darf höchstens 366 Tage betragen.")
    return dauer
