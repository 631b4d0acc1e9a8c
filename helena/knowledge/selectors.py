"""Search over statutes, decisions and templates the way a lawyer asks.

Three stages, each measured by tests/test_knowledge_eval.py and bench/knowledge_search.py:

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

from helena.knowledge.models import Gesetz, Norm
from helena.knowledge.thesaurus import fachbegriffe

Kind = Literal["gesetz", "urteil", "muster"]
KINDS: tuple[Kind, ...] = ("gesetz", "urteil", "muster")

MAX_QUERY_CHARS = 1000
MAX_TERMS = 16
MAX_LIMIT = 50
CITATION_SCORE = 100.0


class SucheError(ValueError):
    """A query we refuse, with a German message for the user."""


class NormNotFound(LookupError):
    pass


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
    return {abk.lower(): abk for abk in Gesetz.objects.values_list("abk", flat=True)}


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


_TERMS_SQL = """
WITH n AS (
    SELECT greatest(
        (SELECT count(*) FROM knowledge_norm) + (SELECT count(*) FROM knowledge_urteil)
        + (SELECT count(*) FROM knowledge_muster), 1)::float AS docs
),
raw AS (
    SELECT lexeme AS stem, 'stem' AS origin, positions[1] AS pos
    FROM unnest(to_tsvector('german', %(q)s)) AS t(lexeme, positions, weights)
    UNION ALL
    SELECT lexeme, 'thesaurus', 1000 + positions[1]
    FROM unnest(to_tsvector('german', %(x)s)) AS t(lexeme, positions, weights)
),
stems AS (
    SELECT DISTINCT ON (stem) stem, origin, pos FROM raw
    WHERE length(stem) >= 2 AND stem !~ '^[0-9]+$'
    ORDER BY stem, pos
),
limited AS (SELECT * FROM stems ORDER BY pos LIMIT %(max_terms)s),
known AS (
    SELECT s.stem, s.origin, s.pos,
           coalesce((SELECT ndoc FROM knowledge_lexem WHERE wort = s.stem), 0) AS exact_df,
           coalesce((SELECT sum(ndoc) FROM knowledge_lexem WHERE wort LIKE s.stem || '%%'), 0) AS prefix_df
    FROM limited s
),
compounds AS (
    SELECT k.stem, c.wort, c.ndoc FROM known k
    CROSS JOIN LATERAL (
        SELECT wort, ndoc FROM knowledge_lexem
        WHERE length(k.stem) >= 4 AND wort LIKE '%%' || k.stem AND wort NOT LIKE k.stem || '%%'
        ORDER BY ndoc DESC LIMIT 6
    ) c
),
typos AS (
    SELECT k.stem, t.wort, t.ndoc FROM known k
    CROSS JOIN LATERAL (
        SELECT wort, ndoc FROM knowledge_lexem
        WHERE k.exact_df < 2 AND k.prefix_df < 3 AND length(k.stem) >= 5
          AND wort %% k.stem AND similarity(wort, k.stem) >= 0.45
        ORDER BY similarity(wort, k.stem) DESC, ndoc DESC LIMIT 2
    ) t
)
SELECT k.origin, k.stem, k.stem, k.prefix_df, n.docs, k.pos FROM known k, n
UNION ALL SELECT 'compound', c.stem, c.wort, c.ndoc, n.docs, 0 FROM compounds c, n
UNION ALL SELECT 'typo', t.stem, t.wort, t.ndoc, n.docs, 0 FROM typos t, n
"""


@dataclass(frozen=True)
class Term:
    """One thing to look for: a stem (prefix-matched) or an expansion word (exact)."""

    lexeme: str
    weight: float
    prefix: bool


@dataclass(frozen=True)
class Analyse:
    """What the full-text stage searches for."""

    terms: tuple[Term, ...]

    @property
    def empty(self) -> bool:
        return not self.terms


# How much a term counts, relative to a stem the user typed.
_ORIGIN_WEIGHT = {"stem": 1.0, "thesaurus": 0.8, "typo": 0.9, "compound": 0.5}


def analyse(text: str) -> Analyse:
    """Stem the question, add legal terms for lay words, compounds and typo fixes from the corpus.

    Each term is weighted by its inverse document frequency, so "Kaution" counts far more
    than "Zeit".
    """
    with connection.cursor() as cursor:
        cursor.execute(_TERMS_SQL, {"q": text, "x": fachbegriffe(text), "max_terms": MAX_TERMS})
        rows = cursor.fetchall()
    fixed_by_typo = {stem for origin, stem, *_ in rows if origin == "typo"}
    terms: dict[str, Term] = {}
    for origin, stem, lexeme, df, docs, _pos in rows:
        if origin in ("stem", "thesaurus") and (df == 0 or stem in fixed_by_typo):
            continue  # unknown to the corpus: adds nothing but noise
        idf = math.log(1 + docs / (1 + min(float(df), docs)))
        weight = _ORIGIN_WEIGHT[origin] * idf
        prefix = origin in ("stem", "thesaurus")
        current = terms.get(lexeme)
        if current is None or current.weight < weight:
            terms[lexeme] = Term(lexeme=lexeme, weight=round(weight, 4), prefix=prefix)
    return Analyse(terms=tuple(terms.values()))


# --- the three kinds -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    table: str
    select: str
    joins: str
    text_column: str


_SPECS: dict[Kind, _Spec] = {
    "gesetz": _Spec(
        table="knowledge_norm d",
        select="d.id, d.bezeichnung || ' ' || g.abk AS citation, d.titel AS title, g.abk, g.titel, "
        "g.stand, g.stand_datum",
        joins="JOIN knowledge_gesetz g ON g.id = d.gesetz_id",
        text_column="d.text",
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


def _score_sql(terms: Sequence[Term], params: dict) -> str:
    """BM25-like: Σ idf × (title hit + text hit damped by document length + structure hit)."""
    parts = []
    for i, term in enumerate(terms):
        params[f"a{i}"], params[f"b{i}"], params[f"c{i}"] = (_tsterm(term, w) for w in "ABC")
        parts.append(
            f"{term.weight} * ((d.search @@ to_tsquery('simple', %(a{i})s))::int"
            f" + 0.5 * lennorm * (d.search @@ to_tsquery('simple', %(b{i})s))::int"
            f" + 0.25 * (d.search @@ to_tsquery('simple', %(c{i})s))::int)"
        )
    return " + ".join(parts) or "0"


def _fulltext(kind: Kind, analysed: Analyse, *, limit: int, filters: tuple[str, dict]) -> list[dict]:
    spec = _SPECS[kind]
    where_extra, params = filters
    params = dict(params)
    params["any"] = " | ".join(_tsterm(t) for t in analysed.terms)
    params["limit"] = limit
    params["headline"] = _HEADLINE_OPTIONS
    score = _score_sql(analysed.terms, params)
    sql = f"""
        WITH q AS (SELECT to_tsquery('simple', %(any)s) AS any_term),
        candidates AS (
            SELECT d.id, d.search, 1.0 / (1.0 + ln(1.0 + length(d.search) / 45.0)) AS lennorm
            FROM {spec.table} {spec.joins}, q
            WHERE d.search @@ q.any_term {where_extra}
        ),
        hits AS (
            SELECT d.id, {score} + 0.05 * ts_rank_cd(d.search, q.any_term, 1) AS score
            FROM candidates d, q
            ORDER BY score DESC, d.id
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
    analysed = analyse(rest) if rest.strip() else Analyse(terms=())
    if not analysed.empty:
        for k in kinds:
            filters = _filters(k, gesetz=gesetz, gericht=gericht, kategorie=kategorie)
            for row in _fulltext(k, analysed, limit=limit, filters=filters):
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
