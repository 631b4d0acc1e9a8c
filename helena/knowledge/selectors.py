"""Search over statutes, decisions and templates the way a lawyer asks.

Three stages, each measured by tests/helena/knowledge/test_knowledge_eval.py and bench/knowledge_search.py:

1. Citations ("§ 517 ZPO", "517 ZPO", "§§ 187, 188 BGB", "Art. 3 GG") are looked up directly
   and answered first.
2. The rest of the question is stemmed with PostgreSQL's `german` configuration; stop and
   question words vanish there. The remaining stems are OR-ed (never AND-ed: a long question
   would otherwise match nothing) with prefix matching, so "Berufung" finds "Berufungsfrist".
3. The german stemmer does not split compounds and does not forgive typos, so every stem is
   also looked up in the Lexem table (all stems of the corpus, trigram-indexed): words that
   *end* in the stem ("klag" → "kundigungsschutzklag") and, for stems the corpus lacks, the
   most similar words ("kundigungschutz" → "kundigungsschutz") join the query at a lower weight.

Ranking: the share of the question's stems a document covers dominates (a norm that mentions
"Berufung", "Urteil" and "Frist" beats one that repeats "Urteil" ten times), then ts_rank_cd
with title weight A over text weight B.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from django.db import connection

from config.errors import DomainError, NotFound
from helena.knowledge.index import Weights, norm_index, rank
from helena.knowledge.lexikon import lexikon
from helena.knowledge.models import Gesetz, Norm
from helena.knowledge.thesaurus import STAMM_SYNONYME, umschreiben

Kind = Literal["gesetz", "urteil", "muster"]
KINDS: tuple[Kind, ...] = ("gesetz", "urteil", "muster")

MAX_QUERY_CHARS = 1000
MAX_TERMS = 16
MAX_LIMIT = 50
CITATION_SCORE = 100.0


class SucheError(DomainError, ValueError):
    """A query we refuse, with a German message for the user (422)."""


class NormNotFound(NotFound, LookupError):
    default_message = "Norm nicht gefunden."


@dataclass(frozen=True)
class Treffer:
    """One search hit as Helena cites it."""

    kind: Kind
    id: int
    title: str
    citation: str
    snippet: str
    score: float
    source: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Zitat:
    abk: str
    nummer: str


# --- query analysis -------------------------------------------------------------------------

_NUM = r"\d{1,4}\s?[a-z]?(?![a-zäöüß])"
_CITATION_RE = re.compile(
    rf"""
    (?P<prefix>§§?|\bart(?:ikel|\.)?|\bparagra(?:ph|f)(?:en)?)?\s*
    (?P<nums>{_NUM}(?:\s*(?:,|und|u\.|bis|-|–)\s*{_NUM})*)
    (?:\s*(?:abs\.?|absatz|s\.|satz|nr\.?|nummer|buchst\.?|ziff\.?)\s*\d{{1,3}}[a-z]?)*
    \s*(?P<abk>[a-zäöü][a-zäöü0-9]{{1,15}})\b
    """,
    re.IGNORECASE | re.VERBOSE,
)
_NUM_SPLIT_RE = re.compile(r"\s*(,|und|u\.|bis|-|–)\s*", re.IGNORECASE)


def _known_abks() -> dict[str, str]:
    """Lower-case abbreviation → canonical spelling, for the laws actually loaded."""
    return {abk.lower(): abk for abk in lexikon().abks}


def parse_citations(query: str, *, known: dict[str, str]) -> tuple[list[Zitat], str]:
    """Find citations of loaded laws; return them in order and the query without them."""
    found: list[Zitat] = []
    rest = query

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

    for match in _CITATION_RE.finditer(query):
        abk = known.get(match.group("abk").lower())
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


def _tsconcept(concept: Concept, weights: str = "") -> str:
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
    "Zeit".
    """
    lex = lexikon()
    own, legal = umschreiben(text)
    with connection.cursor() as cursor:
        cursor.execute(_STEMS_SQL, {"q": own, "x": legal})
        rows = sorted(cursor.fetchall(), key=lambda r: r[2])
    seen: set[str] = set()
    concepts: list[Concept] = []
    for origin, stem, _pos in rows:
        if stem in seen or len(stem) < 2 or stem.isdigit() or len(seen) >= MAX_TERMS:
            continue
        seen.add(stem)
        df = lex.prefix_df(stem)
        terms = [Term(stem, prefix=True)] if df else []
        if len(stem) >= 4:
            terms += [Term(w, prefix=False) for w in lex.compounds_ending_in(stem, limit=COMPOUNDS)]
        terms += [Term(w, prefix=True) for w in STAMM_SYNONYME.get(stem, ())]
        if df >= 3:
            concepts.append(Concept(terms=tuple(terms), weight=_weight(origin, df, lex.docs)))
            continue
        # Rare or unknown. A compound the statutes do not use ("Kündigungsschutzklage") is
        # searched by its parts; anything else may be a typo of a corpus word (close matches only).
        parts = lex.split(stem) if len(stem) >= 7 else None
        fixes = [] if parts or len(stem) < 6 else lex.similar(stem, threshold=TYPO_SIMILARITY)
        if fixes:
            terms += [Term(w, prefix=True) for w in fixes]
            df = max(lex.prefix_df(w) for w in fixes)
            origin = "typo"
        if terms:
            concepts.append(Concept(terms=tuple(terms), weight=_weight(origin, df, lex.docs)))
        if parts:
            modifier, head = parts
            concepts.append(Concept(terms=(Term(head, prefix=True),),
                                    weight=_weight("head", lex.prefix_df(head), lex.docs)))
            concepts.append(Concept(terms=(Term(modifier, prefix=True),),
                                    weight=_weight("modifier", lex.prefix_df(modifier), lex.docs)))
    return Analyse(concepts=tuple(concepts))


def _weight(origin: str, df: float, docs: int) -> float:
    """Inverse document frequency, capped: one rare word must not outweigh the question."""
    return round(WEIGHTS[origin] * min(_idf(df, docs), MAX_IDF), 4)


# --- the three kinds -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    table: str
    select: str
    joins: str
    text_column: str
    group: str = "d.id"  # documents of one group lend each other evidence (a law, a court)
    group_boost: float = 0.0


_SPECS: dict[Kind, _Spec] = {
    "gesetz": _Spec(
        table="knowledge_norm d",
        select="d.id, d.bezeichnung || ' ' || g.abk AS citation, d.titel AS title, g.abk, g.titel, "
        "g.stand, g.stand_datum",
        joins="JOIN knowledge_gesetz g ON g.id = d.gesetz_id",
        text_column="d.text",
        group="d.gesetz_id",
        group_boost=0.3,
    ),
    "urteil": _Spec(
        table="knowledge_urteil d",
        select="d.id, d.gericht, d.datum, d.aktenzeichen, d.typ, d.quelle, d.ecli",
        joins="",
        text_column="coalesce(nullif(d.leitsatz, ''), d.text)",
    ),
    "muster": _Spec(
        table="knowledge_muster d",
        select="d.id, d.titel, d.kategorie, d.quelle",
        joins="",
        text_column="d.text",
    ),
}

_HEADLINE_OPTIONS = (
    "MaxFragments=2, MinWords=8, MaxWords=28, FragmentDelimiter=' … ', StartSel=**, StopSel=**"
)


def _filters(
    kind: Kind, *, gesetz: str | None, gericht: str | None, kategorie: str | None
) -> tuple[str, dict]:
    clauses, params = [], {}
    if kind == "gesetz" and gesetz:
        clauses.append("upper(g.abk) = upper(%(gesetz)s)")
        params["gesetz"] = gesetz.strip()
    if kind == "urteil" and gericht:
        clauses.append("d.gericht ILIKE %(gericht)s")
        params["gericht"] = "%" + gericht.strip().replace("%", r"\%").replace("_", r"\_") + "%"
    if kind == "muster" and kategorie:
        clauses.append("upper(d.kategorie) = upper(%(kategorie)s)")
        params["kategorie"] = kategorie.strip()
    return "".join(f" AND {c}" for c in clauses), params


# Field weights: a hit in the norm's designation/title, its text (damped by length), its place
# in the statute's structure.
TITLE, TEXT, STRUCTURE = 0.5, 0.5, 0.3
REGISTER = 1.0  # a Sachregister keyword (corpus/sachregister/), search weight D
# A concept weighing less than this (idf of a word in roughly every seventh document) does not
# produce candidates on its own.
COMMON_WEIGHT = 2.0


def _score_sql(concepts: Sequence[Concept], params: dict) -> tuple[str, str]:
    """BM25-like: Σ idf × (title hit + text hit damped by document length + structure hit).

    Returns the tsquery columns for the one-row CTE (parsed once, not per row) and the score.
    """
    columns, parts = [], []
    for i, concept in enumerate(concepts):
        for weight in "abc":
            params[f"{weight}{i}"] = _tsconcept(concept, weight.upper())
            columns.append(f"to_tsquery('simple', %({weight}{i})s) AS {weight}{i}")
        parts.append(
            f"{concept.weight} * ({TITLE} * (d.search @@ q.a{i})::int"
            f" + {TEXT} * d.lennorm * (d.search @@ q.b{i})::int"
            f" + {STRUCTURE} * (d.search @@ q.c{i})::int)"
        )
    return ", ".join(columns), " + ".join(parts) or "0"


def _fulltext(kind: Kind, analysed: Analyse, *, limit: int, filters: tuple[str, dict]) -> list[dict]:
    spec = _SPECS[kind]
    where_extra, params = filters
    params = dict(params)
    params["limit"] = limit
    params["headline"] = _HEADLINE_OPTIONS
    params["group_boost"] = spec.group_boost
    columns, score = _score_sql(analysed.concepts, params)
    rows: list[dict] = []
    for candidates in _candidate_queries(analysed):
        params["any"] = candidates
        rows = _run_fulltext(spec, params, columns=columns, score=score, where_extra=where_extra)
        if len(rows) >= limit:
            break
    return rows


def _candidate_queries(analysed: Analyse) -> list[str]:
    """Which documents get scored at all: first those sharing two informative concepts with the
    question or naming one in their title; if that yields too little, any informative concept.

    Scoring every document that shares one common word with a long question is what makes a
    naive OR search slow; requiring two of them is not AND-ing the whole question.
    """
    selective = sorted(
        (c for c in analysed.concepts if c.weight >= COMMON_WEIGHT), key=lambda c: -c.weight
    ) or list(analysed.concepts)
    any_one = " | ".join(_tsconcept(c) for c in selective)
    top = selective[:6]
    if len(top) < 3:
        return [any_one]
    pairs = [f"({_tsconcept(a)} & {_tsconcept(b)})" for i, a in enumerate(top) for b in top[i + 1 :]]
    titles = [_tsconcept(c, "A") for c in selective]
    return [" | ".join(pairs + titles), any_one]


def _run_fulltext(spec: _Spec, params: dict, *, columns: str, score: str, where_extra: str) -> list[dict]:
    sql = f"""
        WITH q AS MATERIALIZED (SELECT to_tsquery('simple', %(any)s) AS any_term, {columns}),
        candidates AS (
            SELECT d.*, 1.0 / (1.0 + ln(1.0 + length(d.search) / 45.0)) AS lennorm
            FROM {spec.table} {spec.joins}
            WHERE d.search @@ to_tsquery('simple', %(any)s) {where_extra}
        ),
        scored AS (
            SELECT d.id, {spec.group} AS grp,
                   {score} + 0.05 * ts_rank_cd(d.search, q.any_term, 1) AS score
            FROM candidates d, q
        ),
        ranked AS (
            SELECT id, grp, score, row_number() OVER (PARTITION BY grp ORDER BY score DESC) AS rn
            FROM scored
        ),
        groups AS (
            SELECT grp, sum(score) / 5.0 AS group_score FROM ranked WHERE rn <= 5 GROUP BY grp
        ),
        hits AS (
            SELECT r.id, r.score + %(group_boost)s * g.group_score AS score
            FROM ranked r JOIN groups g USING (grp)
            ORDER BY score DESC, r.id
            LIMIT %(limit)s
        )
        SELECT {spec.select}, hits.score,
               ts_headline('german', {spec.text_column}, (SELECT any_term FROM q), %(headline)s) AS snippet
        FROM hits JOIN {spec.table.split()[0]} d ON d.id = hits.id {spec.joins}
        ORDER BY hits.score DESC, d.id
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = [c.name for c in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


LAW_BOOST = 0.0
SECTION_BOOST = 0.0
COORDINATION = 0.5


def _rank_norms(analysed: Analyse, *, gesetz: str | None, limit: int) -> list[dict]:
    """Statutes: rank over the in-memory postings, then fetch the winners with PostgreSQL's
    ts_rank_cd as a tie-breaker and ts_headline for the snippet."""
    gesetz_id = None
    if gesetz:
        gesetz_id = Gesetz.objects.filter(abk__iexact=gesetz.strip()).values_list("id", flat=True).first()
        if gesetz_id is None:
            return []
    lex = lexikon()
    concepts = []
    for concept in analysed.concepts:
        words: list[str] = []
        for term in concept.terms:
            words.extend(lex.with_prefix(term.lexeme) if term.prefix else [term.lexeme])
        concepts.append((concept.weight, words))
    top = rank(
        norm_index(), concepts, gesetz_id=gesetz_id, limit=limit * 2,
        weights=Weights(title=TITLE, text=TEXT, structure=STRUCTURE, register=REGISTER, law_boost=LAW_BOOST,
                        section_boost=SECTION_BOOST, coordination=COORDINATION),
    )
    if not top:
        return []
    spec = _SPECS["gesetz"]
    scores = dict(top)
    sql = f"""
        SELECT {spec.select}, ts_rank_cd(d.search, q.any_term, 1) AS cd,
               ts_headline('german', {spec.text_column}, q.any_term, %(headline)s) AS snippet
        FROM {spec.table} {spec.joins}, (SELECT to_tsquery('simple', %(any)s) AS any_term) q
        WHERE d.id = ANY(%(ids)s)
    """
    params = {"ids": list(scores), "headline": _HEADLINE_OPTIONS,
              "any": " | ".join(_tsconcept(c) for c in analysed.concepts)}
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = [c.name for c in cursor.description]
        rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    for row in rows:
        row["score"] = scores[row["id"]] + 0.05 * float(row["cd"])
    rows.sort(key=lambda r: (-r["score"], r["id"]))
    return rows[:limit]


def _norm_source(row: dict) -> str:
    stand = row["stand"] or (row["stand_datum"].strftime("%d.%m.%Y") if row["stand_datum"] else "unbekannt")
    return f"{row['titel']} ({row['abk']}), nicht amtliche Fassung, Stand: {stand}"


def _treffer(kind: Kind, row: dict, *, score: float | None = None) -> Treffer:
    snippet = " ".join((row.get("snippet") or "").split())
    value = round(float(score if score is not None else row["score"]), 4)
    if kind == "gesetz":
        return Treffer(
            kind=kind,
            id=row["id"],
            title=row["title"] or row["citation"],
            citation=row["citation"],
            snippet=snippet,
            score=value,
            source=_norm_source(row),
        )
    if kind == "urteil":
        datum = f", {row['datum']:%d.%m.%Y}" if row["datum"] else ""
        citation = f"{row['gericht']}{datum} – {row['aktenzeichen']}".strip(" –")
        title = f"{row['typ'] or 'Entscheidung'} {citation}"
        source = row["quelle"] or (row["ecli"] or "Entscheidungssammlung der Kanzlei")
        return Treffer(
            kind=kind,
            id=row["id"],
            title=title,
            citation=citation,
            snippet=snippet,
            score=value,
            source=source,
        )
    label = "Kanzleimuster" if row["quelle"] == "kanzlei" else "amtliches Formular"
    return Treffer(
        kind=kind,
        id=row["id"],
        title=row["titel"],
        citation=row["titel"],
        snippet=snippet,
        score=value,
        source=f"{label}, Kategorie {row['kategorie']}",
    )


def _citation_hits(zitate: Sequence[Zitat], *, gesetz: str | None) -> list[Treffer]:
    if not zitate:
        return []
    hits: list[Treffer] = []
    for position, zitat in enumerate(zitate):
        if gesetz and zitat.abk.upper() != gesetz.strip().upper():
            continue
        norm = (
            Norm.objects.select_related("gesetz")
            .filter(gesetz__abk=zitat.abk, nummer=zitat.nummer)
            .order_by("order")
            .first()
        )
        if norm is None:
            continue
        row = {
            "id": norm.pk,
            "citation": norm.citation,
            "title": norm.titel,
            "abk": norm.gesetz.abk,
            "titel": norm.gesetz.titel,
            "stand": norm.gesetz.stand,
            "stand_datum": norm.gesetz.stand_datum,
            "snippet": _lead(norm.text),
        }
        hits.append(_treffer("gesetz", row, score=CITATION_SCORE - position))
    return hits


def _lead(text: str, words: int = 40) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def search(
    *,
    query: str,
    kind: Kind | None = None,
    gesetz: str | None = None,
    gericht: str | None = None,
    kategorie: str | None = None,
    limit: int = 10,
) -> list[Treffer]:
    """Ranked hits for a natural question or a citation; citations of loaded laws come first."""
    text = validate_query(query)
    if kind is not None and kind not in KINDS:
        raise SucheError(f"Unbekannte Art „{kind}“ (erlaubt: gesetz, urteil, muster).")
    if not 1 <= limit <= MAX_LIMIT:
        raise SucheError(f"limit muss zwischen 1 und {MAX_LIMIT} liegen.")
    kinds = [kind] if kind else list(KINDS)

    results: list[Treffer] = []
    rest = text
    if "gesetz" in kinds:
        zitate, rest = parse_citations(text, known=_known_abks())
        results.extend(_citation_hits(zitate, gesetz=gesetz))
    analysed = analyse(rest) if rest.strip() else Analyse(concepts=())
    if not analysed.empty:
        for k in kinds:
            if k == "gesetz":
                found = _rank_norms(analysed, gesetz=gesetz, limit=limit)
            else:
                filters = _filters(k, gesetz=gesetz, gericht=gericht, kategorie=kategorie)
                found = _fulltext(k, analysed, limit=limit, filters=filters)
            for row in found:
                hit = _treffer(k, row)
                if not any(r.kind == hit.kind and r.id == hit.id for r in results):
                    results.append(hit)
    cited = [r for r in results if r.score >= CITATION_SCORE - 50]
    ranked = sorted((r for r in results if r.score < CITATION_SCORE - 50), key=lambda r: -r.score)
    return (cited + ranked)[:limit]


def normalise_bezeichnung(bezeichnung: str) -> str:
    """'§ 517', '517', 'Art. 3', 'art-3', '§43a' → the Norm.nummer ('517', '3', '43a')."""
    value = bezeichnung.strip().lower()
    value = re.sub(r"^(§+|art(?:ikel|\.)?)[\s\-_.]*", "", value)
    return value.replace(" ", "")


def get_norm(*, gesetz: str, bezeichnung: str) -> Norm:
    """The full text of one norm by law and designation (first match in statute order)."""
    nummer = normalise_bezeichnung(bezeichnung)
    norm = (
        Norm.objects.select_related("gesetz")
        .filter(gesetz__abk__iexact=gesetz.strip(), nummer=nummer)
        .order_by("order")
        .first()
    )
    if norm is None:
        raise NormNotFound(f"{bezeichnung} {gesetz}")
    return norm
