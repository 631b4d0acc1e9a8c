"""The firm's Aktenzeichen scheme (Kanzleieinstellung.aktenzeichen_muster): forming the next one.

A Kanzlei numbers its Akten per year („123/26“, „2026-0123“, „123/26 WE“); the scheme is set in the
admin. Placeholders: {nr} the running number in the year (also {nr:03} with leading zeros), {jj}
and {jjjj} the year, {kuerzel} the lawyer's initials. The next number is one above the highest
number of the same year and Kürzel already taken — so an imported Akte „57/26“ moves it on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from akten.namen import woerter

_PLATZHALTER = re.compile(r"\{(nr(?::0?(\d))?|jj|jjjj|kuerzel)\}")


class MusterFehler(ValueError):
    """A scheme that cannot form Aktenzeichen; the message is German, for the admin."""


def pruefe_muster(muster: str) -> None:
    """Raise MusterFehler unless the scheme has exactly one {nr} and knows every placeholder."""
    rest = _PLATZHALTER.sub("", muster)
    if "{" in rest or "}" in rest:
        raise MusterFehler("Unbekannter Platzhalter. Erlaubt sind {nr}, {nr:03}, {jj}, {jjjj} und "
                           "{kuerzel}.")
    if sum(1 for m in _PLATZHALTER.finditer(muster) if m.group(1).startswith("nr")) != 1:
        raise MusterFehler("Das Schema braucht genau einmal die laufende Nummer {nr}.")
    if not re.fullmatch(r"[0-9A-Za-zÄÖÜäöüß/.\- ]*", rest):
        raise MusterFehler("Außer den Platzhaltern sind nur Buchstaben, Ziffern, „/“, „-“, „.“ und "
                           "Leerzeichen erlaubt.")


def bilde(muster: str, *, nr: int, jahr: int, kuerzel: str = "") -> str:
    """The Aktenzeichen with this number."""

    def ersetze(m: re.Match[str]) -> str:
        name = m.group(1)
        if name.startswith("nr"):
            return str(nr).zfill(int(m.group(2) or 0))
        if name == "jj":
            return f"{jahr % 100:02d}"
        if name == "jjjj":
            return str(jahr)
        return kuerzel

    return _PLATZHALTER.sub(ersetze, muster).strip()


def muster_regex(muster: str, *, jahr: int, kuerzel: str = "") -> re.Pattern[str]:
    """A pattern that finds the running number in the Aktenzeichen of this year (and Kürzel)."""
    teile: list[str] = []
    pos = 0
    for m in _PLATZHALTER.finditer(muster):
        teile.append(re.escape(muster[pos:m.start()]))
        name = m.group(1)
        if name.startswith("nr"):
            teile.append(r"(?P<nr>\d+)")
        elif name == "jj":
            teile.append(f"{jahr % 100:02d}")
        elif name == "jjjj":
            teile.append(str(jahr))
        else:
            teile.append(re.escape(kuerzel))
        pos = m.end()
    teile.append(re.escape(muster[pos:]))
    return re.compile("^" + "".join(teile).strip() + "$", re.IGNORECASE)


def naechstes(muster: str, *, jahr: int, vorhandene: Iterable[str], kuerzel: str = "") -> str:
    """The next free Aktenzeichen after the highest number of this year among `vorhandene`."""
    regex = muster_regex(muster, jahr=jahr, kuerzel=kuerzel)
    hoechste = 0
    for az in vorhandene:
        m = regex.match(az.strip())
        if m:
            hoechste = max(hoechste, int(m.group("nr")))
    return bilde(muster, nr=hoechste + 1, jahr=jahr, kuerzel=kuerzel)


def kuerzel_von(name: str) -> str:
    """Initials of a person's name („Dr. Katrin Weber“ → „KW“), for {kuerzel}."""
    # spelled as the Kollisionsprüfung spells names (ä → ae, ł → l, titles dropped): only letters an
    # Aktenzeichen may hold („Łukasz Çelik“ → „LC“, never one the validator refuses)
    return "".join(w[0].upper() for w in woerter(name or "") if w[0].isascii() and w[0].isalpha())[:4]
