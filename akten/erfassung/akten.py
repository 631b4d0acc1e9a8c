"""Akte anlegen and bearbeiten, and who may see it (AktenZugriff)."""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from akten import aktenzeichen as schema
from akten.accounts.users import role_of
from akten.erfassung.rechte import darf, pruefe
from akten.erfassung.speichern import EingabeFehler, nur_bekannte, speichere
from akten.models import Akte, AktenZugriff, Frist, Kanzleieinstellung, User
from akten.selectors import get_akte
from config.errors import DomainError

STAMMDATEN = ("aktenzeichen", "kurzrubrum", "wegen", "rechtsgebiet", "gegenstandswert", "auftragsdatum",
              "bundesland", "anwalt", "sachbearbeiter", "tags", "extern_id", "mandat_beendet_am")
# what update_akte_rag (Helena's draft) changes besides: her summary and the status
STATUS_FELDER = ("status", "summary")
# the words a Kanzlei uses for the stored values (Akte.Status)
STATUS_WORTE = {"abgeschlossen": Akte.Status.GESCHLOSSEN, "abgelegt": Akte.Status.ARCHIVIERT}


def status_wert(wert: str) -> str:
    """A status as stored, also from „abgeschlossen“/„abgelegt“."""
    wert = (wert or "").strip().casefold()
    return STATUS_WORTE.get(wert, wert)


def naechstes_aktenzeichen(*, anwalt: User | None = None, jahr: int | None = None) -> str:
    """The next Aktenzeichen of the firm's scheme (Kanzleieinstellung) for this year."""
    muster = Kanzleieinstellung.aktuell().aktenzeichen_muster
    jahr = jahr or timezone.localdate().year
    kuerzel = schema.kuerzel_von(anwalt.get_full_name() or anwalt.username) if anwalt else ""
    return schema.naechstes(muster, jahr=jahr, kuerzel=kuerzel,
                            vorhandene=Akte.objects.values_list("aktenzeichen", flat=True).iterator())


def _pruefe_mandatsende(*, user: User, daten: dict[str, Any], akte: Akte | None = None) -> None:
    """„Mandat beendet am“ (Akte.mandat_beendet_am; § 50 BRAO counts from it): ANWALT/ADMIN only, an
    Akte closed or filed away, not in the future, not before the Auftragsdatum."""
    if daten.get("mandat_beendet_am") is None:
        return
    pruefe(user, "akte_status")
    tag = daten["mandat_beendet_am"]
    status = (status_wert(daten["status"]) if daten.get("status")
              else akte.status if akte else Akte.Status.OFFEN)
    auftrag = daten.get("auftragsdatum", akte.auftragsdatum if akte else None)
    if status not in Akte.MANDAT_BEENDET:
        raise EingabeFehler("Ein Ende des Mandats hat nur eine abgeschlossene oder abgelegte Akte.",
                            {"mandat_beendet_am": "Die Akte ist offen."})
    if tag > timezone.localdate():
        raise EingabeFehler("Das Mandat kann nicht in der Zukunft beendet sein.",
                            {"mandat_beendet_am": "Liegt in der Zukunft."})
    if auftrag and tag < auftrag:
        raise EingabeFehler(f"Das Mandat kann nicht vor dem Auftrag ({auftrag:%d.%m.%Y}) beendet sein.",
                            {"mandat_beendet_am": "Liegt vor dem Auftragsdatum."})


def _pruefe_personen(daten: dict[str, Any]) -> None:
    fehler: dict[str, str] = {}
    if daten.get("anwalt") is not None and role_of(daten["anwalt"]) not in {"ANWALT", "ADMIN"}:
        fehler["anwalt"] = "Verantwortlich kann nur eine Anwältin oder ein Anwalt sein."
    for name in ("anwalt", "sachbearbeiter"):
        person = daten.get(name)
        if person is not None and not person.is_active:
            fehler[name] = "Diese Person ist nicht mehr aktiv."
    if fehler:
        raise EingabeFehler(" ".join(fehler.values()), fehler)


def _zugriff_fuer_beteiligte(akte: Akte, *personen: tuple[User | None, str], von: User) -> None:
    """Whoever opens the Akte, its Anwalt and its Sachbearbeitung see it (ADMIN sees all anyway);
    the Verlauf names who granted it and why."""
    for person, grund in personen:
        if person is None or person.sees_all_akten:
            continue
        if not AktenZugriff.objects.filter(akte=akte, user=person).exists():
            zugriff = AktenZugriff(akte=akte, user=person, gewaehrt_von=von)
            zugriff._history_user = von  # type: ignore[attr-defined]  # the Verlauf names who, also off the pages
            zugriff._change_reason = grund  # type: ignore[attr-defined]
            zugriff.save()


def _neue_personen(*, user: User, akte: Akte, aenderungen: dict[str, Any]) -> None:
    """A new Anwalt is the lawyers' decision; a new Sachbearbeitung who cannot see the Akte yet gets
    access only from who may grant it (ANWALT, ADMIN) — an edit must not open an Akte to someone, or
    give back access a lawyer took away."""
    if "anwalt" in aenderungen and aenderungen["anwalt"] != akte.anwalt:
        pruefe(user, "zugriff")
    person = aenderungen.get("sachbearbeiter")
    if (person is not None and person != akte.sachbearbeiter and not person.sees_all_akten
            and not AktenZugriff.objects.filter(akte=akte, user=person).exists()
            and not darf(user, "zugriff")):
        name = person.get_full_name() or person.username
        raise EingabeFehler(f"{name} darf diese Akte nicht sehen. Zugriff gibt eine Anwältin, ein Anwalt "
                            "oder die Administration; dann kannst du die Sachbearbeitung eintragen.",
                            {"sachbearbeiter": "ohne Zugriff auf die Akte"})


@transaction.atomic
def akte_anlegen(*, user: User, daten: dict[str, Any], grund: str = "") -> Akte:
    """A new Akte with the firm's next Aktenzeichen (unless one is given); the creator, its Anwalt
    and its Sachbearbeitung get access. Parties come separately (beteiligte.py, with the
    Kollisionsprüfung)."""
    pruefe(user, "akte")
    daten = {k: v for k, v in daten.items() if k in (*STAMMDATEN, "status")}
    if daten.get("status") and status_wert(daten["status"]) != Akte.Status.OFFEN:
        pruefe(user, "akte_status")
    _pruefe_mandatsende(user=user, daten=daten)
    _pruefe_personen(daten)
    # One number at a time: two people opening Akten at once must not get the same Aktenzeichen.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('akten.aktenzeichen'))")
    if not (daten.get("aktenzeichen") or "").strip():
        daten["aktenzeichen"] = naechstes_aktenzeichen(anwalt=daten.get("anwalt"))
    daten["aktenzeichen"] = daten["aktenzeichen"].strip()
    if Akte.objects.filter(aktenzeichen__iexact=daten["aktenzeichen"]).exists():
        raise EingabeFehler(f"Das Aktenzeichen {daten['aktenzeichen']} ist schon vergeben.",
                            {"aktenzeichen": "Schon vergeben."})
    if "status" in daten:
        daten["status"] = status_wert(daten["status"])
    akte = Akte(**daten)
    speichere(akte, user=user, grund=grund)
    _zugriff_fuer_beteiligte(akte, (user, "hat die Akte angelegt"), (akte.anwalt, "verantwortlich"),
                             (akte.sachbearbeiter, "Sachbearbeitung"), von=user)
    return akte


def _normalisiert(aenderungen: dict[str, Any]) -> dict[str, Any]:
    """The values as the Akte stores them, so that an unchanged one compares equal."""
    werte = dict(aenderungen)
    if "status" in werte:
        werte["status"] = status_wert(werte["status"])
    if "aktenzeichen" in werte:
        werte["aktenzeichen"] = (werte["aktenzeichen"] or "").strip()
    if werte.get("gegenstandswert") is not None and not isinstance(werte["gegenstandswert"], Decimal):
        werte["gegenstandswert"] = Decimal(str(werte["gegenstandswert"]))
    return werte


class VeralteteVersion(DomainError):
    """The Akte changed since the caller read it (HTTP 409): read it again, then change it."""

    status, code = 409, "veraltet"


@transaction.atomic
def akte_aendern(*, user: User, akte_id: int | str, aenderungen: dict[str, Any], grund: str = "",
                 version: str | Collection[str] | None = None) -> Akte:
    """Change an Akte's Stammdaten (and, for ANWALT/ADMIN, its status); unknown fields are refused.
    With `version` (what the caller read: Akte.version, the API's ETag; several: any of them) a change
    made meanwhile by someone else refuses this one, so nobody overwrites what they never saw. Only
    what differs counts: a field sent with its old value changes nothing and grants nothing (a client
    that sends the whole record back must not give access a lawyer took away), and with nothing to
    change nothing is saved."""
    sichtbar = get_akte(user=user, akte_id=akte_id)  # NotFound for a foreign Akte
    pruefe(user, "akte")
    nur_bekannte(aenderungen, (*STAMMDATEN, *STATUS_FELDER), was="an einer Akte")
    akte = Akte.objects.select_for_update().get(pk=sichtbar.pk)
    erwartet = {version} if isinstance(version, str) else None if version is None else set(version)
    if erwartet is not None and akte.version not in erwartet:
        raise VeralteteVersion(f"Die Akte {akte.aktenzeichen} wurde inzwischen geändert "
                               f"({timezone.localtime(akte.aktualisiert_am):%d.%m.%Y %H:%M:%S}). Lies sie "
                               "neu und ändere dann.", version=akte.version)
    aenderungen = {name: wert for name, wert in _normalisiert(aenderungen).items()
                   if wert != getattr(akte, name)}
    if not aenderungen:
        return akte
    if any(name in aenderungen for name in STATUS_FELDER):
        pruefe(user, "akte_status")
    _pruefe_mandatsende(user=user, daten=aenderungen, akte=akte)
    _pruefe_personen(aenderungen)
    _neue_personen(user=user, akte=akte, aenderungen=aenderungen)
    if "aktenzeichen" in aenderungen:
        with connection.cursor() as cursor:  # the same lock as akte_anlegen: one number, one Akte
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext('akten.aktenzeichen'))")
        neu = aenderungen["aktenzeichen"]
        if Akte.objects.filter(aktenzeichen__iexact=neu).exclude(pk=akte.pk).exists():
            raise EingabeFehler(f"Das Aktenzeichen {neu} ist schon vergeben.",
                                {"aktenzeichen": "Schon vergeben."})
    for name, wert in aenderungen.items():
        setattr(akte, name, wert)
    if "summary" in aenderungen:
        akte.summary_aktualisiert_am = timezone.now()
    speichere(akte, user=user, grund=grund)
    # only who became Anwalt or Sachbearbeitung by this change (and may, see _neue_personen)
    _zugriff_fuer_beteiligte(
        akte, (akte.anwalt if "anwalt" in aenderungen else None, "als verantwortlich eingetragen"),
        (akte.sachbearbeiter if "sachbearbeiter" in aenderungen else None, "als Sachbearbeitung eingetragen"),
        von=user)
    return akte


@transaction.atomic
def zugriff_geben(*, user: User, akte_id: int | str, person: User) -> AktenZugriff:
    """Let `person` see the Akte (idempotent); ANWALT and ADMIN decide."""
    akte = get_akte(user=user, akte_id=akte_id)
    pruefe(user, "zugriff")
    if not person.is_active:
        raise EingabeFehler("Diese Person ist nicht mehr aktiv.")
    zugriff = AktenZugriff.objects.filter(akte=akte, user=person).first()
    if zugriff is None:
        zugriff = AktenZugriff(akte=akte, user=person, gewaehrt_von=user)
        zugriff._history_user = user  # type: ignore[attr-defined]
        zugriff.save()
    return zugriff


@transaction.atomic
def zugriff_entziehen(*, user: User, akte_id: int | str, person: User) -> None:
    """Take the Akte away from `person`; the Akte's own Anwalt keeps it (change the Anwalt first)."""
    akte = get_akte(user=user, akte_id=akte_id)
    pruefe(user, "zugriff")
    offen = [] if person.sees_all_akten else list(
        Frist.objects.filter(akte=akte, verantwortlich=person, erledigt=False)
        .values_list("bezeichnung", flat=True)[:5])
    if offen:
        name = person.get_full_name() or person.username
        raise EingabeFehler(f"{name} ist für offene Fristen dieser Akte verantwortlich ("
                            + ", ".join(f"„{b}“" for b in offen) + "). Übertrage sie zuerst, sonst hält "
                            "sie niemand.")
    if person.pk == akte.anwalt_id:
        raise EingabeFehler("Die verantwortliche Anwältin oder der verantwortliche Anwalt behält den "
                            "Zugriff. "
                            "Ändere zuerst, wer die Akte verantwortet.")
    for zugriff in AktenZugriff.objects.filter(akte=akte, user=person):
        zugriff._history_user = user  # type: ignore[attr-defined]
        zugriff.delete()


def darf_status_aendern(user: User) -> bool:
    return darf(user, "akte_status")
