"""How a question is read before it is searched: citations ("§ 517 ZPO", "§§ 187, 188 BGB",
"Art. 3 GG") are picked out, the rest is stemmed with PostgreSQL's `german` configuration and every
stem widened by the corpus's own words (compounds ending in it, the nearest spelling of a typo) and
the thesaurus, each term weighted by how rare it is. The search itself: helena/knowledge/selectors.py.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from django.db import connection

from config.errors import DomainError
from helena.knowledge.anliegen import anliegen
from helena.knowledge.importers.common import canonical_abk, nummer_of
from helena.knowledge.lexikon import lexikon
from helena.knowledge.thesaurus import STAMM_SYNONYME, umschreiben

# A client's e-mail of a few hundred words is a question too (helena/knowledge/anliegen.py).
MAX_QUERY_CHARS = 6000
MAX_TERMS = 16
MAX_CONTEXT_TERMS = 48
CONTEXT_WEIGHT = 0.4  # a story's word against one of the asking sentences


@dataclass(frozen=True)
class Zitat:
    abk: str
    nummer: str


class SucheError(DomainError, ValueError):
    """A query we refuse, with a German message for the user (422)."""


# --- query analysis -------------------------------------------------------------------------

_NUM = r"\d{1,4}\s?[a-z]?(?![a-zäöüß])"
# A law's abbreviation as written; the books of the Sozialgesetzbuch with a space ("SGB V", "SGB 5").
_ABK = r"sgb\s+(?:[ivx]{1,4}|\d{1,2})(?![\w])|[a-zäöü][a-zäöü0-9]{1,15}"
_CITATION_RE = re.compile(
    rf"""
    (?P<prefix>§§?|\bart(?:ikel|\.)?|\bparagra(?:ph|f)(?:en)?)?\s*
    (?P<nums>{_NUM}(?:\s*(?:,|und|u\.|bis|-|–)\s*{_NUM})*)
    (?:\s*(?:abs\.?|absatz|s\.|satz|nr\.?|nummer|buchst\.?|ziff\.?)\s*\d{{1,3}}[a-z]?)*
    \s*(?P<abk>{_ABK})\b
    """,
    re.IGNORECASE | re.VERBOSE,
)
# "Art. 229 § 6 EGBGB" (a paragraph of an article) and "Anlage 2 GKG" come before the plain forms,
# which would read them as Art. 6 EGBGB and § 2 GKG.
_DETAIL = r"(?:\s*(?:abs\.?|absatz|s\.|satz|nr\.?|nummer)\s*\d{1,3}[a-z]?)*"
_ARTIKEL_PARAGRAPH_RE = re.compile(
    rf"\bart(?:ikel|\.)?\s*(?P<art>\d{{1,4}}[a-z]?)\s*§\s*(?P<par>\d{{1,4}}[a-z]?){_DETAIL}\s*(?P<abk>{_ABK})\b",
    re.IGNORECASE)
_ANLAGE_RE = re.compile(
    rf"\b(?P<art>anlage|anhang)\s+(?P<nr>\d{{1,2}}[a-z]?|[ivx]{{1,6}}[a-z]?)\b\s*(?:zu[rm]?\s+)?"
    rf"(?:dem\s+|der\s+)?(?P<abk>{_ABK})\b", re.IGNORECASE)
_NUM_SPLIT_RE = re.compile(r"\s*(,|und|u\.|bis|-|–)\s*", re.IGNORECASE)
# The entries of a fee schedule (helena/knowledge/importers/verzeichnis.py): "Nr. 3100 VV RVG",
# "VV Nr. 3100, 3104 RVG", "Nr. 1210 KV GKG", "Vorbemerkung 3 Abs. 4 VV RVG", "Vorb. 3.1 VV RVG".
_VZ_NUMS = r"\d{3,4}(?:\s*(?:,|und|u\.)\s*\d{3,4})*"
_SCHEDULE_RE = re.compile(
    rf"""
    (?:
        (?P<vorb>\bvorb(?:emerkung|\.)?)\s*(?P<vnr>\d+(?:\.\d+)*)(?:\s*(?:abs\.?|absatz)\s*\d+|\s*\(\d+\))?
          \s*(?P<vz1>vv|kv|gv)
      | (?:\b(?:nrn?\.?|nummern?)\s*)?(?P<nums1>{_VZ_NUMS})\s*(?P<vz2>vv|kv|gv)
      | \b(?P<vz3>vv|kv|gv)\s*(?:nrn?\.?|nummern?)?\s*(?P<nums2>{_VZ_NUMS})
    )
    (?:\s*(?:zum|z\.)?\s*|\s*-\s*)(?P<abk>[a-zäöü][a-zäöü0-9]{{1,15}})\b
    """,
    re.IGNORECASE | re.VERBOSE,
)
_SCHEDULE_AFTER_RE = re.compile(  # "Nr. 3100 RVG-VV", "Nr. 1210 GKG KV"
    rf"(?:\b(?:nrn?\.?|nummern?)\s*)?(?P<nums>{_VZ_NUMS})\s*(?P<abk>[a-zäöü][a-zäöü0-9]{{1,15}})[\s-](?P<vz>vv|kv|gv)\b",
    re.IGNORECASE)


def _schedule_citations(query: str, *, known: dict[str, str]) -> tuple[list[Zitat], str]:
    found: list[Zitat] = []
    rest = query
    matches = [*_SCHEDULE_RE.finditer(query), *_SCHEDULE_AFTER_RE.finditer(query)]
    for match in sorted(matches, key=lambda m: m.start()):
        abk = known.get(match.group("abk").lower())
        if abk is None:
            continue
        groups = match.groupdict()
        vz = next(groups[g] for g in ("vz", "vz1", "vz2", "vz3") if groups.get(g)).lower()
        if groups.get("vorb"):
            nummern = [f"{vz}vorb{match.group('vnr')}"]
        else:
            nums = next(groups[g] for g in ("nums", "nums1", "nums2") if groups.get(g))
            nummern = [f"{vz}{n}" for n in re.findall(r"\d{3,4}", nums)]
        found.extend(Zitat(abk=abk, nummer=n) for n in nummern if Zitat(abk=abk, nummer=n) not in found)
        rest = rest.replace(match.group(0), " ")
    return found, rest


def known_abks() -> dict[str, str]:
    """Lower-case abbreviation → canonical spelling, for the laws actually loaded."""
    return {abk.lower(): abk for abk in lexikon().abks}


def _loaded(abk: str, known: dict[str, str]) -> str | None:
    """The loaded law an abbreviation as written names ("sgb 5" → "SGB V")."""
    written = " ".join(abk.split())
    if written[:3].lower() == "sgb":
        written = "SGB " + written[3:].strip().upper()
    return known.get(canonical_abk(written).lower())


def parse_citations(query: str, *, known: dict[str, str]) -> tuple[list[Zitat], str]:
    """Find citations of loaded laws; return them in order and the query without them."""
    found, rest = _schedule_citations(query, known=known)
    for pattern, nummer in ((_ARTIKEL_PARAGRAPH_RE, lambda m: f"{m['art']}§{m['par']}".lower()),
                            (_ANLAGE_RE, lambda m: f"{m['art']}{m['nr']}".lower())):
        for match in pattern.finditer(rest):
            abk = _loaded(match.group("abk"), known)
            if abk is not None and Zitat(abk=abk, nummer=nummer(match)) not in found:
                found.append(Zitat(abk=abk, nummer=nummer(match)))
                rest = rest.replace(match.group(0), " ")

    def expand(nums: str) -> list[str]:
        parts = _NUM_SPLIT_RE.split(nums.strip())
        out: list[str] = []
        i = 0
        while i < len(parts):
            value = parts[i].replace(" ", "").lower()
            if i >= 2 and parts[i - 1].lower() in ("bis", "-", "–") and out:
                start, end = re.match(r"\d+", out[-1]), re.match(r"\d+", value)
                if start and end and 0 < int(end.group()) - int(start.group()) <= 10:
                    out.extend(str(n) for n in range(int(start.group()) + 1, int(end.group()) + 1))
                    i += 2
                    continue
            if value and value[0].isdigit():
                out.append(value)
            i += 2
        return out

    for match in _CITATION_RE.finditer(rest):
        abk = _loaded(match.group("abk"), known)
        if abk is None:
            continue
        for nummer in expand(match.group("nums")):
            zitat = Zitat(abk=abk, nummer=nummer)
            if zitat not in found:
                found.append(zitat)
        rest = rest.replace(match.group(0), " ")
    return found, rest


def validate_query(query: str | None) -> str:
    if query is None or not query.strip():
        raise SucheError("Bitte einen Suchbegriff angeben.")
    if len(query) > MAX_QUERY_CHARS:
        raise SucheError(f"Die Suchanfrage ist zu lang (höchstens {MAX_QUERY_CHARS} Zeichen).")
    return query.strip()


def _tsterm(term: Term, weights: str = "") -> str:
    """One operand for to_tsquery('simple', …): stems are already german-stemmed, so 'simple'."""
    marker = (":*" if term.prefix else ":") + weights if (term.prefix or weights) else ""
    return "'" + term.lexeme.replace("'", "''") + "'" + marker


def tsconcept(concept: Concept, weights: str = "") -> str:
    return "(" + " | ".join(_tsterm(t, weights) for t in concept.terms) + ")"


_STEMS_SQL = """
SELECT 'stem', lexeme, positions[1]
FROM unnest(to_tsvector('german', %(q)s)) AS t(lexeme, positions, weights)
UNION ALL
SELECT 'thesaurus', lexeme, 1000 + positions[1]
FROM unnest(to_tsvector('german', %(x)s)) AS t(lexeme, positions, weights)
"""

@dataclass(frozen=True)
class Term:
    """One alternative spelling of a concept: a stem (prefix-matched) or a corpus word (exact)."""

    lexeme: str
    prefix: bool


@dataclass(frozen=True)
class Concept:
    """Something the question asks about; any of its alternatives in a document counts once."""

    terms: tuple[Term, ...]
    weight: float


@dataclass(frozen=True)
class Analyse:
    """What the full-text stage searches for."""

    concepts: tuple[Concept, ...]

    @property
    def empty(self) -> bool:
        return not self.concepts


# How much a concept counts relative to a word the user typed (times its idf).
TYPO_SIMILARITY = 0.55  # pg_trgm similarity a typo fix needs ("berufungsfirst" → "berufungsfrist")
MAX_IDF = 4.0
COMPOUNDS = 12  # most frequent compounds ending in a stem that join its concept
WEIGHTS = {"stem": 1.0, "thesaurus": 1.2, "typo": 0.8, "head": 0.9, "modifier": 0.5}


def _idf(df: float, docs: float) -> float:
    return math.log(1 + docs / (1 + min(df, docs)))


def analyse(text: str) -> Analyse:
    """Turn a question into weighted concepts: its stems (plus compounds ending in them and typo
    fixes), legal terms for its lay words, and the parts of compounds the corpus does not know.

    Each concept is weighted by inverse document frequency, so "Kaution" counts far more than
    "Zeit". A long text (a client's e-mail, helena/knowledge/anliegen.py) is read as its asking
    sentences at full weight and its story at CONTEXT_WEIGHT, the story's rarest words first.
    """
    teile = anliegen(text)
    concepts = _concepts(teile.kern, limit=MAX_TERMS)
    if teile.lang:
        seen = {concept.terms[0].lexeme for concept in concepts if concept.terms}
        story = _concepts(teile.kontext, limit=MAX_CONTEXT_TERMS, scale=CONTEXT_WEIGHT, rarest=True)
        concepts += [c for c in story if c.terms and c.terms[0].lexeme not in seen]
    return Analyse(concepts=tuple(concepts))


def _concepts(text: str, *, limit: int, scale: float = 1.0, rarest: bool = False) -> list[Concept]:
    """The concepts of one text; `limit` stems in the order they occur, or the rarest `limit`."""
    lex = lexikon()
    own, legal = umschreiben(text)
    with connection.cursor() as cursor:
        cursor.execute(_STEMS_SQL, {"q": own, "x": legal})
        rows = sorted(cursor.fetchall(), key=lambda r: r[2])
    if rarest:  # a story's words by weight: the rare ones say what it is about, "Zeit" does not
        rows = sorted(rows, key=lambda r: lex.prefix_df(r[1]) or lex.docs)
    seen: set[str] = set()
    concepts: list[Concept] = []
    for origin, stem, _pos in rows:
        if stem in seen or len(stem) < 2 or stem.isdigit() or len(seen) >= limit:
            continue
        seen.add(stem)
        df = lex.prefix_df(stem)
        terms = [Term(stem, prefix=True)] if df else []
        if len(stem) >= 4:
            terms += [Term(w, prefix=False) for w in lex.compounds_ending_in(stem, limit=COMPOUNDS)]
        terms += [Term(w, prefix=True) for w in STAMM_SYNONYME.get(stem, ())]
        if df >= 3:
            concepts.append(Concept(terms=tuple(terms), weight=scale * _weight(origin, df, lex.docs)))
            continue
        if rarest:
            continue  # a story's unknown words are names and places, not typos of the law's words
        # Rare or unknown. A compound the statutes do not use ("Kündigungsschutzklage") is
        # searched by its parts; anything else may be a typo of a corpus word (close matches only).
        parts = lex.split(stem) if len(stem) >= 7 else None
        fixes = [] if parts or len(stem) < 6 else lex.similar(stem, threshold=TYPO_SIMILARITY)
        if fixes:
            terms += [Term(w, prefix=True) for w in fixes]
            df = max(lex.prefix_df(w) for w in fixes)
            origin = "typo"
        if terms:
            concepts.append(Concept(terms=tuple(terms), weight=scale * _weight(origin, df, lex.docs)))
        if parts:
            modifier, head = parts
            concepts.append(Concept(terms=(Term(head, prefix=True),),
                                    weight=scale * _weight("head", lex.prefix_df(head), lex.docs)))
            concepts.append(Concept(terms=(Term(modifier, prefix=True),),
                                    weight=scale * _weight("modifier", lex.prefix_df(modifier), lex.docs)))
    return concepts


def _weight(origin: str, df: float, docs: int) -> float:
    """Inverse document frequency, capped: one rare word must not outweigh the question."""
    return round(WEIGHTS[origin] * min(_idf(df, docs), MAX_IDF), 4)


def normalise_bezeichnung(bezeichnung: str) -> str:
    """'§ 517' → '517', 'Nr. 3100 VV' → 'vv3100' (importers.common.nummer_of)."""
    return nummer_of(bezeichnung)
