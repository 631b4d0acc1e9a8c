"""Writes to the knowledge base: statute and decision imports, the search lexicon.

Imports update in place or upsert so that running them again (a restart, a newer dump) never
duplicates anything; a statute's norms keep their rows (helena/knowledge/aktualisierung.py).
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
from django.utils import timezone

from helena.knowledge import aktualisierung, dense, index, lexikon
from helena.knowledge.embeddings import embed_passages, norm_passage, passage_key, to_bytes
from helena.knowledge.importers import ImportProblem, ParsedGesetz, ParsedNorm, ParsedUrteil
from helena.knowledge.models import Gesetz, Norm, NormAenderung, Urteil

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


class GesetzGeaendert(RuntimeError):
    """The law was updated by someone else while this update read it (a second load_gesetze)."""


def _row(*, gesetz: Gesetz, norm: ParsedNorm, stichworte: Mapping[str, str]) -> Norm:
    return Norm(
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
        stichworte=stichworte.get(norm.nummer, ""),
    )


@dataclass
class Aktualisierung:
    """One law's update: the report, and the law as stored (None after a dry run of a new law)."""

    bericht: aktualisierung.Bericht
    gesetz: Gesetz | None


def update_gesetz(
    *, parsed: ParsedGesetz, stichworte: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None, dry_run: bool = False,
) -> Aktualisierung:
    """Bring the law with this abbreviation to the parsed version, in place.

    A norm that is still there keeps its row and primary key (aktualisierung.abgleichen); only rows
    that differ are written, and only a norm whose embedded passage changed gets a new vector
    (`progress(done, total)` follows those). A norm gone from the law is deleted, so the search no
    longer finds it; its NormAenderung keeps the last text for its page. stichworte: the
    Sachregister keywords by norm number (importers.load_sachregister).

    Vectors are computed before the write, which is one short transaction; a law that changed in
    between (another import) is refused, not overwritten. dry_run: the report only, nothing written.
    """
    stored = Gesetz.objects.filter(abk=parsed.abk).first()
    gesetz = stored or Gesetz(abk=parsed.abk)
    stand_vorher = stored.stand if stored else ""
    kopf = (parsed.titel[:500], parsed.stand[:500], parsed.stand_datum, parsed.quelle)
    kopf_geaendert = stored is None or (stored.titel, stored.stand, stored.stand_datum, stored.quelle) != kopf
    gesetz.titel, gesetz.stand, gesetz.stand_datum, gesetz.quelle = kopf
    alt = list(stored.normen.order_by("order", "pk")) if stored else []
    neu = [_row(gesetz=gesetz, norm=norm, stichworte=stichworte or {}) for norm in parsed.normen]
    abgleich = aktualisierung.abgleichen(alt=alt, neu=neu)
    bericht = aktualisierung.Bericht.aus(
        abk=gesetz.abk, titel=gesetz.titel, normen=len(neu), erstmals=stored is None,
        stand_vorher=stand_vorher, stand_nachher=gesetz.stand, aenderungen=abgleich.aenderungen)
    if dry_run or not (kopf_geaendert or abgleich.anlegen or abgleich.aktualisieren or abgleich.entfernen):
        return Aktualisierung(bericht=bericht, gesetz=stored)  # nothing to write

    einbetten = list(abgleich.anlegen)
    for row, norm in abgleich.aktualisieren:
        passage = passage_of(row)
        for name in aktualisierung.FELDER:
            setattr(row, name, getattr(norm, name))
        if row.vektor is None or passage_of(row) != passage:
            einbetten.append(row)
    for row, vector in zip(einbetten, norm_vectors([passage_of(r) for r in einbetten], progress=progress),
                           strict=True):
        row.vektor = vector
    _write(gesetz=gesetz, stored=stored, abgleich=abgleich, stand_vorher=stand_vorher)
    return Aktualisierung(bericht=bericht, gesetz=gesetz)


@transaction.atomic
def _write(*, gesetz: Gesetz, stored: Gesetz | None, abgleich: aktualisierung.Abgleich,
           stand_vorher: str) -> None:
    if stored is not None:
        locked = Gesetz.objects.select_for_update().filter(pk=stored.pk)
        if list(locked.values_list("importiert_am", flat=True)) != [stored.importiert_am]:
            raise GesetzGeaendert(
                f"{gesetz.abk} wurde währenddessen anders aktualisiert – bitte erneut laden.")
    gesetz.save()
    Norm.objects.bulk_create(abgleich.anlegen, batch_size=NORM_BATCH_SIZE)
    if abgleich.aktualisieren:
        Norm.objects.bulk_update([row for row, _ in abgleich.aktualisieren],
                                 [*aktualisierung.FELDER, "vektor"], batch_size=NORM_BATCH_SIZE)
    if abgleich.entfernen:
        Norm.objects.filter(pk__in=[row.pk for row in abgleich.entfernen]).delete()
    if stored is not None and abgleich.aenderungen:  # a law's first load is no change of a norm
        jetzt = timezone.now()
        NormAenderung.objects.bulk_create(
            NormAenderung(gesetz_abk=gesetz.abk, nummer=a.nummer, bezeichnung=a.bezeichnung, art=a.art,
                          titel_vorher=a.titel_vorher, text_vorher=a.text_vorher,
                          gliederung_vorher=a.gliederung_vorher, stand_vorher=stand_vorher,
                          stand_nachher=gesetz.stand, geaendert_am=jetzt)
            for a in abgleich.aenderungen)


def import_gesetz(*, parsed: ParsedGesetz, stichworte: Mapping[str, str] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Gesetz:
    """update_gesetz for a caller that wants the law, not the report."""
    gesetz = update_gesetz(parsed=parsed, stichworte=stichworte, progress=progress).gesetz
    assert gesetz is not None  # written: not a dry run
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
