"""Norm citations in a text Helena wrote („§ 517 ZPO“, „§§ 187, 188 BGB“, „Art. 229 § 6 EGBGB“,
„§ 823 I BGB“, „§§ 327 ff. BGB“, „§ 35 SGB 5“) as
links to the statute page, with the moment of the citation (`?zitiert=…`): the page then says
whether the norm changed since (helena/knowledge/normverlauf.py). helena.presentation puts the links
into answers, Helena's memory of an Akte and drafts.

Only norms that are loaded (or were, and are repealed now) are linked: a citation of a law the firm
does not have stays text. One or two queries for all texts of a page part, none without a „§“.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import Q
from django.urls import reverse

from helena.knowledge.importers.common import canonical_abk
from helena.knowledge.models import Norm, NormAenderung
from helena.knowledge.normverlauf import zitiert_param

MAX_ZITATE = 200  # candidates per call; more is no text a person reads

_NUM = r"\d{1,4}[a-z]?(?![a-zäöüß])"
_ZITAT_RE = re.compile(
    rf"""
    (?:
        (?P<art>\bArt(?:ikel|\.)?)\s*(?P<artnr>{_NUM})\s*§\s*(?P<parnr>{_NUM})
      | (?P<prefix>§§?|\bArt(?:ikel|\.)?)\s*(?P<nums>{_NUM}(?:\s*(?:,|und|u\.|bis|-|–)\s*{_NUM})*)
    )
    (?:\s*(?:Abs\.?|Absatz|S\.|Satz|Nr\.?|Nummer|Buchst\.?|lit\.?|Ziff\.?|Alt\.?|Hs\.?)\s*\d{{1,3}}[a-z]?
       |\s*(?:lit\.?|Buchst\.?)\s*[a-z]\b|\s+[IVX]{{1,4}}(?=\s+[A-ZÄÖÜ])|\s*ff?\.)*
    \s+(?P<abk>[A-ZÄÖÜ][A-Za-zÄÖÜäöüß0-9]{{1,15}})(?P<buch>\s+(?:[IVX]{{1,4}}|\d{{1,2}}))?\b
    """,
    re.VERBOSE,
)
_NUM_RE = re.compile(_NUM)


@dataclass(frozen=True)
class Verweis:
    """A stretch of a text that leads to a statute page."""

    start: int
    end: int
    url: str


@dataclass(frozen=True)
class _Fund:
    start: int
    end: int
    abks: tuple[str, ...]  # "SGB V" before "SGB": the longer abbreviation wins
    nummer: str


def _funde(text: str) -> list[_Fund]:
    funde: list[_Fund] = []
    if "§" not in text and "Art" not in text:
        return funde
    for match in _ZITAT_RE.finditer(text):
        abk = match.group("abk")
        # "§ 35 SGB V", "§ 35 SGB 5" (a book in Arabic numerals is cited as its Roman one)
        buch = canonical_abk(f"{abk} {match.group('buch').strip()}") if match.group("buch") else ""
        abks = (buch, abk) if buch else (abk,)
        if match.group("art"):
            nummer = f"{match.group('artnr')}§{match.group('parnr')}".lower()
            funde.append(_Fund(match.start(), match.start("abk") + len(abk), abks, nummer))
            continue
        nums = list(_NUM_RE.finditer(match.group("nums")))
        if len(nums) == 1:  # the whole citation is the link
            end = match.end("buch") if match.group("buch") else match.start("abk") + len(abk)
            funde.append(_Fund(match.start(), end, abks, nums[0].group().lower()))
            continue
        offset = match.start("nums")
        for index, num in enumerate(nums):  # "§§ 187, 188 BGB": each number its own link
            start = match.start() if index == 0 else offset + num.start()
            funde.append(_Fund(start, offset + num.end(), abks, num.group().lower()))
    return funde


def _vorhanden(funde: Sequence[_Fund]) -> dict[tuple[str, str], str]:
    """(abk in lower case, nummer) → the law's abbreviation as stored, for the norms there are."""
    paare = {(abk, fund.nummer) for fund in funde for abk in fund.abks}
    if not paare:
        return {}
    bedingung = Q()
    for abk, nummer in paare:
        bedingung |= Q(gesetz__abk__iexact=abk, nummer=nummer)
    found = {(abk.lower(), nummer): abk for abk, nummer in
             Norm.objects.filter(bedingung).values_list("gesetz__abk", "nummer").distinct()}
    rest = [(abk, nummer) for abk, nummer in paare if (abk.lower(), nummer) not in found]
    if rest:
        bedingung = Q()
        for abk, nummer in rest:
            bedingung |= Q(gesetz_abk__iexact=abk, nummer=nummer)
        repealed = NormAenderung.objects.filter(bedingung, art=NormAenderung.Art.AUFGEHOBEN)
        found.update(((abk.lower(), nummer), abk)
                     for abk, nummer in repealed.values_list("gesetz_abk", "nummer").distinct())
    return found


def norm_url(*, abk: str, nummer: str, zitiert: datetime | date | None = None) -> str:
    """The statute page of a norm; with the moment it was cited, if known."""
    url = reverse("wissen:norm", args=[abk, nummer])
    return f"{url}?zitiert={zitiert_param(zitiert)}" if zitiert is not None else url  # digits, "-", "T", ":"


def verweise(texte: Sequence[str], *, zitiert: datetime | date | None) -> list[list[Verweis]]:
    """For each text the stretches that cite a loaded norm, each with its link (in text order)."""
    funde = [_funde(text) for text in texte]
    alle = [fund for liste in funde for fund in liste][:MAX_ZITATE]
    vorhanden = _vorhanden(alle)
    ergebnis: list[list[Verweis]] = []
    for liste in funde:
        links: list[Verweis] = []
        for fund in liste:
            keys = [(abk.lower(), fund.nummer) for abk in fund.abks]
            abk = next((vorhanden[key] for key in keys if key in vorhanden), None)
            if abk is not None:
                url = norm_url(abk=abk, nummer=fund.nummer, zitiert=zitiert)
                links.append(Verweis(fund.start, fund.end, url))
        ergebnis.append(links)
    return ergebnis
