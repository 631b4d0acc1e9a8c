"""A Dokument as DOCX or PDF on the Kanzlei's letterhead (being built)."""

from __future__ import annotations

from dataclasses import dataclass

from akten.models import Dokument


@dataclass(frozen=True)
class Ausgabe:
    inhalt: bytes
    name: str  # the download name, e.g. "Klageerwiderung.pdf"
    mime: str


def render(*, dokument: Dokument, format: str) -> Ausgabe:
    raise NotImplementedError
