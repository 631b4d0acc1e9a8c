"""Conversations, their messages, the runs that answer them with their events, plans and the
questions that pause a run."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from helena.infra.timestamps import event_ts
from helena.models.choices import FinishReason, LLMProvider, RunMode


class Conversation(models.Model):
    """A chat between one user and Helena, global or bound to one Akte."""

    class ContextType(models.TextChoices):
        GLOBAL = "global", "Allgemein"
        AKTE = "akte", "Akte"
        FRISTEN = "fristen", "Fristen"
        RECHERCHE = "recherche", "Recherche"
        ENTWURF = "entwurf", "Entwurf"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations",
                             verbose_name="Benutzer")
    akte = models.ForeignKey("akten.Akte", on_delete=models.CASCADE, null=True, blank=True,
                             related_name="conversations", verbose_name="Akte")
    context_type = models.CharField("Kontext", max_length=20, choices=ContextType.choices,
                                    default=ContextType.GLOBAL)
    title = models.CharField("Titel", max_length=200, blank=True)
    # Helena titles it with the first question (helena/conversations/title.py) unless the user named it.
    titel_von_hand = models.BooleanField("Titel vom Benutzer", default=False)
    archiviert = models.BooleanField("im Archiv", default=False)
    angeheftet = models.BooleanField("oben angeheftet", default=False)
    # Deleting keeps the conversation and its audit (runs, events, tool calls): it only disappears for
    # the user. One with approved drafts is archived instead (helena/conversations/records.py).
    geloescht_am = models.DateTimeField("gelöscht am", null=True, blank=True)
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
        indexes = [
            models.Index(fields=["user", "archiviert", "-updated_at"], name="conv_user_list"),
            GinIndex(SearchVector("title", config="german"), name="conv_title_fts"),
        ]

    def __str__(self) -> str:
        return self.title or f"Unterhaltung {self.pk}"


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user", "Benutzer"
        ASSISTANT = "assistant", "Helena"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages",
                                     verbose_name="Unterhaltung")
    role = models.CharField("von", max_length=10, choices=Role.choices)
    text = models.TextField("Text")
    run = models.ForeignKey("AgentRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
                            verbose_name="Lauf")
    created_at = models.DateTimeField("Zeitpunkt", auto_now_add=True)

    class Meta:
        verbose_name = "Nachricht"
        verbose_name_plural = "Nachrichten"
        ordering = ["created_at", "id"]
        # The user's search over their conversations (helena.conversations.selectors.find_conversations).
        indexes = [GinIndex(SearchVector("text", config="german"), name="message_text_fts")]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.text[:60]}"


class AgentRun(models.Model):
    """One execution of the loop for one user message (or a continuation)."""

    BLANK_TASK = "leere_nachricht"  # task_type of a run answering a blank message (no model asked)

    Mode = RunMode
    FinishReason = FinishReason

    class Status(models.TextChoices):
        QUEUED = "queued", "wartet"
        RUNNING = "running", "läuft"
        FINISHED = "finished", "beendet"
        FAILED = "failed", "fehlgeschlagen"
        CANCELLED = "cancelled", "abgebrochen"

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="runs",
                                     verbose_name="Unterhaltung")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_runs",
                             verbose_name="Benutzer")
    parent = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True,
                               related_name="children", verbose_name="fortgesetzt aus Lauf")
    mode = models.CharField("Ausführung", max_length=12, choices=Mode.choices)
    tier = models.PositiveSmallIntegerField("Stufe", default=1)
    task_type = models.CharField("Aufgabentyp", max_length=40, blank=True)
    # The conversation's context when the run started (for analytics; the conversation may change).
    context_type = models.CharField("Kontext", max_length=20, blank=True, db_index=True)
    classifier_reason = models.CharField("Begründung der Einstufung", max_length=300, blank=True)
    model = models.CharField("Modell", max_length=200, blank=True)
    provider = models.CharField("Schnittstelle", max_length=20, blank=True, choices=LLMProvider.choices)
    status = models.CharField("Status", max_length=12, choices=Status.choices, default=Status.QUEUED,
                              db_index=True)
    finish_reason = models.CharField("Abschlussgrund", max_length=20, blank=True,
                                     choices=FinishReason.choices)
    text = models.TextField("Antwort", blank=True)
    prompt_tokens = models.PositiveIntegerField("Eingabe-Tokens", default=0)
    completion_tokens = models.PositiveIntegerField("Ausgabe-Tokens", default=0)
    cost = models.DecimalField("Kosten (EUR)", max_digits=12, decimal_places=6, default=Decimal("0"))
    cancel_requested = models.BooleanField("Abbruch angefordert", default=False)
    # The messages the loop ended with: a continuation in the background starts from here.
    transcript = models.JSONField("Verlauf", default=list, blank=True, encoder=DjangoJSONEncoder)
    # Set when this run resumes a run that paused on ask_user: its transcript ends with the answer.
    answers_question = models.ForeignKey("PendingQuestion", on_delete=models.SET_NULL, null=True, blank=True,
                                         related_name="+", verbose_name="beantwortet Rückfrage")
    celery_task_id = models.CharField("Hintergrundauftrag (ID)", max_length=64, blank=True)
    deadline = models.DateTimeField("spätestes Ende", null=True, blank=True, db_index=True)
    created_at = models.DateTimeField("angelegt am", auto_now_add=True)
    started_at = models.DateTimeField("gestartet am", null=True, blank=True)
    ended_at = models.DateTimeField("beendet am", null=True, blank=True)
    # Durable runs (helena/runs/durable/): the process running it, its last sign of life, its attempt
    # (raised whenever it goes on anew: its events are stored only in the current attempt), how often
    # another process took it over, and its state after the last completed step, from which it goes
    # on when its process is gone.
    owner = models.CharField("Prozess", max_length=120, blank=True)
    heartbeat_at = models.DateTimeField("letztes Lebenszeichen", null=True, blank=True)
    attempt = models.PositiveSmallIntegerField("Versuch", default=0)  # raised by every takeover or retake
    takeovers = models.PositiveSmallIntegerField("Übernahmen", default=0)  # by another process: capped
    checkpoint = models.JSONField("Zwischenstand", default=dict, blank=True, encoder=DjangoJSONEncoder)

    class Meta:
        verbose_name = "Agenten-Lauf"
        verbose_name_plural = "Agenten-Läufe"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["user", "status"], name="run_user_status"),
            # the watch's question every few seconds: running runs whose heartbeat lapsed
            models.Index(fields=["heartbeat_at"], name="run_running_heartbeat",
                         condition=models.Q(status="running")),
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.get_mode_display()} {self.get_status_display()}"

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class RunEvent(models.Model):
    """Every event of a run, in order: what the websocket streamed is what the API returns."""

    run = models.ForeignKey(AgentRun, on_delete=models.CASCADE, related_name="events", verbose_name="Lauf")
    seq = models.PositiveIntegerField("Nr.")
    type = models.CharField("Ereignis", max_length=30)
    payload = models.JSONField("Daten", default=dict, encoder=DjangoJSONEncoder)
    created_at = models.DateTimeField("Zeitpunkt", auto_now_add=True)

    class Meta:
        verbose_name = "Lauf-Ereignis"
        verbose_name_plural = "Lauf-Ereignisse"
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="runevent_unique_seq")]

    def __str__(self) -> str:
        return f"{self.run_id} #{self.seq} {self.type}"

    def as_dict(self) -> dict[str, Any]:
        """The event as the websocket sends it (docs/protocol.md): type, run_id, seq, ts and its fields."""
        return {"type": self.type, "run_id": str(self.run_id), "seq": self.seq,
                "ts": event_ts(self.created_at), **self.payload}




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

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="plans",
                                     verbose_name="Unterhaltung")
    run = models.ForeignKey(AgentRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="plans",
                            verbose_name="Lauf")
    objective = models.TextField("Ziel")
    execution_mode = models.CharField("Ausführungsart", max_length=20, choices=ExecutionMode.choices,
                                      default=ExecutionMode.AUTO)
    requested_outputs = models.JSONField("gewünschte Ergebnisse", default=list, blank=True)
    priority_entities = models.JSONField("Schwerpunkte", default=list, blank=True)
    context_type = models.CharField("Kontext", max_length=20, blank=True)
    status = models.CharField("Status", max_length=20, choices=Status.choices, default=Status.EXECUTING,
                              db_index=True)
    items = models.JSONField("Schritte", default=list)
    version = models.PositiveIntegerField("Version", default=1)
    # Earlier versions' items after a replan: {"version", "items", "reason"}.
    revisions = models.JSONField("frühere Fassungen", default=list, blank=True)
    review = models.JSONField("Prüfung", default=dict, blank=True)
    created_at = models.DateTimeField("angelegt am", auto_now_add=True)
    updated_at = models.DateTimeField("aktualisiert am", auto_now=True)

    class Meta:
        verbose_name = "Plan"
        verbose_name_plural = "Pläne"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.objective[:60]} (v{self.version}, {self.get_status_display()})"


class PendingQuestion(models.Model):
    """A question of ask_user (seed 004 §1.3): the run paused on it; the user's next message in
    the conversation answers it and a new run resumes from the paused run's transcript."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="questions",
                                     verbose_name="Unterhaltung")
    run = models.ForeignKey(AgentRun, on_delete=models.CASCADE, related_name="questions", verbose_name="Lauf")
    # The ask_user tool call the answer belongs to.
    call_id = models.CharField("Werkzeugaufruf (ID)", max_length=100)
    question = models.TextField("Frage")
    answer_key = models.CharField("Antwortschlüssel", max_length=100)
    plan = models.ForeignKey(Plan, on_delete=models.SET_NULL, null=True, blank=True, related_name="questions",
                             verbose_name="Plan")
    asked_at = models.DateTimeField("gestellt am", auto_now_add=True)
    answer = models.TextField("Antwort", blank=True)
    answered_at = models.DateTimeField("beantwortet am", null=True, blank=True)
    expired_at = models.DateTimeField("verfallen am", null=True, blank=True)

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


