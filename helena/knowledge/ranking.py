"""Ranking the statutes for a question: lexically (the in-memory postings, helena/knowledge/index.py),
semantically (the sentence vectors, helena/knowledge/dense.py), and both fused by reciprocal rank
(the default): each finds norms the other misses, and ranks count, not the scales of their scores.
The fused ranking then lets a special court's procedural code yield to the general one unless the
question names that court (helena/knowledge/gerichte.py).
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Literal

import numpy as np

from helena.knowledge.anliegen import anliegen, saetze
from helena.knowledge.dense import dense_index
from helena.knowledge.embeddings import embed_query
from helena.knowledge.gerichte import unnamed_special_codes
from helena.knowledge.index import Weights, norm_index, rank
from helena.knowledge.lexikon import lexikon
from helena.knowledge.query import Analyse
from helena.knowledge.thesaurus import fachwoerter, umschreiben

log = logging.getLogger(__name__)

# Field weights: a hit in the norm's designation/title, its text (damped by length), its place
# in the statute's structure.
TITLE, TEXT, STRUCTURE = 0.5, 0.5, 0.3
REGISTER = 1.0  # a Sachregister keyword (corpus/sachregister/), search weight D
LAW_BOOST = 0.0
SECTION_BOOST = 0.0
COORDINATION = 0.5


Ranking = Literal["hybrid", "lexical", "dense"]
# Reciprocal rank fusion: score = Σ weight / (RRF_K + rank). Tuned on the development set only
# (tests/data/knowledge_eval.json, recall@5: lexical 85.3 %, dense 63.7 %, fused 92.2 %; equal
# weights with the usual k = 60 gave 75.5 %): the lexical ranking leads, the semantic one adds the
# norms whose wording the question does not share.
CANDIDATES = 100  # from each ranker, before fusion
DENSE_CHARS = 600  # of a long text: the embedding costs ~0.1 ms a character
LEGAL_CHARS_SHORT, LEGAL_CHARS_LONG = 100, 150  # of the statutes' words for the lay words (_legal_terms)
RRF_K = 20.0
LEXICAL_WEIGHT = 1.0
DENSE_WEIGHT = 0.5
DENSE_WEIGHT_LONG = 0.8  # for a client's e-mail (helena/knowledge/anliegen.py)
# A norm of a special court's code the question does not name (helena/knowledge/gerichte.py): its
# fused score × this, worth about two places in both rankings. It decides between near-equals
# (§ 66 ArbGG and § 517 ZPO for "Berufungsfrist"), not against a clearly better hit. Chosen by that
# reasoning, not tuned; the evaluation sets were only checked not to lose by it.
SPECIAL_COURT_PRIOR = 0.9
EMBED_TIMEOUT = 30.0  # seconds: a queue of embeddings that long means the process is overloaded
_EMBEDDER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="frage-einbetten")  # one model a process


def lexical(analysed: Analyse, *, gesetz_id: int | None, limit: int) -> list[tuple[int, float]]:
    lex = lexikon()
    concepts = []
    for concept in analysed.concepts:
        words: list[str] = []
        for term in concept.terms:
            words.extend(lex.with_prefix(term.lexeme) if term.prefix else [term.lexeme])
        concepts.append((concept.weight, words))
    return rank(
        norm_index(), concepts, gesetz_id=gesetz_id, limit=limit,
        weights=Weights(title=TITLE, text=TEXT, structure=STRUCTURE, register=REGISTER, law_boost=LAW_BOOST,
                        section_boost=SECTION_BOOST, coordination=COORDINATION),
    )


def _legal_terms(text: str) -> str:
    """The statutes' words for the text's lay words (thesaurus), each once: the model then reads
    "Mietsicherheit" where the client wrote "Kaution" (development questions: semantic recall@5
    58.8 → 78.4 %, fused 90.2 → 91.2 %; development e-mails: semantic 28.6 → 50.0 %; the held-out
    sets were only checked afterwards)."""
    return fachwoerter(text)


def dense_text(text: str) -> str:
    """What of a question is embedded: a short one whole, of a long one its asking sentences, then
    the story's sentences that use the most lay words of the law, up to DENSE_CHARS; each with the
    statutes' words for its lay words."""
    teile = anliegen(text)
    if not teile.lang:
        return f"{text} {_legal_terms(text)[:LEGAL_CHARS_SHORT]}".strip()
    out = f"{teile.kern[:DENSE_CHARS]} {_legal_terms(f'{teile.kern} {teile.kontext}')[:LEGAL_CHARS_LONG]}"
    scored = [(len(umschreiben(satz)[1].split()), i, satz) for i, satz in enumerate(saetze(teile.kontext))]
    best = sorted((item for item in scored if item[0] > 0), key=lambda item: (-item[0], item[1]))
    for _, _, satz in best:
        if len(out) + 1 + len(satz) > DENSE_CHARS:
            break
        out = f"{out} {satz}"
    return out


def embed_soon(text: str) -> Future[np.ndarray | None]:
    """Start embedding what dense_text picks in a thread of its own: the model's matrix products
    release the GIL, so the question's analysis (SQL) and the lexical ranking run meanwhile (the
    embedding is most of a search's time)."""
    return _EMBEDDER.submit(_embed, dense_text(text))


def _embed(text: str) -> np.ndarray | None:
    try:
        return embed_query(text)
    except Exception:  # the search still answers, lexically, if the model cannot run here
        log.exception("embedding the question failed")
        return None


def dense(text: str, *, gesetz_id: int | None, limit: int,
          pending: Future[np.ndarray | None] | None = None) -> list[tuple[int, float]]:
    """By the sentence vectors of what dense_text picks (embedded by embed_soon, or now): the model
    reads the question, not the whole story, and costs time by the character."""
    vector = pending.result(timeout=EMBED_TIMEOUT) if pending is not None else _embed(dense_text(text))
    return [] if vector is None else dense_index().rank(vector, gesetz_id=gesetz_id, limit=limit)


def fuse(*rankings: tuple[float, list[tuple[int, float]]], k: float) -> list[tuple[int, float]]:
    """Reciprocal rank fusion: each ranker's list counts by rank, not by its own score's scale."""
    scores: dict[int, float] = {}
    for weight, ranked in rankings:
        for position, (pk, _) in enumerate(ranked, start=1):
            scores[pk] = scores.get(pk, 0.0) + weight / (k + position)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def prefer_general_codes(ranked: list[tuple[int, float]], *, question: str) -> list[tuple[int, float]]:
    """The norms of the special courts' codes the question does not name count less (see
    SPECIAL_COURT_PRIOR): "Berufungsfrist" asks for § 517 ZPO, "… beim Arbeitsgericht" for § 66 ArbGG."""
    codes = unnamed_special_codes(question)
    if not codes:
        return ranked
    index = norm_index()
    weighted = [(pk, score * SPECIAL_COURT_PRIOR if index.law_of(pk) in codes else score)
                for pk, score in ranked]
    return sorted(weighted, key=lambda item: (-item[1], item[0]))


def rank_norms(analysed: Analyse, *, text: str, gesetz_id: int | None, limit: int,
               ranking: Ranking = "hybrid", question: str | None = None,
               pending: Future[np.ndarray | None] | None = None) -> list[tuple[int, float]]:
    """The best norms for the question as (primary key, score), by the chosen ranking. `text` is
    what is searched, `question` the whole question (with its citations, which may name a court),
    `pending` its embedding if embed_soon started it.

    The single rankings stay as they are, for measuring each; the court prior belongs to the answer.
    """
    if ranking == "lexical":
        return lexical(analysed, gesetz_id=gesetz_id, limit=limit)
    if ranking == "dense":
        return dense(text, gesetz_id=gesetz_id, limit=limit, pending=pending)
    dense_weight = DENSE_WEIGHT_LONG if anliegen(text).lang else DENSE_WEIGHT
    fused = fuse((LEXICAL_WEIGHT, lexical(analysed, gesetz_id=gesetz_id, limit=CANDIDATES)),
                 (dense_weight, dense(text, gesetz_id=gesetz_id, limit=CANDIDATES, pending=pending)), k=RRF_K)
    return prefer_general_codes(fused, question=question or text)[:limit]
