"""Who may enter which record by hand — the one rule for the pages, the API, the import and the
approval of Helena's drafts (docs/protocol.md, "Roles and tools": "Records by hand").

A Kanzlei works so: the Sekretariat opens Akten and keeps the parties and Notizen, the
Sachbearbeitung also keeps the Fristen and its time; closing or filing an Akte away and deciding who
may see it is the lawyer's; the Praktikant reads. For the kinds Helena drafts, the roles are the
roles of the tool that makes the draft (drafts/roles.py; a test keeps both the same).
"""

from __future__ import annotations

from typing import Any

from akten.accounts.users import ALL_ROLES, FRIST_ROLES, role_of
from config.errors import Forbidden

SCHREIBRECHTE: dict[str, frozenset[str]] = {
    "akte": ALL_ROLES - {"PRAKTIKANT"},           # anlegen, Stammdaten bearbeiten
    "akte_status": frozenset({"ADMIN", "ANWALT"}),  # abschließen, ablegen, wieder öffnen
    "zugriff": frozenset({"ADMIN", "ANWALT"}),      # wer die Akte sehen darf
    "beteiligter": ALL_ROLES - {"PRAKTIKANT"},
    "frist": FRIST_ROLES,                           # Fristen, Termine, Wiedervorlagen; erledigt
    "notiz": frozenset({"ADMIN", "ANWALT", "SACHBEARBEITER", "SEKRETARIAT"}),
    "zeiterfassung": frozenset({"ADMIN", "ANWALT", "SACHBEARBEITER"}),
    "import": frozenset({"ADMIN"}),
    "datenschutz": frozenset({"ADMIN", "ANWALT"}),  # Auskunft (Art. 15 DSGVO), Löschung vormerken
}

VERWEIGERT: dict[str, str] = {
    "akte": "Akten anlegen und bearbeiten darf jede Rolle außer Praktikantinnen und Praktikanten.",
    "akte_status": "Eine Akte abschließen, ablegen oder wieder öffnen dürfen Anwältinnen und Anwälte "
                   "und die Administration.",
    "zugriff": "Wer eine Akte sehen darf, bestimmen Anwältinnen und Anwälte und die Administration.",
    "beteiligter": "Beteiligte erfassen darf jede Rolle außer Praktikantinnen und Praktikanten.",
    "frist": "Fristen, Termine und Wiedervorlagen bearbeiten dürfen Anwältinnen und Anwälte, die "
             "Sachbearbeitung und die Administration.",
    "notiz": "Notizen schreiben dürfen alle außer Praktikantinnen und Praktikanten.",
    "zeiterfassung": "Zeiten erfassen dürfen Anwältinnen und Anwälte, die Sachbearbeitung und die "
                     "Administration.",
    "import": "Akten importieren darf nur die Administration.",
    "datenschutz": "Auskunft und Löschung nach der DSGVO bearbeiten Anwältinnen und Anwälte und die "
                   "Administration.",
}


def darf(user: Any, art: str) -> bool:
    """May this user's role write records of this kind?"""
    return role_of(user) in SCHREIBRECHTE[art]


def pruefe(user: Any, art: str) -> None:
    """Forbidden (403, German) unless the role may write this kind."""
    if not darf(user, art):
        raise Forbidden(VERWEIGERT[art])


def rechte_von(user: Any) -> dict[str, bool]:
    """What the pages offer this user: {art: darf} for every kind."""
    return {art: darf(user, art) for art in SCHREIBRECHTE}
