"""The feed's entries as iCalendar (RFC 5545), written by the `icalendar` library: it folds lines at
75 octets, ends them with CRLF and escapes commas, semicolons and backslashes in German titles, which
a hand-written template would get wrong in some corner.

How an entry reads in a calendar (docs/betrieb.md „Kalender-Abo“):
- one event per Frist, Termin or Wiedervorlage; its UID is the record's (`frist-<id>@<host>`), never
  its date, so a moved Frist moves in the calendar instead of appearing twice; SEQUENCE counts the
  changes of the record and of its Akte (their history: the title shows the Aktenzeichen and maybe
  the Kurzrubrum), LAST-MODIFIED and DTSTAMP are the latest change of the record, its Akte and the
  firm's setting (RFC 5545 3.8.7.2: in a feed without METHOD, DTSTAMP is when the record was last
  revised), so a program that keeps what did not change sees a new title, and an unchanged feed is
  the same bytes at every refresh;
- with a time: a timed event in Europe/Berlin (with its VTIMEZONE), 60 minutes for a Termin, 30 for
  a Frist or Wiedervorlage; a wall time the clocks skip (02:30 on the day summer time begins) starts
  when the clocks say 03:30, as RFC 5545 reads it, so the end never comes before the start; without
  a time: an all-day event;
- a Vorfrist twice, because calendar programs differ: a reminder (VALARM) at 9:00 on the Vorfrist's
  day, relative to the event, only if that day is today or later — a reminder in the past would pop
  up for every overdue Frist at each refresh (Google ignores reminders of subscribed calendars
  anyway) —, and an all-day event „Vorfrist: …“ on that day, as in a paper Fristenkalender;
- a Notfrist says so first in its title („NOTFRIST: …“), with PRIORITY 1 and its category;
- erledigt: still there for some days (selectors.ERLEDIGT_TAGE), „✓ erledigt – …“, without
  reminder and without the Vorfrist's event. Not STATUS:CANCELLED: a Frist that was kept is no
  cancelled appointment. A record that is gone (deleted, or of an Akte the person lost) is left out:
  that is how a subscribed calendar learns it is gone;
- § 203 StGB: the title carries the Aktenzeichen and the entry's Bezeichnung, the Kurzrubrum (the
  parties' names) only if the Kanzlei allows it (Kanzleieinstellung.kalender_mit_kurzrubrum); never
  the Frist's Notiz or Erledigungsvermerk. CLASS:PRIVATE asks programs that share a calendar to hide
  the details.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.urls import reverse
from icalendar import Alarm, Calendar, Event, Timezone

from akten.accounts.users import anzeigename
from akten.fristen import format_datum
from akten.models import Frist

PRODID = "-//Helena//Fristenkalender der Kanzlei//DE"
VORFRIST_UHR = time(9, 0)
DAUER = {Frist.Typ.TERMIN: timedelta(minutes=60)}
DAUER_SONST = timedelta(minutes=30)
AKTUALISIEREN = timedelta(hours=1)  # how often a program should ask again (REFRESH-INTERVAL, Outlook's TTL)
TYP_TITEL = {Frist.Typ.FRIST: "Frist", Frist.Typ.TERMIN: "Termin", Frist.Typ.WIEDERVORLAGE: "Wiedervorlage"}


@dataclass(frozen=True)
class Rahmen:
    """What is the same for every entry of one feed."""

    host: str  # the feed's host name: part of every UID, stable as long as the subscribed address is
    basis_url: str  # scheme and host, for the link to the entry in Helena
    titel: str  # the calendar's name in the program
    mit_kurzrubrum: bool
    heute: date  # a Vorfrist before it gets no reminder; the VTIMEZONE covers it


def _zone() -> ZoneInfo:
    return ZoneInfo(settings.TIME_ZONE)


def _akte_text(frist: Frist, rahmen: Rahmen) -> str:
    akte = frist.akte
    if rahmen.mit_kurzrubrum:
        return f"Az. {akte.aktenzeichen}, {akte.kurzrubrum}"
    return f"Az. {akte.aktenzeichen}"


def _art(frist: Frist) -> str:
    return "NOTFRIST" if frist.ist_notfrist else TYP_TITEL.get(frist.typ, "Frist")


def titel(frist: Frist, rahmen: Rahmen) -> str:
    """„Frist: Berufungsbegründung (Az. 12/26)“; „NOTFRIST: …“; „✓ erledigt – …“ once done."""
    text = f"{_art(frist)}: {frist.bezeichnung} ({_akte_text(frist, rahmen)})"
    if frist.erledigt:
        return f"✓ erledigt – {text}"
    if frist.wartet_auf_bestaetigung:
        return f"{text} – Erledigung wartet auf Bestätigung"
    return text


def _wann(frist: Frist) -> str:
    uhr = f", {frist.uhrzeit:%H:%M} Uhr" if frist.uhrzeit else ""
    return f"{format_datum(frist.datum)}{uhr}"


def beschreibung(frist: Frist, rahmen: Rahmen, link: str) -> str:
    art = TYP_TITEL.get(frist.typ, "Frist") + (" (Notfrist)" if frist.ist_notfrist else "")
    zeilen = [f"{art} – {_akte_text(frist, rahmen)}",
              ("Termin: " if frist.typ == Frist.Typ.TERMIN else "Fristende: ") + _wann(frist)]
    if frist.vorfrist:
        zeilen.append(f"Vorfrist: {format_datum(frist.vorfrist)}")
    zeilen.append("Verantwortlich: " + anzeigename(frist.verantwortlich, niemand="niemand eingetragen"))
    if frist.erledigt:
        zeile = "Erledigt"
        if frist.erledigt_am:
            zeile += " am " + format_datum(frist.erledigt_am.astimezone(_zone()).date())
        if frist.erledigt_von:
            zeile += " von " + anzeigename(frist.erledigt_von)
        zeilen.append(zeile)
    elif frist.wartet_auf_bestaetigung:
        zeilen.append("Erledigung eingetragen, wartet auf die Bestätigung einer zweiten Person.")
    zeilen.append(f"In Helena: {link}")
    return "\n".join(zeilen)


def _beginn(frist: Frist) -> date | datetime:
    if frist.uhrzeit is None:
        return frist.datum
    # through UTC and back: a wall time that does not exist (the hour skipped in spring) becomes the
    # time the clocks show then, so that the end computed from it is after it
    return datetime.combine(frist.datum, frist.uhrzeit, tzinfo=_zone()).astimezone(UTC).astimezone(_zone())


def _ende(frist: Frist) -> date | datetime:
    beginn = _beginn(frist)
    if isinstance(beginn, datetime):
        return beginn + DAUER.get(frist.typ, DAUER_SONST)
    return frist.datum + timedelta(days=1)


def _stand(frist: Frist) -> datetime:
    """The latest change of the record, its Akte and the firm's setting (selectors.eintraege_fuer),
    in UTC; without those: when the record was made."""
    stand = getattr(frist, "stand", None) or frist.angelegt_am
    return stand.astimezone(UTC).replace(microsecond=0)


def _sequenz(frist: Frist) -> int:
    """0 for a record never changed, then one more with every change of it or of its Akte (their
    history's rows, which only grow: the number never goes down)."""
    eigene = max((getattr(frist, "aenderungen", None) or 1) - 1, 0)
    return eigene + max((getattr(frist, "akte_aenderungen", None) or 1) - 1, 0)


def vorfrist_ausloeser(frist: Frist) -> timedelta:
    """The reminder's trigger relative to the event's start: 9:00 on the Vorfrist's day. Days stay
    days (RFC 5545 durations in days are nominal), so a change of summer time does not move it."""
    beginn = _beginn(frist)
    if isinstance(beginn, datetime):
        beginn = beginn.replace(tzinfo=None)  # the wall time: days are calendar days
    else:
        beginn = datetime.combine(beginn, time(0))
    return datetime.combine(frist.vorfrist, VORFRIST_UHR) - beginn


def _gemeinsam(event: Event, frist: Frist) -> None:
    stand = _stand(frist)
    event.add("dtstamp", stand)
    event.add("last-modified", stand)
    event.add("created", frist.angelegt_am.astimezone(UTC).replace(microsecond=0))
    event.add("sequence", _sequenz(frist))
    event.add("class", "PRIVATE")


def _hauptereignis(frist: Frist, rahmen: Rahmen, uid: str, link: str, mit_vorfrist: bool) -> Event:
    event = Event()
    event.add("uid", uid)
    event.add("summary", titel(frist, rahmen))
    event.add("dtstart", _beginn(frist))
    event.add("dtend", _ende(frist))
    _gemeinsam(event, frist)
    event.add("description", beschreibung(frist, rahmen, link))
    event.add("url", link)
    event.add("status", "CONFIRMED")
    belegt = frist.uhrzeit is not None and frist.typ == Frist.Typ.TERMIN and not frist.erledigt
    event.add("transp", "OPAQUE" if belegt else "TRANSPARENT")
    kategorien = [TYP_TITEL.get(frist.typ, "Frist")] + (["Notfrist"] if frist.ist_notfrist else [])
    event.add("categories", kategorien + (["erledigt"] if frist.erledigt else []))
    if frist.ist_notfrist:
        event.add("priority", 1)
    if mit_vorfrist:
        ende = "Termin" if frist.typ == Frist.Typ.TERMIN else "Fristende"
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", f"Vorfrist: {frist.bezeichnung} ({_akte_text(frist, rahmen)}) – "
                                 f"{ende} {_wann(frist)}")
        alarm.add("trigger", vorfrist_ausloeser(frist))
        event.add_component(alarm)
    return event


def _vorfrist_ereignis(frist: Frist, rahmen: Rahmen, uid: str, link: str) -> Event:
    """The Vorfrist as an all-day entry of its own, tied to its Frist (RELATED-TO)."""
    event = Event()
    event.add("uid", f"frist-{frist.pk}-vorfrist@{rahmen.host}")
    event.add("summary", f"Vorfrist zu {_art(frist)}: {frist.bezeichnung} ({_akte_text(frist, rahmen)}) – "
                         f"Ende {format_datum(frist.datum)}")
    event.add("dtstart", frist.vorfrist)
    event.add("dtend", frist.vorfrist + timedelta(days=1))
    _gemeinsam(event, frist)
    event.add("description", beschreibung(frist, rahmen, link))
    event.add("url", link)
    event.add("transp", "TRANSPARENT")
    event.add("categories", ["Vorfrist"] + (["Notfrist"] if frist.ist_notfrist else []))
    event.add("related-to", uid)
    return event


def _eintrag(frist: Frist, rahmen: Rahmen) -> Iterable[Event]:
    uid = f"frist-{frist.pk}@{rahmen.host}"
    link = rahmen.basis_url + reverse("akten:frist_detail", args=[frist.akte_id, frist.pk])
    mit_vorfrist = frist.vorfrist is not None and frist.vorfrist < frist.datum and not frist.erledigt
    yield _hauptereignis(frist, rahmen, uid, link, mit_vorfrist and frist.vorfrist >= rahmen.heute)
    if mit_vorfrist:
        yield _vorfrist_ereignis(frist, rahmen, uid, link)


def kalender(*, eintraege: Iterable[Frist], rahmen: Rahmen) -> bytes:
    """The whole feed. It always holds the VTIMEZONE of Europe/Berlin, so a feed without entries is
    still a valid calendar (RFC 5545 wants at least one component)."""
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("name", rahmen.titel)
    cal.add("x-wr-calname", rahmen.titel)
    cal.add("x-wr-timezone", settings.TIME_ZONE)
    cal.add("refresh-interval", AKTUALISIEREN, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", "PT1H")
    events = [event for frist in eintraege for event in _eintrag(frist, rahmen)]
    tage = [rahmen.heute] + [event.decoded("dtstart") for event in events]
    tage = [tag.date() if isinstance(tag, datetime) else tag for tag in tage]
    zone = Timezone.from_tzid(settings.TIME_ZONE, first_date=date(min(tage).year - 1, 1, 1),
                              last_date=date(max(tage).year + 2, 1, 1))
    zone.pop("COMMENT", None)  # the library's English note on the years covered: the range is ours
    cal.add_component(zone)
    for event in events:
        cal.add_component(event)
    return cal.to_ical()
