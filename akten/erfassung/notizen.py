"""Notizen written by hand; one that begins with „@Helena“ becomes a task for Helena (helena.signals
starts it once the Notiz is saved, as for one Helena drafted)."""

from __future__ import annotations

from django.db import transaction

from akten.erfassung.rechte import pruefe
from akten.erfassung.speichern import speichere
from akten.models import Notiz, User
from akten.selectors import get_akte


@transaction.atomic
def notiz_anlegen(*, user: User, inhalt: str, akte_id: int | str | None = None, titel: str = "",
                  verfasser: User | None = None, extern_id: str = "", grund: str = "") -> Notiz:
    """A Notiz in a visible Akte (or the user's own without one); `verfasser` for an approved draft
    (who asked Helena), else the writer."""
    akte = get_akte(user=user, akte_id=akte_id) if akte_id not in (None, "") else None
    pruefe(user, "notiz")
    notiz = Notiz(akte=akte, titel=(titel or "").strip(), inhalt=(inhalt or "").strip(),
                  verfasst_von=verfasser or user, extern_id=extern_id)
    return speichere(notiz, user=user, grund=grund)
