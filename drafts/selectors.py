"""Reads of drafts, scoped: a draft is visible with its Akte; a draft without Akte only to the
person it was proposed for (like a Notiz without Akte)."""

from __future__ import annotations

import uuid

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from akten.models import User
from akten.selectors import akten_for
from config.errors import NotFound
from drafts.models import Draft, DraftEvent
from drafts.roles import kinds_decidable_by


def drafts_for(
    *, user: User, status: str | None = None, akte_id: int | str | None = None, kind: str | None = None
) -> QuerySet[Draft]:
    """Drafts the user may see, newest first; filters as the API and the inbox offer them."""
    if not user.is_authenticated or not user.is_active:
        return Draft.objects.none()
    if user.sees_all_akten:
        visible = Q(akte__isnull=False) | Q(requested_by=user)
    else:
        visible = Q(akte__in=akten_for(user=user).values("pk")) | Q(akte__isnull=True, requested_by=user)
    qs = Draft.objects.filter(visible)
    if status:
        qs = qs.filter(status=status)
    if akte_id not in (None, ""):
        try:
            qs = qs.filter(akte_id=int(akte_id))
        except (TypeError, ValueError):
            return Draft.objects.none()
    if kind:
        qs = qs.filter(kind=kind)
    return qs.select_related("akte", "requested_by", "decided_by")


def get_draft(*, user: User, draft_id: str | uuid.UUID) -> Draft:
    """One visible draft or NotFound (also for ids that are no UUID)."""
    try:
        pk = uuid.UUID(str(draft_id))
    except ValueError:
        raise NotFound from None
    try:
        return drafts_for(user=user).get(pk=pk)
    except Draft.DoesNotExist:
        raise NotFound from None


def may_decide(*, user: User, draft: Draft) -> bool:
    """May this user approve or reject this (visible) draft? Role of the making tool + visibility."""
    if not user.is_authenticated or not user.is_active or draft.kind not in kinds_decidable_by(user):
        return False
    if draft.akte_id is None:
        return draft.requested_by_id == user.pk
    return user.sees_all_akten or akten_for(user=user).filter(pk=draft.akte_id).exists()


def decidable_drafts_for(
    *, user: User, akte_id: int | str | None = None, kind: str | None = None
) -> QuerySet[Draft]:
    """The inbox: pending drafts this user may decide."""
    kinds = kinds_decidable_by(user)
    qs = drafts_for(user=user, status=Draft.Status.PENDING, akte_id=akte_id, kind=kind)
    return qs.filter(kind__in=kinds)


# Whether a conversation has drafts, as an expression (the claim of a run asks it in its own statement).
HAS_DRAFTS = f"SELECT EXISTS (SELECT 1 FROM {Draft._meta.db_table} WHERE conversation_id = {{conversation}})"


def outcome_notes(*, conversation_id: int | str, limit: int = 10,
                  has_drafts: bool | None = None) -> list[str]:
    """One German line per recent draft of a conversation, for the next run's prompt: Helena must
    know what was approved, changed or rejected (with the reason) before she proposes again.
    `has_drafts`: known already (HAS_DRAFTS), so the first question is not asked again."""
    if has_drafts is None:
        with connection.cursor() as cursor:  # read at every run start; most conversations have none
            cursor.execute(HAS_DRAFTS.format(conversation="%s"), [conversation_id])
            has_drafts = cursor.fetchone()[0]
    if not has_drafts:
        return []
    drafts = (Draft.objects.filter(conversation_id=conversation_id)
              .annotate(edited=Exists(DraftEvent.objects.filter(draft=OuterRef("pk"), action="edited")))
              .select_related("decided_by").order_by("-created_at")[:limit])  # one query, read per run
    lines: list[str] = []
    for draft in reversed(list(drafts)):
        label = f"{draft.get_kind_display()} „{draft.title}“"
        who = (draft.decided_by.get_full_name() or draft.decided_by.username) if draft.decided_by else ""
        if draft.status == Draft.Status.PENDING:
            lines.append(f"- {label}: wartet noch auf Freigabe.")
        elif draft.status == Draft.Status.APPROVED:
            changed = " (mit Änderungen)." if draft.edited else "."
            lines.append(f"- {label}: freigegeben von {who}{changed}")
        else:
            reason = f" Grund: {draft.rejection_reason}" if draft.rejection_reason else ""
            feedback = f" Rückmeldung: {draft.feedback}" if draft.feedback else ""
            lines.append(f"- {label}: abgelehnt von {who}.{reason}{feedback}")
    return lines
