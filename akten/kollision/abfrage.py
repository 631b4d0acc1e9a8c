"""Asking the Kollisionsprüfung directly (POST /api/v1/kollisionspruefung): names without a record.

Who may ask: every role except the Praktikant. The answer tells whether a name is a party anywhere in
the firm, also in Akten the asker may not see — the same knowledge the roles that enter parties get
when they save one (akten/erfassung/rechte.py: „beteiligter“); a Praktikant enters none and reads
only the Akten granted to him. Every question is recorded (Anlass „abfrage“), hits and all.
"""

from __future__ import annotations

from akten.accounts.users import ALL_ROLES, role_of
from akten.kollision.protokoll import protokolliere
from akten.kollision.pruefung import Ergebnis, pruefung
from akten.models import Beteiligter, Kollisionspruefung, User
from akten.namen import name_schluessel
from config.errors import DomainError, Forbidden

ABFRAGE_ROLLEN: frozenset[str] = ALL_ROLES - {"PRAKTIKANT"}
VERWEIGERT = ("Die Kollisionsprüfung dürfen alle außer Praktikantinnen und Praktikanten nutzen, denn "
              "die Prüfung zeigt, wer in irgendeiner Akte der Kanzlei Partei ist.")
HOECHSTENS_NAMEN = 50
NAME_MAX = 200


def darf_abfragen(user: User) -> bool:
    return role_of(user) in ABFRAGE_ROLLEN


def _geprueft(namen: list[str]) -> list[str]:
    """The names without white space at the edges; 422 (German) for a list nobody can check."""
    if not 1 <= len(namen) <= HOECHSTENS_NAMEN:
        raise DomainError(f"Gib 1 bis {HOECHSTENS_NAMEN} Namen an.", field="namen")
    bereinigt = [str(n).strip() for n in namen]
    for nummer, name in enumerate(bereinigt, start=1):
        if len(name) > NAME_MAX:
            raise DomainError(f"Name {nummer} ist länger als {NAME_MAX} Zeichen.", field="namen")
        if not name_schluessel(name):
            raise DomainError(f"Name {nummer} enthält keine Buchstaben oder Ziffern.", field="namen")
    return bereinigt


def abfragen(*, user: User, namen: list[str], rolle: str | None = None) -> Ergebnis:
    """The firm's parties each name may be (conflicts for `rolle` first), recorded as an „abfrage“.

    Forbidden (403) for the Praktikant; a bad list is refused (422) before anything is searched or
    recorded."""
    if not darf_abfragen(user):
        raise Forbidden(VERWEIGERT)
    if rolle is not None and rolle not in Beteiligter.Rolle.values:
        raise DomainError("Diese Rolle gibt es bei Beteiligten nicht.", field="rolle")
    geprueft = _geprueft(namen)
    ergebnis = pruefung(namen=geprueft, user=user, neue_rolle=rolle)
    protokolliere(user=user, namen=list(dict.fromkeys(geprueft)), treffer=ergebnis.treffer,
                  anlass=Kollisionspruefung.Anlass.ABFRAGE)
    return ergebnis
