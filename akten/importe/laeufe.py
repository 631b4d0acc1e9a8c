"""An import as the Verwaltung runs it (ImportLauf): the upload kept under MEDIA_ROOT/importe (never
served), the Probelauf, then „Jetzt importieren“ — both run by the Celery task akten.import_ausfuehren
with their progress on the ImportLauf (settings.HELENA_IMPORT „inline“: at once, in this process; for
tests and a shell), as the text of an upload is read (akten/dokumente/services.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from celery import current_app
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import connection, connections, transaction
from django.utils import timezone

from akten.dokumente.services import max_bytes
from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import EingabeFehler
from akten.importe.ausfuehren import Bericht, importiere
from akten.importe.text import zusammenfassung_text
from akten.models import ImportLauf, User
from config.errors import DomainError, NotFound

log = logging.getLogger(__name__)
IMPORT_TASK = "akten.import_ausfuehren"
FORTSCHRITT_ALLE = 1.0  # seconds between two progress writes
Status = ImportLauf.Status


def lauf_anlegen(*, user: User, inhalt: bytes, dateiname: str, probelauf: bool = True,
                 starten: bool = True) -> ImportLauf:
    """Keep the file and start its Probelauf (or, from the command, its real run)."""
    pruefe(user, "import")
    if len(inhalt) > max_bytes():
        raise EingabeFehler(f"Die Datei ist größer als {settings.HELENA_UPLOAD_MAX_MB} MB.")
    if not inhalt.strip():
        raise EingabeFehler("Die Datei ist leer.")
    name = (dateiname or "import.csv").replace("\\", "/").rsplit("/", 1)[-1][:255]
    lauf = ImportLauf(dateiname=name, probelauf=probelauf, angelegt_von=user)
    lauf.datei.save(name, ContentFile(inhalt), save=False)
    lauf.save()
    if starten:
        starte(lauf.pk)
    return lauf


@transaction.atomic
def import_starten(*, user: User, lauf_id: int | str) -> ImportLauf:
    """„Jetzt importieren“: the real run of a finished Probelauf's file (once; asked again, the run
    already started), or again after a real run that failed."""
    pruefe(user, "import")
    vorher = ImportLauf.objects.select_for_update().filter(pk=lauf_id).first()
    if vorher is None:
        raise NotFound("Diesen Import gibt es nicht.")
    if vorher.probelauf and vorher.bericht.get("import_id"):
        return ImportLauf.objects.filter(pk=vorher.bericht["import_id"]).first() or vorher
    if vorher.probelauf and vorher.status != Status.FERTIG:
        raise EingabeFehler("Der Probelauf ist noch nicht fertig.")
    if not vorher.probelauf and vorher.status != Status.FEHLER:
        raise EingabeFehler("Dieser Import ist schon gelaufen oder läuft noch.")
    lauf = ImportLauf.objects.create(datei=vorher.datei.name, dateiname=vorher.dateiname, probelauf=False,
                                     angelegt_von=user, bericht={"vorher_id": vorher.pk})
    vorher.bericht = {**vorher.bericht, "import_id": lauf.pk}
    vorher.save(update_fields=["bericht"])
    starte(lauf.pk)
    return lauf


def starte(lauf_id: int) -> None:
    """Run now (inline) or in a worker once the Lauf is committed."""
    if settings.HELENA_IMPORT == "inline":
        lauf_ausfuehren(lauf_id=lauf_id)
    else:
        transaction.on_commit(lambda: _senden(lauf_id))


def _senden(lauf_id: int) -> None:
    try:
        current_app.send_task(IMPORT_TASK, args=[lauf_id])
    except Exception:  # the broker is down: the Lauf says so instead of waiting forever
        log.exception("queueing import %s failed", lauf_id)
        ImportLauf.objects.filter(pk=lauf_id, status=Status.WARTET).update(
            status=Status.FEHLER, meldung="Der Import konnte nicht gestartet werden (Celery/Redis nicht "
                                          "erreichbar). Versuche es später noch einmal.")


def lauf_ausfuehren(*, lauf_id: int) -> ImportLauf | None:
    """The task's work: only a waiting Lauf is claimed (a task delivered twice runs once); the report
    and the outcome land on the Lauf whatever happens."""
    if not ImportLauf.objects.filter(pk=lauf_id, status=Status.WARTET).update(status=Status.LAEUFT,
                                                                                zeilen_fertig=0):
        return None
    lauf = ImportLauf.objects.select_related("angelegt_von").get(pk=lauf_id)
    try:
        if lauf.angelegt_von is None:
            raise EingabeFehler("Wer den Import gestartet hat, gibt es nicht mehr.")
        with lauf.datei.open("rb") as datei:
            inhalt = datei.read()
        bericht = importiere(user=lauf.angelegt_von, inhalt=inhalt, dateiname=lauf.dateiname,
                             probelauf=lauf.probelauf, fortschritt=_fortschritt(lauf.pk))
    except DomainError as exc:
        _ende(lauf, status=Status.FEHLER, meldung=exc.message)
    except OSError:
        log.exception("import %s: file missing", lauf_id)
        _ende(lauf, status=Status.FEHLER, meldung="Die hochgeladene Datei fehlt im Ablageverzeichnis.")
    except Exception:
        log.exception("import %s failed", lauf_id)
        meldung = "Der Import ist abgebrochen."
        if not lauf.probelauf:
            meldung += (" Was bis dahin angelegt war, bleibt; ein neuer Lauf derselben Datei legt den Rest "
                        "an (vorhandene Akten bleiben, wie sie sind).")
        _ende(lauf, status=Status.FEHLER, meldung=meldung)
    else:
        _ende(lauf, status=Status.FERTIG, bericht=bericht, meldung=zusammenfassung_text(bericht.als_dict()))
    return lauf


def _ende(lauf: ImportLauf, *, status: str, meldung: str, bericht: Bericht | None = None) -> None:
    lauf.status, lauf.meldung, lauf.fertig_am = status, meldung, timezone.now()
    if bericht is not None:
        lauf.bericht = {**bericht.als_dict(), **{k: v for k, v in lauf.bericht.items() if k.endswith("_id")}}
        lauf.zeilen_gesamt = lauf.zeilen_fertig = len(bericht.zeilen)
    lauf.save(update_fields=["status", "meldung", "fertig_am", "bericht", "zeilen_gesamt", "zeilen_fertig"])


def _fortschritt(lauf_id: int) -> Callable[[int, int], None]:
    """Progress on the Lauf about once a second. A Probelauf runs inside one transaction that is
    rolled back, which nobody else can see into: its progress is written over a connection of its
    own (a short thread: Django's connections are per thread) and committed at once."""
    zuletzt = [0.0]

    def melden(fertig: int, gesamt: int) -> None:
        jetzt = time.monotonic()
        if jetzt - zuletzt[0] < FORTSCHRITT_ALLE:
            return
        zuletzt[0] = jetzt
        if connection.in_atomic_block:
            schreiber = threading.Thread(target=_schreiben_eigene_verbindung, args=(lauf_id, fertig, gesamt))
            schreiber.start()
            schreiber.join()
        else:
            _schreiben(lauf_id, fertig, gesamt)

    return melden


def _schreiben(lauf_id: int, fertig: int, gesamt: int) -> None:
    ImportLauf.objects.filter(pk=lauf_id).update(zeilen_fertig=fertig, zeilen_gesamt=gesamt)


def _schreiben_eigene_verbindung(lauf_id: int, fertig: int, gesamt: int) -> None:
    try:
        _schreiben(lauf_id, fertig, gesamt)
    except Exception:  # progress is a courtesy; the run goes on
        log.warning("import %s: progress not written", lauf_id, exc_info=True)
    finally:
        connections.close_all()
