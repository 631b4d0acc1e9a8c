"""Uploads into an Akte and reading their text: the checks (who, how big, what it is by content),
the file kept under a name of its own, and the extraction that fills `inhalt` page by page, with
its progress on the Dokument; an e-mail's attachments become Dokumente of their own."""

from __future__ import annotations

import io
import logging
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import IO
from uuid import uuid4

from celery import current_app
from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.db.models import F
from django.db.models.fields.files import FieldFile
from django.utils import timezone

from akten.accounts.users import may_file_dokumente
from akten.dokumente.lesen import Gelesen, lies, pruefe
from akten.dokumente.seiten import mit_seiten
from akten.dokumente.typen import DateiAbgelehnt, bereinigt, download_name, erkenne, stem_of
from akten.models import Akte, Dokument, User
from akten.selectors import get_akte
from config.errors import Forbidden, NotFound

log = logging.getLogger(__name__)
EXTRACT_TASK = "akten.extract_dokument"
Extraktion = Dokument.Extraktion


def max_bytes() -> int:
    """The largest file the firm accepts, for an upload and for an import alike (HELENA_UPLOAD_MAX_MB)."""
    return settings.HELENA_UPLOAD_MAX_MB * 1024 * 1024


def check_may_file(*, user: User, akte_id: int | str) -> Akte:
    """The Akte if the user may add Dokumente: NotFound for a foreign Akte, Forbidden for the role."""
    akte = get_akte(user=user, akte_id=akte_id)
    if not may_file_dokumente(user):
        raise Forbidden("Dokumente hochladen dürfen alle außer Praktikantinnen und Praktikanten; du kannst "
                        "die Dokumente der Akte lesen.")
    return akte


def _titel_aus(name: str) -> str:
    stem = stem_of(name)
    return " ".join(stem.replace("_", " ").split())[:300] or "Dokument"


@contextmanager
def _local_path(source: IO[bytes] | FieldFile, *, suffix: str = "") -> Iterator[Path]:
    """A path on disk for the libraries that want one: the stored file itself, or a temporary copy."""
    path = getattr(source, "temporary_file_path", None)
    if path is not None:
        yield Path(path())
        return
    if not isinstance(source, FieldFile):
        with _copy(source, suffix=suffix) as copy:
            yield copy
        return
    try:
        local = Path(source.path)  # the file system storage
    except NotImplementedError:
        local = None
    if local is not None:
        yield local
        return
    with source.open("rb") as handle, _copy(handle, suffix=suffix) as copy:
        yield copy


@contextmanager
def _copy(source: IO[bytes], *, suffix: str) -> Iterator[Path]:
    with tempfile.NamedTemporaryFile(suffix=suffix) as tmp:
        source.seek(0)
        for chunk in iter(lambda: source.read(1024 * 1024), b""):
            tmp.write(chunk)
        tmp.flush()
        source.seek(0)
        yield Path(tmp.name)


def _create(*, akte: Akte, user: User | None, datei: IO[bytes], name: str, groesse: int, titel: str = "",
            quelle: Dokument | None = None) -> Dokument:
    name = " ".join(bereinigt(name).split())[:255] or "Dokument"  # a mail's attachment may be named anyhow
    if groesse > max_bytes():
        raise DateiAbgelehnt(
            f"„{name}“ ist {groesse / 1024 / 1024:.1f} MB groß; erlaubt sind höchstens "
            f"{settings.HELENA_UPLOAD_MAX_MB} MB.", code="datei_zu_gross")
    erkannt = erkenne(datei, name=name)
    with _local_path(datei, suffix=f".{erkannt.endung}") as path:
        seiten = pruefe(path, erkannt.dateityp, name=name)
    dokument = Dokument(
        akte=akte, titel=(titel.strip() or _titel_aus(name))[:300], dateiname=name[:255],
        dateityp=erkannt.dateityp, mime=erkannt.mime, groesse=groesse, seiten=seiten,
        extraktion=Extraktion.AUSSTEHEND, erstellt_von=user, quelle=quelle,
    )
    datei.seek(0)
    dokument.datei.save(f"{uuid4().hex}.{erkannt.endung}", File(datei), save=False)
    try:
        with transaction.atomic():
            dokument.save()
    except Exception:
        dokument.datei.delete(save=False)
        raise
    start_extraction(dokument_id=dokument.pk)
    return dokument


def upload_dokument(*, user: User, akte_id: int | str, datei: IO[bytes], name: str, groesse: int,
                    titel: str = "") -> Dokument:
    """File an upload into the Akte; its text is read in the background (start_extraction).

    NotFound (foreign Akte), Forbidden (Praktikant), DateiAbgelehnt (too big, a type Helena does
    not read whatever its name says, broken or locked): nothing is stored then.
    """
    akte = check_may_file(user=user, akte_id=akte_id)
    return _create(akte=akte, user=user, datei=datei, name=name or "Dokument", groesse=groesse, titel=titel)


@dataclass(frozen=True)
class Original:
    datei: IO[bytes]
    name: str
    mime: str


def original(dokument: Dokument) -> Original:
    """The uploaded file, opened, with a safe download name in its real type."""
    if not dokument.datei:
        raise NotFound("Zu diesem Dokument gibt es keine hochgeladene Datei; lade es als DOCX oder PDF "
                       "herunter (format=docx oder format=pdf).")
    try:
        handle = dokument.datei.open("rb")
    except OSError:
        raise NotFound("Die Datei dieses Dokuments fehlt im Ablageverzeichnis.") from None
    endung = Path(dokument.datei.name).suffix.lstrip(".") or "bin"
    mime = dokument.mime.split(";")[0] or "application/octet-stream"
    stem = stem_of(dokument.dateiname) if dokument.dateiname else dokument.titel
    return Original(datei=handle, name=download_name(stem, endung=endung), mime=mime)


def start_extraction(*, dokument_id: int) -> None:
    """Read the text now (inline: in this process and transaction) or in a worker once committed."""
    if settings.HELENA_DOKUMENT_EXTRAKTION == "inline":
        run_extraction(dokument_id=dokument_id)
    else:
        transaction.on_commit(lambda: _send(dokument_id))


def _send(dokument_id: int) -> None:
    """A broker that is down must not turn a saved upload into an error: beat sends it again."""
    try:
        current_app.send_task(EXTRACT_TASK, args=[dokument_id])
    except Exception:
        log.exception("queueing the extraction of Dokument %s failed; beat will retry", dokument_id)


def _progress(dokument_id: int) -> Callable[[int, int], None]:
    last = [-1]

    def report(done: int, total: int) -> None:
        percent = min(99, done * 100 // max(total, 1))
        if percent != last[0]:
            last[0] = percent
            Dokument.objects.filter(pk=dokument_id).update(extraktion_fortschritt=percent,
                                                           aktualisiert_am=timezone.now())

    return report


STALE_AFTER = timedelta(minutes=15)
MAX_VERSUCHE = 3  # a file that kills the worker (or never finishes) is not tried forever


def requeue_stale_extractions() -> int:
    """Uploads that waited or ran without progress for STALE_AFTER are read again (beat), at most
    MAX_VERSUCHE times in all; then they say they could not be read."""
    stale = Dokument.objects.filter(extraktion__in=(Extraktion.AUSSTEHEND, Extraktion.LAEUFT),
                                    aktualisiert_am__lt=timezone.now() - STALE_AFTER)
    for pk in stale.filter(extraktion_versuche__gte=MAX_VERSUCHE).values_list("pk", flat=True)[:100]:
        _failed(pk, f"Das Lesen wurde nach {MAX_VERSUCHE} Versuchen abgebrochen. Öffne das Original.")
    again = list(stale.filter(extraktion_versuche__lt=MAX_VERSUCHE).values_list("pk", flat=True)[:100])
    for pk in again:
        Dokument.objects.filter(pk=pk).update(extraktion=Extraktion.AUSSTEHEND,
                                              aktualisiert_am=timezone.now())
        start_extraction(dokument_id=pk)
    return len(again)


def _failed(dokument_id: int, hinweis: str) -> None:
    Dokument.objects.filter(pk=dokument_id).update(
        extraktion=Extraktion.FEHLER, extraktion_hinweis=hinweis, extraktion_fortschritt=100,
        aktualisiert_am=timezone.now())


def delete_file(*, dokument: Dokument) -> None:
    """A deleted Dokument takes its file along (once the deletion is committed)."""
    if dokument.datei:
        storage, name = dokument.datei.storage, dokument.datei.name
        transaction.on_commit(lambda: storage.delete(name))


def run_extraction(*, dokument_id: int) -> Dokument | None:
    """Read the Dokument's file into `inhalt` (pages apart, see seiten.py) and say how it went.

    Only a waiting Dokument is claimed (a task delivered twice reads it once); whatever goes wrong
    ends in "Datei nicht lesbar", never in a Dokument that says it is being read forever.
    """
    claimed = Dokument.objects.filter(pk=dokument_id, extraktion=Extraktion.AUSSTEHEND).update(
        extraktion=Extraktion.LAEUFT, extraktion_fortschritt=0, aktualisiert_am=timezone.now(),
        extraktion_versuche=F("extraktion_versuche") + 1)
    dokument = Dokument.objects.select_related("akte").filter(pk=dokument_id).first()
    if not claimed or dokument is None or not dokument.datei:
        return None
    try:
        with _local_path(dokument.datei, suffix=f".{dokument.dateityp}") as path:
            gelesen = lies(path, dokument.dateityp, fortschritt=_progress(dokument.pk))
        with transaction.atomic():
            hinweise = [] if dokument.anhaenge.exists() else _attachments(dokument, gelesen)
            dokument.inhalt = mit_seiten(gelesen.seiten)
            dokument.seiten = gelesen.seitenzahl or dokument.seiten
            dokument.ocr_seiten = gelesen.ocr_seiten
            dokument.extraktion, hinweis = _outcome(gelesen)
            dokument.extraktion_hinweis = " ".join(filter(None, [hinweis, gelesen.hinweis, *hinweise]))[:500]
            dokument.extraktion_fortschritt = 100
            dokument.save()
    except Exception:
        log.exception("reading Dokument %s failed", dokument.pk)
        _failed(dokument.pk, "Die Datei ließ sich nicht lesen. Öffne das Original; lade sie ggf. als PDF neu "
                             "hoch.")
        return None
    return dokument


def _seitenliste(nummern: list[int]) -> str:
    return ", ".join(str(n) for n in nummern)


def _outcome(gelesen: Gelesen) -> tuple[str, str]:
    zeichen = sum(len(s.strip()) for s in gelesen.seiten)
    fehlen: list[str] = []
    if gelesen.ohne_ocr:
        fehlen.append(f"S. {_seitenliste(gelesen.ohne_ocr)} nicht lesbar – OCR nicht verfügbar.")
    if gelesen.fehlgeschlagen:
        fehlen.append(f"S. {_seitenliste(gelesen.fehlgeschlagen)} konnte die Texterkennung nicht lesen.")
    if gelesen.ohne_ocr and not zeichen:
        return Extraktion.OCR_FEHLT, ("Die Datei ist ein Scan ohne Textebene, und auf dem Server ist keine "
                                      "Texterkennung (Tesseract) installiert.")
    if fehlen:
        return (Extraktion.TEILWEISE if zeichen else Extraktion.FEHLER), " ".join(fehlen)
    if not zeichen:
        return Extraktion.LEER, "In der Datei steht kein lesbarer Text."
    if gelesen.ocr_seiten:
        return Extraktion.FERTIG, f"{gelesen.ocr_seiten} Seite(n) per Texterkennung (OCR) gelesen."
    return Extraktion.FERTIG, ""


def _attachments(dokument: Dokument, gelesen: Gelesen) -> list[str]:
    """An e-mail's attachments as Dokumente of their own (linked to the mail); what is refused is said."""
    hinweise: list[str] = []
    for anhang in gelesen.anhaenge:
        try:
            _create(akte=dokument.akte, user=dokument.erstellt_von, datei=io.BytesIO(anhang.daten),
                    name=anhang.name, groesse=len(anhang.daten), quelle=dokument)
        except DateiAbgelehnt as exc:
            hinweise.append(f"Anhang nicht übernommen: {exc.message}")
    return hinweise


def schriftstueck_anlegen(*, akte: Akte, titel: str, inhalt: str, empfaenger: str = "",
                          erstellt_von: User | None, freigegeben_von: User) -> Dokument:
    """A written Dokument (a letter, a Schriftsatz) that a person approved: text, not an upload, kept
    as Entwurf until it goes out; who drafted it (Helena, on behalf of `erstellt_von`) and who
    approved it are on the record."""
    return Dokument.objects.create(
        akte=akte, titel=titel, inhalt=inhalt, status=Dokument.Status.ENTWURF, empfaenger=empfaenger,
        erstellt_durch=Dokument.ErstelltDurch.HELENA, erstellt_von=erstellt_von,
        freigegeben_von=freigegeben_von, freigegeben_am=timezone.now(),
    )
