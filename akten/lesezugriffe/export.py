"""The read log as CSV for Excel: German header, semicolon, UTF-8 with BOM (else Excel reads
„Müller“ as „MÃ¼ller“), German dates; a cell that Excel would take for a formula („=…“, e.g. in a
Dokument's title someone uploaded) is written as text."""

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
        z.user.username if z.user_id else "",
        z.get_weg_display(),
        z.get_bereich_display(),
        _zelle(z.dokument_titel),
        z.format,
        str(z.run_id) if z.run_id else "",
    )


def als_csv(zeilen: Iterable[Lesezugriff]) -> bytes:
    puffer = io.StringIO()
    schreiber = csv.writer(puffer, delimiter=";", lineterminator="\r\n")
    schreiber.writerow(KOPF)
    schreiber.writerows(zeile(z) for z in zeilen)
    return puffer.getvalue().encode("utf-8-sig")
