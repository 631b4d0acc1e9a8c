"""Helena's sections of the Akte page (akten/panels.py): her memory of the Akte, a task for her, a
Dokument from a Muster, the activity feed."""

from __future__ import annotations

from django.http import HttpRequest
from django.template.loader import render_to_string

from akten.models import Akte
from akten.panels import Panel
from drafts.models import Draft
from drafts.roles import may_make
from helena.knowledge.models import Muster
from helena.models import AktenGedaechtnis
from helena.proactive.activity import aktivitaet
from helena.proactive.auftraege import darf_auftraege_geben
from helena.proactive.memory import may_correct

SHOWN = 15
# Not "Erinnerung": to a lawyer that is a legal remedy (§ 766 ZPO) or a reminder letter.
GEDAECHTNIS_TITEL = "Was Helena über die Akte weiß"


# What the Akte's own Verlauf (akten/seiten/verlauf.py, on the same tab) already tells with who and
# old → new; the feed adds only what it does not: Helena's drafts and the Dokumente.
IM_VERLAUF = frozenset({"frist_angelegt", "frist_erledigt", "notiz_angelegt"})


def activity(request: HttpRequest, akte: Akte) -> Panel | None:
    entries = [e for e in aktivitaet(user=request.user, akte_id=akte.pk, limit=SHOWN * 3)
               if e.art not in IM_VERLAUF][:SHOWN]
    if not entries:
        return None
    html = render_to_string("helena/_aktivitaet.html", {"eintraege": entries}, request=request)
    return Panel(slug="aktivitaet", title="Entwürfe und Dokumente", parts=[html])


AUFTRAG_ENTWURF = "helena_auftrag_entwurf"  # the session keeps a refused task's text per Akte


def auftrag_form(request: HttpRequest, akte: Akte) -> Panel | None:
    """A task for Helena, for those who may give her one (helena.proactive.auftraege.darf_auftraege_geben)."""
    if not darf_auftraege_geben(request.user):
        return None
    entwurf = request.session.pop(f"{AUFTRAG_ENTWURF}:{akte.pk}", "")  # this Akte's, not another's
    html = render_to_string("helena/_auftrag_form.html", {"akte": akte, "entwurf": entwurf}, request=request)
    return Panel(slug="auftrag", title="Auftrag an Helena", parts=[html])


def muster_form(request: HttpRequest, akte: Akte) -> Panel | None:
    """A Muster filled from the Akte, for those who may make Dokument drafts."""
    if not may_make(request.user, Draft.Kind.DOKUMENT):
        return None
    muster = list(Muster.objects.only("pk", "titel", "kategorie").order_by("kategorie", "titel")[:500])
    if not muster:
        return None
    html = render_to_string("helena/_muster_form.html", {"akte": akte, "muster": muster}, request=request)
    return Panel(slug="muster", title="Dokument aus Muster", parts=[html])


def gedaechtnis(request: HttpRequest, akte: Akte) -> Panel:
    memory = AktenGedaechtnis.objects.filter(akte=akte).exclude(stand=None).first()
    context = {"akte": akte, "memory": memory, "darf_korrigieren": may_correct(request.user)}
    html = render_to_string("helena/_gedaechtnis.html", context, request=request)
    return Panel(slug="gedaechtnis", title=GEDAECHTNIS_TITEL, parts=[html])

