"""Hybrid search over the firm's own files, scoped to the Akten the user may see.

The exact matches (lexical.py) and the passages nearest in meaning (vectors.py) are fused by
reciprocal rank per Akte, as for the statutes (ranking.fuse).

E5's cosines are compressed (an unrelated passage still scores ~0.78, a fitting one ~0.86), so a
passage counts as near only above FLOOR and within MARGIN of the best one: a name that occurs
nowhere brings up nothing, a question about a topic its few closest files. Tuned on the demo
Akten (tests/helena/knowledge/test_aktensuche.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Literal

from akten.dokumente.seiten import fundstelle
from akten.lesezugriffe.services import Bereich, Lesung
from akten.models import Akte, Dokument, Notiz, User
from akten.selectors import akten_for
from helena.knowledge.aktensuche.lexical import SNIPPET, Treffer, lexical
from helena.knowledge.aktensuche.vectors import QUELLEN, Nachbar, passagen_index
from helena.knowledge.embeddings import embed_query
from helena.knowledge.models import AktenPassage
from helena.knowledge.ranking import fuse

log = logging.getLogger(__name__)

Ranking = Literal["hybrid", "lexical", "dense"]
FLOOR, MARGIN = 0.83, 0.025  # cosine
CANDIDATES = 60  # passages from the dense ranker
PER_AKTE = 5
SEMANTIC_SHOWN = 2  # of PER_AKTE, when the words matched too
RRF_K, LEXICAL_WEIGHT, DENSE_WEIGHT = 20.0, 1.0, 0.5
_FUNDSTELLE = {"akte": "akte", "dokument": "dokument_text", "notiz": "notiz"}


@dataclass
class Ergebnis:
    akte: Akte
    treffer: list[Treffer]
    weitere: int = 0  # hits beyond the PER_AKTE shown
    score: float = 0.0  # the fused score (reciprocal ranks)


@dataclass
class AktenSuche:
    ergebnisse: list[Ergebnis] = field(default_factory=list)
    anzahl: int = 0  # Akten with any hit
    nur_woerter: bool = False  # the phrase did not occur; hits for single words


def search_akten(*, user: User, query: str, limit: int = 10, akte_id: int | None = None,
                 dokumente_only: bool = False, ranking: Ranking = "hybrid",
                 per_akte: int = PER_AKTE) -> AktenSuche:
    """The Akten (or one Akte's Dokumente) that match the query, best first."""
    query = " ".join(query.split())
    visible = akten_for(user=user)
    if akte_id is not None:
        visible = visible.filter(pk=akte_id)
    treffer, lex_ranked, nur_woerter = ({}, [], False)
    if ranking != "dense":
        treffer, lex_ranked, nur_woerter = lexical(visible, query, dokumente_only=dokumente_only)
    near = [] if ranking == "lexical" else _nearest(
        query, akte_ids=set(visible.values_list("pk", flat=True)),
        quellen=("dokument",) if dokumente_only else QUELLEN)
    semantic = _semantic_hits(near, treffer)
    for akte_pk, hits in semantic.items():
        treffer[akte_pk] = _shown(treffer.get(akte_pk, []), hits, per_akte) + _rest(
            treffer.get(akte_pk, []), hits, per_akte)
    dense_ranked = list(dict.fromkeys(n.akte_id for n in near))
    fused = fuse((LEXICAL_WEIGHT, [(pk, 0.0) for pk in lex_ranked]),
                 (DENSE_WEIGHT, [(pk, 0.0) for pk in dense_ranked]), k=RRF_K)
    fused = fused[:limit]
    akten = {a.pk: a for a in visible.filter(pk__in=[pk for pk, _ in fused])}
    return AktenSuche(
        ergebnisse=[Ergebnis(akten[pk], treffer[pk][:per_akte], max(0, len(treffer[pk]) - per_akte),
                             round(score, 4))
                    for pk, score in fused if pk in akten],
        anzahl=len(treffer), nur_woerter=nur_woerter,
    )


def _shown(lexical_hits: list[Treffer], semantic_hits: list[Treffer], per_akte: int) -> list[Treffer]:
    """The hits shown for one Akte: by its words first, yet room for SEMANTIC_SHOWN found by meaning."""
    room = min(len(semantic_hits), SEMANTIC_SHOWN, per_akte)
    lexical_shown = lexical_hits[:max(per_akte - room, 0)]
    return lexical_shown + semantic_hits[:per_akte - len(lexical_shown)]


def _rest(lexical_hits: list[Treffer], semantic_hits: list[Treffer], per_akte: int) -> list[Treffer]:
    shown = {id(t) for t in _shown(lexical_hits, semantic_hits, per_akte)}
    return [t for t in lexical_hits + semantic_hits if id(t) not in shown]


def _nearest(query: str, *, akte_ids: set[int], quellen: tuple[str, ...]) -> list[Nachbar]:
    index = passagen_index()
    if not index.covers_any(akte_ids):
        return []
    try:
        vector = embed_query(query)
    except Exception:  # the search still answers, by the words, if the model cannot run here
        log.exception("embedding the question failed")
        return []
    return index.rank(vector, akte_ids=akte_ids, quellen=quellen, limit=CANDIDATES, floor=FLOOR,
                                   margin=MARGIN)


def _semantic_hits(near: list[Nachbar], lexical_hits: dict[int, list[Treffer]]) -> dict[int, list[Treffer]]:
    """One hit per Dokument, Notiz or Akte found by meaning and not already by its words."""
    seen = {(h.akte_id, h.dokument_id, h.notiz_id) for hits in lexical_hits.values() for h in hits}
    rows = AktenPassage.objects.filter(pk__in=[n.passage_id for n in near]).values_list("pk", "text", "seite")
    texts = {pk: text for pk, text, _ in rows}
    seiten = {pk: seite for pk, _, seite in rows}
    titles = _titles(near)
    out: dict[int, list[Treffer]] = {}
    for n in near:
        dokument_id = n.quelle_id if n.quelle == "dokument" else None
        notiz_id = n.quelle_id if n.quelle == "notiz" else None
        key = (n.akte_id, dokument_id, notiz_id)
        if key in seen:
            continue
        seen.add(key)
        titel = titles.get((n.quelle, n.quelle_id))
        text = texts.get(n.passage_id, "")
        if titel and text.startswith(f"{titel}. "):
            text = text[len(titel) + 2:]
        out.setdefault(n.akte_id, []).append(Treffer(
            n.akte_id, _FUNDSTELLE[n.quelle], _excerpt(text), dokument_id=dokument_id, notiz_id=notiz_id,
            titel=titel, seite=seiten.get(n.passage_id), semantisch=True, score=round(n.score, 3)))
    return out


def _titles(near: list[Nachbar]) -> dict[tuple[str, int], str]:
    out: dict[tuple[str, int], str] = {}
    for quelle, model in (("dokument", Dokument), ("notiz", Notiz)):
        ids = [n.quelle_id for n in near if n.quelle == quelle]
        rows = model.objects.filter(pk__in=ids).values_list("pk", "titel")
        out.update({(quelle, pk): titel for pk, titel in rows})
    return out


def _excerpt(text: str) -> str:
    return text[: 2 * SNIPPET] + ("…" if len(text) > 2 * SNIPPET else "")


def _wo(t: Treffer) -> str:
    return ", ".join(filter(None, (t.fundstelle, fundstelle(t.seite))))


# What of an Akte a hit quotes besides its Dokumente and Notizen: Helena's summary, the Akte's passage
# found by meaning. The rest (Aktenzeichen, Rubrum, wegen, a Schlagwort, a Beteiligter's name and role)
# is what the Akten list shows too: no read of the file's content.
_AKTE_TEXT = ("zusammenfassung", "akte")


def _gelesen(akte: Akte, t: Treffer) -> Lesung | None:
    if t.dokument_id is not None:
        return Lesung(akte_id=akte.pk, aktenzeichen=akte.aktenzeichen, bereich=Bereich.DOKUMENT_AUSZUG,
                      dokument_id=t.dokument_id, dokument_titel=(t.titel or "")[:300])
    if t.notiz_id is not None:
        return Lesung.von(akte, bereich=Bereich.NOTIZ_AUSZUG, objekt_id=t.notiz_id)
    if t.fundstelle in _AKTE_TEXT:
        return Lesung.von(akte, bereich=Bereich.AKTE_AUSZUG)
    return None


def lesungen(suche: AktenSuche, *, limit: int | None = None) -> list[Lesung]:
    """The reads for the read log a result stands for: every hit shown that quotes a Dokument's or a
    Notiz's title or text, or the Akte's summary (`limit`: the hits `rows` shows)."""
    shown = [(e.akte, t) for e in suche.ergebnisse for t in e.treffer][:limit]
    return [lesung for akte, t in shown if (lesung := _gelesen(akte, t)) is not None]


def rows(suche: AktenSuche, *, limit: int) -> list[dict[str, Any]]:
    """One row per hit, best Akte first, for the API: the Akte, the Dokument or Notiz, a snippet."""
    out: list[dict[str, Any]] = []
    for e in suche.ergebnisse:
        for t in e.treffer:
            kind = "dokument" if t.dokument_id else "notiz" if t.notiz_id else "akte"
            out.append({
                "kind": kind,
                "id": str(t.dokument_id or t.notiz_id or e.akte.pk),
                "title": t.titel or e.akte.kurzrubrum,
                "citation": e.akte.aktenzeichen,
                "snippet": t.text or t.titel or "",
                "score": t.score if t.semantisch else e.score,
                "source": f"Akte {e.akte.aktenzeichen} ({_wo(t)})",
                "akte": {"id": str(e.akte.pk), "aktenzeichen": e.akte.aktenzeichen,
                         "kurzrubrum": e.akte.kurzrubrum},
                "dokument": {"id": str(t.dokument_id), "titel": t.titel} if t.dokument_id else None,
                "fundstelle": t.fundstelle,
                "seite": t.seite,
                "semantisch": t.semantisch,
            })
    return out[:limit]
