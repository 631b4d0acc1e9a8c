"""Search over statutes, decisions and templates the way a lawyer asks (measured by
tests/helena/knowledge/test_knowledge_eval.py and bench/knowledge_search.py).

Citations in the question are answered first, directly. The rest is read by helena/knowledge/query.py
into weighted terms (stems, compounds, typo fixes, thesaurus) and OR-ed, never AND-ed, with prefix
matching. Ranking: the share of the question's concepts a document covers dominates (a norm that
mentions "Berufung", "Urteil" and "Frist" beats one that repeats "Urteil" ten times), then ts_rank_cd
with title weight A over text weight B.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, Literal

import numpy as np
from django.db import connection

from config.errors import NotFound
from helena.knowledge.models import Gesetz, Norm, Urteil
from helena.knowledge.query import (
    Analyse,
    Concept,
    SucheError,
    Zitat,
    analyse,
    known_abks,
    normalise_bezeichnung,
    parse_citations,
    tsconcept,
    validate_query,
)
from helena.knowledge.ranking import STRUCTURE, TEXT, TITLE, Ranking, embed_soon, rank_norms

Kind = Literal["gesetz", "urteil", "muster"]
KINDS: tuple[Kind, ...] = ("gesetz", "urteil", "muster")

MAX_LIMIT = 50
CITATION_SCORE = 100.0


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
    stand: str = ""  # a statute's Stand as its official text states it; "" for decisions and Muster

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


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
            params[f"{weight}{i}"] = tsconcept(concept, weight.upper())
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
    any_one = " | ".join(tsconcept(c) for c in selective)
    top = selective[:6]
    if len(top) < 3:
        return [any_one]
    pairs = [f"({tsconcept(a)} & {tsconcept(b)})" for i, a in enumerate(top) for b in top[i + 1 :]]
    titles = [tsconcept(c, "A") for c in selective]
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


def _rank_norms(analysed: Analyse, *, text: str, gesetz: str | None, limit: int,
                ranking: Ranking = "hybrid", question: str | None = None,
                pending: Future[np.ndarray | None] | None = None) -> list[dict]:
    """Statutes: rank over the in-memory postings and the sentence vectors, fuse, then fetch the
    winners with PostgreSQL's ts_rank_cd as a tie-breaker and ts_headline for the snippet."""
    gesetz_id = None
    if gesetz:
        gesetz_id = Gesetz.objects.filter(abk__iexact=gesetz.strip()).values_list("id", flat=True).first()
        if gesetz_id is None:
            return []
    top = rank_norms(analysed, text=text, gesetz_id=gesetz_id, limit=limit * 2, ranking=ranking,
                     question=question, pending=pending)
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
              "any": " | ".join(tsconcept(c) for c in analysed.concepts)}
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = [c.name for c in cursor.description]
        rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    cd_share = 0.05 if ranking == "lexical" else 0.0  # the lexical scores were tuned with it
    for row in rows:
        row["score"] = scores[row["id"]] + cd_share * float(row["cd"])
    rows.sort(key=lambda r: (-r["score"], -float(r["cd"]), r["id"]))
    return rows[:limit]


def stand_text(stand: str, stand_datum: date | None) -> str:
    """A law's Stand as its official text states it („zuletzt geändert durch Art. 1 G v. 29.3.2026 I
    Nr. 83“), else its date; "" when neither is known: a lawyer must see which version is quoted."""
    return stand or (f"{stand_datum:%d.%m.%Y}" if stand_datum else "")


def gesetz_stand(gesetz: Gesetz) -> str:
    return stand_text(gesetz.stand, gesetz.stand_datum)


def urteile_geladen() -> bool:
    """Whether any decision is loaded: none are bundled, so an empty decision search must not read as
    „there is no such case law“."""
    return Urteil.objects.exists()


def _norm_source(row: dict) -> str:
    stand = stand_text(row["stand"], row["stand_datum"]) or "unbekannt"
    return f"{row['titel']} ({row['abk']}), nicht amtliche Fassung, Stand: {stand}"


def _treffer(kind: Kind, row: dict, *, score: float | None = None) -> Treffer:
    snippet = " ".join((row.get("snippet") or "").split())
    value = round(float(score if score is not None else row["score"]), 4)
    if kind == "gesetz":
        return Treffer(kind=kind, id=row["id"], title=row["title"] or row["citation"],
                       citation=row["citation"], snippet=snippet, score=value, source=_norm_source(row),
                       stand=stand_text(row["stand"], row["stand_datum"]))
    if kind == "urteil":
        datum = f", {row['datum']:%d.%m.%Y}" if row["datum"] else ""
        citation = f"{row['gericht']}{datum} – {row['aktenzeichen']}".strip(" –")
        title = f"{row['typ'] or 'Entscheidung'} {citation}"
        source = row["quelle"] or (row["ecli"] or "Entscheidungssammlung der Kanzlei")
        return Treffer(kind=kind, id=row["id"], title=title, citation=citation, snippet=snippet, score=value,
                       source=source)
    label = "Kanzleimuster" if row["quelle"] == "kanzlei" else "amtliches Formular"
    return Treffer(kind=kind, id=row["id"], title=row["titel"], citation=row["titel"], snippet=snippet,
                   score=value, source=f"{label}, Kategorie {row['kategorie']}")


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
    ranking: Ranking = "hybrid",
) -> list[Treffer]:
    """Ranked hits for a natural question or a citation; citations of loaded laws come first.
    Statutes are ranked lexically and semantically, fused (`ranking` picks one, for evaluation)."""
    text = validate_query(query)
    if kind is not None and kind not in KINDS:
        raise SucheError(f"Unbekannte Art „{kind}“ (erlaubt: gesetz, urteil, muster).")
    if not 1 <= limit <= MAX_LIMIT:
        raise SucheError(f"limit muss zwischen 1 und {MAX_LIMIT} liegen.")
    kinds = [kind] if kind else list(KINDS)

    results: list[Treffer] = []
    rest = text
    if "gesetz" in kinds:
        zitate, rest = parse_citations(text, known=known_abks())
    # The embedding takes most of a search's time: it starts first and runs beside the rest.
    pending = embed_soon(rest) if "gesetz" in kinds and ranking != "lexical" and rest.strip() else None
    if "gesetz" in kinds:
        results.extend(_citation_hits(zitate, gesetz=gesetz))
    analysed = analyse(rest) if rest.strip() else Analyse(concepts=())
    if not analysed.empty:
        for k in kinds:
            if k == "gesetz":
                found = _rank_norms(analysed, text=rest, gesetz=gesetz, limit=limit, ranking=ranking,
                                    question=text, pending=pending)
            else:
                filters = _filters(k, gesetz=gesetz, gericht=gericht, kategorie=kategorie)
                found = _fulltext(k, analysed, limit=limit, filters=filters)
            for row in found:
                hit = _treffer(k, row)
                if not any(r.kind == hit.kind and r.id == hit.id for r in results):
                    results.append(hit)
    if pending is not None:
        pending.cancel()  # not needed after all (no words to rank, an unknown law): off the queue
    cited = [r for r in results if r.score >= CITATION_SCORE - 50]
    ranked = sorted((r for r in results if r.score < CITATION_SCORE - 50), key=lambda r: -r.score)
    return (cited + ranked)[:limit]


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


def neighbours(*, norm: Norm) -> tuple[Norm | None, Norm | None]:
    """The norms before and after this one in its statute (the statute page's ‹ and ›)."""
    same_law = Norm.objects.filter(gesetz_id=norm.gesetz_id).only("bezeichnung", "nummer", "titel")
    before = same_law.filter(order__lt=norm.order).order_by("-order").first()
    after = same_law.filter(order__gt=norm.order).order_by("order").first()
    return before, after
