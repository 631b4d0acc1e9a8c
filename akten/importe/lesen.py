"""Reading the old Kanzlei software's export into rows: CSV as such programs write it (UTF-8 with or
without BOM, Windows-1252, UTF-16 from Excel's „Unicode-Text“; `;`, `,` or tab; quoted fields with
separators and line breaks inside; CRLF) or an Excel workbook (XLSX, its first sheet).

The columns are found by their header, whatever the case, spacing and order; a title line above the
header (some programs write „Aktenexport vom …“) is skipped. A row is numbered as Excel shows it —
the header's row, if it is the first, is Zeile 1 — which is also the line in a text editor as long as
no field holds a line break. What cannot be read at all raises DateiUnlesbar (German); a single bad
row is pruefen.py's business.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import unicodedata
import zipfile
from dataclasses import dataclass, field
from typing import Any

from config.errors import DomainError

SPALTEN = ("aktenzeichen", "kurzrubrum", "rechtsgebiet", "mandant", "gegner", "gegenstandswert", "anwalt",
           "bundesland", "angelegt", "beendet")
# Headers of the protocol as they are written (for messages), and what old programs also call them.
UEBERSCHRIFT = {"aktenzeichen": "Aktenzeichen", "kurzrubrum": "Kurzrubrum", "rechtsgebiet": "Rechtsgebiet",
                "mandant": "Mandant", "gegner": "Gegner", "gegenstandswert": "Gegenstandswert",
                "anwalt": "Anwalt", "bundesland": "Bundesland", "angelegt": "Angelegt",
                "beendet": "Beendet"}
AUCH = {"az": "aktenzeichen", "rubrum": "kurzrubrum", "sachgebiet": "rechtsgebiet", "mandanten": "mandant",
        "angelegt am": "angelegt", "anlagedatum": "angelegt", "streitwert": "gegenstandswert",
        "beendet am": "beendet", "mandat beendet am": "beendet", "erledigt am": "beendet",
        "abgeschlossen am": "beendet", "abgeschlossen": "beendet"}
# Columns that may come twice: their cells are parties, and both columns' parties count.
MEHRFACH = frozenset({"mandant", "gegner"})
KOPF_SUCHEN_IN = 10  # the header is looked for in the first rows
TRENNZEICHEN = (";", ",", "\t")
XLSX_ANFANG = b"PK\x03\x04"
XLS_ANFANG = b"\xd0\xcf\x11\xe0"  # the old binary Excel format (OLE2)


class DateiUnlesbar(DomainError):
    """Nothing of the file can be imported: not readable, or its header names no Aktenzeichen."""

    status, code = 422, "datei_unlesbar"


@dataclass
class Rohzeile:
    """One data row: its number as Excel shows it and its cells by column (str, or a number or date
    from an XLSX cell); a party column holds a list of cells when the header has it twice."""

    nummer: int
    werte: dict[str, Any]
    ueberzaehlig: int = 0  # cells beyond the header that are not empty


@dataclass
class Tabelle:
    format: str                     # "CSV" or "XLSX"
    kodierung: str = ""             # for a CSV: "UTF-8", "UTF-8 mit BOM", "Windows-1252", "UTF-16"
    trennzeichen: str = ""          # for a CSV
    spalten: list[str] = field(default_factory=list)             # the known columns found
    unbekannte_spalten: list[str] = field(default_factory=list)  # as written in the header
    kopfzeile: int = 1
    zeilen: list[Rohzeile] = field(default_factory=list)


def spaltenname(text: Any) -> str:
    """A header cell as compared: case, spaces, a BOM, a unit in brackets and „in EUR“ don't count."""
    name = unicodedata.normalize("NFC", str(text or "")).replace("\ufeff", "").strip().casefold()
    name = re.sub(r"\s*\((?:eur|€|in eur|tt\.mm\.jjjj)\)\s*$|\s+in\s+(?:eur|€)$|\s*[:€]$", "", name)
    name = " ".join(name.replace("_", " ").split())
    return AUCH.get(name, name) if name not in SPALTEN else name


def lies(inhalt: bytes, dateiname: str = "") -> Tabelle:
    """The file's rows by column; DateiUnlesbar with the reason in German if that is impossible."""
    if not inhalt.strip():
        raise DateiUnlesbar("Die Datei ist leer.")
    if inhalt.startswith(XLS_ANFANG):
        raise DateiUnlesbar("Das alte Excel-Format (.xls) kann Helena nicht lesen. Speichere die Datei in "
                            "Excel als „Excel-Arbeitsmappe (.xlsx)“ oder als CSV und lade sie neu hoch.")
    if inhalt.startswith(XLSX_ANFANG):
        return _xlsx(inhalt)
    if dateiname.lower().endswith((".xlsx", ".xlsm", ".xls", ".ods", ".pdf", ".docx")):
        raise DateiUnlesbar(f"„{dateiname}“ ist keine lesbare Tabelle. Erwartet wird eine CSV- oder "
                            "XLSX-Datei.")
    return _csv(inhalt)


def _text(inhalt: bytes) -> tuple[str, str]:
    """The text and the encoding it was written in. UTF-8 is tried first: a Windows-1252 file with
    umlauts is never valid UTF-8, and a plain ASCII file reads the same either way."""
    if inhalt.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return inhalt.decode("utf-16"), "UTF-16"
    if inhalt.startswith(codecs.BOM_UTF8):
        try:
            return inhalt[len(codecs.BOM_UTF8):].decode("utf-8"), "UTF-8 mit BOM"
        except UnicodeDecodeError:
            raise DateiUnlesbar("Die Datei beginnt wie UTF-8, enthält aber Zeichen in einer anderen "
                                "Kodierung. Speichere sie noch einmal als CSV (UTF-8).") from None
    try:
        return inhalt.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        pass
    if b"\x00" in inhalt:
        raise DateiUnlesbar("Die Datei ist keine Textdatei (CSV) und keine XLSX-Arbeitsmappe.")
    # five bytes have no character in Windows-1252; where they occur, they stand as in Latin-1
    try:
        return inhalt.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError:
        return inhalt.decode("latin-1"), "Windows-1252"


def _trennzeichen(text: str) -> str:
    """The separator is the one the header line uses most (counted outside quotes): the data rows
    are no guide, since amounts like 1.234,56 bring commas into a semicolon file."""
    for zeile in text.splitlines()[:KOPF_SUCHEN_IN]:
        ohne_zitate = re.sub(r'"[^"]*"', "", zeile)
        anzahl = {z: ohne_zitate.count(z) for z in TRENNZEICHEN}
        bestes = max(TRENNZEICHEN, key=lambda z: anzahl[z])
        if anzahl[bestes] and any(spaltenname(t) in SPALTEN for t in zeile.split(bestes)):
            return bestes
    erste = text.strip().splitlines()[0] if text.strip() else ""
    return max(TRENNZEICHEN, key=erste.count)


def _csv(inhalt: bytes) -> Tabelle:
    text, kodierung = _text(inhalt)
    trennzeichen = _trennzeichen(text)
    try:
        reihen = list(csv.reader(io.StringIO(text, newline=""), delimiter=trennzeichen, quotechar='"'))
    except csv.Error as exc:
        raise DateiUnlesbar(f"Die CSV-Datei ist nicht lesbar ({exc}).") from None
    tabelle = Tabelle(format="CSV", kodierung=kodierung, trennzeichen=trennzeichen)
    return _ordnen(tabelle, reihen)


def _xlsx(inhalt: bytes) -> Tabelle:
    import openpyxl  # noqa: PLC0415  (openpyxl is large; only an XLSX import needs it)

    try:
        mappe = openpyxl.load_workbook(io.BytesIO(inhalt), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise DateiUnlesbar("Die Datei ist keine lesbare XLSX-Arbeitsmappe. Speichere sie in Excel noch "
                            "einmal als „Excel-Arbeitsmappe (.xlsx)“ oder als CSV.") from exc
    try:
        blatt = mappe.worksheets[0]
        reihen = [list(reihe) for reihe in blatt.iter_rows(values_only=True)]
    finally:
        mappe.close()
    return _ordnen(Tabelle(format="XLSX"), reihen)


def _leer(wert: Any) -> bool:
    return wert is None or (isinstance(wert, str) and not wert.strip())


def _kopf_finden(reihen: list[list[Any]]) -> int:
    """The index of the header row: the first of the first rows that names the Aktenzeichen."""
    for index, reihe in enumerate(reihen[:KOPF_SUCHEN_IN]):
        if any(spaltenname(zelle) == "aktenzeichen" for zelle in reihe if not _leer(zelle)):
            return index
    gefunden = next((r for r in reihen if any(not _leer(z) for z in r)), [])
    namen = ", ".join(f"„{str(z).strip()}“" for z in gefunden if not _leer(z))[:300]
    raise DateiUnlesbar("In der Kopfzeile fehlt die Spalte „Aktenzeichen“ (gefunden: "
                        f"{namen or 'nichts'}). Erwartet werden die Spalten "
                        + ", ".join(UEBERSCHRIFT.values()) + ".")


def _ordnen(tabelle: Tabelle, reihen: list[list[Any]]) -> Tabelle:
    """Map the header to the columns and each later row to {column: cell}."""
    kopf_index = _kopf_finden(reihen)
    tabelle.kopfzeile = kopf_index + 1
    spalte_von: dict[int, str] = {}
    for position, zelle in enumerate(reihen[kopf_index]):
        if _leer(zelle):
            continue
        name = spaltenname(zelle)
        if name not in SPALTEN:
            tabelle.unbekannte_spalten.append(str(zelle).strip())
            continue
        if name in spalte_von.values() and name not in MEHRFACH:
            raise DateiUnlesbar(f"Die Spalte „{UEBERSCHRIFT[name]}“ steht zweimal in der Kopfzeile.")
        spalte_von[position] = name
    tabelle.spalten = list(dict.fromkeys(spalte_von.values()))
    if "kurzrubrum" not in tabelle.spalten and "mandant" not in tabelle.spalten:
        raise DateiUnlesbar("Es fehlt die Spalte „Kurzrubrum“ oder „Mandant“ (aus Mandant und Gegner "
                            "bildet Helena das Kurzrubrum).")
    breite = len(reihen[kopf_index])
    for index in range(kopf_index + 1, len(reihen)):
        reihe = reihen[index]
        if all(_leer(zelle) for zelle in reihe):
            continue  # an empty row (often the last ones) is no record
        werte: dict[str, Any] = {}
        for position, name in spalte_von.items():
            zelle = reihe[position] if position < len(reihe) else None
            if name in MEHRFACH and list(spalte_von.values()).count(name) > 1:
                werte.setdefault(name, []).append(zelle)
            else:
                werte[name] = zelle
        ueberzaehlig = sum(1 for zelle in reihe[breite:] if not _leer(zelle))
        tabelle.zeilen.append(Rohzeile(nummer=index + 1, werte=werte, ueberzaehlig=ueberzaehlig))
    return tabelle
