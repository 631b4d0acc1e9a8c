"""`manage.py embed_akten`: bring the vectors of the firm's own files up to date, now.

Normally a Celery task does this after every change (helena/knowledge/aktensuche/); the command is
for a first indexing after an upgrade, after a restore from backup, or to check the state.
Only passages whose text changed are embedded (~50 ms each on two cores).
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand
from tqdm import tqdm

from akten.models import Akte
from helena.knowledge.aktensuche.passages import refresh_akte


class Command(BaseCommand):
    help = "Aktualisiert die Vektoren der Akten, Dokumente und Notizen für die semantische Suche."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--akte", type=int, action="append", help="nur diese Akte (id), mehrfach möglich")

    def handle(self, *args, akte: list[int] | None, **options) -> None:
        ids = akte or list(Akte.objects.order_by("pk").values_list("pk", flat=True))
        start = time.perf_counter()
        embedded = kept = removed = 0
        for akte_id in tqdm(ids, desc="Akten einbetten", unit="Akte",
                            disable=None if options.get("verbosity", 1) else True):
            result = refresh_akte(akte_id=akte_id)
            embedded, kept, removed = (embedded + result.embedded, kept + result.kept,
                                       removed + result.removed)
        self.stdout.write(f"{len(ids)} Akten: {embedded} Passagen neu eingebettet, {kept} unverändert, "
                          f"{removed} entfernt ({time.perf_counter() - start:.0f} s).")
