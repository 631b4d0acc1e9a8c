"""What happened in an Akte, newest first: the activity feed (page and GET /akten/{id}/aktivitaet).

Read from the records and audit trails that exist anyway — Fristen (angelegt, erledigt), Helena's
drafts (vorgeschlagen, freigegeben, abgelehnt), Dokumente, Notizen — so nothing has to remember to
write a feed entry. Scoped like the Akte itself: a foreign Akte is NotFound.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from akten.models import Dokument, Frist, Notiz, User
from akten.selectors import get_akte
from drafts.models import DraftEvent

LIMIT = 50
_DRAFT_ACTIONS = {DraftEvent.Action.CREATED: ("entwurf_vorgeschlagen", "Helena schlägt vor"),
                  DraftEvent.Action.APPROVED: ("entwurf_freigegeben", "Freigegeben"),
                  DraftEvent.Action.REJECTED: ("entwurf_abgelehnt", "Abgelehnt")}


@dataclass(frozen=True)
class Eintrag:
    zeit: datetime
    art: str
    text: str
    wer: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"zeit": self.zeit, "art": self.art, "text": self.text, "wer": self.wer}


def _name(user: User | None) -> str:
    return (user.get_full_name() or user.username) if user is not None else ""


def _fristen(akte_id: int) -> list[Eintrag]:
    out = []
    for f in Frist.objects.filter(akte_id=akte_id).select_related("verantwortlich"):
        was = f"{f.get_typ_display()} „{f.bezeichnung}“ zum {f.datum:%d.%m.%Y}"
        out.append(Eintrag(f.angelegt_am, "frist_angelegt", f"{was} angelegt"))
        if f.erledigt and f.erledigt_am:
            out.append(Eintrag(f.erledigt_am, "frist_erledigt", f"{was} erledigt"))
    return out


def _entwuerfe(akte_id: int) -> list[Eintrag]:
    events = (DraftEvent.objects.filter(draft__akte_id=akte_id, action__in=list(_DRAFT_ACTIONS))
              .select_related("draft", "user"))
    out = []
    for e in events:
        art, verb = _DRAFT_ACTIONS[e.action]
        out.append(Eintrag(e.at, art, f"{verb}: {e.draft.get_kind_display()} „{e.draft.title}“",
                           _name(e.user)))
    return out


def _schriftstuecke(akte_id: int) -> list[Eintrag]:
    out = [Eintrag(d.angelegt_am, "dokument_angelegt", f"Dokument „{d.titel}“ angelegt",
                   _name(d.erstellt_von))
           for d in Dokument.objects.filter(akte_id=akte_id).select_related("erstellt_von")]
    out += [Eintrag(n.angelegt_am, "notiz_angelegt", f"Notiz „{n.titel or n.inhalt[:40]}“",
                    _name(n.verfasst_von))
            for n in Notiz.objects.filter(akte_id=akte_id).select_related("verfasst_von")]
    return out


def aktivitaet(*, user: User, akte_id: int | str, limit: int = LIMIT) -> list[Eintrag]:
    """The Akte's feed, newest first; NotFound for an Akte the user may not see."""
    akte = get_akte(user=user, akte_id=akte_id)
    entries = [*_fristen(akte.pk), *_entwuerfe(akte.pk), *_schriftstuecke(akte.pk)]
    return sorted(entries, key=lambda e: e.zeit, reverse=True)[:limit]
