"""Reads of the calendar feed: whose address a key is, and which entries the feed shows.

Scoped like every read (akten.selectors.akten_for), at the moment the calendar program asks: a person
who lost access to an Akte stops seeing its entries with the next refresh, a deactivated person's
address answers nothing. One query for the entries, with the number of changes and the last change
of each from its history (SEQUENCE and LAST-MODIFIED of the event), so the feed costs the same for
ten entries as for a thousand.
"""

from __future__ import annotations

from datetime import date, timedelta

from django.db.models import Count, Max, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from akten.accounts.users import hash_token
from akten.models import Frist, KalenderAbo, Kanzleieinstellung, User
from akten.selectors import akten_for

# How long an erledigt entry stays in the feed (after its date), marked as done: whoever looks at last
# week in the calendar sees that the Frist was kept, instead of wondering where it went.
ERLEDIGT_TAGE = 30
SCHLUESSEL_PRAEFIX = "kal_"


def abo_for(*, user: User) -> KalenderAbo | None:
    """The person's own feed settings (with or without an address), or None if they never had one."""
    return KalenderAbo.objects.filter(user=user).first()


def abo_zum_schluessel(*, raw: str) -> KalenderAbo | None:
    """The feed a key opens: an address that is still valid, of a person who is still active."""
    if not raw or len(raw) > 200 or not raw.startswith(SCHLUESSEL_PRAEFIX):
        return None
    return (KalenderAbo.objects.select_related("user")
            .filter(key_hash=hash_token(raw), user__is_active=True).first())


def eintraege_fuer(*, user: User, umfang: str, heute: date | None = None) -> QuerySet[Frist]:
    """The entries of the person's feed: open ones whatever their date (an overdue Frist must stay in
    sight), erledigt ones for ERLEDIGT_TAGE after their date; `meine` only those the person answers
    for (verantwortlich, or Anwalt/Anwältin or Sachbearbeitung of the Akte), `alle` every entry of
    the Akten they may see."""
    heute = heute or timezone.localdate()
    qs = Frist.objects.filter(akte__in=akten_for(user=user))
    if umfang != KalenderAbo.Umfang.ALLE:
        qs = qs.filter(Q(verantwortlich=user) | Q(akte__anwalt=user) | Q(akte__sachbearbeiter=user))
    qs = qs.filter(Q(erledigt=False) | Q(datum__gte=heute - timedelta(days=ERLEDIGT_TAGE)))
    verlauf = Frist.history.model.objects.filter(id=OuterRef("pk")).order_by().values("id")
    return (qs.annotate(
                aenderungen=Subquery(verlauf.annotate(n=Count("history_id")).values("n")),
                zuletzt_geaendert=Subquery(verlauf.annotate(m=Max("history_date")).values("m")))
            .select_related("akte", "verantwortlich", "erledigt_von")
            .order_by("datum", "uhrzeit", "pk"))


def kurzrubrum_erlaubt() -> bool:
    """Whether the firm lets the feeds name the parties (Kanzleieinstellung; without a row: no)."""
    erlaubt = (Kanzleieinstellung.objects.order_by("pk")
               .values_list("kalender_mit_kurzrubrum", flat=True).first())
    return bool(erlaubt)
