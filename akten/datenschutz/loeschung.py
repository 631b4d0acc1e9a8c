"""Erasure (Art. 17 DSGVO) that respects the Handakten's retention: a Beteiligter is marked, and the
beat deletes once § 50 Abs. 1 BRAO lets the firm.

§ 50 Abs. 1 Satz 2, 3 BRAO (Stand: zuletzt geändert durch Art. 4 G v. 22.12.2025): „Er hat die
Handakten für die Dauer von sechs Jahren aufzubewahren. Die Frist beginnt mit Ablauf des
Kalenderjahres, in dem der Auftrag beendet wurde.“ Until then the data stay (Art. 17 Abs. 3 lit. b
DSGVO: a legal duty; lit. e: claims out of the Mandat). The Auftrag ends when the Akte is closed
(Akte.abgeschlossen_am): closed on 15.03.2026 → the six years run 01.01.2027–31.12.2032 → deleted
from 01.01.2033. An Akte still open (or opened again) has no date: the mark waits.

What goes: the Mandant's Akte with everything of it once every Mandant/in of it is marked on their own
row's request (a row ticked as „the same person“ from another Akte's request goes alone) (its
Beteiligte, Fristen, Notizen, Zeiten, Dokumente and their files, Hinweise, Helena's conversations and
drafts of it, its vectors — all by the database's CASCADE —, its Kollisionsprüfungen and every row of
its history; the read log keeps its rows for its own period, the Dokumente's titles blacked out); any
other Beteiligte/r alone: the row and its history. Hits of other Kollisionsprüfungen that name what
was deleted are blacked out. Records of Helena outside the deleted Akte that name the person (its
conversations, tool calls) are listed „zur Prüfung“ (akten/datenschutz/fundstellen.py). The
Löschprotokoll keeps types, ids and dates, no contents. What stays of each deleted party that the
Kollisionsprüfung compares (name, role, Aktenzeichen, years of the Mandat: § 43a Abs. 4 BRAO has no
time limit) is akten/kollision/frueher.py's; the Löschprotokoll counts it.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from akten.accounts.users import anzeigename, role_of
from akten.datenschutz.fundstellen import zur_pruefung
from akten.datenschutz.person import person_von, schreibweisen
from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import EingabeFehler
from akten.kollision.frueher import RECHTSGRUNDLAGE as KOLLISION_GRUNDLAGE
from akten.kollision.frueher import vermerken
from akten.models import (
    Akte,
    AktenZugriff,
    Alert,
    Beteiligter,
    Dokument,
    Frist,
    Kollisionspruefung,
    Lesezugriff,
    Loeschprotokoll,
    Loeschvormerkung,
    Notiz,
    User,
    Zeiterfassung,
)
from akten.namen import name_schluessel
from akten.selectors import get_akte
from config.errors import Forbidden, NotFound

AUFBEWAHRUNG_JAHRE = 6
DSGVO_AB = date(2018, 5, 25)  # Art. 99 Abs. 2 DSGVO
BRAO = "§ 50 Abs. 1 Satz 2 und 3 BRAO"
GESCHWAERZT = "[gelöscht]"
RECHTSGRUNDLAGE = (
    "Löschung auf Antrag nach Art. 17 Abs. 1 DSGVO. Bis zum Ablauf der Aufbewahrungsfrist für Handakten "
    f"({BRAO}: sechs Jahre ab Ablauf des Kalenderjahres, in dem der Auftrag beendet wurde) aufbewahrt "
    "nach Art. 17 Abs. 3 lit. b und e DSGVO. " + KOLLISION_GRUNDLAGE)
BEHALTEN = "für die Kollisionsprüfung behalten"
log = logging.getLogger(__name__)


def aufbewahrung_bis(akte: Akte) -> date | None:
    """The last day of the retention (31.12. of the sixth year after the Mandat's year); None while open."""
    if akte.status not in Akte.MANDAT_BEENDET or akte.abgeschlossen_am is None:
        return None
    return date(timezone.localtime(akte.abgeschlossen_am).year + AUFBEWAHRUNG_JAHRE, 12, 31)


def frueheste_loeschung(akte: Akte) -> date | None:
    """The first day the Akte's data may be deleted; None: „frühestens 6 Jahre nach Ende des Mandats“."""
    bis = aufbewahrung_bis(akte)
    return None if bis is None else date(bis.year + 1, 1, 1)


def _darf_vormerken(user: User, akte: Akte) -> None:
    """ANWALT and ADMIN by role (pruefe), and of the lawyers only the Akte's own: a Löschung on another
    lawyer's Mandat is theirs to decide (a grant to read the Akte is no say over it)."""
    pruefe(user, "datenschutz")
    if role_of(user) != "ADMIN" and akte.anwalt_id != user.pk:
        raise Forbidden("Löschungen vormerken und aufheben dürfen die Anwältin oder der Anwalt der Akte und "
                        "die Administration.")


@transaction.atomic
def loeschung_vormerken(*, user: User, akte_id: int | str, beteiligter_id: int | str, antrag_am: date,
                        begruendung: str = "", weitere: list[int] | None = None) -> list[Loeschvormerkung]:
    """Mark this Beteiligter for deletion and, only as ticked (`weitere`), rows of the same person in other
    Akten the user may see (each must be one of person_von's rows and its Akte's lawyer's to mark; such a
    mark deletes that row only, never its Akte). A row already marked keeps its first mark."""
    akte = get_akte(user=user, akte_id=akte_id)
    _darf_vormerken(user, akte)
    person = person_von(user=user, akte_id=akte_id, beteiligter_id=beteiligter_id)
    if antrag_am > timezone.localdate():
        raise EingabeFehler("Der Antrag kann nicht in der Zukunft gestellt sein.",
                            {"antrag_am": "Liegt in der Zukunft."})
    # the DSGVO applies from 25.05.2018; the Akte (in the old software: its Auftragsdatum) existed
    angelegt = min(filter(None, (akte.auftragsdatum, timezone.localdate(akte.angelegt_am))))
    if antrag_am < max(DSGVO_AB, angelegt):
        raise EingabeFehler(f"Der Antrag kann nicht vor dem {max(DSGVO_AB, angelegt):%d.%m.%Y} gestellt sein "
                            "(Geltung der DSGVO seit 25.05.2018, Anlage der Akte).",
                            {"antrag_am": "Liegt zu früh."})
    zeilen = {b.pk: b for b in person.zeilen if b.pk != person.beteiligter.pk}
    unbekannt = [pk for pk in weitere or [] if pk not in zeilen]
    if unbekannt:
        raise EingabeFehler("Weitere Einträge können nur solche derselben Person sein, die angezeigt werden.",
                            {"weitere": f"Nicht dieselbe Person oder nicht sichtbar: {unbekannt}"})
    for pk in dict.fromkeys(weitere or []):
        _darf_vormerken(user, zeilen[pk].akte)
    auswahl = [(person.beteiligter, True)] + [(zeilen[pk], False) for pk in dict.fromkeys(weitere or [])]
    vormerkungen = []
    for b, direkt in auswahl:
        vormerkung = Loeschvormerkung.objects.filter(beteiligter=b).first()
        if vormerkung is None:
            vormerkung = Loeschvormerkung(beteiligter=b, antrag_am=antrag_am, direkt=direkt,
                                          begruendung=begruendung.strip()[:5000], vorgemerkt_von=user)
            vormerkung._history_user = user  # type: ignore[attr-defined]
            vormerkung._change_reason = (  # type: ignore[attr-defined]
                "Löschung beantragt" if direkt else
                f"mit dem Antrag zu Eintrag {person.beteiligter.pk} ({akte.aktenzeichen}) angekreuzt")
            vormerkung.save()
        vormerkungen.append(vormerkung)
    return vormerkungen


@transaction.atomic
def loeschvormerkung_aufheben(*, user: User, akte_id: int | str, beteiligter_id: int | str,
                              grund: str = "") -> None:
    """Take the mark back before the deletion (the request was withdrawn, or decided otherwise); the
    history keeps when, who and why (`grund`: no names, it outlives the deletion)."""
    akte = get_akte(user=user, akte_id=akte_id)
    _darf_vormerken(user, akte)
    vormerkung = Loeschvormerkung.objects.filter(beteiligter__akte=akte,
                                                 beteiligter_id=_zahl(beteiligter_id)).first()
    if vormerkung is None:
        raise NotFound("Für diese/n Beteiligte/n ist keine Löschung vorgemerkt.")
    vormerkung._history_user = user  # type: ignore[attr-defined]
    vormerkung._change_reason = ("Vormerkung aufgehoben: " + grund.strip()[:500]  # type: ignore[attr-defined]
                                 if grund.strip() else "Vormerkung aufgehoben")
    vormerkung.delete()


def darf_vormerken(user: User, akte: Akte) -> bool:
    """May the user mark and withdraw on this Akte (for the page's buttons)?"""
    try:
        _darf_vormerken(user, akte)
    except Forbidden:
        return False
    return True


def vormerkungsverlauf(beteiligte: list[Beteiligter]) -> dict[int, list[str]]:
    """Per Beteiligter of a page, its Löschvormerkung's history as lines, the newest first: „02.11.2026
    14:05 – Anna Schmidt: Löschung beantragt (Antrag vom 01.11.2026)“."""
    zeilen: dict[int, list[str]] = {}
    verlauf = (Loeschvormerkung.history.filter(beteiligter_id__in=[b.pk for b in beteiligte])
               .select_related("history_user").order_by("-history_date", "-history_id"))
    for h in verlauf:
        wer = anzeigename(h.history_user) if h.history_user else "automatisch"
        was = h.history_change_reason or {"+": "Löschung vorgemerkt", "-": "Vormerkung entfernt"}.get(
            h.history_type, "geändert")
        antrag = f" (Antrag vom {h.antrag_am:%d.%m.%Y})" if h.history_type == "+" else ""
        zeilen.setdefault(h.beteiligter_id, []).append(
            f"{timezone.localtime(h.history_date):%d.%m.%Y %H:%M} – {wer}: {was}{antrag}")
    return zeilen


def _zahl(wert: Any) -> int:
    try:
        return int(wert)
    except (TypeError, ValueError):
        raise NotFound("Beteiligte/r nicht gefunden.") from None


def faellige_vormerkungen(*, heute: date) -> list[Loeschvormerkung]:
    """Marks whose Akte is closed and whose retention has ended by `heute`."""
    qs = (Loeschvormerkung.objects.select_related("beteiligter__akte")
          .filter(beteiligter__akte__status__in=Akte.MANDAT_BEENDET,
                  beteiligter__akte__abgeschlossen_am__isnull=False).order_by("pk"))
    return [v for v in qs if (tag := frueheste_loeschung(v.beteiligter.akte)) is not None and tag <= heute]


def loeschungen_ausfuehren(*, heute: date | None = None) -> int:
    """The beat's work: every mark that is due, each in its own transaction (one failing keeps the
    others going and stays for the next round); the number of deletions done."""
    heute = heute or timezone.localdate()
    erledigt = 0
    for vormerkung in faellige_vormerkungen(heute=heute):
        try:
            with transaction.atomic():
                erledigt += _loeschen(vormerkung_id=vormerkung.pk, heute=heute)
        except Exception:
            log.exception("Löschung %s nicht ausgeführt; der nächste Lauf versucht es erneut.", vormerkung.pk)
    return erledigt


def _loeschen(*, vormerkung_id: int, heute: date) -> int:
    vormerkung = (Loeschvormerkung.objects.select_for_update().select_related("beteiligter__akte")
                  .filter(pk=vormerkung_id).first())
    if vormerkung is None:  # gone with its Akte, deleted for another Mandant/in of it
        return 0
    beteiligter = vormerkung.beteiligter
    akte = Akte.objects.select_for_update().get(pk=beteiligter.akte_id)
    tag = frueheste_loeschung(akte)
    if tag is None or tag > heute:  # opened again meanwhile
        return 0
    protokoll: dict[str, Any] = {
        "akte_id": akte.pk, "aktenzeichen": akte.aktenzeichen, "beteiligter_id": beteiligter.pk,
        "rolle": beteiligter.rolle, "antrag_am": vormerkung.antrag_am,
        "vorgemerkt_von": vormerkung.vorgemerkt_von, "vorgemerkt_am": vormerkung.vorgemerkt_am,
        "aufbewahrung_bis": aufbewahrung_bis(akte), "rechtsgrundlage": RECHTSGRUNDLAGE,
        "mandat_beendet_am": timezone.localtime(akte.abgeschlossen_am).date(),
    }
    mandanten = Beteiligter.objects.filter(akte=akte, rolle=Beteiligter.Rolle.MANDANT)
    # the whole Akte only on the Mandant/innen's own requests, never by a row ticked from another Akte
    if (beteiligter.rolle == Beteiligter.Rolle.MANDANT and vormerkung.direkt
            and not mandanten.exclude(loeschvormerkung__direkt=True).exists()):
        Loeschprotokoll.objects.create(art=Loeschprotokoll.Art.AKTE,
                                       geloescht=_akte_loeschen(akte, heute=heute), **protokoll)
    else:
        Loeschprotokoll.objects.create(art=Loeschprotokoll.Art.BETEILIGTER,
                                       geloescht=_beteiligter_loeschen(beteiligter, heute=heute), **protokoll)
    return 1


def _ids(qs: Any) -> list[int]:
    return sorted(qs.values_list("pk", flat=True))


def _akte_loeschen(akte: Akte, *, heute: date) -> dict[str, Any]:
    """The Akte and everything of it but its parties' conflict records (akten/kollision/frueher.py);
    the files once the deletion is committed."""
    geloescht: dict[str, Any] = {
        "Akte": [akte.pk],
        "Beteiligte": _ids(Beteiligter.objects.filter(akte=akte)),
        "Fristen": _ids(Frist.objects.filter(akte=akte)),
        "Notizen": _ids(Notiz.objects.filter(akte=akte)),
        "Zeiterfassungen": _ids(Zeiterfassung.objects.filter(akte=akte)),
        "Dokumente": _ids(Dokument.objects.filter(akte=akte)),
        "Aktenzugriffe": _ids(AktenZugriff.objects.filter(akte=akte)),
        "Hinweise": _ids(Alert.objects.filter(akte=akte)),
        "Kollisionsprüfungen": _ids(Kollisionspruefung.objects.filter(akte=akte)),
    }
    dateien = [name for name in Dokument.objects.filter(akte=akte).exclude(datei="")
               .values_list("datei", flat=True) if name]
    Kollisionspruefung.objects.filter(akte=akte).delete()
    geloescht["geschwärzte Treffer"] = _treffer_schwaerzen(Q(treffer__contains=[{"akte_id": akte.pk}]),
                                                           lambda t: t.get("akte_id") == akte.pk)
    # the read log keeps who read the Aktenzeichen when (its own period); a Dokument's title may name
    # the person
    geloescht["geschwärzte Lesezugriffe"] = (Lesezugriff.objects.filter(akte=akte).exclude(dokument_titel="")
                                             .update(dokument_titel=GESCHWAERZT))
    akte_id = akte.pk
    geloescht[BEHALTEN] = vermerken(akte=akte, beteiligte=Beteiligter.objects.filter(akte=akte),
                                    umfang="akte", heute=heute)
    namen = list(Beteiligter.objects.filter(akte=akte, rolle=Beteiligter.Rolle.MANDANT)
                 .values_list("name", flat=True))
    akte.delete()  # CASCADE: the records, Helena's conversations, drafts and memory of it, its vectors
    geloescht["Verlaufseinträge"] = _verlauf_loeschen(akte_id=akte_id)
    geloescht["Dateien"] = len(dateien)
    geloescht["zur Prüfung"] = zur_pruefung(schreibweisen=schreibweisen(namen))
    transaction.on_commit(lambda: _dateien_loeschen(dateien))
    return geloescht


def _beteiligter_loeschen(beteiligter: Beteiligter, *, heute: date) -> dict[str, Any]:
    """One party of someone else's Mandat: the row, its history, its name in the Kollisionsprüfungen —
    but its conflict record kept (akten/kollision/frueher.py).
    Its vectors: the Akte's passage is embedded again without it (the delete signal of the Akten
    index, helena/knowledge/aktensuche/indexing.py)."""
    schluessel, akte_id, pk = beteiligter.name_schluessel, beteiligter.akte_id, beteiligter.pk
    geloescht: dict[str, Any] = {"Beteiligte": [pk]}
    geloescht["geschwärzte Treffer"] = _treffer_schwaerzen(
        Q(treffer__contains=[{"akte_id": akte_id}]) | Q(akte_id=akte_id),
        lambda t: (t.get("akte_id") == akte_id
                   and name_schluessel(str(t.get("gefunden_als", ""))) == schluessel),
        namen_von_akte=akte_id, schluessel=schluessel)
    geloescht[BEHALTEN] = vermerken(akte=beteiligter.akte, beteiligte=[beteiligter], umfang="beteiligter",
                                    heute=heute)
    beteiligter.delete()
    geloescht["Verlaufseinträge"] = Beteiligter.history.model.objects.filter(id=pk).delete()[0]
    geloescht["zur Prüfung"] = zur_pruefung(schreibweisen=schreibweisen([beteiligter.name]),
                                            ausser_akte=akte_id)
    return geloescht


def _treffer_schwaerzen(auswahl: Q, trifft: Any, *, namen_von_akte: int | None = None,
                        schluessel: str = "") -> int:
    """Black out, in every check (of any Akte, or none: an Abfrage), the hits on what is deleted — the name
    as checked and as found, its role and Aktenzeichen — and the checked names that found it; in the
    deleted party's own Akte's checks also its own name. A checked name is blacked out only where it hit
    the deleted row: the same name in a check that found someone else is a namesake's. The check itself
    stays: it proves the firm checked (§ 43a Abs. 4 BRAO)."""
    anzahl = 0
    for pruefung in Kollisionspruefung.objects.select_for_update().filter(auswahl):
        alt = pruefung.treffer or []
        getroffen = [isinstance(t, dict) and trifft(t) for t in alt]
        treffer = [{**t, "name": GESCHWAERZT, "gefunden_als": GESCHWAERZT, "rolle": "",
                    "aktenzeichen": GESCHWAERZT, "ansprechpartner": "",
                    "hinweis": "Eintrag nach Art. 17 DSGVO gelöscht."} if ja else t
                   for t, ja in zip(alt, getroffen, strict=True)]
        weg = {name_schluessel(str(t.get("name", ""))) for t, ja in zip(alt, getroffen, strict=True) if ja}
        if namen_von_akte is not None and pruefung.akte_id == namen_von_akte:
            weg.add(schluessel)
        namen = [GESCHWAERZT if name_schluessel(str(n)) in weg else n for n in pruefung.namen or []]
        if treffer != pruefung.treffer or namen != pruefung.namen:
            anzahl += sum(getroffen)
            pruefung.treffer, pruefung.namen = treffer, namen
            pruefung.save(update_fields=["treffer", "namen"])
    return anzahl


def _verlauf_loeschen(*, akte_id: int) -> int:
    """Every history row of the Akte and of what hung off it (the history keeps deleted rows too)."""
    anzahl = Akte.history.model.objects.filter(id=akte_id).delete()[0]
    for modell in (Beteiligter, Frist, Notiz, Zeiterfassung, AktenZugriff):
        anzahl += modell.history.model.objects.filter(akte_id=akte_id).delete()[0]
    return anzahl


def _dateien_loeschen(namen: list[str]) -> None:
    for name in namen:
        try:
            default_storage.delete(name)
        except OSError:
            log.exception("Datei %s der gelöschten Akte nicht entfernt.", name)
