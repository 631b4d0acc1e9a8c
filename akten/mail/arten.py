"""Which Hinweise go out by e-mail, and which of them nobody may switch off.

Critical (always mailed): a Notfrist that ends today or is overdue, a Frist for which nobody is
responsible, a Notfrist whose Erledigt waits for the second person (Vier-Augen-Prinzip) — each is a
missed Frist in the making, and the Kanzlei answers for it. Optional (mailed unless the person
switched the kind off on /konto/): Vorfrist, bald fällig, an ordinary Frist today or overdue, an
Auftrag Helena finished. Hinweise written by people (Art "") are not mailed: they may say anything,
and § 203 StGB forbids sending what the firm has not allowed.
"""

from __future__ import annotations

from akten.models import Alert

Art = Alert.Art

KRITISCHE_ARTEN = frozenset({Art.NIEMAND, Art.BESTAETIGUNG})
NOTFRIST_ARTEN = frozenset({Art.HEUTE, Art.UEBERFAELLIG})  # critical when the Frist is a Notfrist
OPTIONALE_MAIL_ARTEN: tuple[str, ...] = (Art.VORFRIST, Art.BALD, Art.HEUTE, Art.UEBERFAELLIG, Art.AUFGABE)
MAIL_ARTEN = frozenset(OPTIONALE_MAIL_ARTEN) | KRITISCHE_ARTEN

# The words of /konto/ for the kinds a person may switch off, and for those that always come.
OPTIONALE_LABELS: dict[str, str] = {
    Art.VORFRIST: "Vorfrist erreicht",
    Art.BALD: "Frist endet in den nächsten drei Werktagen",
    Art.HEUTE: "Frist endet heute (keine Notfrist)",
    Art.UEBERFAELLIG: "Frist überfällig (keine Notfrist)",
    Art.AUFGABE: "Helena hat einen Auftrag erledigt",
}
KRITISCHE_LABELS: tuple[str, ...] = (
    "Notfrist endet heute",
    "Notfrist überfällig",
    "Für eine Frist ist niemand verantwortlich",
    "Eine Notfrist wartet auf deine Bestätigung (Vier-Augen-Prinzip)",
)


def ist_kritisch(alert: Alert) -> bool:
    """Critical Hinweise are mailed whatever the person chose. A today/overdue Hinweis is critical
    exactly when the scan gave it as critical, i.e. for a Notfrist (akten/fristen_scan.py)."""
    if alert.art in KRITISCHE_ARTEN:
        return True
    return alert.art in NOTFRIST_ARTEN and alert.severity == Alert.Severity.CRITICAL


def gewollt(alert: Alert, *, mail_aus: frozenset[str] | set[str]) -> bool:
    """Is this Hinweis mailed to its person, given the kinds they switched off?"""
    if alert.art not in MAIL_ARTEN or alert.empfaenger_id is None:
        return False
    return ist_kritisch(alert) or alert.art not in mail_aus
