"""The Akte as a workspace: what its page shows, tab by tab.

Without a chosen tab the page shows every section one below the other (it works without JavaScript,
and every anchor of a record — #frist-12, #h-dokumente — shows its own tab through CSS :target);
`?tab=beteiligte` shows one. Sections other apps add (akten/panels.py) go to the tab of their kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Q, Sum
from django.http import HttpRequest
from django.utils import timezone

from akten.accounts.users import may_file_dokumente
from akten.datenschutz.loeschung import darf_vormerken, frueheste_loeschung, vormerkungsverlauf
from akten.erfassung.rechte import rechte_von
from akten.fristenbuch.akte import fristen_kontext
from akten.lesezugriffe.selectors import darf_protokoll_sehen, lesezugriffe
from akten.models import Akte, Beteiligter
from akten.panels import Panel, panels_for
from akten.seiten import selectors
from akten.seiten.forms import NotizForm, ZeitForm, ZugriffForm
from akten.seiten.verlauf import verlauf_der_akte
from akten.selectors import alerts_for, dokumente_for, notizen_for, zeiterfassung_for


@dataclass(frozen=True)
class Tab:
    slug: str  # the section's id on the page and ?tab=
    titel: str
    anzahl: str = ""


TABS = (("uebersicht", "Übersicht"), ("beteiligte", "Beteiligte"), ("fristen", "Fristen"),
        ("dokumente", "Dokumente"), ("notizen", "Notizen"), ("zeiten", "Zeiten"),
        ("aktivitaet", "Aktivität"), ("helena", "Helena"))
TAB_SLUGS = frozenset(slug for slug, _ in TABS)
# Which tab a section of another app belongs to (by its slug); unknown ones go to the Übersicht.
PANEL_TABS = {"auftrag": "helena", "muster": "helena", "aktivitaet": "aktivitaet"}
VERLAUF_ZEILEN = 200
LESEZUGRIFFE_ZEILEN = 10  # the rest, filtered and as CSV, on /akten/<id>/zugriffe/


def gewaehlter_tab(request: HttpRequest) -> str:
    """The tab asked for with ?tab=, or "" for the whole Akte."""
    tab = request.GET.get("tab", "")
    return tab if tab in TAB_SLUGS else ""


def _panels_nach_tab(request: HttpRequest, akte: Akte) -> dict[str, list[Panel]]:
    nach_tab: dict[str, list[Panel]] = {slug: [] for slug in TAB_SLUGS}
    for panel in panels_for(request, akte):
        nach_tab[PANEL_TABS.get(panel.slug, "uebersicht")].append(panel)
    return nach_tab


def arbeitsplatz(request: HttpRequest, akte: Akte) -> dict[str, Any]:
    """The page's context: the Akte's records (scoped), the user's rights, the tabs."""
    user = request.user
    zeiten = zeiterfassung_for(user=user, akte_id=akte.pk)
    summen = zeiten.aggregate(gesamt=Sum("dauer_minuten"),
                              abrechenbar=Sum("dauer_minuten", filter=Q(abrechenbar=True)))
    dokumente = list(dokumente_for(user=user, akte_id=akte.pk).select_related("erstellt_von", "quelle")[:300])
    # in the order of the roles (Mandant/in first, then Gegner/in, …), not alphabetically by their keys
    rang = {rolle: i for i, rolle in enumerate(Beteiligter.Rolle.values)}
    beteiligte = sorted(akte.beteiligte.select_related("loeschvormerkung"),
                        key=lambda b: (rang.get(b.rolle, 99), b.name.casefold()))
    notizen = list(notizen_for(user=user, akte_id=akte.pk).select_related("verfasst_von")[:300])
    rechte = rechte_von(user)
    context: dict[str, Any] = {
        "akte": akte,
        "beteiligte": beteiligte,
        "dokumente": dokumente,
        "liest_noch": any(d.text_wird_gelesen for d in dokumente),
        "notizen": notizen,
        "hinweise": alerts_for(user=user).filter(akte=akte),
        "zeiten": zeiten,
        "summe_minuten": summen["gesamt"] or 0,
        "summe_abrechenbar": summen["abrechenbar"] or 0,
        "panels": _panels_nach_tab(request, akte),
        "darf_hochladen": may_file_dokumente(user),
        "upload_max_mb": settings.HELENA_UPLOAD_MAX_MB,
        "rechte": rechte,
        "loeschung_ab": frueheste_loeschung(akte),  # when marked Beteiligte may go (§ 50 BRAO)
        "verlauf": verlauf_der_akte(user=user, akte_id=akte.pk, limit=VERLAUF_ZEILEN),
        "verlauf_grenze": VERLAUF_ZEILEN,
        "zugriffe": list(selectors.zugriffe(user=user, akte_id=akte.pk)),
        "tab": gewaehlter_tab(request),
    }
    context.update(fristen_kontext(request, akte))
    context["naechste_fristen"] = [f for f in context.get("fristen", []) if not f.erledigt][:5]
    loeschverlauf = vormerkungsverlauf(beteiligte) if rechte["datenschutz"] else {}
    context["darf_loeschung"] = rechte["datenschutz"] and darf_vormerken(user, akte)
    for b in beteiligte:  # each party's own Verlauf, from the Akte's (no query per party)
        b.verlauf = [z for z in context["verlauf"] if z.art == "beteiligter" and z.eintrag_id == b.pk]
        b.loeschverlauf = loeschverlauf.get(b.pk, [])
    context["kopf"] = selectors.kopf(user=user, akte=akte, fristen=context.get("fristen"))
    # „Zugriffe – wer hat gelesen“, the newest few: only where the page shows it (the whole Akte and the
    # tab Aktivität) and for whom (darf_protokoll_sehen); the Akte already read, no second SELECT of it
    context["darf_lesezugriffe"] = (context["tab"] in ("", "aktivitaet")
                                    and darf_protokoll_sehen(user=user, akte=akte))
    if context["darf_lesezugriffe"]:
        context["lesezugriffe"] = list(lesezugriffe(user=user, akte=akte).select_related("user")
                                       [:LESEZUGRIFFE_ZEILEN])
    if rechte["zugriff"]:
        kandidaten = selectors.zugriff_kandidaten(user=user, akte_id=akte.pk)
        context["zugriff_form"] = ZugriffForm(kandidaten=kandidaten,
                                              auto_id="zugriff-%s")
    if rechte["notiz"]:
        context["notiz_form"] = NotizForm(auto_id="notiz-neu-%s")
    if rechte["zeiterfassung"]:
        context["zeit_form"] = ZeitForm(initial={"datum": timezone.localdate(), "abrechenbar": True},
                                        auto_id="zeit-neu-%s")
    offen = sum(1 for f in context.get("fristen", []) if not f.erledigt)
    anzahl = {"beteiligte": len(beteiligte), "fristen": offen, "dokumente": len(dokumente),
              "notizen": len(notizen)}
    context["tabs"] = [Tab(slug, titel, str(anzahl[slug]) if anzahl.get(slug) else "")
                       for slug, titel in TABS]
    return context
