"""What happened, newest first: the activity feed of an Akte (page and GET /akten/{id}/aktivitaet)
and of a user across the Akten they may see (page /aktivitaet/ and GET /aktivitaet).

Read from the records and audit trails that exist anyway — Fristen (angelegt, erledigt), Helena's
drafts (vorgeschlagen, freigegeben, abgelehnt), Dokumente, Notizen — so nothing has to remember to
write a feed entry. Scoped like the Akten themselves: a foreign Akte is NotFound, and a user's
feed holds only the Akten they may see.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from akten.accounts.users import anzeigename
from akten.models import Akte, Dokument, Frist, Notiz, User
from akten.selectors import akten_for, get_akte
from drafts.models import DraftEvent

LIMIT = 50
USER_DAYS = 14
_DRAFT_ACTIONS = {DraftEvent.Action.CREATED: ("entwurf_vorgeschlagen", "Helena schlägt vor"),
                  DraftEvent.Action.APPROVED: ("entwurf_freigegeben", "Freigegeben"),
                  DraftEvent.Action.REJECTED: ("entwurf_abgelehnt", "Abgelehnt")}


@dataclass(frozen=True)
class Eintrag:
    zeit: datetime
    art: str
    text: str
    wer: str = ""
    akte_id: int | None = None
    aktenzeichen: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"zeit": self.zeit, "art": self.art, "text": self.text, "wer": self.wer,
                "akte_id": str(self.akte_id) if self.akte_id else None, "aktenzeichen": self.aktenzeichen}


def _fristen(akten: Any, since: datetime | None) -> list[Eintrag]:
    out = []
    rows = Frist.objects.filter(akte__in=akten).select_related("akte")
    if since:
        rows = rows.filter(Q(angelegt_am__gte=since) | Q(erledigt_am__gte=since))
    for f in rows:
        was = f"{f.get_typ_display()} „{f.bezeichnung}“ zum {f.datum:%d.%m.%Y}"
        where = {"akte_id": f.akte_id, "aktenzeichen": f.akte.aktenzeichen}
        out.append(Eintrag(f.angelegt_am, "frist_angelegt", f"{was} angelegt", **where))
        if f.erledigt and f.erledigt_am:
            out.append(Eintrag(f.erledigt_am, "frist_erledigt", f"{was} erledigt", **where))
    return out


def _entwuerfe(akten: Any, since: datetime | None) -> list[Eintrag]:
    events = (DraftEvent.objects.filter(draft__akte__in=akten, action__in=list(_DRAFT_ACTIONS))
              .select_related("draft", "draft__akte", "user"))
    if since:
        events = events.filter(at__gte=since)
    out = []
    for e in events:
        art, verb = _DRAFT_ACTIONS[e.action]
        out.append(Eintrag(e.at, art, f"{verb}: {e.draft.get_kind_display()} „{e.draft.title}“",
                           anzeigename(e.user), e.draft.akte_id, e.draft.akte.aktenzeichen))
    return out


def _schriftstuecke(akten: Any, since: datetime | None) -> list[Eintrag]:
    recent = {"angelegt_am__gte": since} if since else {}
    out = [Eintrag(d.angelegt_am, "dokument_angelegt", f"Dokument „{d.titel}“ angelegt",
                   anzeigename(d.erstellt_von), d.akte_id, d.akte.aktenzeichen)
           for d in Dokument.objects.filter(akte__in=akten, **recent).select_related("akte", "erstellt_von")]
    out += [Eintrag(n.angelegt_am, "notiz_angelegt", f"Notiz „{n.titel or n.inhalt[:40]}“",
                    anzeigename(n.verfasst_von), n.akte_id, n.akte.aktenzeichen)
            for n in Notiz.objects.filter(akte__in=akten, **recent).select_related("akte", "verfasst_von")]
    return out


def _feed(akten: Any, *, since: datetime | None, limit: int) -> list[Eintrag]:
    entries = [*_fristen(akten, since), *_entwuerfe(akten, since), *_schriftstuecke(akten, since)]
    if since:  # a Frist created lately may have been erledigt long ago: each entry by its own time
        entries = [e for e in entries if e.zeit >= since]
    return sorted(entries, key=lambda e: e.zeit, reverse=True)[:limit]


def aktivitaet(*, user: User, akte_id: int | str, limit: int = LIMIT) -> list[Eintrag]:
    """The Akte's feed, newest first; NotFound for an Akte the user may not see."""
    akte = get_akte(user=user, akte_id=akte_id)
    return _feed(Akte.objects.filter(pk=akte.pk), since=None, limit=limit)


def aktivitaet_fuer(*, user: User, tage: int = USER_DAYS, limit: int = 100) -> list[Eintrag]:
    """What happened in the last `tage` days in all Akten the user may see, newest first."""
    return _feed(akten_for(user=user), since=timezone.now() - timedelta(days=tage), limit=limit)
