"""Drafts: what Helena proposes, waiting for a human to approve, edit or reject.

A write tool never touches the firm's records; it creates a `Draft`. Only `drafts.services`
turns an approved draft into the real record, once, and every step lands in `DraftEvent`
(the audit trail and the edit history in one place).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse


class Draft(models.Model):
    class Kind(models.TextChoices):
        DOKUMENT = "dokument", "Dokument"
        FRIST = "frist", "Frist"
        NOTIZ = "notiz", "Notiz"
        ALERT = "alert", "Hinweis"
        AKTE_UPDATE = "akte_update", "Aktenänderung"
        ZEITERFASSUNG = "zeiterfassung", "Zeiterfassung"

    class Status(models.TextChoices):
        PENDING = "pending", "wartet auf Freigabe"
        APPROVED = "approved", "freigegeben"
        REJECTED = "rejected", "abgelehnt"

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField("Art", max_length=20, choices=Kind.choices)
    status = models.CharField("Status", max_length=10, choices=Status.choices, default=Status.PENDING)
    fields = models.JSONField("vorgeschlagene Angaben", default=dict)
    # What Helena knew when proposing (e.g. the Fristberechnung, the Akte before an update).
    context = models.JSONField("Herleitung", default=dict, blank=True)
    akte = models.ForeignKey(
        "akten.Akte", verbose_name="Akte", on_delete=models.CASCADE, null=True, blank=True,
        related_name="drafts",
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="vorgeschlagen für", on_delete=models.CASCADE,
        related_name="drafts",
        help_text="Die Person, in deren Gespräch Helena den Entwurf vorgeschlagen hat.",
    )
    run = models.ForeignKey(
        "helena.AgentRun", verbose_name="Lauf", on_delete=models.SET_NULL, null=True, blank=True,
        related_name="drafts",
    )
    conversation = models.ForeignKey(
        "helena.Conversation", verbose_name="Gespräch", on_delete=models.SET_NULL, null=True, blank=True,
        related_name="drafts",
    )
    tool = models.CharField("Werkzeug", max_length=60, blank=True)
    # The tool call that proposed it: a run resumed after its process died makes the same call again
    # and finds this draft instead of proposing a second one.
    call_id = models.CharField("Werkzeugaufruf (ID)", max_length=100, blank=True)
    created_at = models.DateTimeField("vorgeschlagen am", auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="entschieden von", on_delete=models.SET_NULL,
        null=True, blank=True, related_name="+",
    )
    decided_at = models.DateTimeField("entschieden am", null=True, blank=True)
    record_type = models.CharField("angelegter Datensatz (Art)", max_length=30, blank=True)
    record_id = models.CharField("angelegter Datensatz (ID)", max_length=40, blank=True)
    rejection_reason = models.TextField("Ablehnungsgrund", blank=True)
    feedback = models.TextField("Rückmeldung an Helena", blank=True)
    warnings = models.JSONField("Warnungen bei der Freigabe", default=list, blank=True)

    class Meta:
        verbose_name = "Entwurf"
        verbose_name_plural = "Entwürfe"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="draft_status_created"),
            models.Index(fields=["akte", "status"], name="draft_akte_status"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status="pending", decided_at__isnull=True)
                | (~models.Q(status="pending") & models.Q(decided_at__isnull=False)),
                name="draft_decided_iff_not_pending",
            ),
            # one draft per tool call of a run: the call made again after a takeover finds it
            models.UniqueConstraint(fields=["run", "call_id"], condition=~models.Q(call_id=""),
                                    name="draft_one_per_run_call"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.title}"

    @property
    def title(self) -> str:
        """A one-line German label for lists and audit lines."""
        f = self.fields or {}
        text = {
            self.Kind.DOKUMENT: f.get("titel"),
            self.Kind.FRIST: f.get("bezeichnung"),
            self.Kind.NOTIZ: f.get("titel") or f.get("inhalt"),
            self.Kind.ALERT: f.get("message"),
            self.Kind.AKTE_UPDATE: "Akte aktualisieren",
            self.Kind.ZEITERFASSUNG: f.get("taetigkeit"),
        }.get(self.kind) or ""
        text = " ".join(str(text).split())
        return text if len(text) <= 80 else text[:79] + "…"

    @property
    def is_pending(self) -> bool:
        return self.status == self.Status.PENDING

    def record_url(self) -> str | None:
        """Where a person finds the created record: the Akte page, anchored at the record."""
        if not self.record_id or self.akte_id is None:
            return None
        url = reverse("akten:detail", args=[self.akte_id])
        return url if self.record_type == "akte" else f"{url}#{self.record_type}-{self.record_id}"


class DraftEvent(models.Model):
    """Append-only audit of a draft: proposed, edited (which field, old → new), approved, rejected,
    and refused decision attempts."""

    class Action(models.TextChoices):
        CREATED = "created", "vorgeschlagen"
        EDITED = "edited", "bearbeitet"
        APPROVED = "approved", "freigegeben"
        REJECTED = "rejected", "abgelehnt"
        REFUSED = "refused", "Entscheidung verweigert"

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="events", verbose_name="Entwurf")
    action = models.CharField("Aktion", max_length=10, choices=Action.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="Benutzer", on_delete=models.SET_NULL, null=True,
        blank=True, related_name="+",
    )
    at = models.DateTimeField("Zeitpunkt", auto_now_add=True)
    # edited: {"field": {"alt": ..., "neu": ...}}; refused: {"grund": ...}; approved: {"record": ...}
    details = models.JSONField("Details", default=dict, blank=True)

    class Meta:
        verbose_name = "Entwurfsprotokoll"
        verbose_name_plural = "Entwurfsprotokoll"
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.at:%d.%m.%Y %H:%M} {self.get_action_display()}"
