"""The corpus lexicon in memory: every stem with its document frequency.

Query analysis asks it many small questions (how common is every word starting with "klag",
which words end in "frist", how could "lohnpfand" split); answered from sorted lists with
bisect that costs microseconds, where correlated LIKE queries cost milliseconds each.
The table has a few ten thousand rows; the copy is reloaded when refresh_lexikon rebuilt it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field

from django.db import connection

from helena.knowledge.cache import TableCache


def trigrams(word: str) -> set[str]:
    """pg_trgm's trigrams: the word padded with two blanks in front and one behind."""
    padded = f"  {word} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


@dataclass(frozen=True)
class Lexikon:
    docs: int
    ndoc: dict[str, int]
    words: list[str]  # sorted, for prefix ranges
    reversed_words: list[str]  # sorted reversed words, for suffix ranges
    by_trigram: dict[str, list[str]] = field(default_factory=dict)
    abks: tuple[str, ...] = ()  # the loaded laws, for recognising citations

    def similar(self, word: str, *, threshold: float = 0.45, limit: int = 2) -> list[str]:
        """Typo fixes: corpus words with pg_trgm similarity ≥ threshold, most similar first."""
        own = trigrams(word)
        shared: Counter[str] = Counter()
        for gram in own:
            shared.update(self.by_trigram.get(gram, ()))
        scored = []
        for candidate, common in shared.items():
            similarity = common / (len(own) + len(trigrams(candidate)) - common)
            if similarity >= threshold and candidate != word:
                scored.append((similarity, self.ndoc[candidate], candidate))
        scored.sort(reverse=True)
        return [candidate for _, _, candidate in scored[:limit]]

    def _range(self, items: list[str], prefix: str) -> list[str]:
        start = bisect_left(items, prefix)
        end = bisect_left(items, prefix + "\uffff")
        return items[start:end]

    def with_prefix(self, prefix: str) -> list[str]:
        return self._range(self.words, prefix)

    def prefix_df(self, prefix: str) -> int:
        """Documents containing a word that starts with prefix (summed, so an upper bound)."""
        return sum(self.ndoc[w] for w in self.with_prefix(prefix))

    def with_suffix(self, suffix: str) -> list[str]:
        return [w[::-1] for w in self._range(self.reversed_words, suffix[::-1])]

    def compounds_ending_in(self, stem: str, limit: int = 60) -> list[str]:
        """Words whose head is stem ("kundigungsschutzklag" for "klag"), most frequent first.

        The part before the head must look like a word of its own (four letters or a corpus
        word), so "verlang" does not count as a compound of "lang".
        """
        found = []
        for word in self.with_suffix(stem):
            modifier = word[: len(word) - len(stem)]
            if len(modifier) >= 4 or (len(modifier) == 3 and modifier in self.ndoc):
                found.append(word)
        found.sort(key=lambda w: -self.ndoc[w])
        return found[:limit]

    def split(self, word: str) -> tuple[str, str] | None:
        """Split an unknown compound into (modifier, head) that the corpus knows, if possible."""
        best: tuple[int, str, str] | None = None
        for i in range(3, len(word) - 3):
            modifier, head = word[:i], word[i:]
            if head.startswith("s") and len(head) > 4 and not self.with_prefix(head):
                head = head[1:]  # Fugen-s: "kundigung|s|schutz"
            mod_df, head_df = self.prefix_df(modifier), self.prefix_df(head)
            if mod_df and head_df and (best is None or min(mod_df, head_df) > best[0]):
                best = (min(mod_df, head_df), modifier, head)
        return (best[1], best[2]) if best else None


def _build() -> Lexikon:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wort, ndoc FROM knowledge_lexem")
        ndoc = dict(cursor.fetchall())
        cursor.execute(
            "SELECT (SELECT count(*) FROM knowledge_norm) + (SELECT count(*) FROM knowledge_urteil)"
            " + (SELECT count(*) FROM knowledge_muster)"
        )
        (docs,) = cursor.fetchone()
        cursor.execute("SELECT abk FROM knowledge_gesetz")
        abks = tuple(abk for (abk,) in cursor.fetchall())
    by_trigram: dict[str, list[str]] = {}
    for word in ndoc:
        for gram in trigrams(word):
            by_trigram.setdefault(gram, []).append(word)
    return Lexikon(
        docs=max(int(docs), 1),
        ndoc=ndoc,
        words=sorted(ndoc),
        reversed_words=sorted(w[::-1] for w in ndoc),
        by_trigram=by_trigram,
        abks=abks,
    )


_cache: TableCache[Lexikon] = TableCache(table="knowledge_lexem", build=_build)


def lexikon() -> Lexikon:
    """The current lexicon, reloaded after refresh_lexikon rebuilt the table."""
    return _cache.get()


def invalidate() -> None:
    _cache.invalidate()
