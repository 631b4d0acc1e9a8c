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

from akten.fristen.berechnung import (
    berechne,
    berechne_frist,
    berechne_preset,
    berechne_vorfrist,
    kein_werktag,
)
from akten.fristen.eingabe import normalisiere_bundesland, parse_datum
from akten.fristen.presets import PRESETS
from akten.fristen.typen import (
    BUNDESLAENDER,
    Dauer,
    Fristbeginn,
    FristErgebnis,
    FristError,
    FristPreset,
    Verschiebung,
    Vorfrist,
    format_datum,
    parse_dauer,
)

__all__ = [
    "BUNDESLAENDER",
    "PRESETS",
    "Dauer",
    "FristErgebnis",
    "FristError",
    "FristPreset",
    "Fristbeginn",
    "Verschiebung",
    "Vorfrist",
    "berechne",
    "berechne_frist",
    "berechne_preset",
    "berechne_vorfrist",
    "format_datum",
    "kein_werktag",
    "normalisiere_bundesland",
    "parse_datum",
    "parse_dauer",
]
