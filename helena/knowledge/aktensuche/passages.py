"""The passages of an Akte that carry a sentence vector, and their refresh.

An Akte contributes one passage for itself (Aktenzeichen, Rubrum, Gegenstand, Beteiligte, tags,
Helena's summary), each Dokument and each Notiz one per chunk of about CHUNK_CHARS characters,
cut at paragraph, sentence or word boundaries and headed by the title. A refresh embeds only
passages whose text is new (content-addressed by passage_key), so saving a Dokument with one
changed paragraph costs one or two embeddings, not the whole file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.db import transaction

from akten.dokumente.seiten import seiten_von
from akten.models import Akte, Beteiligter, Dokument, Notiz
from helena.knowledge.embeddings import embed_passages, passage_key, to_bytes
from helena.knowledge.models import AktenPassage

CHUNK_CHARS = 800
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
Quelle = AktenPassage.Quelle


@dataclass(frozen=True)
class Passage:
    quelle: str
    quelle_id: int
    teil: int
    text: str
    seite: int | None = None

    @property
    def schluessel(self) -> str:
        return passage_key(self.text)


def _pieces(text: str) -> Iterator[str]:
    """Paragraphs, and the sentences (or words) of a paragraph too long for one chunk."""
    for paragraph in re.split(r"\n\s*\n", text):
        flat = " ".join(paragraph.split())
        if len(flat) <= CHUNK_CHARS:
            if flat:
                yield flat
            continue
        for sentence in _SENTENCE_END.split(flat):
            while len(sentence) > CHUNK_CHARS:
                cut = sentence.rfind(" ", 0, CHUNK_CHARS)
                cut = cut if cut > CHUNK_CHARS // 2 else CHUNK_CHARS
                yield sentence[:cut]
                sentence = sentence[cut:].lstrip()
            if sentence:
                yield sentence


def chunks(text: str) -> list[str]:
    """The text in pieces of at most CHUNK_CHARS characters, whole paragraphs where they fit."""
    out: list[str] = []
    current = ""
    for piece in _pieces(text):
        if current and len(current) + 1 + len(piece) > CHUNK_CHARS:
            out.append(current)
            current = piece
        else:
            current = f"{current} {piece}" if current else piece
    if current:
        out.append(current)
    return out


def _headed(titel: str, text: str, *, quelle: str, quelle_id: int) -> list[Passage]:
    parts = chunks(text) or [""]
    return [
        Passage(quelle, quelle_id, teil, ". ".join(filter(None, (titel.strip(), part))))
        for teil, part in enumerate(parts)
        if titel.strip() or part
    ]


def dokument_passages(d: Dokument) -> list[Passage]:
    """A Dokument's chunks; an upload's chunks stay within a page and know it (a hit cites "S. 3")."""
    seiten = seiten_von(inhalt=d.inhalt, dateityp=d.dateityp)
    if len(seiten) == 1 and seiten[0].nummer is None:
        return _headed(d.titel, d.inhalt, quelle=Quelle.DOKUMENT, quelle_id=d.pk)
    out: list[Passage] = []
    for seite in seiten:
        for part in chunks(seite.text):
            text = ". ".join(filter(None, (d.titel.strip(), part)))
            out.append(Passage(Quelle.DOKUMENT, d.pk, len(out), text, seite=seite.nummer))
    return out or _headed(d.titel, "", quelle=Quelle.DOKUMENT, quelle_id=d.pk)


def akte_passage(akte: Akte, beteiligte: list[Beteiligter]) -> Passage:
    personen = "; ".join(f"{b.get_rolle_display()}: {b.name}" for b in beteiligte)
    wegen = f"wegen {akte.wegen}" if akte.wegen else ""
    kopf = " ".join(filter(None, (akte.aktenzeichen, akte.kurzrubrum, wegen)))
    text = ". ".join(filter(None, (kopf, akte.get_rechtsgebiet_display(), personen, " ".join(akte.tags),
                                   " ".join(akte.summary.split())[:CHUNK_CHARS])))
    return Passage(Quelle.AKTE, akte.pk, 0, text)


def passages_of(akte: Akte) -> list[Passage]:
    """Everything of one Akte that is embedded, in a stable order."""
    out = [akte_passage(akte, list(Beteiligter.objects.filter(akte=akte).order_by("pk")))]
    for d in Dokument.objects.filter(akte=akte).order_by("pk").only("pk", "titel", "inhalt", "dateityp"):
        out.extend(dokument_passages(d))
    for n in Notiz.objects.filter(akte=akte).order_by("pk").only("pk", "titel", "inhalt"):
        out.extend(_headed(n.titel, n.inhalt, quelle=Quelle.NOTIZ, quelle_id=n.pk))
    return out


@dataclass(frozen=True)
class Refreshed:
    embedded: int  # passages whose vector was computed now
    kept: int  # unchanged passages
    removed: int


def refresh_akte(*, akte_id: int, progress: Callable[[int, int], None] | None = None) -> Refreshed:
    """Bring the Akte's passages in line with its current records; a deleted Akte has none.

    Embedding runs outside the transaction (it takes ~50 ms a passage); the rows are then
    replaced in one transaction, so a search sees the old or the new state, never half of it.
    """
    akte = Akte.objects.filter(pk=akte_id).first()
    wanted = passages_of(akte) if akte else []
    stored = list(AktenPassage.objects.filter(akte_id=akte_id).only("pk", "quelle", "quelle_id", "teil",
                                                                     "schluessel", "vektor"))
    vectors = {row.schluessel: bytes(row.vektor) for row in stored}
    missing = list({p.schluessel: p for p in wanted if p.schluessel not in vectors}.values())
    if missing:
        computed = embed_passages([p.text for p in missing], progress=progress)
        vectors.update({p.schluessel: to_bytes(v) for p, v in zip(missing, computed, strict=True)})
    wanted_keys = {_key(p) for p in wanted}
    with transaction.atomic():  # the Akte's row lock makes two refreshes of one Akte take turns
        if not Akte.objects.select_for_update().filter(pk=akte_id).exists():
            removed = AktenPassage.objects.filter(akte_id=akte_id).delete()[0]
            return Refreshed(embedded=0, kept=0, removed=removed)
        current = list(AktenPassage.objects.filter(akte_id=akte_id)
                       .only("pk", "quelle", "quelle_id", "teil", "schluessel"))
        current_keys = {_key(row) for row in current}
        obsolete = [row.pk for row in current if _key(row) not in wanted_keys]
        AktenPassage.objects.filter(pk__in=obsolete).delete()
        AktenPassage.objects.bulk_create(
            AktenPassage(akte_id=akte_id, quelle=p.quelle, quelle_id=p.quelle_id, teil=p.teil, text=p.text,
                         seite=p.seite, schluessel=p.schluessel, vektor=vectors[p.schluessel])
            for p in wanted if _key(p) not in current_keys
        )
    return Refreshed(embedded=len(missing), kept=len(wanted_keys & current_keys), removed=len(obsolete))


def _key(p: Passage | AktenPassage) -> tuple[str, int, int, str]:
    return (p.quelle, p.quelle_id, p.teil, p.schluessel)
