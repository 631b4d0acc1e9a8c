"""A Muster filled from an Akte into a Dokument draft: the Akte's values, then those the caller
adds (Helena from a letter, a person in the form), the rest listed as open (drafts.services warns
about them on the card until they are filled in). The draft takes the Muster's addressee, so its
DOCX/PDF is addressed to the Mandant, the court … (akten/dokumente/ausgabe/kontext.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from akten.dokumente.platzhalter import PLATZHALTER, fuelle, genus_fuer, werte_fuer
from akten.models import User
from akten.selectors import get_akte
from config.errors import NotFound
from drafts.models import Draft
from drafts.services import create_draft
from helena.knowledge.models import Muster


@dataclass(frozen=True)
class MusterEntwurf:
    draft: Draft
    gefuellt: list[str]
    offen: list[str]


def get_muster(*, muster_id: int | str) -> Muster:
    try:
        return Muster.objects.get(pk=int(muster_id))
    except (Muster.DoesNotExist, TypeError, ValueError):
        raise NotFound(f"Muster „{muster_id}“ nicht gefunden. Suche es mit search_muster.") from None


def clean_werte(werte: dict[str, Any] | None) -> dict[str, str]:
    """Extra values by placeholder name ("kuendigung_datum" or "{{KUENDIGUNG_DATUM}}" alike)."""
    out: dict[str, str] = {}
    for key, value in (werte or {}).items():
        name = str(key).strip().strip("{} ").upper()
        text = " ".join(str(value).split()) if value is not None else ""
        if name and text and PLATZHALTER.fullmatch("{{" + name + "}}"):
            out[name] = text[:2000]
    return out


def draft_from_muster(*, user: User, akte_id: int | str, muster_id: int | str, titel: str = "",
                      werte: dict[str, Any] | None = None, empfaenger: str | None = None,
                      run_id: str | None = None,
                      conversation_id: int | str | None = None, tool: str = "create_draft_dokument",
                      call_id: str = "") -> MusterEntwurf:
    """A pending Dokument draft from the Muster (NotFound, PermissionDenied as create_draft), addressed
    as the Muster says unless `empfaenger` names another role."""
    akte = get_akte(user=user, akte_id=akte_id)
    muster = get_muster(muster_id=muster_id)
    filled = fuelle(muster.text, {**werte_fuer(akte), **clean_werte(werte)}, genus=genus_fuer(akte))
    context = {"muster": {"id": str(muster.pk), "titel": muster.titel},
               "gefuellt": filled.gefuellt, "offene_platzhalter": filled.offen}
    draft = create_draft(user=user, kind=Draft.Kind.DOKUMENT, akte_id=akte.pk, run_id=run_id,
                         conversation_id=conversation_id, tool=tool, context=context, call_id=call_id,
                         fields={"titel": (titel.strip() or muster.titel)[:300], "inhalt": filled.text,
                                 "empfaenger": muster.empfaenger if empfaenger is None else empfaenger})
    return MusterEntwurf(draft=draft, gefuellt=filled.gefuellt, offen=filled.offen)
