"""One query per group of the search box, each scoped by its app's own selectors (akten_for,
fristen_for, notizen_for, find_conversations; statutes are no client data). Every group fetches one
row more than it shows, so it can say whether there are more.

A record matches when every word is in one of its own fields or in its Akte's Aktenzeichen or
Kurzrubrum, and at least one word is in its own fields: "101/26 Berufung" finds the Berufungsfrist
of 101/26, "Müller" alone does not list every Dokument of Müller's Akte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import reduce
from operator import or_

from django.db.models import Case, Exists, F, IntegerField, OuterRef, Q, QuerySet, Value, When
from django.db.models.functions import Greatest, Length, Lower, Replace, StrIndex, Substr
from django.urls import reverse
from django.utils import timezone

from akten.dokumente.seiten import SEITEN_TYPEN, SEITENUMBRUCH
from akten.lesezugriffe.services import Bereich, Lesung
from akten.models import Akte, Beteiligter, Dokument, Frist, User
from akten.selectors import akten_for, fristen_for, notizen_for
from helena.conversations.selectors import find_conversations
from helena.knowledge import selectors as wissen
from helena.knowledge.aktensuche.lexical import snippet
from helena.knowledge.models import Norm

AUSZUG = 60  # characters of context on each side of a match in a Dokument or a Notiz
WOCHENTAGE = ("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So")


@dataclass(frozen=True)
class Treffer:
    """One hit as the box and the results page show it."""

    label: str
    untertitel: str
    url: str
    auszug: str = ""  # the words around the match, where there is text to quote
    stand: str = ""  # a norm's Stand („zuletzt geändert durch …“): which version the lawyer reads
    # the read log's row when the hit quotes an Akte's Dokument or Notiz (stored by the view, not shown)
    lesung: Lesung | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Gruppe:
    art: str  # akten, fristen, dokumente, notizen, gespraeche, normen
    titel: str
    treffer: tuple[Treffer, ...]
    weitere: bool  # more hits than shown


def _gruppe(art: str, titel: str, treffer: list[Treffer], limit: int) -> Gruppe:
    return Gruppe(art=art, titel=titel, treffer=tuple(treffer[:limit]), weitere=len(treffer) > limit)


def _enthaelt(felder: tuple[str, ...], wort: str) -> Q:
    return reduce(or_, (Q(**{f"{feld}__icontains": wort}) for feld in felder))


def _worte_passen(worte: list[str], eigene: tuple[str, ...], akte: str = "akte__") -> Q:
    """Every word in an own field or the Akte's Aktenzeichen/Kurzrubrum; one at least in an own field."""
    akte_felder = (f"{akte}aktenzeichen", f"{akte}kurzrubrum")
    jedes = reduce(lambda q, w: q & (_enthaelt(eigene, w) | _enthaelt(akte_felder, w)), worte, Q())
    return jedes & reduce(or_, (_enthaelt(eigene, w) for w in worte))


def _akte_text(akte: Akte | None) -> str:
    return f"{akte.aktenzeichen} {akte.kurzrubrum}" if akte is not None else "ohne Akte"


def akte_url(akte_id: int, anker: str = "") -> str:
    return reverse("akten:detail", args=[akte_id]) + (f"#{anker}" if anker else "")


def _tag(day: date) -> str:
    return f"{WOCHENTAGE[day.weekday()]} {day:%d.%m.%Y}"


# --- Akten -------------------------------------------------------------------------------------


def akten(*, user: User, worte: list[str], limit: int) -> Gruppe:
    """Aktenzeichen, Rubrum, wegen, Schlagworte, Beteiligte; the exact Aktenzeichen first, open ones next."""
    qs = akten_for(user=user)
    for wort in worte:
        beteiligt = Beteiligter.objects.filter(akte=OuterRef("pk"), name__icontains=wort)
        qs = qs.filter(_enthaelt(("aktenzeichen", "kurzrubrum", "wegen"), wort) | Q(tags__contains=[wort])
                       | Exists(beteiligt))
    rang = Case(When(aktenzeichen__iexact=" ".join(worte), then=0),
                When(aktenzeichen__istartswith=worte[0], then=1),
                When(status=Akte.Status.OFFEN, then=2), default=3, output_field=IntegerField())
    rows = list(qs.select_related(None).annotate(rang=rang).order_by("rang", "-aktualisiert_am", "pk")
                [: limit + 1])
    genannt: dict[int, list[str]] = {}
    passend = reduce(or_, (Q(name__icontains=w) for w in worte))
    shown = [a.pk for a in rows[:limit]]
    for b in Beteiligter.objects.filter(passend, akte__in=shown).order_by("rolle", "name"):
        genannt.setdefault(b.akte_id, []).append(f"{b.name} ({b.get_rolle_display()})")
    treffer = []
    for akte in rows:
        teile = [akte.get_rechtsgebiet_display()]
        if akte.wegen:
            teile.append(f"wegen {akte.wegen}")
        if akte.status != Akte.Status.OFFEN:
            teile.append(akte.get_status_display())
        if akte.pk in genannt:
            teile.append("Beteiligte: " + ", ".join(genannt[akte.pk][:3]))
        treffer.append(Treffer(label=_akte_text(akte), untertitel=" · ".join(teile), url=akte_url(akte.pk)))
    return _gruppe("akten", "Akten", treffer, limit)


def namen(*, user: User, worte: list[str]) -> set[str]:
    """The words that are a word of a Beteiligter's name in the user's Akten: a name is no legal term,
    so the statute search leaves it out ("Müller" would find the Müll of § 326 StGB)."""
    passend = reduce(or_, (Q(name__icontains=w) for w in worte))
    found = Beteiligter.objects.filter(passend, akte__in=akten_for(user=user)).values_list("name", flat=True)
    tokens = set(re.findall(r"\w+", " ".join(found[:200]).casefold()))
    return {w for w in worte if w.casefold() in tokens}


# --- Fristen -----------------------------------------------------------------------------------


def fristen(*, user: User, worte: list[str], limit: int) -> Gruppe:
    """Open Fristen first, the nearest (so the overdue) on top; then the erledigten, newest first."""
    qs = (fristen_for(user=user, status="all").filter(_worte_passen(worte, ("bezeichnung", "notiz")))
          .order_by("erledigt", Case(When(erledigt=False, then=F("datum"))).asc(nulls_last=True),
                    F("datum").desc(), "pk"))
    heute = timezone.localdate()
    treffer = []
    for frist in qs[: limit + 1]:
        wann = _tag(frist.datum) + (f", {frist.uhrzeit:%H:%M} Uhr" if frist.uhrzeit else "")
        teile = [wann if frist.typ == Frist.Typ.FRIST else f"{frist.get_typ_display()} {wann}",
                 _akte_text(frist.akte)]
        if frist.ist_notfrist:
            teile.append("Notfrist")
        if frist.erledigt:
            teile.append("erledigt")
        elif frist.datum < heute:
            teile.append("überfällig")
        treffer.append(Treffer(label=frist.bezeichnung, untertitel=" · ".join(teile),
                               url=akte_url(frist.akte_id, f"frist-{frist.pk}")))
    return _gruppe("fristen", "Fristen und Termine", treffer, limit)


# --- Dokumente ---------------------------------------------------------------------------------


def _mit_fundstelle(qs: QuerySet, wort: str) -> QuerySet:
    """Where the word stands in `inhalt` and the text around it, cut in the database: a Dokument's
    text can be megabytes, the box needs a line of it."""
    pos = StrIndex(Lower("inhalt"), Value(wort.lower()))
    davor = Substr("inhalt", 1, F("pos"))
    return qs.annotate(pos=pos).annotate(
        roh=Substr("inhalt", Greatest(F("pos") - AUSZUG, Value(1)), 2 * AUSZUG + len(wort)),
        umbrueche=Length(davor) - Length(Replace(davor, Value(SEITENUMBRUCH), Value(""))),
    )


_MARKDOWN = re.compile(r"\*\*|__|`+|(?:^|\s)#{1,6}(?=\s)|(?:^|\s)>(?=\s)")


def ohne_markdown(text: str) -> str:
    """A line of text to quote: Markdown's emphasis and heading marks off, white space collapsed."""
    return " ".join(_MARKDOWN.sub(" ", text).split())


def _auszug(row: Dokument, wort: str) -> str:
    if not row.pos:
        return ""
    flat = ohne_markdown(row.roh)
    vorne = "…" if row.pos > AUSZUG + 1 else ""
    return vorne + flat + ("…" if len(row.roh) >= 2 * AUSZUG + len(wort) else "")


def dokumente(*, user: User, worte: list[str], limit: int) -> Gruppe:
    """Title, file name and text; those with a word in the title first, then the newest."""
    wort = max(worte, key=len)  # the most telling word is the one quoted
    im_titel = reduce(or_, (Q(titel__icontains=w) for w in worte))
    qs = (Dokument.objects.filter(akte__in=akten_for(user=user))
          .filter(_worte_passen(worte, ("titel", "dateiname", "inhalt")))
          .select_related("akte")
          .only("id", "titel", "dateityp", "seiten", "angelegt_am", "akte", "akte__id", "akte__aktenzeichen",
                "akte__kurzrubrum")
          .annotate(im_titel=Case(When(im_titel, then=0), default=1, output_field=IntegerField()))
          .order_by("im_titel", "-angelegt_am", "pk"))
    treffer = []
    for dok in _mit_fundstelle(qs, wort)[: limit + 1]:
        teile = [_akte_text(dok.akte)]
        if dok.dateityp:
            seiten = f", {dok.seiten} Seite{'n' if dok.seiten != 1 else ''}" if dok.seiten else ""
            teile.append(dok.get_dateityp_display() + seiten)
        if dok.pos and dok.dateityp in SEITEN_TYPEN and (dok.dateityp != "txt" or dok.umbrueche):
            teile.append(f"Fundstelle S. {dok.umbrueche + 1}")
        teile.append(f"{timezone.localtime(dok.angelegt_am):%d.%m.%Y}")
        auszug = _auszug(dok, wort)
        treffer.append(Treffer(label=dok.titel, untertitel=" · ".join(teile), auszug=auszug,
                               url=akte_url(dok.akte_id, f"dokument-{dok.pk}"),
                               lesung=Lesung.von(dok.akte, bereich=Bereich.DOKUMENT_AUSZUG, dokument=dok)
                               if auszug else None))
    return _gruppe("dokumente", "Dokumente", treffer, limit)


# --- Notizen -----------------------------------------------------------------------------------


def notizen(*, user: User, worte: list[str], limit: int) -> Gruppe:
    """The user's own Notizen and those of visible Akten, newest first."""
    qs = (notizen_for(user=user).filter(_worte_passen(worte, ("titel", "inhalt")))
          .select_related("akte").order_by("-angelegt_am", "-pk"))
    wort = max(worte, key=len)
    treffer = []
    for notiz in qs[: limit + 1]:
        url = (akte_url(notiz.akte_id, f"notiz-{notiz.pk}") if notiz.akte_id
               else reverse("akten:notizen") + f"#notiz-{notiz.pk}")
        treffer.append(Treffer(
            label=notiz.titel or snippet(notiz.inhalt, None, width=30),
            untertitel=f"{_akte_text(notiz.akte)} · {timezone.localtime(notiz.angelegt_am):%d.%m.%Y}",
            auszug=ohne_markdown(snippet(notiz.inhalt, wort if wort.casefold() in notiz.inhalt.casefold()
                                         else None, width=AUSZUG)),
            url=url, lesung=Lesung.von(notiz.akte, bereich=Bereich.NOTIZ_AUSZUG, objekt_id=notiz.pk)
            if notiz.akte_id else None))  # one's own Notiz without an Akte is no Akte's content
    return _gruppe("notizen", "Notizen", treffer, limit)


# --- Gespräche ---------------------------------------------------------------------------------


def gespraeche(*, user: User, q: str, limit: int) -> Gruppe:
    """The user's own conversations (helena.conversations.selectors.find_conversations: title and
    messages)."""
    treffer = []
    for conv in find_conversations(user=user, q=q, limit=limit + 1):
        frage = getattr(conv, "first_question", None) or ""
        label = conv.title or snippet(frage, None, width=30) or f"Gespräch vom {conv.created_at:%d.%m.%Y}"
        teile = [_akte_text(conv.akte) if conv.akte_id else "allgemein",
                 f"zuletzt {timezone.localtime(conv.updated_at):%d.%m.%Y, %H:%M} Uhr"]
        if getattr(conv, "archiviert", False):
            teile.append("archiviert")
        treffer.append(Treffer(label=label, untertitel=" · ".join(teile),
                               url=reverse("helena:chat", args=[conv.pk])))
    return _gruppe("gespraeche", "Gespräche", treffer, limit)


# --- Gesetze -----------------------------------------------------------------------------------

def norm_url(norm: Norm) -> str:
    return reverse("wissen:norm", args=[norm.gesetz.abk, norm.nummer])


def normen(*, q: str, limit: int) -> Gruppe:
    """Cited norms first, then the knowledge search's own ranking: the box answers as Helena's search
    does (the lexical ranking alone put § 66 ArbGG before § 517 ZPO for „Berufungsfrist“); embedding
    the question costs ~20 ms more a search (bench/suche.py)."""
    hits = wissen.search(query=q, kind="gesetz", limit=limit + 1)
    rows = Norm.objects.select_related("gesetz").only(
        "pk", "nummer", "bezeichnung", "titel", "gesetz__abk", "gesetz__titel").in_bulk([h.id for h in hits])
    treffer = []
    for hit in hits:
        norm = rows.get(hit.id)
        if norm is None:
            continue
        label = f"{norm.citation} – {norm.titel}" if norm.titel else norm.citation
        treffer.append(Treffer(label=label, untertitel=norm.gesetz.titel, url=norm_url(norm),
                               auszug=ohne_markdown(hit.snippet), stand=hit.stand))
    return _gruppe("normen", "Gesetze", treffer, limit)
