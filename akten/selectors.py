"""Reads of the firm's records, always scoped to what the user may see."""

from __future__ import annotations

from datetime import date

from django.db.models import Case, Count, OuterRef, Q, QuerySet, Subquery, When
from django.utils import timezone

from akten.accounts.konto.selectors import hidden_arten_for
from akten.models import Akte, Alert, Dokument, Frist, Notiz, User, Zeiterfassung
from config.errors import NotFound


def akten_for(*, user: User, query: str | None = None, status: str | None = None) -> QuerySet[Akte]:
    """Akten the user may see; ADMIN sees all, everyone else only granted ones."""
    if not user.is_authenticated or not user.is_active:
        return Akte.objects.none()
    qs = Akte.objects.all() if user.sees_all_akten else Akte.objects.filter(zugriffe__user=user)
    if status:
        qs = qs.filter(status=status)
    if query:
        q = query.strip()
        qs = qs.filter(
            Q(aktenzeichen__icontains=q)
            | Q(kurzrubrum__icontains=q)
            | Q(wegen__icontains=q)
            | Q(beteiligte__name__icontains=q)
            | Q(tags__contains=[q])
        ).distinct()
    return qs.select_related("anwalt", "sachbearbeiter")


def akten_overview(*, user: User, query: str | None = None) -> QuerySet[Akte]:
    """The Akten list: each with its open and overdue Fristen and the next one ahead, so an
    overdue Frist shows on the list, not only on the Akte."""
    heute = timezone.localdate()
    offen = Q(fristen__erledigt=False)
    naechste = (Frist.objects.filter(akte=OuterRef("pk"), erledigt=False, datum__gte=heute)
                .order_by("datum", "uhrzeit"))
    ueberfaellig = offen & Q(fristen__datum__lt=heute)
    return (akten_for(user=user, query=query)
            .annotate(offene_fristen=Count("fristen", filter=offen, distinct=True),
                      ueberfaellige_fristen=Count("fristen", filter=ueberfaellig, distinct=True),
                      naechste_frist_datum=Subquery(naechste.values("datum")[:1]),
                      naechste_frist_bezeichnung=Subquery(naechste.values("bezeichnung")[:1]))
            .order_by("aktenzeichen"))


def get_akte(*, user: User, akte_id: int | str) -> Akte:
    """One visible Akte or NotFound (also for ids that are not numbers)."""
    try:
        pk = int(akte_id)
    except (TypeError, ValueError):
        raise NotFound from None
    try:
        return akten_for(user=user).get(pk=pk)
    except Akte.DoesNotExist:
        raise NotFound from None


def personen_der_akte(*, akte: Akte) -> QuerySet[User]:
    """The active people who may see the Akte (ADMIN and superusers see all): whom a Frist of it may
    be given to — a Frist for someone who cannot open the Akte would be a Frist nobody keeps."""
    return (User.objects.filter(is_active=True)
            .filter(Q(role="ADMIN") | Q(is_superuser=True) | Q(akten_zugriffe__akte=akte))
            .distinct().order_by("last_name", "first_name", "username"))


def fristen_for(
    *, user: User, akte_id: int | str | None = None, status: str = "active", heute: date | None = None
) -> QuerySet[Frist]:
    """Fristen of visible Akten; status active (offen, incl. overdue), past (erledigt or over), all."""
    heute = heute or timezone.localdate()
    if akte_id is not None:
        qs = Frist.objects.filter(akte=get_akte(user=user, akte_id=akte_id))
    else:
        qs = Frist.objects.filter(akte__in=akten_for(user=user))
    if status == "active":
        qs = qs.filter(erledigt=False)
    elif status == "past":
        qs = qs.filter(Q(erledigt=True) | Q(datum__lt=heute))
    elif status != "all":
        raise ValueError(f"unknown status {status!r}")
    return qs.select_related("akte", "verantwortlich").order_by("datum", "uhrzeit")


def get_frist(*, user: User, akte_id: int | str, frist_id: int | str) -> Frist:
    """One Frist of a visible Akte, or NotFound."""
    try:
        return fristen_for(user=user, akte_id=akte_id, status="all").get(pk=int(frist_id))
    except (TypeError, ValueError, Frist.DoesNotExist):
        raise NotFound from None


def dokumente_for(*, user: User, akte_id: int | str, query: str | None = None) -> QuerySet[Dokument]:
    qs = Dokument.objects.filter(akte=get_akte(user=user, akte_id=akte_id)).select_related("akte")
    if query:
        qs = qs.filter(Q(titel__icontains=query) | Q(inhalt__icontains=query))
    return qs


def get_dokument(*, user: User, dokument_id: int | str) -> Dokument:
    try:
        pk = int(dokument_id)
        return Dokument.objects.select_related("akte").get(pk=pk, akte__in=akten_for(user=user))
    except (TypeError, ValueError, Dokument.DoesNotExist):
        raise NotFound from None


def zeiterfassung_for(
    *, user: User, akte_id: int | str, von: date | None = None, bis: date | None = None
) -> QuerySet[Zeiterfassung]:
    qs = Zeiterfassung.objects.filter(akte=get_akte(user=user, akte_id=akte_id))
    if von:
        qs = qs.filter(datum__gte=von)
    if bis:
        qs = qs.filter(datum__lte=bis)
    return qs.select_related("user", "akte")


def notizen_for(*, user: User, akte_id: int | str | None = None) -> QuerySet[Notiz]:
    """Notizen of a visible Akte, or (without akte_id) the user's own plus those of visible Akten."""
    if akte_id is not None:
        return Notiz.objects.filter(akte=get_akte(user=user, akte_id=akte_id))
    return Notiz.objects.filter(
        Q(akte__in=akten_for(user=user)) | Q(akte__isnull=True, verfasst_von=user)
    )


def get_alert(*, user: User, alert_id: int | str) -> Alert:
    try:
        return alerts_for(user=user).get(pk=int(alert_id))
    except (TypeError, ValueError, Alert.DoesNotExist):
        raise NotFound from None


def alerts_for(*, user: User, nur_ungelesen: bool = False) -> QuerySet[Alert]:
    """Alerts addressed to the user, or Akte alerts without recipient on visible Akten; without the
    kinds the user switched off on /konto/ (the one place: the bell, the pages and the API read here)."""
    sichtbar = akten_for(user=user)
    qs = Alert.objects.filter(
        # one addressed to the user about an Akte only while they may see it (access taken away: gone)
        Q(empfaenger=user, akte__isnull=True) | Q(empfaenger=user, akte__in=sichtbar)
        | Q(empfaenger__isnull=True, akte__in=sichtbar)
        | (Q(empfaenger__isnull=True, akte__isnull=True) if user.sees_all_akten else Q(pk__in=[]))
    )
    hidden = hidden_arten_for(user=user)
    if hidden:
        qs = qs.exclude(art__in=hidden)
    if nur_ungelesen:
        qs = qs.filter(gelesen=False)
    # unread first, then the most urgent, then the newest
    rank = Case(When(severity=Alert.Severity.CRITICAL, then=0), When(severity=Alert.Severity.WARNING, then=1),
                default=2)
    return qs.order_by("gelesen", rank, "-angelegt_am", "-pk")
