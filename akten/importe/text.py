"""An import's report in German sentences: for the command's output, the admin page and the Lauf's
Meldung. Reads the report as stored (ImportLauf.bericht), so an old Lauf reads the same way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

TRENNZEICHEN_NAME = {";": "Semikolon", ",": "Komma", "\t": "Tabulator"}
STATUS_TEXT = {"neu": "neu angelegt", "vorhanden": "schon vorhanden", "fehler": "nicht übernommen"}


def _anzahl(n: int, eins: str, viele: str) -> str:
    return f"{n} {eins if n == 1 else viele}"


def datei_text(bericht: dict[str, Any]) -> str:
    """„alt.csv: CSV, Windows-1252, Trennzeichen Semikolon“."""
    teile = [bericht.get("format", "")]
    if bericht.get("format") == "CSV":
        teile += [bericht.get("kodierung", ""),
                  "Trennzeichen " + TRENNZEICHEN_NAME.get(bericht.get("trennzeichen", ""), "?")]
    return f"{bericht.get('datei', '')}: " + ", ".join(t for t in teile if t)


def zusammenfassung_text(bericht: dict[str, Any]) -> str:
    """The one line that ends every report."""
    z = bericht.get("zusammenfassung") or {}
    neu = z.get("neu", 0)
    angelegt = ("würde neu angelegt" if neu == 1 else "würden neu angelegt") if bericht.get("probelauf") \
        else "neu angelegt"
    teile = [_anzahl(z.get("gesamt", 0), "Zeile", "Zeilen") + ":",
             f"{neu} {angelegt} ({_anzahl(z.get('beteiligte', 0), 'Beteiligte/r', 'Beteiligte')}),",
             f"{z.get('vorhanden', 0)} schon vorhanden,",
             f"{z.get('fehler', 0)} mit Fehler (nicht übernommen);",
             _anzahl(z.get("kollisionen", 0), "Treffer", "Treffer") + " der Kollisionsprüfung"]
    if z.get("konflikte"):
        konflikte = _anzahl(z["konflikte"], "mögliche Interessenkollision", "mögliche Interessenkollisionen")
        teile[-1] += f", davon {konflikte}"
    satz = " ".join(teile) + "."
    if bericht.get("probelauf"):
        satz = "Probelauf – nichts wurde gespeichert. " + satz
    return satz


def zeile_text(zeile: dict[str, Any], *, probelauf: bool) -> str:
    """„Zeile 7 (12/26): nicht übernommen – „31.02.2026“ ist kein gültiges Datum.“"""
    az = f" ({zeile['aktenzeichen']})" if zeile.get("aktenzeichen") else ""
    status = "würde neu angelegt" if probelauf and zeile["status"] == "neu" else STATUS_TEXT[zeile["status"]]
    # a new row's own Meldung repeats the status; only what went in otherwise than written is news
    meldung = " ".join(zeile.get("hinweise", [])) if zeile["status"] == "neu" else zeile.get("meldung", "")
    return f"Zeile {zeile['zeile']}{az}: {status}" + (f" – {meldung}" if meldung else "")


def zeilen(bericht: dict[str, Any], *, alle: bool = False) -> Iterator[str]:
    """The report's lines: the file, unknown columns, every row with a problem, a note or a hit (all
    rows with `alle`), each hit on a line of its own, and the summary."""
    probelauf = bool(bericht.get("probelauf"))
    yield datei_text(bericht)
    if bericht.get("unbekannte_spalten"):
        yield ("Unbekannte Spalten (nicht übernommen): "
               + ", ".join(f"„{s}“" for s in bericht["unbekannte_spalten"]))
    for zeile in bericht.get("zeilen", []):
        if alle or zeile["status"] == "fehler" or zeile.get("kollisionen") or zeile.get("hinweise"):
            yield zeile_text(zeile, probelauf=probelauf)
            for hinweis in zeile.get("kollisionen", []):
                yield f"    Kollisionsprüfung: {hinweis}"
    yield "Ergebnis: " + zusammenfassung_text(bericht)
