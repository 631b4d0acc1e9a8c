"""What every knowledge importer shares: the parsed shapes (ParsedGesetz, ParsedNorm, ParsedUrteil,
ImportProblem), limits, and how a heading becomes norms (numbers, ranges, Gliederung)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

GLIEDERUNG_SEP = " › "
WEGGEFALLEN = "(weggefallen)"
# Upper bound for expanding "§§ 3 bis 6" into single norms; larger ranges are kept as one norm.
MAX_RANGE = 200
# The Markdown corpus is wrapped at 70 columns: a shorter line followed by a word that would have fit
# is a real line break (measured over the whole corpus).
WRAP_COLUMNS = 70

# Lengths of the model fields, so a bad source line becomes a problem instead of a DB error.
MAX_GERICHT = 300
MAX_AKTENZEICHEN = 200
MAX_TYP = 100
MAX_ECLI = 200
MAX_QUELLE = 300


class ImportFormatError(ValueError):
    """A source file we cannot read; the message is German and meant for the user."""


@dataclass
class ParsedNorm:
    bezeichnung: str
    nummer: str
    titel: str
    text: str
    order: int
    gliederung: str
    fussnoten: str = ""  # the official footnotes (gii XML <fussnoten>): shown with the norm, not searched


@dataclass
class ParsedGesetz:
    abk: str
    titel: str
    stand: str
    stand_datum: date | None
    quelle: str
    normen: list[ParsedNorm] = field(default_factory=list)


@dataclass
class ParsedUrteil:
    gericht: str
    datum: date | None
    aktenzeichen: str
    typ: str
    leitsatz: str
    text: str
    ecli: str
    quelle: str


@dataclass(frozen=True)
class ImportProblem:
    line_no: int
    message: str

    def __str__(self) -> str:
        return f"Zeile {self.line_no}: {self.message}"


# --- shared helpers -------------------------------------------------------------------------

_STAND_DATE_RE = re.compile(r"\bv(?:om|\.)\s*(\d{1,2})\.\s*(\d{1,2})\.\s*(\d{4})")
_YEAR_SUFFIX_RE = re.compile(r"\s+\d{4}$")
# juris abbreviations that differ from what lawyers cite (and what gesetze-im-internet.de calls amtabk).
_CITED_ABK = {"WoEigG": "WEG", "BGBEG": "EGBGB", "ZPOEG": "EGZPO", "GVGEG": "EGGVG"}
# The books of the Sozialgesetzbuch are cited with Roman numerals ("§ 35 SGB V"); juris mixes both.
_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV")
_SGB_RE = re.compile(r"^SGB\s+(\d{1,2})$")

NORM_HEAD_RE = re.compile(
    r"""^(?:\(XXXX\)\s*)?
    (?P<kind>§§?|Art(?:ikel|\.)?)\s*
    (?P<nums>\d+[a-z]{0,2}(?:\s*(?:bis|und|u\.|,)\s*\d+[a-z]{0,2})*)
    (?![\w.])\s*(?P<titel>.*)$""",
    re.VERBOSE,
)
_NUM_RE = re.compile(r"(\d+)([a-z]{0,2})")
# Units outside the §/Art numbering that still carry text worth finding.
_SONSTIGE_RE = re.compile(
    r"^(?P<bez>(?:Eingangsformel|Präambel|Schlu(?:ß|ss)formel)\b"
    r"|(?:Anlage|Anhang)\b(?:\s+(?:EV|[0-9]+[a-z]?|[IVX]+[a-z]?)(?![\w]))?)(?P<rest>.*)$"
)
ZU_NORM_RE = re.compile(r"^\(zu (?:§|Art)[^)]*\)$")


def canonical_abk(abk: str) -> str:
    """The abbreviation lawyers cite: juris adds a year to re-enacted laws ("GKG 2004" → "GKG")."""
    abk = " ".join(abk.split())
    abk = _CITED_ABK.get(abk, abk)
    if (sgb := _SGB_RE.match(abk)) and 1 <= int(sgb.group(1)) <= len(_ROMAN):
        return f"SGB {_ROMAN[int(sgb.group(1)) - 1]}"
    return _YEAR_SUFFIX_RE.sub("", abk) or abk


def parse_stand_datum(stand: str) -> date | None:
    """The first "v. 7.5.2021" in a Stand note, None if there is none or it is no real date."""
    match = _STAND_DATE_RE.search(stand)
    if not match:
        return None
    day, month, year = (int(g) for g in match.groups())
    try:
        return date(year, month, day)
    except ValueError:
        return None


def lower_first(text: str) -> str:
    """"Zuletzt geändert durch …" reads as "Stand: zuletzt geändert durch …" in source labels."""
    return text[:1].lower() + text[1:] if text[:1].isupper() and text[1:2].islower() else text


def collapse(text: str) -> str:
    return " ".join(text.split())


def _range_numbers(nums: str) -> list[str]:
    """"3 bis 6" → 3, 4, 5, 6; "707a bis 707c" → 707a, 707b, 707c; "178 und 179" → both.

    An empty list means the range is too odd or too long to expand (kept as one norm then).
    """
    parts = re.split(r"\s*(bis|und|u\.|,)\s*", nums.strip())
    out: list[str] = []
    for i in range(0, len(parts), 2):
        value = parts[i].lower()
        if i >= 2 and parts[i - 1] == "bis" and out:
            start = _NUM_RE.fullmatch(out[-1])
            end = _NUM_RE.fullmatch(value)
            if not start or not end:
                return []
            s_num, s_letter = int(start.group(1)), start.group(2)
            e_num, e_letter = int(end.group(1)), end.group(2)
            if s_num == e_num:
                if len(s_letter) > 1 or len(e_letter) != 1 or (s_letter and s_letter >= e_letter):
                    return []
                first = chr(ord(s_letter) + 1) if s_letter else "a"
                out.extend(f"{s_num}{chr(c)}" for c in range(ord(first), ord(e_letter) + 1))
            elif s_num < e_num and e_num - s_num <= MAX_RANGE:
                out.extend(str(n) for n in range(s_num + 1, e_num + 1))
                if e_letter:
                    out.append(value)
            else:
                return []
        else:
            out.append(value)
    return out if len(out) <= MAX_RANGE else []


def norms_for(
    *, label: str, titel: str, text: str, gliederung: str, order: int
) -> list[ParsedNorm]:
    """One ParsedNorm per citable number of a heading/enbez like "§ 1", "Art 3", "§§ 3 bis 6".

    Ranges are expanded so that a citation of "§ 5 BGB" finds "(weggefallen)" instead of nothing.
    Returns [] if the label is not a §/Art designation.
    """
    match = NORM_HEAD_RE.match(label.strip())
    if not match:
        return []
    kind = "Art." if match.group("kind").startswith("Art") else "§"
    titel = _clean_titel(" ".join(part for part in (match.group("titel"), titel) if part))
    if titel == WEGGEFALLEN:
        titel = ""
        if not text or text == "-":
            text = WEGGEFALLEN
    elif text == "-":
        text = ""
    nums = collapse(match.group("nums"))
    if re.search(r"bis|und|u\.|,", nums):
        numbers = _range_numbers(nums)
        if numbers:
            return [
                ParsedNorm(f"{kind} {nummer}", nummer, titel, text, order + i, gliederung)
                for i, nummer in enumerate(numbers)
            ]
        # Too odd to expand: one norm, citable by its first number.
        prefix = "§§" if kind == "§" else kind
        first = _NUM_RE.match(nums).group(0).lower()
        return [ParsedNorm(f"{prefix} {nums}", first, titel, text, order, gliederung)]
    nummer = nums.lower()
    return [ParsedNorm(f"{kind} {nummer}", nummer, titel, text, order, gliederung)]


def sonstige_norm(*, heading: str, text: str, order: int) -> ParsedNorm | None:
    """Eingangsformel, Präambel, Anlage 1 …: citable by name ("Anlage 1 RVG" → nummer "anlage1")."""
    match = _SONSTIGE_RE.match(heading)
    if not match:
        return None
    bezeichnung = collapse(match.group("bez"))
    titel = _clean_titel(match.group("rest").strip(" -"))
    if titel == WEGGEFALLEN:
        titel = ""
        text = text if text and text != "-" else WEGGEFALLEN
    nummer = bezeichnung.lower().replace(" ", "")
    return ParsedNorm(bezeichnung, nummer, titel, text, order, "")


def _clean_titel(titel: str) -> str:
    # "*)" marks a footnote that the norm text carries itself.
    return collapse(re.sub(r"\s*\*\)\s*$", "", titel))


_SCHEDULE_ENTRY_RE = re.compile(
    r"(?:(?P<vz2>vv|kv|gv)[\s\-_.]*)?(?:nr\.?|nummer)?\s*(?P<nr>\d{3,4})\s*(?P<vz>vv|kv|gv)?")
_SCHEDULE_VORB_RE = re.compile(r"vorb(?:emerkung|\.)?[\s\-_]*(?P<nr>\d+(?:\.\d+)*)\s*(?P<vz>vv|kv|gv)")


def nummer_of(bezeichnung: str) -> str:
    """How a norm is cited, normalised: '§ 517', '517', 'Art. 3', 'art-3', '§43a' → '517', '3', '43a';
    'Nr. 3100 VV', 'VV 3100' → 'vv3100'; 'Vorbemerkung 3.1 VV' → 'vvvorb3.1' (importers/verzeichnis.py)."""
    value = bezeichnung.strip().lower()
    if (entry := _SCHEDULE_ENTRY_RE.fullmatch(value)) and (entry.group("vz") or entry.group("vz2")):
        return f"{entry.group('vz') or entry.group('vz2')}{entry.group('nr')}"
    if vorb := _SCHEDULE_VORB_RE.fullmatch(value):
        return f"{vorb.group('vz')}vorb{vorb.group('nr')}"
    value = re.sub(r"^(§+|art(?:ikel|\.)?)[\s\-_.]*", "", value)
    return value.replace(" ", "")
