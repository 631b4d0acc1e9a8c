"""The pages of a Dokument's text. An upload's text keeps its pages apart with a form feed (as
pdftotext does), so a citation can name the page ("S. 3") and the rest of the code can read the
text as text: `" ".join(text.split())` treats the form feed as any other white space."""

from __future__ import annotations

from dataclasses import dataclass

SEITENUMBRUCH = "\f"
# Formats whose text has pages a reader can cite (a DOCX's pages depend on the printer, a mail has none).
SEITEN_TYPEN = frozenset({"pdf", "bild", "txt"})


@dataclass(frozen=True)
class Seite:
    nummer: int | None  # None: the text has no pages to cite
    text: str


def mit_seiten(seiten: list[str]) -> str:
    return SEITENUMBRUCH.join(s.replace(SEITENUMBRUCH, "\n") for s in seiten)


def seiten_von(*, inhalt: str, dateityp: str) -> list[Seite]:
    """The text page by page; one unnumbered page for a text without citable pages."""
    if dateityp in SEITEN_TYPEN and (SEITENUMBRUCH in inhalt or dateityp != "txt"):
        return [Seite(nummer, text) for nummer, text in enumerate(inhalt.split(SEITENUMBRUCH), start=1)]
    return [Seite(None, inhalt)]


def seite_an(*, inhalt: str, dateityp: str, offset: int) -> int | None:
    """The page on which the character at `offset` stands (None where pages are not citable, or the
    offset is not in the text: the database's match and Python's may differ)."""
    if offset < 0 or dateityp not in SEITEN_TYPEN or (dateityp == "txt" and SEITENUMBRUCH not in inhalt):
        return None
    return inhalt.count(SEITENUMBRUCH, 0, offset) + 1


def fundstelle(nummer: int | None) -> str:
    return f"S. {nummer}" if nummer is not None else ""
