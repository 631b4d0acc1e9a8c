"""Reads of the calendar feed: whose address a key is, and which entries the feed shows.

Scoped like every read (akten.selectors.akten_for), at the moment the calendar program asks: a person
who lost access to an Akte stops seeing its entries with the next refresh, a deactivated person's
address answers nothing, nor one made with an API token that is revoked or expired. One query for the
entries, with the number of changes and the last change of each entry and of its Akte from their
history and the firm's setting's last change (SEQUENCE and LAST-MODIFIED of the event), so the feed
costs the same for ten entries as for a thousand; one aggregate query of the same rows is the feed's
fingerprint (its ETag), which answers an unchanged feed without building it.
"""

from __future__ import annotations

from datetime import date, timedelta

from django.contrib.postgres.aggregates import StringAgg
from django.db.models import CharField, Count, F, Max, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import MD5, Cast, Concat, Greatest
from django.utils import timezone

from akten.accounts.users import hash_token
from akten.models import Akte, Frist, KalenderAbo, Kanzleieinstellung, User
from akten.selectors import akten_for

# How long an erledigt entry stays in the feed (after its date), marked as done: whoever looks at last
# week in the calendar sees that the Frist was kept, instead of wondering where it went.
ERLEDIGT_TAGE = 30
SCHLUESSEL_PRAEFIX = "kal_"


def abo_for(*, user: User) -> KalenderAbo | None:
    """The person's own feed settings (with or without an address), or None if they never had one."""
    return KalenderAbo.objects.select_related("erzeugt_mit").filter(user=user).first()


def abo_zum_schluessel(*, raw: str) -> KalenderAbo | None:
    """The feed a key opens: an address that is still valid, of a person who is still active, and if
    it was made with an API token, while that token is valid (not revoked, not expired)."""
    if not raw or len(raw) > 200 or not raw.startswith(SCHLUESSEL_PRAEFIX):
        return None
    token_gilt = Q(erzeugt_mit__widerrufen=False) & (Q(erzeugt_mit__gueltig_bis__isnull=True)
                                                     | Q(erzeugt_mit__gueltig_bis__gt=timezone.now()))
    return (KalenderAbo.objects.select_related("user")
            .filter(Q(erzeugt_mit__isnull=True) | token_gilt, key_hash=hash_token(raw), user__is_active=True)
            .first())


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
    akte_verlauf = Akte.history.model.objects.filter(id=OuterRef("akte_id")).order_by().values("id")
    einstellung = Kanzleieinstellung.objects.order_by("pk").values("geaendert_am")[:1]
    return (qs.annotate(
                aenderungen=Subquery(verlauf.annotate(n=Count("history_id")).values("n")),
                zuletzt_geaendert=Subquery(verlauf.annotate(m=Max("history_date")).values("m")),
                akte_aenderungen=Subquery(akte_verlauf.annotate(n=Count("history_id")).values("n")),
                akte_geaendert=Subquery(akte_verlauf.annotate(m=Max("history_date")).values("m")),
                # the latest of the entry's, its Akte's and the firm's setting's change (GREATEST
                # skips a NULL: a record without history, a firm without a setting row)
                stand=Greatest("angelegt_am", "zuletzt_geaendert", "akte_geaendert", Subquery(einstellung)))
            .select_related("akte", "verantwortlich", "erledigt_von")
            .order_by("datum", "uhrzeit", "pk"))


# Everything of an entry that its events show: a change to any of them changes the fingerprint.
FINGERABDRUCK_FELDER = (
    "pk", "akte_id", "typ", "bezeichnung", "datum", "uhrzeit", "vorfrist", "ist_notfrist", "erledigt",
    "erledigt_am", "erledigung_beantragt_von_id", "angelegt_am", "aenderungen", "akte_aenderungen", "stand",
    "akte__aktenzeichen", "akte__kurzrubrum", "verantwortlich__username", "verantwortlich__first_name",
    "verantwortlich__last_name", "erledigt_von__username", "erledigt_von__first_name",
    "erledigt_von__last_name")


def fingerabdruck(*, user: User, umfang: str, heute: date) -> tuple[int, str]:
    """The number of the feed's entries and an MD5 over every field their events show, in one
    aggregate query of the same rows as eintraege_fuer: equal as long as the feed's entries read the
    same (the caller adds what is the same for the whole feed: the day, the setting, the address)."""
    trenner = Value("\x1f")
    teile: list = []
    for feld in FINGERABDRUCK_FELDER:
        teile += [Cast(F(feld), CharField()), trenner]
    zeilen = StringAgg(Concat(*teile, output_field=CharField()), delimiter="\x1e", order_by="pk",
                       default=Value(""))
    ergebnis = (eintraege_fuer(user=user, umfang=umfang, heute=heute).order_by()
                .aggregate(n=Count("pk"), md5=MD5(zeilen)))
    return ergebnis["n"], ergebnis["md5"]


def kurzrubrum_erlaubt() -> bool:
    """Whether the firm lets the feeds name the parties (Kanzleieinstellung; without a row: no)."""
    erlaubt = (Kanzleieinstellung.objects.order_by("pk")
               .values_list("kalender_mit_kurzrubrum", flat=True).first())
    return bool(erlaubt)
