"""`manage.py embed_gesetze`: compute the sentence vectors of every loaded norm and write them to
corpus/vektoren.npz, the vectors shipped with the bundled corpus.

Run it after the corpus (corpus/gesetze/, corpus/sachregister/) or the passage recipe
(helena/knowledge/embeddings.py) changed: `load_gesetze` then finds every bundled norm's vector
there and computes none (tests/helena/knowledge/test_vectors.py checks that the file covers the
corpus). About 15 minutes for the whole corpus on two cores.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from helena.knowledge.embeddings import DIM, MODEL, embed_passages, passage_key
from helena.knowledge.models import Norm
from helena.knowledge.services import bundled_vectors, bundled_vectors_path, passage_of


class Command(BaseCommand):
    help = "Berechnet die Vektoren aller geladenen Normen und schreibt sie nach corpus/vektoren.npz."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--out", default=None, help="Zieldatei (Standard: corpus/vektoren.npz)")

    def handle(self, *args, out: str | None, **options) -> None:
        norms = list(Norm.objects.select_related("gesetz").order_by("gesetz__abk", "order"))
        if not norms:
            raise CommandError("Es sind keine Gesetze geladen (erst manage.py load_gesetze).")
        passages = [passage_of(n) for n in norms]
        keys = [passage_key(p) for p in passages]
        known = bundled_vectors()  # a passage whose text did not change keeps its vector
        todo = [i for i, key in enumerate(keys) if key not in known]
        start = time.perf_counter()
        with tqdm(total=len(todo), desc="Normen einbetten", unit="Norm",
                  disable=None if options.get("verbosity", 1) else True) as bar:
            fresh = embed_passages([passages[i] for i in todo],
                                   progress=lambda done, _total: bar.update(done - bar.n))
        vectors = np.zeros((len(keys), DIM), dtype="<f2")
        computed = dict(zip(todo, fresh, strict=True))
        for i, key in enumerate(keys):
            vectors[i] = computed[i] if i in computed else known[key]
        path = Path(out) if out else bundled_vectors_path()
        np.savez_compressed(path, keys=np.array(keys), vectors=vectors, model=np.array(MODEL))
        self.stdout.write(f"{len(norms)} Normen, davon {len(todo)} neu eingebettet in "
                          f"{time.perf_counter() - start:.0f} s → {path}")
