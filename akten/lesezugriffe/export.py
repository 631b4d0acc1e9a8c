"""The read log as CSV for Excel: German header, semicolon, UTF-8 with BOM (else Excel reads
„Müller“ as „MÃ¼ller“), German dates; a cell that Excel would take for a formula („=…“, e.g. in a
Dokument's title someone uploaded, or a username) is written as text: a leading ' (Excel evaluates a
cell beginning with = + - @, a tab or CR; „- Entwurf“ would show #NAME?, „'- Entwurf“ shows the title
with its text mark). A file cut at its limit says so in its last line."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from django.utils import timezone

from akten.models import Lesezugriff

KOPF = ("Zeitpunkt", "Person", "Benutzername", "Weg", "Was", "Dokument", "Format", "Helena-Lauf")
_FORMEL = ("=", "+", "-", "@", "\t", "\r")


def _zelle(wert: str) -> str:
    return f"'{wert}" if wert.startswith(_FORMEL) else wert


def zeile(z: Lesezugriff) -> tuple[str, ...]:
    return (
        timezone.localtime(z.zeitpunkt).strftime("%d.%m.%Y %H:%M:%S"),
        _zelle(z.person),
        _zelle(z.user.username) if z.user_id else "",
        z.get_weg_display(),
        z.get_bereich_display(),
        _zelle(z.dokument_titel),
        z.format,
        str(z.run_id) if z.run_id else "",
    )


def abgeschnitten(hoechstens: int) -> str:
    zahl = f"{hoechstens:,}".replace(",", ".")  # 100.000, German
    return f"Nur die neuesten {zahl} Einträge – es gibt mehr. Bitte grenze mit Zeitraum, Person oder Weg ein."


def als_csv(zeilen: Iterable[Lesezugriff], *, hoechstens: int | None = None) -> bytes:
    """`zeilen` may hold one row more than `hoechstens`: then the file ends with a line saying so."""
    puffer = io.StringIO()
    schreiber = csv.writer(puffer, delimiter=";", lineterminator="\r\n")
    schreiber.writerow(KOPF)
    for n, z in enumerate(zeilen):
        if hoechstens is not None and n >= hoechstens:
            schreiber.writerow((abgeschnitten(hoechstens),))
            break
        schreiber.writerow(zeile(z))
    return puffer.getvalue().encode("utf-8-sig")
