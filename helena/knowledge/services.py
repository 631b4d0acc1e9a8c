"""Writes to the knowledge base: statute and decision imports, the search lexicon.

Imports are replace-or-upsert so that running them again (a restart, a newer dump) never
duplicates anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from itertools import islice
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from helena.knowledge import dense, index, lexikon
from helena.knowledge.embeddings import embed_passages, norm_passage, passage_key, to_bytes
from helena.knowledge.importers import ImportProblem, ParsedGesetz, ParsedUrteil
from helena.knowledge.models import Gesetz, Norm, Urteil

NORM_BATCH_SIZE = 2000
_URTEIL_FIELDS = ["gericht", "datum", "aktenzeichen", "typ", "leitsatz", "text", "ecli", "quelle"]


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    problems: list[ImportProblem] = field(default_factory=list)


def bundled_vectors_path() -> Path:
    return Path(settings.BASE_DIR) / "corpus" / "vektoren.npz"


@cache
def bundled_vectors() -> dict[str, np.ndarray]:
    """The vectors shipped with the corpus (manage.py embed_gesetze), by passage key."""
    path = bundled_vectors_path()
    if not path.exists():
        return {}
    with np.load(path) as data:
        return dict(zip(data["keys"].tolist(), data["vectors"], strict=True))


def passage_of(norm: Norm) -> str:
    """What of a norm is embedded (the recipe: embeddings.norm_passage); the norm needs its Gesetz."""
    return norm_passage(citation=norm.citation, titel=norm.titel, stichworte=norm.stichworte, text=norm.text)


def norm_vectors(passages: list[str], *, progress: Callable[[int, int], None] | None = None) -> list[bytes]:
    """Each passage's vector as stored: from the bundle where the text is the bundled one, else
    computed (a law loaded from XML: ~0.1 s a norm, hence the progress callback)."""
    bundled = bundled_vectors()
    keys = [passage_key(p) for p in passages]
    missing = [i for i, key in enumerate(keys) if key not in bundled]
    computed = dict(zip(missing, embed_passages([passages[i] for i in missing], progress=progress),
                        strict=True)) if missing else {}
    return [to_bytes(computed[i] if i in computed else bundled[key]) for i, key in enumerate(keys)]


def import_gesetz(*, parsed: ParsedGesetz, stichworte: Mapping[str, str] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Gesetz:
    """Replace the law with this abbreviation by the parsed version (old norms go with it).

    stichworte: the Sachregister keywords by norm number (importers.load_sachregister). Every norm
    gets its sentence vector (semantic search); `progress(done, total)` follows the ones computed.

    Replacing instead of diffing keeps the import simple and idempotent; nothing else refers to
    a Norm row, so new primary keys do no harm.
    """
    Gesetz.objects.filter(abk=parsed.abk).delete()
    gesetz = Gesetz.objects.create(
        abk=parsed.abk,
        titel=parsed.titel[:500],
        stand=parsed.stand[:500],
        stand_datum=parsed.stand_datum,
        quelle=parsed.quelle,
    )
    rows = [
        Norm(
            gesetz=gesetz,
            bezeichnung=norm.bezeichnung[:60],
            nummer=norm.nummer[:30],
            titel=norm.titel[:1000],
            text=norm.text,
            fussnoten=norm.fussnoten,
            order=norm.order,
            # The path starts at the law's title, so "Kündigungsschutz" or "Insolvenz" in a
            # question reaches every norm of that law (search weight C).
            gliederung=" › ".join(filter(None, (gesetz.titel, norm.gliederung)))[:1000],
            stichworte=(stichworte or {}).get(norm.nummer, ""),
        )
        for norm in parsed.normen
    ]
    passages = [passage_of(row) for row in rows]
    for row, vector in zip(rows, norm_vectors(passages, progress=progress), strict=True):
        row.vektor = vector
    Norm.objects.bulk_create(rows, batch_size=NORM_BATCH_SIZE)
    return gesetz


def _batches(items: Iterable, size: int) -> Iterable[list]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _key(gericht: str, aktenzeichen: str, datum: date | None) -> tuple[str, str, date | None]:
    return (gericht.casefold(), aktenzeichen.casefold(), datum)


def _save_batch(items: list[ParsedUrteil], result: ImportResult) -> None:
    # The last occurrence wins within a batch, as it would with one update_or_create per line.
    by_ecli: dict[str, ParsedUrteil] = {}
    by_key: dict[tuple, ParsedUrteil] = {}
    for item in items:
        if item.ecli:
            by_ecli[item.ecli] = item
        else:
            by_key[_key(item.gericht, item.aktenzeichen, item.datum)] = item

    existing_ecli: dict[str, int] = {}
    if by_ecli:
        existing_ecli = dict(Urteil.objects.filter(ecli__in=list(by_ecli)).values_list("ecli", "pk"))
    # Without ECLI a decision is matched by court, file number and date. A decision that gains an
    # ECLI in a newer dump updates its old row; one that lacks it keeps the ECLI it already has.
    without_ecli: dict[tuple, int] = {}
    with_ecli: dict[tuple, tuple[int, str]] = {}
    candidates = [i for i in by_ecli.values() if i.ecli not in existing_ecli] + list(by_key.values())
    if candidates:
        rows = Urteil.objects.filter(aktenzeichen__in={i.aktenzeichen for i in candidates}).values_list(
            "pk", "gericht", "aktenzeichen", "datum", "ecli"
        )
        for pk, gericht, aktenzeichen, datum, ecli in rows:
            key = _key(gericht, aktenzeichen, datum)
            if ecli:
                with_ecli.setdefault(key, (pk, ecli))
            else:
                without_ecli.setdefault(key, pk)

    to_create: list[Urteil] = []
    to_update: list[Urteil] = []
    seen: set[int] = set()
    for item in [*by_ecli.values(), *by_key.values()]:
        values = {name: getattr(item, name) for name in _URTEIL_FIELDS}
        key = _key(item.gericht, item.aktenzeichen, item.datum)
        if item.ecli:
            pk = existing_ecli.get(item.ecli) or without_ecli.get(key)
        else:
            pk = without_ecli.get(key)
            if pk is None and key in with_ecli:
                pk, values["ecli"] = with_ecli[key]
        if pk is None or pk in seen:
            to_create.append(Urteil(**values))
        else:
            seen.add(pk)
            to_update.append(Urteil(pk=pk, **values))
    with transaction.atomic():
        Urteil.objects.bulk_create(to_create)
        if to_update:
            Urteil.objects.bulk_update(to_update, _URTEIL_FIELDS, batch_size=200)
    result.created += len(to_create)
    result.updated += len(to_update)


def import_urteile(
    *, items: Iterable[ParsedUrteil | ImportProblem], batch_size: int = 1000
) -> ImportResult:
    """Upsert decisions: by ECLI when there is one, else by (court, file number, date).

    Accepts the parser's stream as is; ImportProblems are collected, not raised. Each batch is
    its own transaction, so a long dump keeps what it has imported if it is interrupted.
    """
    result = ImportResult()

    def urteile() -> Iterable[ParsedUrteil]:
        for item in items:
            if isinstance(item, ImportProblem):
                result.problems.append(item)
            else:
                yield item

    for batch in _batches(urteile(), batch_size):
        _save_batch(batch, result)
    return result


_LEXIKON_SQL = """
INSERT INTO knowledge_lexem (wort, ndoc)
SELECT word, least(sum(ndoc), 2147483647)::integer
FROM (
    SELECT word, ndoc FROM ts_stat('SELECT search FROM knowledge_norm')
    UNION ALL SELECT word, ndoc FROM ts_stat('SELECT search FROM knowledge_urteil')
    UNION ALL SELECT word, ndoc FROM ts_stat('SELECT search FROM knowledge_muster')
) AS stats
WHERE length(word) BETWEEN 2 AND 200 AND word ~ '[[:alpha:]]'
GROUP BY word
"""


@transaction.atomic
def refresh_lexikon() -> int:
    """Rebuild the Lexem table (all stems with document counts) from the search vectors.

    Once per import run, not per law: ts_stat reads every vector. Words without letters are left
    out; the search never expands numbers. Readers see the old table until the commit.
    """
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM knowledge_lexem")
        cursor.execute(_LEXIKON_SQL)
        count = cursor.rowcount
    transaction.on_commit(_invalidate_caches)
    _invalidate_caches()
    return count


def _invalidate_caches() -> None:
    """This process sees its own imports at once; others within RECHECK_SECONDS."""
    index.invalidate()
    dense.invalidate()
    lexikon.invalidate()
