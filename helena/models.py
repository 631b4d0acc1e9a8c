"""Helena's own records: conversations, runs and their events, usage, audit, admin settings."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from helena.llm.dialects import profiles as dialect_profiles
from helena.timestamps import event_ts


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


# --- conversations and runs -------------------------------------------------------------


class Conversation(models.Model):
    """A chat between one user and Helena, global or bound to one Akte."""

    class ContextType(models.TextChoices):
        GLOBAL = "global", "Allgemein"
        AKTE = "akte", "Akte"
        FRISTEN = "fristen", "Fristen"
        RECHERCHE = "recherche", "Recherche"
        ENTWURF = "entwurf", "Entwurf"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    akte = models.ForeignKey("akten.Akte", on_delete=models.CASCADE, null=True, blank=True,
                             related_name="conversations")
    context_type = models.CharField("Kontext", max_length=20, choices=ContextType.choices,
                                    default=ContextType.GLOBAL)
    title = models.CharField("Titel", max_length=200, blank=True)
    # Answers to Helena's questions (ask_user) by answer_key, for later runs of this conversation.
    answers = models.JSONField("Antworten", default=dict, blank=True)
    # Older turns condensed by a tier-1 call (helena/runs/history.py), reused until it falls behind.
    summary = models.TextField("Zusammenfassung älterer Nachrichten", blank=True)
    summary_upto = models.PositiveBigIntegerField("zusammengefasst bis Nachricht", null=True, blank=True)
    created_at = models.DateTimeField("angelegt am", auto_now_add=True)
    updated_at = models.DateTimeField("aktualisiert am", auto_now=True)

    class Meta:
        verbose_name = "Unterhaltung"
        verbose_name_plural = "Unterhaltungen"
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or f"Unterhaltung {self.pk}"


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user", "Benutzer"
        ASSISTANT = "assistant", "Helena"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=10, choices=Role.choices)
    text = models.TextField()
    run = models.ForeignKey("AgentRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "Nachricht"
        verbose_name_plural = "Nachrichten"
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:60]}"


class AgentRun(models.Model):
    """One execution of the loop for one user message (or a continuation)."""

    BLANK_TASK = "leere_nachricht"  # task_type of a run answering a blank message (no model asked)

    class Mode(models.TextChoices):
        INLINE = "inline", "Inline"
        BACKGROUND = "background", "Hintergrund"

    class Status(models.TextChoices):
        QUEUED = "queued", "wartet"
        RUNNING = "running", "läuft"
        FINISHED = "finished", "beendet"
        FAILED = "failed", "fehlgeschlagen"
        CANCELLED = "cancelled", "abgebrochen"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="runs")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_runs")
    parent = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True,
                               related_name="children")
    mode = models.CharField(max_length=12, choices=Mode.choices)
    tier = models.PositiveSmallIntegerField(default=1)
    task_type = models.CharField("Aufgabentyp", max_length=40, blank=True)
    # The conversation's context when the run started (for analytics; the conversation may change).
    context_type = models.CharField("Kontext", max_length=20, blank=True, db_index=True)
    classifier_reason = models.CharField("Begründung der Einstufung", max_length=300, blank=True)
    model = models.CharField(max_length=200, blank=True)
    provider = models.CharField(max_length=20, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED, db_index=True)
    finish_reason = models.CharField(max_length=20, blank=True)
    text = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))
    cancel_requested = models.BooleanField(default=False)
    # The messages the loop ended with: a continuation in the background starts from here.
    transcript = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder)
    # Set when this run resumes a run that paused on ask_user: its transcript ends with the answer.
    answers_question = models.ForeignKey("PendingQuestion", on_delete=models.SET_NULL, null=True, blank=True,
                                         related_name="+")
    celery_task_id = models.CharField(max_length=64, blank=True)
    deadline = models.DateTimeField("spätestes Ende", null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "Agenten-Lauf"
        verbose_name_plural = "Agenten-Läufe"
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "status"], name="run_user_status")]

    def __str__(self) -> str:
        return f"{self.id} {self.mode} {self.status}"

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class RunEvent(models.Model):
    """Every event of a run, in order: what the websocket streamed is what the API returns."""

    run = models.ForeignKey(AgentRun, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=30)
    payload = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "Lauf-Ereignis"
        verbose_name_plural = "Lauf-Ereignisse"
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="runevent_unique_seq")]

    def __str__(self) -> str:
        return f"{self.run_id} #{self.seq} {self.type}"

    def as_dict(self) -> dict[str, Any]:
        """The event as the websocket sends it (PROTOCOL.md): type, run_id, seq, ts and its fields."""
        return {"type": self.type, "run_id": str(self.run_id), "seq": self.seq,
                "ts": event_ts(self.created_at), **self.payload}


class LLMCall(models.Model):
    """One model call with its tokens, latency and cost: the firm's usage ledger."""

    run = models.ForeignKey(AgentRun, on_delete=models.SET_NULL, null=True, blank=True,
                            related_name="llm_calls")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="llm_calls")
    provider = models.CharField(max_length=20)
    model = models.CharField(max_length=200)
    tier = models.PositiveSmallIntegerField(default=1)
    operation = models.CharField("Vorgang", max_length=30, default="agent_step")
    context_type = models.CharField(max_length=20, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = "Modellaufruf"
        verbose_name_plural = "Modellaufrufe"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.created_at:%d.%m.%Y %H:%M} {self.model} {self.operation}"


# --- admin settings ------------------------------------------------------------------------


DIALECT_CHOICES = dialect_profiles.CHOICES


class ModelTier(models.Model):
    """Which model serves tier 1 (small), 2 (large) or 3 (usually cloud). Local or cloud is a matter of
    where it runs (`standort`, helena.llm.locality), not of the wire format."""

    class Provider(models.TextChoices):
        OLLAMA = "ollama", "Ollama"
        OPENAI = "openai", "OpenAI-kompatibel (vLLM, llama.cpp, LiteLLM, Cloud …)"

    tier = models.PositiveSmallIntegerField("Stufe", unique=True, choices=[(1, "1 – klein"), (2, "2 – groß"),
                                                                          (3, "3 – Cloud")])
    provider = models.CharField(max_length=10, choices=Provider.choices)
    model_name = models.CharField("Modell", max_length=200)
    base_url = models.CharField("Adresse", max_length=300, blank=True,
                                help_text="Leer: OLLAMA_HOST bzw. OPENAI_BASE_URL aus der Umgebung.")
    context_window = models.PositiveIntegerField("Kontextfenster (überschreibt)", null=True, blank=True)
    dialect = models.CharField(
        "Format der Werkzeugaufrufe", max_length=30, default="auto", choices=DIALECT_CHOICES,
        help_text="Wie das Modell Werkzeugaufrufe und Überlegungen schreibt. „automatisch“ erkennt es am "
                  "Modellnamen und an Ollamas /api/show; ein festes Format nur für Modelle, die die "
                  "Erkennung verfehlt.",
    )
    standort = models.CharField(
        "Standort", max_length=10, default="auto",
        choices=[("auto", "automatisch (nach Adresse)"), ("intern", "intern (im Haus)"),
                 ("extern", "extern (Cloud)")],
        help_text="Wo das Modell läuft. „automatisch“: eine Adresse auf diesem Rechner oder im privaten "
                  "Netz (127.0.0.1, 10.x, 192.168.x, Rechnername ohne Domain, .local/.internal/.lan) ist "
                  "intern, jede andere Cloud; Stufe 3 gilt als Cloud, solange sie nicht als intern markiert "
                  "ist. Ein Cloud-Modell wird erst nach der Cloud-Freigabe genutzt und erhält nur "
                  "pseudonymisierte Daten.",
    )
    enabled = models.BooleanField("aktiv", default=True)
    price_input_per_1k = models.DecimalField("Preis je 1.000 Eingabe-Tokens (EUR)", max_digits=10,
                                             decimal_places=6, default=Decimal("0"))
    price_output_per_1k = models.DecimalField("Preis je 1.000 Ausgabe-Tokens (EUR)", max_digits=10,
                                              decimal_places=6, default=Decimal("0"))

    class Meta:
        verbose_name = "Modellstufe"
        verbose_name_plural = "Modellstufen"
        ordering = ["tier"]

    def __str__(self) -> str:
        return f"Stufe {self.tier}: {self.model_name} ({self.provider})"


class TaskRoute(models.Model):
    """A task type (e.g. schriftsatz) that should run on a given tier."""

    task_type = models.CharField("Aufgabentyp", max_length=40, unique=True)
    tier = models.PositiveSmallIntegerField("bevorzugte Stufe",
                                            choices=[(1, "1"), (2, "2"), (3, "3 – Cloud")])

    class Meta:
        verbose_name = "Aufgaben-Routing"
        verbose_name_plural = "Aufgaben-Routing"

    def __str__(self) -> str:
        return f"{self.task_type} → Stufe {self.tier}"


class HelenaSettings(models.Model):
    """Firm-wide switches (one row): cloud opt-in with its legal confirmation, loop limits."""

    cloud_allowed = models.BooleanField("Cloud freigegeben", default=False)
    cloud_confirmed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                           blank=True, related_name="+", verbose_name="bestätigt von")
    cloud_confirmed_at = models.DateTimeField("bestätigt am", null=True, blank=True)
    cloud_confirmation = models.TextField(
        "Bestätigung", blank=True,
        help_text="Wer bestätigt, dass die Verträge nach § 43e BRAO und Art. 28 DSGVO geschlossen sind.",
    )
    llm_classifier = models.BooleanField("LLM-Klassifikator (Stufe 1) verwenden", default=False)
    inline_max_steps = models.PositiveSmallIntegerField(default=5)
    background_max_steps = models.PositiveSmallIntegerField(default=20)
    inline_timeout_s = models.PositiveIntegerField(default=30)
    background_timeout_s = models.PositiveIntegerField(default=180)
    max_tool_calls_per_turn = models.PositiveSmallIntegerField(default=8)
    max_concurrent_runs_per_user = models.PositiveSmallIntegerField(default=3)

    class Meta:
        verbose_name = "Helena-Einstellungen"
        verbose_name_plural = "Helena-Einstellungen"

    def __str__(self) -> str:
        return "Helena-Einstellungen"

    @classmethod
    def load(cls) -> HelenaSettings:
        obj, _ = cls.objects.get_or_create(pk=1)
        return obj


class RateLimit(models.Model):
    """Runs per hour: for a role, or for one user (the user row wins)."""

    role = models.CharField("Rolle", max_length=20, blank=True)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                                related_name="rate_limit")
    runs_per_hour = models.PositiveIntegerField("Läufe je Stunde")

    class Meta:
        verbose_name = "Ratenlimit"
        verbose_name_plural = "Ratenlimits"
        constraints = [
            models.CheckConstraint(condition=~models.Q(role="") | models.Q(user__isnull=False),
                                   name="ratelimit_role_or_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user or self.role}: {self.runs_per_hour}/h"


class Plan(models.Model):
    """A goal-oriented plan of the agent_create_plan meta tool (seed 003 §4.3, seed 004 §1.1).

    `items` holds helena.agent.planning.PlanItem dicts. Every change raises `version`, and a change
    is only written if the version read is still current (optimistic lock), so two workers never
    advance one plan at once; the plan lives in the database and survives a worker restart.
    """

    class Status(models.TextChoices):
        PENDING_REVIEW = "pending_review", "wartet auf Prüfung"
        EXECUTING = "executing", "wird ausgeführt"
        WAITING = "waiting_on_user", "wartet auf Antwort"
        COMPLETED = "completed", "abgeschlossen"
        FAILED = "failed", "gescheitert"
        SUPERSEDED = "superseded", "ersetzt"

    class ExecutionMode(models.TextChoices):
        AUTO = "auto_execute", "sofort ausführen"
        DRAFT = "draft_only", "nur entwerfen"
        REVIEW = "agent_review", "prüfen lassen"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="plans")
    run = models.ForeignKey(AgentRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="plans")
    objective = models.TextField("Ziel")
    execution_mode = models.CharField(max_length=20, choices=ExecutionMode.choices,
                                      default=ExecutionMode.AUTO)
    requested_outputs = models.JSONField(default=list, blank=True)
    priority_entities = models.JSONField(default=list, blank=True)
    context_type = models.CharField("Kontext", max_length=20, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.EXECUTING, db_index=True)
    items = models.JSONField(default=list)
    version = models.PositiveIntegerField(default=1)
    # Earlier versions' items after a replan: {"version", "items", "reason"}.
    revisions = models.JSONField(default=list, blank=True)
    review = models.JSONField("Prüfung", default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "Plan"
        verbose_name_plural = "Pläne"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.objective[:60]} (v{self.version}, {self.get_status_display()})"


class PendingQuestion(models.Model):
    """A question of ask_user (seed 004 §1.3): the run paused on it; the user's next message in
    the conversation answers it and a new run resumes from the paused run's transcript."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="questions")
    run = models.ForeignKey(AgentRun, on_delete=models.CASCADE, related_name="questions")
    call_id = models.CharField(max_length=100)  # the ask_user tool call the answer belongs to
    question = models.TextField("Frage")
    answer_key = models.CharField(max_length=100)
    plan = models.ForeignKey(Plan, on_delete=models.SET_NULL, null=True, blank=True, related_name="questions")
    asked_at = models.DateTimeField(auto_now_add=True)
    answer = models.TextField("Antwort", blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    expired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "Rückfrage"
        verbose_name_plural = "Rückfragen"
        ordering = ["-asked_at"]
        constraints = [
            # At most one open question per conversation: the next message has one meaning.
            models.UniqueConstraint(fields=["conversation"], name="one_open_question_per_conversation",
                                    condition=models.Q(answered_at__isnull=True, expired_at__isnull=True)),
        ]

    def __str__(self) -> str:
        return self.question[:80]


class ErrorLog(models.Model):
    """What broke, where: failed model calls, tool failures, guard failures, run errors, socket failures.

    A row links to the run, the tool audit row or the ledger row it belongs to instead of copying
    them, so an admin sees at a glance what fails and can drill into the details.
    """

    class Kind(models.TextChoices):
        MODEL = "model", "Modellaufruf"
        TOOL = "tool", "Werkzeug"
        GUARD = "guard", "Schutzregel"
        RUN = "run", "Lauf"
        WEBSOCKET = "websocket", "Websocket"

    created_at = models.DateTimeField("Zeitpunkt", auto_now_add=True, db_index=True)
    kind = models.CharField("Art", max_length=12, choices=Kind.choices, db_index=True)
    code = models.CharField("Code", max_length=60, blank=True, db_index=True)
    message = models.TextField("Meldung", blank=True)
    context_type = models.CharField("Kontext", max_length=20, blank=True)
    mode = models.CharField("Ausführung", max_length=12, blank=True)
    tool = models.CharField("Werkzeug", max_length=100, blank=True)
    model = models.CharField("Modell", max_length=200, blank=True)
    run = models.ForeignKey(AgentRun, verbose_name="Lauf", on_delete=models.SET_NULL, null=True, blank=True,
                            related_name="errors")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name="Benutzer", on_delete=models.SET_NULL,
                             null=True, blank=True, related_name="+")
    tool_call = models.ForeignKey(ToolCallLog, verbose_name="Werkzeugaufruf", on_delete=models.SET_NULL,
                                  null=True, blank=True, related_name="+")
    llm_call = models.ForeignKey(LLMCall, verbose_name="Modellaufruf", on_delete=models.SET_NULL, null=True,
                                 blank=True, related_name="+")

    class Meta:
        verbose_name = "Fehlerprotokoll"
        verbose_name_plural = "Fehlerprotokoll"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.created_at:%d.%m.%Y %H:%M} {self.get_kind_display()} {self.code}"
