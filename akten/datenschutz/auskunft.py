"""The Auskunft (Art. 15 DSGVO) about the person of one Beteiligter: every record naming them in the
Akten the requesting user may see, with the information Art. 15 Abs. 1 lit. a–h asks for.

One dict for both forms: the JSON file (stable German keys, dates ISO 8601) and the PDF
(akten/datenschutz/pdf.py). What is in and why (docs/betrieb.md „Auskunft nach Art. 15 DSGVO“): the
person's Beteiligten-Einträge with contact data, the Akten they are party to, Fristen, Notizen, Zeiten
and Dokumente whose text names them (a Dokument by passages around the mention), the
Kollisionsprüfungen that checked or found them. Not in: Helena's conversations (the work of the
firm's lawyers on the Mandat, no record of the person beyond what the Akte holds; those naming the
person are counted on the internal Prüfblatt for the firm to read). Also in: the earlier values of the
person's entries and the read log on their Akten (akten/datenschutz/verlauf.py: persons of the firm by
role, EuGH C-579/21), and the Art. 15 Abs. 2 note when an app above akten transfers data to a third
country (akten/datenschutz/angaben.py).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.utils import timezone

from akten.datenschutz import angaben
from akten.datenschutz import person as personen
from akten.datenschutz.fundstellen import zur_pruefung
from akten.datenschutz.loeschung import frueheste_loeschung
from akten.datenschutz.verlauf import fruehere_werte, lesezugriffe
from akten.erfassung.rechte import pruefe
from akten.lesezugriffe.services import Bereich, Lesung, Weg, speichern
from akten.models import (
    Akte,
    Beteiligter,
    Briefkopf,
    Dokument,
    Frist,
    Loeschvormerkung,
    Notiz,
    User,
    Zeiterfassung,
)
from akten.namen import name_schluessel
from akten.selectors import get_akte

FORMAT_VERSION = 1

# Art. 15 Abs. 1 lit. a–h DSGVO in short German, as the firm answers them for the Akten it keeps.
INFORMATIONEN: list[dict[str, str]] = [
    {"buchstabe": "a", "titel": "Verarbeitungszwecke",
     "text": "Bearbeitung des Mandats (Beratung, Vertretung, Schriftverkehr), Fristenkontrolle, "
             "Abrechnung, Kollisionsprüfung (§ 43a Abs. 4 BRAO) und Erfüllung der Aufbewahrungspflichten; "
             "Rechtsgrundlagen Art. 6 Abs. 1 lit. b, c und f DSGVO."},
    {"buchstabe": "b", "titel": "Kategorien personenbezogener Daten",
     "text": "Name, Anschrift, Kontaktdaten, Rolle im Verfahren, Aktenzeichen der Gegenseite oder des "
             "Gerichts und Angaben zur Person in Fristen, Notizen, Zeiterfassungen und Dokumenten der Akte."},
    {"buchstabe": "c", "titel": "Empfänger",
     "text": "Gerichte, Behörden, Gegenseite und deren Vertretung, soweit das Mandat es erfordert; "
             "Dienstleister der Kanzlei als Auftragsverarbeiter (Art. 28 DSGVO)."},
    {"buchstabe": "d", "titel": "Speicherdauer",
     "text": "Bis zum Ende des Mandats und danach sechs Jahre ab Ablauf des Kalenderjahres, in dem der "
             "Auftrag beendet wurde (§ 50 Abs. 1 Satz 2 und 3 BRAO); längere gesetzliche Fristen "
             "bleiben unberührt (§ 50 Abs. 5 BRAO). Danach bleiben für die Kollisionsprüfung "
             "(§ 43a Abs. 4 BRAO, § 3 BORA: ohne zeitliche Grenze) nur Name, Rolle, Aktenzeichen und die "
             "Jahre des Mandats gespeichert (Art. 17 Abs. 3 lit. b und e DSGVO)."},
    {"buchstabe": "e", "titel": "Rechte der betroffenen Person",
     "text": "Berichtigung (Art. 16), Löschung (Art. 17; eingeschränkt, solange die Aufbewahrungspflicht "
             "besteht, Art. 17 Abs. 3 lit. b und e), Einschränkung der Verarbeitung (Art. 18) und "
             "Widerspruch (Art. 21 DSGVO)."},
    {"buchstabe": "f", "titel": "Beschwerderecht",
     "text": "Beschwerde bei einer Datenschutz-Aufsichtsbehörde, insbesondere der des Landes, in dem die "
             "Kanzlei ihren Sitz hat (Art. 77 DSGVO)."},
    {"buchstabe": "g", "titel": "Herkunft der Daten",
     "text": "Soweit nicht bei der Person selbst erhoben: von der Mandantschaft, der Gegenseite, Gerichten "
             "oder Behörden im Rahmen des Mandats."},
    {"buchstabe": "h", "titel": "Automatisierte Entscheidungsfindung",
     "text": "Findet nicht statt (Art. 22 DSGVO). Die Software der Kanzlei kann Texte vorschlagen; "
             "entschieden wird durch Menschen."},
]

UMFANG = ("Unvollständig: Diese Auskunft enthält nur Akten, die {wer} einsehen darf. Akten ohne "
          "diesen Zugriff fehlen; eine vollständige Auskunft über alle Akten der Kanzlei erstellt die "
          "Administration. Nicht so versenden.")
UMFANG_ALLE = "Vollständig: Diese Auskunft umfasst alle Akten der Kanzlei (erstellt von der Administration)."
VOR_VERSAND = ("Vor dem Versand prüfen: Die Auskunft kann Angaben über Mandantinnen und Mandanten oder "
               "Dritte enthalten, die der Verschwiegenheit unterliegen (§ 43a Abs. 2 BRAO); soweit sie "
               "geheim zu halten sind, besteht kein Auskunftsrecht (§ 29 Abs. 1 Satz 2 BDSG). Solche "
               "Stellen vor dem Versand schwärzen.")

NAMENSVETTER = ("Person gleichen Namens, aber weder dieselbe E-Mail-Adresse noch dieselbe Anschrift: nicht "
                "sicher dieselbe Person. Ihr Eintrag ist nicht aufgenommen, Texte ihrer Akte nur, wenn die "
                "Person selbst dort beteiligt ist. Bitte von Hand prüfen.")


def _zeit(wert: datetime | None) -> str | None:
    return timezone.localtime(wert).isoformat(timespec="seconds") if wert else None


def _tag(wert: date | None) -> str | None:
    return wert.isoformat() if wert else None


def _akte(akte: Akte) -> dict[str, Any]:
    return {"id": str(akte.pk), "aktenzeichen": akte.aktenzeichen, "kurzrubrum": akte.kurzrubrum,
            "wegen": akte.wegen, "rechtsgebiet": akte.get_rechtsgebiet_display(),
            "status": akte.get_status_display(), "auftragsdatum": _tag(akte.auftragsdatum),
            "angelegt_am": _zeit(akte.angelegt_am), "abgeschlossen_am": _zeit(akte.abgeschlossen_am),
            "frueheste_loeschung": _tag(frueheste_loeschung(akte))}


def _beteiligung(b: Beteiligter) -> dict[str, Any]:
    vormerkung = Loeschvormerkung.objects.filter(beteiligter=b).first()
    return {"id": str(b.pk), "aktenzeichen": b.akte.aktenzeichen, "rolle": b.get_rolle_display(),
            "anrede": b.get_anrede_display() if b.anrede else "", "name": b.name, "anschrift": b.anschrift,
            "telefon": b.telefon, "email": b.email, "aktenzeichen_extern": b.aktenzeichen_extern,
            "notiz": b.notiz, "angelegt_am": _zeit(b.angelegt_am),
            "loeschung_vorgemerkt": _tag(vormerkung.antrag_am) if vormerkung else None}


def _gelesen(*, user: User, akten: list[Akte], fristen: list[Frist], notizen: list[Notiz],
             zeiten: list[Zeiterfassung], dokumente: list[Dokument]) -> None:
    """The Auskunft is a download of what it holds: the read log keeps it (Weg „Datei heruntergeladen“),
    each Akte and Dokument it quotes, as a page that showed them would."""
    lesungen = [Lesung.von(a, bereich=Bereich.BETEILIGTE) for a in akten]
    lesungen += [Lesung.von(f.akte, bereich=Bereich.FRISTEN) for f in fristen]
    lesungen += [Lesung.von(n.akte, bereich=Bereich.NOTIZEN) for n in notizen if n.akte]
    lesungen += [Lesung.von(z.akte, bereich=Bereich.ZEITEN) for z in zeiten]
    lesungen += [Lesung.von(d.akte, bereich=Bereich.DOKUMENT, dokument=d) for d in dokumente]
    speichern(user=user, lesungen=lesungen, weg=Weg.EXPORT)


def pruefblatt(*, user: User, akte_id: int | str, beteiligter_id: int | str) -> dict[str, Any]:
    """The firm's internal sheet to an Auskunft, never sent: whether it is complete, what to check and
    black out before sending, and the namesakes left out (NotFound / Forbidden as the Auskunft)."""
    get_akte(user=user, akte_id=akte_id)
    pruefe(user, "datenschutz")
    person = personen.person_von(user=user, akte_id=akte_id, beteiligter_id=beteiligter_id)
    wer = user.get_full_name() or user.get_username()
    return {
        "format": "helena-auskunft-pruefblatt", "version": FORMAT_VERSION, "nicht_zum_versand": True,
        "erstellt_am": _zeit(timezone.now()), "erstellt_von": wer,
        "person": {"name": person.beteiligter.name, "beteiligter_id": str(person.beteiligter.pk),
                   "aktenzeichen": person.beteiligter.akte.aktenzeichen},
        "vollstaendig": bool(user.sees_all_akten),
        "umfang": UMFANG_ALLE if user.sees_all_akten else UMFANG.format(wer=wer),
        "vor_dem_versand": VOR_VERSAND,
        "nicht_aufgenommen": [{"beteiligter_id": str(b.pk), "aktenzeichen": b.akte.aktenzeichen,
                               "rolle": b.get_rolle_display(), "grund": NAMENSVETTER}
                              for b in person.namensvetter],
        # Helena's conversations and tool calls naming the person (any Akte or none, anyone's): not in
        # the Auskunft (see the module), counted here for the firm to read and decide
        "helena_zur_pruefung": {art: len(ids) for art, ids in
                                zur_pruefung(schreibweisen=person.schreibweisen).items()},
    }


def auskunft(*, user: User, akte_id: int | str, beteiligter_id: int | str) -> dict[str, Any]:
    """Everything the Auskunft for the person says — Art. 15 content only, nothing of the firm's own
    checks (those are on the `pruefblatt`); NotFound for a foreign Akte or Beteiligter, Forbidden by
    role; recorded in the read log."""
    get_akte(user=user, akte_id=akte_id)
    pruefe(user, "datenschutz")
    person = personen.person_von(user=user, akte_id=akte_id, beteiligter_id=beteiligter_id)
    schluessel = {b.name_schluessel for b in person.zeilen}
    fristen = list(personen.fristen_mit(user=user, person=person))
    notizen = list(personen.notizen_mit(user=user, person=person))
    zeiten = list(personen.zeiten_mit(user=user, person=person))
    dokumente = list(personen.dokumente_mit(user=user, person=person))
    gelesen = lesezugriffe(person.akten)  # before this Auskunft's own entries
    _gelesen(user=user, akten=person.akten, fristen=fristen, notizen=notizen, zeiten=zeiten,
             dokumente=dokumente)
    return {
        "format": "helena-auskunft-art15", "version": FORMAT_VERSION,
        "erstellt_am": _zeit(timezone.now()),
        "kanzlei": Briefkopf.current().kanzlei.strip(),
        "person": {"name": person.beteiligter.name,
                   "schreibweisen": person.schreibweisen,
                   "emails": sorted({b.email for b in person.zeilen if b.email}),
                   "anschriften": list(dict.fromkeys(b.anschrift.strip() for b in person.zeilen
                                                     if b.anschrift.strip()))},
        "beteiligungen": [_beteiligung(b) for b in person.zeilen],
        "akten": [_akte(a) for a in person.akten],
        "fristen": [{"id": str(f.pk), "aktenzeichen": f.akte.aktenzeichen, "typ": f.get_typ_display(),
                     "bezeichnung": f.bezeichnung, "datum": _tag(f.datum), "notiz": f.notiz,
                     "erledigt": f.erledigt, "erledigt_vermerk": f.erledigt_vermerk}
                    for f in fristen],
        "notizen": [{"id": str(n.pk), "aktenzeichen": n.akte.aktenzeichen if n.akte else None,
                     "titel": n.titel, "inhalt": n.inhalt, "angelegt_am": _zeit(n.angelegt_am)}
                    for n in notizen],
        "zeiten": [{"id": str(z.pk), "aktenzeichen": z.akte.aktenzeichen, "datum": _tag(z.datum),
                    "dauer_minuten": z.dauer_minuten, "taetigkeit": z.taetigkeit}
                   for z in zeiten],
        "dokumente": [{"id": str(d.pk), "aktenzeichen": d.akte.aktenzeichen, "titel": d.titel,
                       "dateiname": d.dateiname, "angelegt_am": _zeit(d.angelegt_am),
                       "auszuege": personen.auszuege(f"{d.titel}\n{d.inhalt}", person)}
                      for d in dokumente],
        "kollisionspruefungen": [
            {"id": str(k.pk), "aktenzeichen": k.akte.aktenzeichen if k.akte else None,
             "geprueft_am": _zeit(k.angelegt_am), "anlass": k.get_anlass_display(),
             "entscheidung": k.get_entscheidung_display(),
             # only the person's own name: others checked in the same go are no data of theirs
             "gepruefte_namen": [n for n in k.namen or [] if name_schluessel(str(n)) in schluessel]}
            for k in personen.kollisionspruefungen_mit(user=user, person=person)],
        "fruehere_werte": fruehere_werte(person.zeilen),
        "lesezugriffe": gelesen,
        "informationen": INFORMATIONEN,
        "drittland": angaben.drittland(),
    }
