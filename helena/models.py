"""Helena's own records: the audit trail of every tool call the agent made or tried."""

from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models


class ToolCallLog(models.Model):
    """One tool call, refused and failed ones included: who, what, with which arguments, outcome."""

    tool = models.CharField("Werkzeug", max_length=100)
    params = models.JSONField("Argumente", default=dict, blank=True, encoder=DjangoJSONEncoder)
    ok = models.BooleanField("erfolgreich", default=False)
    error_code = models.CharField("Fehlercode", max_length=40, blank=True)
    error = models.TextField("Fehlermeldung", blank=True)
    summary = models.CharField("Ergebnis", max_length=500, blank=True)
    duration_ms = models.PositiveIntegerField("Dauer (ms)", default=0)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="Benutzer",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tool_calls",
    )
    akte = models.ForeignKey(
        "akten.Akte",
        verbose_name="Akte",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tool_calls",
    )
    run_id = models.CharField("Lauf", max_length=64, null=True, blank=True, db_index=True)  # noqa: DJ001
    created_at = models.DateTimeField("Zeitpunkt", auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = "Werkzeugaufruf"
        verbose_name_plural = "Werkzeugaufrufe"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["tool", "created_at"], name="toolcall_tool_created"),
            models.Index(fields=["user", "created_at"], name="toolcall_user_created"),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%d.%m.%Y %H:%M} {self.tool} {'ok' if self.ok else self.error_code}"
