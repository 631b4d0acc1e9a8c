"""The Fristen scan: open Fristen become Hinweise for the people who answer for them.

A missed Notfrist is a Kanzlei's main liability risk, and "überfällig" on an Akte page helps only
whoever opens that Akte. The scan (`manage.py scan_fristen`, and Celery beat every few minutes)
writes an Alert per person and occasion: Vorfrist reached, Frist within the next WERKTAGE
Werktage, Frist today, Frist overdue (critical for a Notfrist), and nobody responsible. Each
carries a key (Frist, occasion, Fristende, person), so a scan repeats nothing, and a corrected
Fristende counts as new. Erledigte Fristen are not scanned.

Recipients: the Frist's verantwortliche Person, the Akte's Anwalt and Sachbearbeitung — only
those who may see the Akte (an inactive person sees none); when none of them can, the admins, and
that is exactly when the Frist also gets „niemand verantwortlich“ (one rule: verantwortliche()).
A Notfrist marked erledigt under the Vier-Augen-Prinzip gives, at that moment, a Hinweis to whoever
may confirm it (bestaetigung_hinweise). (The Bundesland a Frist's holidays
come from is never missing: an Akte always has one, so there is no Hinweis for that.)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Q
from django.utils import timezone

from akten.accounts.users import may_edit_fristen
from akten.fristen import format_datum
from akten.fristen.kalender import werktage_voraus
from akten.models import Akte, Alert, Frist, Role, User
from akten.selectors import akten_for

WERKTAGE = 3  # "Frist in den nächsten drei Werktagen"
Art = Alert.Art
Severity = Alert.Severity
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Anlass:
    art: str
    severity: str
    message: str


def _was(frist: Frist) -> str:
    return f"{frist.get_typ_display()} „{frist.bezeichnung}“ (Akte {frist.akte.aktenzeichen})"


def anlaesse(frist: Frist, heute: date, *, jemand_verantwortlich: bool) -> list[Anlass]:
    """What is due for this open Frist today; „niemand verantwortlich“ when verantwortliche() found
    nobody (the scan asks it once per Frist)."""
    was, ende = _was(frist), format_datum(frist.datum)
    notfrist = " Es ist eine Notfrist." if frist.ist_notfrist else ""
    out: list[Anlass] = []
    if frist.datum < heute:
        out.append(Anlass(Art.UEBERFAELLIG, Severity.CRITICAL if frist.ist_notfrist else Severity.WARNING,
                          f"Überfällig: {was} endete am {ende} und ist nicht erledigt.{notfrist}"))
    elif frist.datum == heute:
        out.append(Anlass(Art.HEUTE, Severity.CRITICAL if frist.ist_notfrist else Severity.WARNING,
                          f"Heute endet {was}.{notfrist}"))
    elif frist.datum <= werktage_voraus(heute, WERKTAGE, frist.effektives_bundesland):
        out.append(Anlass(Art.BALD, Severity.WARNING, f"Bald fällig: {was} endet am {ende}.{notfrist}"))
    if frist.vorfrist and frist.vorfrist <= heute < frist.datum:
        out.append(Anlass(Art.VORFRIST, Severity.WARNING, f"Vorfrist erreicht: {was} endet am {ende}."))
    if not jemand_verantwortlich:
        out.append(Anlass(Art.NIEMAND, Severity.WARNING,
                          f"Für {was} mit Ende am {ende} ist niemand verantwortlich, der die Akte sehen kann "
                          "(bei der Frist und als Anwalt oder Sachbearbeitung der Akte ist niemand "
                          "eingetragen, oder die Eingetragenen sind deaktiviert oder haben keinen Zugriff "
                          "auf die Akte)."))
    return out


def _sieht(user: User, akte: Akte) -> bool:
    return akten_for(user=user).filter(pk=akte.pk).exists()  # the one rule of who sees an Akte


def _admins() -> list[User]:
    return list(User.objects.filter(Q(role=Role.ADMIN) | Q(is_superuser=True), is_active=True).order_by("pk"))


def verantwortliche(frist: Frist) -> list[User]:
    """The responsible people who may see the Akte now (akten_for: active, with access); none means
    „niemand verantwortlich“."""
    kandidaten = [frist.verantwortlich, frist.akte.anwalt, frist.akte.sachbearbeiter]
    seen: dict[int, User] = {}
    for user in kandidaten:
        if user is not None and user.pk not in seen and _sieht(user, frist.akte):
            seen[user.pk] = user
    return list(seen.values())


def empfaenger(frist: Frist) -> list[User]:
    """Who is told: the responsible people who may see the Akte, else the admins."""
    return verantwortliche(frist) or _admins()


@dataclass(frozen=True)
class ScanErgebnis:
    fristen: int
    neue_hinweise: int


def scan_fristen(*, heute: date | None = None) -> ScanErgebnis:
    """Give every Hinweis that is due and not given yet; safe to run any number of times."""
    heute = heute or timezone.localdate()
    fristen = list(Frist.objects.filter(erledigt=False)
                   .filter(Q(datum__lte=heute + timedelta(days=14)) | Q(vorfrist__lte=heute))
                   .select_related("akte", "verantwortlich", "akte__anwalt", "akte__sachbearbeiter"))
    neue: list[Alert] = []
    for frist in fristen:
        wer = verantwortliche(frist)
        due = anlaesse(frist, heute, jemand_verantwortlich=bool(wer))
        if not due:
            continue
        for user in wer or _admins():
            for anlass in due:
                schluessel = f"frist:{frist.pk}:{anlass.art}:{frist.datum.isoformat()}:{user.pk}"
                neue.append(Alert(akte=frist.akte, frist=frist, empfaenger=user, art=anlass.art,
                                  severity=anlass.severity, message=anlass.message, schluessel=schluessel))
    given = set(Alert.objects.filter(schluessel__in=[a.schluessel for a in neue])
                .values_list("schluessel", flat=True)) if neue else set()
    missing = [alert for alert in neue if alert.schluessel not in given]
    Alert.objects.bulk_create(missing, ignore_conflicts=True)  # a scan running beside us: no doubles
    return ScanErgebnis(fristen=len(fristen), neue_hinweise=len(missing))


def bestaetiger(frist: Frist) -> list[User]:
    """Who may confirm a Notfrist's Erledigt: of the responsible people those with the right to keep
    Fristen who see the Akte, never the one who marked it; when none is left, the admins."""
    beantragt = frist.erledigung_beantragt_von_id
    kandidaten = [frist.verantwortlich, frist.akte.anwalt, frist.akte.sachbearbeiter]
    seen: dict[int, User] = {}
    for user in kandidaten:
        if (user is not None and user.pk != beantragt and user.pk not in seen and may_edit_fristen(user)
                and _sieht(user, frist.akte)):
            seen[user.pk] = user
    return list(seen.values()) or [u for u in _admins() if u.pk != beantragt]


def bestaetigung_hinweise(frist: Frist) -> int:
    """A critical Hinweis per person who may confirm the waiting Erledigt (one per request: a request
    taken back and made again is a new occasion); the number given."""
    if not frist.wartet_auf_bestaetigung or frist.erledigung_beantragt_am is None:
        return 0
    wer = frist.erledigung_beantragt_von
    name = (wer.get_full_name() or wer.username) if wer is not None else "jemand"
    message = (f"Bitte bestätigen: {_was(frist)} hat {name} als erledigt eingetragen. Die Notfrist "
               "zählt erst als erledigt, wenn eine zweite Person bestätigt (Vier-Augen-Prinzip).")
    stempel = frist.erledigung_beantragt_am.strftime("%Y%m%dT%H%M%S")
    neue = 0
    wer_darf = bestaetiger(frist)
    if not wer_darf:  # no active admin besides the applicant: the Notfrist waits and nobody is told
        log.warning("Vier-Augen: niemand kann die Erledigung von Frist %s (Akte %s) bestätigen – keine "
                    "weitere Person mit Fristenrecht und keine andere aktive Verwaltung.", frist.pk,
                    frist.akte.aktenzeichen)
    for user in wer_darf:
        _, angelegt = Alert.objects.get_or_create(
            schluessel=f"frist:{frist.pk}:{Art.BESTAETIGUNG}:{stempel}:{user.pk}",
            defaults={"akte": frist.akte, "frist": frist, "empfaenger": user, "art": Art.BESTAETIGUNG,
                      "severity": Severity.CRITICAL, "message": message})
        neue += angelegt
    return neue
