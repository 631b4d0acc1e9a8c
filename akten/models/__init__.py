"""The firm's records: users with roles (accounts.py), Akten with per-user access and their
Beteiligte (akte.py), what hangs off an Akte (records.py), its
Dokumente and the letterhead (dokument.py); how the firm keeps them (kanzlei.py), its
Kollisionsprüfungen and the parties of deleted Akten kept for them
(kollision.py), its data protection requests (datenschutz.py: Löschvormerkung,
Löschprotokoll), imports from the old software (importe.py), what the firm's
other systems need (integration.py: extern ids, idempotent answers) and the e-mails that told people
of their Hinweise (mail.py); who read which Akte and Dokument, when and how (lesezugriff.py);
django-axes' login records under German names (anmeldeschutz.py).

Nothing outside the admin reads these models unscoped: use `akten.selectors`.
"""

from akten.models.accounts import ApiToken, KalenderAbo, Role, User
from akten.models.akte import Akte, AktenZugriff, Beteiligter, Bundesland, aktenzeichen_validator
from akten.models.anmeldeschutz import Anmeldung, Zugriffsversuch
from akten.models.datenschutz import Loeschprotokoll, Loeschvormerkung
from akten.models.dokument import Briefkopf, Dokument
from akten.models.importe import ImportLauf
from akten.models.integration import IdempotenzAntwort
from akten.models.kanzlei import Kanzleieinstellung
from akten.models.kollision import FruehererBeteiligter, Kollisionspruefung
from akten.models.lesezugriff import Lesezugriff
from akten.models.mail import HinweisMail
from akten.models.records import Alert, Frist, HinweisEinstellung, Notiz, Zeiterfassung

__all__ = [
    "Akte",
    "AktenZugriff",
    "Alert",
    "Anmeldung",
    "ApiToken",
    "Beteiligter",
    "Briefkopf",
    "Bundesland",
    "Dokument",
    "Frist",
    "FruehererBeteiligter",
    "HinweisEinstellung",
    "HinweisMail",
    "IdempotenzAntwort",
    "ImportLauf",
    "KalenderAbo",
    "Kanzleieinstellung",
    "Kollisionspruefung",
    "Lesezugriff",
    "Loeschprotokoll",
    "Loeschvormerkung",
    "Notiz",
    "Role",
    "User",
    "Zeiterfassung",
    "Zugriffsversuch",
    "aktenzeichen_validator",
]
