"""What happened, for audit and cost: every tool call, every model call, every error."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone

from helena.models.choices import LLMProvider, RunMode


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


class LLMCall(models.Model):
    """One model call with its tokens, latency and cost: the firm's usage ledger."""

    run = models.ForeignKey("helena.AgentRun", on_delete=models.SET_NULL, null=True, blank=True,
                            related_name="llm_calls", verbose_name="Lauf")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="llm_calls", verbose_name="Benutzer")
    provider = models.CharField("Schnittstelle", max_length=20, choices=LLMProvider.choices)
    model = models.CharField("Modell", max_length=200)
    tier = models.PositiveSmallIntegerField("Stufe", default=1)
    operation = models.CharField("Vorgang", max_length=30, default="agent_step")
    context_type = models.CharField("Kontext", max_length=20, blank=True)
    prompt_tokens = models.PositiveIntegerField("Eingabe-Tokens", default=0)
    completion_tokens = models.PositiveIntegerField("Ausgabe-Tokens", default=0)
    latency_ms = models.PositiveIntegerField("Dauer (ms)", default=0)
    cost = models.DecimalField("Kosten (EUR)", max_digits=12, decimal_places=6, default=Decimal("0"))
    error = models.CharField("Fehler", max_length=300, blank=True)
    created_at = models.DateTimeField("Zeitpunkt", auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = "Modellaufruf"
        verbose_name_plural = "Modellaufrufe"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.created_at:%d.%m.%Y %H:%M} {self.model} {self.operation}"


class ErrorLog(models.Model):
    """What broke, where: failed model calls, tool failures, guard failures, run errors, socket failures.

    A row links to the run, the tool audit row or the ledger row it belongs to instead of copying
    them, so an admin sees at a glance what fails and can drill into the details. The same failure
    again within the hour counts on its row (`anzahl`, `zuletzt_am`; helena/infra/errorlog.py) instead of
    adding rows: a model server that is down is one entry, not one a minute.
    """

    class Kind(models.TextChoices):
        MODEL = "model", "Modellaufruf"
        TOOL = "tool", "Werkzeug"
        GUARD = "guard", "Schutzregel"
        RUN = "run", "Lauf"
        WEBSOCKET = "websocket", "Live-Verbindung"

    created_at = models.DateTimeField("Zeitpunkt", auto_now_add=True, db_index=True,
                                      help_text="Das erste Auftreten.")
    zuletzt_am = models.DateTimeField("Zuletzt", default=timezone.now, db_index=True,
                                      help_text="Das letzte Auftreten; Lauf, Benutzer, Werkzeug- und "
                                                "Modellaufruf sind die dieses Auftretens.")
    anzahl = models.PositiveIntegerField("Anzahl", default=1,
                                         help_text="Wie oft dieser Fehler innerhalb einer Stunde nach dem "
                                                   "ersten Auftreten vorkam.")
    kind = models.CharField("Art", max_length=12, choices=Kind.choices, db_index=True)
    code = models.CharField("Code", max_length=60, blank=True, db_index=True)
    message = models.TextField("Meldung", blank=True)
    context_type = models.CharField("Kontext", max_length=20, blank=True)
    mode = models.CharField("Ausführung", max_length=12, blank=True, choices=RunMode.choices)
    tool = models.CharField("Werkzeug", max_length=100, blank=True)
    model = models.CharField("Modell", max_length=200, blank=True)
    run = models.ForeignKey("helena.AgentRun", verbose_name="Lauf", on_delete=models.SET_NULL, null=True,
                            blank=True, related_name="errors")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name="Benutzer", on_delete=models.SET_NULL,
                             null=True, blank=True, related_name="+")
    tool_call = models.ForeignKey(ToolCallLog, verbose_name="Werkzeugaufruf", on_delete=models.SET_NULL,
                                  null=True, blank=True, related_name="+")
    llm_call = models.ForeignKey(LLMCall, verbose_name="Modellaufruf", on_delete=models.SET_NULL, null=True,
                                 blank=True, related_name="+")

    class Meta:
        verbose_name = "Fehlerprotokoll"
        verbose_name_plural = "Fehlerprotokoll"
        ordering = ["-zuletzt_am"]

    def __str__(self) -> str:
        """In local time, like every time the admin shows (the database holds UTC)."""
        text = f"{timezone.localtime(self.created_at):%d.%m.%Y %H:%M} {self.get_kind_display()} {self.code}"
        return f"{text} ({self.haeufigkeit})" if self.anzahl > 1 else text

    @property
    def haeufigkeit(self) -> str:
        """"×16, zuletzt 14:32" (with the date when that was another day); "einmal" for one."""
        if self.anzahl <= 1:
            return "einmal"
        last, first = timezone.localtime(self.zuletzt_am), timezone.localtime(self.created_at)
        when = f"{last:%H:%M}" if last.date() == first.date() else f"{last:%d.%m.%Y %H:%M}"
        return f"×{self.anzahl}, zuletzt {when}"
